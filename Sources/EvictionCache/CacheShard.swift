import EvictionCore

/// Why an entry left the cache.
public enum EvictionReason: String, Sendable, CaseIterable, Codable {
  /// The policy evicted it to make room under the cache's primary limit.
  case capacity
  /// Trimmed to the count limit (a secondary limit, or a lowered one).
  case count
  /// Trimmed to the cost limit (a secondary limit, or a lowered one).
  case cost
  /// Older than the age limit (or `trim(toAge:)`).
  case age
  /// Removed by `removeValue(forKey:)` or `removeAll()`.
  case removed
  /// Its value was replaced by a `set` of the same key.
  case replaced
  /// Never stored: heavier than the cache or than its shard, refused by the
  /// admission policy, a negative cost, or (``HeavyEntryRule/refuse``)
  /// heavier than the policy's segment. ``CacheStatistics/rejections``
  /// counts which rule refused, and ``MemoryCache/store(_:forKey:cost:ttl:)``
  /// returns it.
  case rejected
  /// Its time-to-live ran out (``MemoryCache/setValue(_:forKey:cost:ttl:)``):
  /// found expired by a read, write or removal, or by `trimExpired()`.
  case expired
}

extension EvictionReason {
  /// The reason's position in `allCases`.
  @inlinable var ordinal: Int {
    switch self {
    case .capacity: 0
    case .count: 1
    case .cost: 2
    case .age: 3
    case .removed: 4
    case .replaced: 5
    case .rejected: 6
    case .expired: 7
    }
  }
}

/// Which rule refused an entry (``EvictionReason/rejected``).
public enum RejectionRule: String, Sendable, CaseIterable, Codable {
  /// Its cost is above the cache's cost limit: no configuration could hold it.
  case heavierThanCache
  /// Its cost fits the cache's limit but not its shard's share of it
  /// (`striped(shards:)` splits the limit): ``MemoryCache/largestCacheableCost``.
  case heavierThanShard
  /// Heavier than the policy's segment (S3-FIFO's small queue, W-TinyLFU's
  /// window), with ``HeavyEntryRule/refuse``; or refused by the policy itself.
  case policy
  /// The cache's admission policy (``CacheAdmission``) refused it.
  case admission
  /// Its cost was negative (from `cost:` or the cache's cost closure).
  case invalidCost
}

/// What a cache weighing costs does with an entry heavier than its policy's
/// segment takes (S3-FIFO's small queue is a tenth of the capacity,
/// W-TinyLFU's window a hundredth) but no heavier than the cache.
public enum HeavyEntryRule: String, Sendable, CaseIterable {
  /// Cached: the policy weighs it as the heaviest entry its segment takes
  /// (the heaviest an empty policy of the same capacity admits, found once),
  /// and the cache keeps its true cost within the cost limit by evicting
  /// the policy's victims before it goes in (reason `capacity`). Caffeine's
  /// window likewise takes any entry the whole cache could hold. A refusal
  /// an empty policy would not make (GDSF ranking a newcomer below every
  /// entry, a policy's segments moved since) stands, as rule `policy`; an
  /// admission policy judges the entry before anything leaves for it.
  case admit
  /// Refused (reason `rejected`, rule ``RejectionRule/policy``), as the
  /// policy's paper, libCacheSim and `evlab replay` do, and the policy
  /// sized as the simulator sizes it (W-TinyLFU's sketch for one entry per
  /// unit of capacity, so per byte): the cache then hits exactly where the
  /// replay does, at the replay's memory.
  case refuse
}

/// Counters of one cache (all shards).
public struct CacheStatistics: Sendable, Equatable {
  /// Reads that found a value.
  public var hits = 0
  /// Reads that found none, or only an expired entry or one past the age limit.
  public var misses = 0
  /// Writes, stored or not (rejected and expired ones included).
  public var sets = 0
  /// Entries that left, or were never stored, by reason (removals and replacements included).
  public var evictions: [EvictionReason: Int] = [:]
  /// Accesses (hits, and writes in place) the policy never heard of: the
  /// `buffered` strategy's ring buffers were full or being drained (always
  /// 0 for the other strategies).
  public var droppedAccesses = 0
  /// Entries never stored (``EvictionReason/rejected``), by the rule that refused them.
  public var rejections: [RejectionRule: Int] = [:]
  /// Loads run by get-or-load (``MemoryCache/value(forKey:cost:ttl:timeout:orLoad:)``),
  /// one per missing key however many wait for it.
  public var loads = 0
  /// Loads whose loader threw (nothing was cached).
  public var loadFailures = 0
  /// The loads' time, summed.
  public var loadTime = Duration.zero
  /// Reloads started because an entry was older than a read's
  /// `refreshAfter` (``MemoryCache/value(forKey:cost:ttl:refreshAfter:serveStale:timeout:orLoad:)``):
  /// its value was served meanwhile. Not counted in `loads`.
  public var refreshes = 0
  /// Reloads that threw: the entry kept its value.
  public var refreshFailures = 0
  /// Hits that served an entry past its time-to-live, within a read's
  /// `serveStale` grace, while a reload replaced it (counted in `hits` too).
  public var staleHits = 0
  /// Sets that replaced a cached value without the policy lock (`buffered`
  /// only; counted in `sets` and in the `replaced` evictions too).
  public var writesInPlace = 0
  /// Entries cached when the statistics were taken.
  public var count = 0
  /// The cached entries' costs, summed, when the statistics were taken.
  public var cost = 0

  /// Every counter at zero.
  public init() {}

  /// Hits as a share of reads (hits and misses); 0 before any read.
  public var hitRatio: Double { hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses) }

  mutating func merge(_ other: CacheStatistics) {
    hits += other.hits
    misses += other.misses
    sets += other.sets
    evictions.merge(other.evictions, uniquingKeysWith: +)
    droppedAccesses += other.droppedAccesses
    rejections.merge(other.rejections, uniquingKeysWith: +)
    loads += other.loads
    loadFailures += other.loadFailures
    loadTime += other.loadTime
    refreshes += other.refreshes
    refreshFailures += other.refreshFailures
    staleHits += other.staleHits
    writesInPlace += other.writesInPlace
    count += other.count
    cost += other.cost
  }
}

/// One shard: a policy, the values its slots index, the limits, and (when
/// ages are tracked) an age list. Not thread-safe: `MemoryCache` calls it
/// under the shard's lock.
///
/// **Columns.** What the cache keeps beside the policy's own entry lives in
/// columns indexed by the policy's slots, each allocated only when it is
/// needed: the values, one occupancy bit per slot, the costs (from the first
/// non-zero cost), and the age list (from the cache's creation with an age
/// limit or `tracksAges`, else from the first age limit or age trim). A
/// count-limited cache of integers therefore pays 8 bytes a slot beside the
/// policy, as Caffeine's size-bounded cache pays no access time unless it
/// expires after access.
@usableFromInline
final class CacheShard<Key: Hashable, Value>: @unchecked Sendable {
  /// A slot's place in the age list, newest first.
  @usableFromInline
  struct AgeLink {
    /// Last read or write, on the cache's clock (nanoseconds).
    @usableFromInline var stamp: UInt64
    /// The neighbours (-1 at the list's ends).
    @usableFromInline var newer: Slot
    @usableFromInline var older: Slot
  }

  /// When an entry expires: `at`, on the cache's clock; its place in the
  /// order of the stores; and, for an entry that expires when idle, how
  /// long a read extends it (`idle`), never past the write's own deadline.
  @usableFromInline
  struct Expiry: Sendable {
    @usableFromInline var at: UInt64
    @usableFromInline var serial: UInt64
    @usableFromInline var idle: UInt64
    @usableFromInline var deadline: UInt64
    @inlinable init(at: UInt64, serial: UInt64, idle: UInt64, deadline: UInt64) {
      self.at = at
      self.serial = serial
      self.idle = idle
      self.deadline = deadline
    }
  }

  /// What became of an entry while a reload refreshed it.
  @usableFromInline
  enum RefreshedEntry: Sendable {
    /// Still cached as it was: the reloaded value replaces it.
    case intact
    /// Written again or removed: the newer state stands.
    case superseded
    /// Evicted, aged out or expired: the reloaded value is stored if the
    /// key is still missing, as a load's would be.
    case left
  }

  @usableFromInline let lock: ShardLock
  /// ``lock``, held unretained: taking it writes no reference count.
  @usableFromInline let unretainedLock: Unmanaged<ShardLock>
  /// The `buffered` strategy's lock-free read side (nil for the others).
  @usableFromInline let reads: BufferedReads<Key, Value>?
  @usableFromInline let policy: AnyCachePolicy<Key>
  /// Slots the columns hold (a multiple of 64).
  @usableFromInline @exclusivity(unchecked) var slotCapacity = 64
  /// Each slot's value, initialised only while its occupancy bit is set;
  /// unused under `buffered`, whose read index holds the values (a write
  /// in place changes only that).
  @usableFromInline @exclusivity(unchecked) var values: UnsafeMutablePointer<Value>
  /// One bit per slot: whether it holds an entry (`values` is initialised).
  @usableFromInline @exclusivity(unchecked) var occupancy: UnsafeMutablePointer<UInt64>
  /// Each slot's cost; nil while every cost stored has been 0.
  @usableFromInline @exclusivity(unchecked) var costs: UnsafeMutablePointer<Int64>?
  /// Each occupied slot's stamp and age-list links; nil while ages are not tracked.
  @usableFromInline @exclusivity(unchecked) var ages: UnsafeMutablePointer<AgeLink>?
  /// When each occupied slot's entry was written (the cache's clock); nil
  /// until the first read that may refresh
  /// (``MemoryCache/value(forKey:cost:ttl:refreshAfter:serveStale:timeout:orLoad:)``).
  @usableFromInline @exclusivity(unchecked) var writes: UnsafeMutablePointer<UInt64>?
  /// The keys being refreshed, and what became of each one's entry since
  /// its refresh began. Empty while no refresh runs, and then never read.
  @usableFromInline @exclusivity(unchecked) var refreshes: [Key: RefreshedEntry] = [:]
  /// The age list's ends (-1 when empty or untracked).
  @usableFromInline @exclusivity(unchecked) var newest: Slot = -1
  @usableFromInline @exclusivity(unchecked) var oldest: Slot = -1
  /// The sum of the entries' costs: 128 bits, so that costs up to
  /// `Int64.max` each never wrap, whatever their number.
  @usableFromInline @exclusivity(unchecked) var cost: Int128 = 0
  /// Whether the policy's weights are costs (else every entry weighs 1).
  @usableFromInline let weighsCost: Bool
  @usableFromInline @exclusivity(unchecked) var countLimit: Int
  /// The entries' costs summed stay at most this (`Int64.max`: no limit).
  /// With `weighsCost` it is the policy's capacity or a lower limit; the
  /// policy keeps its own weights within its capacity, and this binds
  /// where the policy weighs an entry less than its cost (``HeavyEntryRule/admit``).
  @usableFromInline @exclusivity(unchecked) var costLimit: Int64
  /// What to do with an entry heavier than the policy's segment takes.
  @usableFromInline let heavyEntries: HeavyEntryRule
  /// The heaviest weight an empty policy like this one admits, found by
  /// `probe` at the first set the policy refuses (the policy's capacity
  /// until then, or without a probe). Heavier entries are weighed at this
  /// (``HeavyEntryRule/admit``).
  @usableFromInline @exclusivity(unchecked) var weightBound: Int64
  /// Whether `weightBound` has been probed.
  @usableFromInline @exclusivity(unchecked) var boundProbed = false
  /// Whether an empty policy like this one admits `key` at a weight (nil
  /// for a policy built by hand).
  @usableFromInline let probe: ((Key, Int64) -> Bool)?
  /// Builds an empty policy like this shard's (nil for a policy built by
  /// hand): a snapshot's state is tried on one before the shard takes it.
  @usableFromInline let emptyPolicy: (() -> AnyCachePolicy<Key>)?
  /// Whether an admission policy stands in front of the policy: its
  /// refusals are not the weight's.
  @usableFromInline let isGated: Bool
  /// The cache's whole primary limit, to tell a rejection by the cache's
  /// limit from one by this shard's share of it.
  @usableFromInline @exclusivity(unchecked) var cacheCapacity: Int64
  /// The heaviest cost the admission lets in (`size:max=`), judged on the
  /// true cost before the policy weighs an entry less.
  @usableFromInline let largestAdmitted: Int64
  /// `.max` when there is none; any other value implies `ages != nil`.
  @usableFromInline @exclusivity(unchecked) var ageLimit: UInt64
  /// When each entry stored with a time-to-live expires (the cache's clock,
  /// nanoseconds): it is expired at any later instant; and its place in
  /// the order of the stores, so `trimExpired` removes in an order of its
  /// own (a policy that draws at random sees the same removals in every
  /// run). Empty while no entry has one, and then never read.
  @usableFromInline @exclusivity(unchecked) var expiries: [Key: Expiry] = [:]
  @usableFromInline @exclusivity(unchecked) var expirySerial: UInt64 = 0
  @usableFromInline @exclusivity(unchecked) var tick: Int64 = 0
  /// The key of a `get` that just missed: a `set` of it that follows at once
  /// admits without a second lookup, as the replay does (a miss's lookup may
  /// have consumed a ghost entry that the admission needs).
  @usableFromInline @exclusivity(unchecked) var pendingMiss: Key?
  @usableFromInline @exclusivity(unchecked) var statistics = CacheStatistics()
  /// Departures by reason (``EvictionReason/ordinal``).
  @usableFromInline let departures: UnsafeMutablePointer<Int>
  /// Whether departing entries are collected for release after unlocking:
  /// when there is an eviction handler, or when releasing a key or value may
  /// run code (a class, a string's buffer). Plain values are dropped in place.
  @usableFromInline let collectsDepartures: Bool
  /// Entries that left during the current operation, handed out after unlocking.
  @usableFromInline @exclusivity(unchecked) var departed: [(key: Key, value: Value, reason: EvictionReason)] = []

  @usableFromInline init(
    policy: AnyCachePolicy<Key>, lock: ShardLock, weighsCost: Bool, countLimit: Int, costLimit: Int64,
    ageLimit: UInt64, tracksAges: Bool, collectsDepartures: Bool, reads: BufferedReads<Key, Value>? = nil,
    heavyEntries: HeavyEntryRule = .admit, probe: ((Key, Int64) -> Bool)? = nil,
    emptyPolicy: (() -> AnyCachePolicy<Key>)? = nil, isGated: Bool = false,
    cacheCapacity: Int64? = nil, largestAdmitted: Int64 = .max
  ) {
    self.largestAdmitted = largestAdmitted
    self.reads = reads
    self.heavyEntries = heavyEntries
    self.probe = probe
    self.emptyPolicy = emptyPolicy
    self.isGated = isGated
    weightBound = policy.capacity
    self.cacheCapacity = cacheCapacity ?? policy.capacity
    self.collectsDepartures = collectsDepartures || !_isPOD(Key.self) || !_isPOD(Value.self)
    self.policy = policy
    self.lock = lock
    unretainedLock = Unmanaged.passUnretained(lock)
    values = .allocate(capacity: reads == nil ? slotCapacity : 0)
    occupancy = .allocate(capacity: slotCapacity / 64)
    occupancy.initialize(repeating: 0, count: slotCapacity / 64)
    departures = .allocate(capacity: EvictionReason.allCases.count)
    departures.initialize(repeating: 0, count: EvictionReason.allCases.count)
    self.weighsCost = weighsCost
    self.countLimit = countLimit
    self.costLimit = costLimit
    self.ageLimit = ageLimit
    if tracksAges || ageLimit != .max { trackAges(now: 0) }
    if !weighsCost && ages == nil { reads?.startWritesInPlace() }
  }

  deinit {
    if !_isPOD(Value.self) && reads == nil { forEachOccupied { (values + $0).deinitialize(count: 1) } }
    values.deallocate()
    occupancy.deallocate()
    costs?.deallocate()
    ages?.deallocate()
    writes?.deallocate()
    departures.deallocate()
  }

  // MARK: Operations (caller holds the lock)

  /// Runs `body` under the shard's lock: with buffered reads, the recorded
  /// hits reach the policy first, and readers may use the table again after.
  /// A get, set or remove (`ownRing`) replays only the calling thread's
  /// hits: on one thread that is every hit, so decisions stay exact, and a
  /// write never reads another core's ring (those drain when they fill, or
  /// with their own thread's next write).
  @inlinable
  func exclusive<R>(ownRing: Bool = false, _ body: () -> R) -> R {
    unretainedLock._withUnsafeGuaranteedRef { lock in
      lock.exclusive {
        if let reads { drainReads(only: ownRing ? reads.currentStripe().index : -1) }
        defer { reads?.endWrite() }
        return body()
      }
    }
  }

  /// Replays the hits served without the lock into the policy, in order
  /// (every stripe's, or only `stripe`'s).
  @inlinable
  func drainReads(only stripe: Int = -1) {
    guard let reads else { return }
    let (requests, hints) = (reads.requests, reads.hints)
    // Most of a batch shares the drain's time: its second is worked out once.
    var (lastTime, lastSecond): (UInt64, Int64) = (.max, 0)
    let drained = reads.drain(only: stripe) { batch, drainTime in
      let hinted = BufferedReads<Key, Value>.hinted
      for i in batch.indices {
        // A key evicted since it was read is passed over. Its tick counts
        // all the same: under `mutex` the read it stands for had one.
        tick &+= 1
        let time = batch[i].time >= hinted ? drainTime : batch[i].time
        if time != lastTime { (lastTime, lastSecond) = (time, Int64(time / 1_000_000_000)) }
        (requests + i).initialize(
          to: Request(key: batch[i].key, weight: 1, time: tick, timestamp: lastSecond, carriesWeight: false))
        // The slot the read found the key at, while it still holds an
        // entry: the policy replays the hit there if that entry is the key's.
        let slot = batch[i].time >= hinted ? Int(Slot(truncatingIfNeeded: batch[i].time)) : -1
        hints[i] = slot >= 0 && slot < slotCapacity && isOccupied(slot) ? Slot(truncatingIfNeeded: slot) : -1
      }
      policy.lookupEachIfResident(
        UnsafeBufferPointer(start: requests, count: batch.count), hints,
        { slot, key in
          self.depart(slot, key, .capacity)
          // A replayed hit evicted (`PolicyTraits.evictsOnHit`): the slot
          // is free now, and a later hint to it would find a stale key.
          for j in batch.indices where hints[j] == slot { hints[j] = -1 }
        }
      ) { i, slot in
        // (The time worked out here again: a closure in a constant, shared
        // by the loop and this closure, was allocated at every drain.)
        if self.ages != nil { self.touch(slot, batch[i].time >= hinted ? drainTime : batch[i].time) }
      }
      requests.deinitialize(count: batch.count)
    }
    // As a hit under the lock would have, the hits forget an earlier miss.
    if drained > 0 { pendingMiss = nil }
  }

  /// A read; `counts`: a hit or miss in the statistics (a get-or-load's
  /// second look, under the lock, is not a request of its own).
  @inlinable
  func value(forKey key: Key, now: UInt64, counts: Bool = true) -> Value? {
    hit(key, now: now, counts: counts)?.value
  }

  /// ``value(forKey:now:counts:)``, and the slot that held it. With a
  /// `staleGrace`, an entry that expired by its time-to-live no longer than
  /// that before `now` is served as a stale hit (`stale` true) instead of
  /// removed: it stays, expired, while a reload replaces it, and its idle
  /// expiry does not slide. An entry past the age limit is never served: it
  /// leaves (reason `age`) and the read misses.
  @inlinable
  func hit(_ key: Key, now: UInt64, counts: Bool, staleGrace: UInt64? = nil)
    -> (value: Value, slot: Int, stale: Bool)?
  {
    let stale = staleGrace.map { isWithinGrace(key, now: now, grace: $0) } ?? false
    if !stale { expireIfDue(key, now: now) }
    tick &+= 1
    let request = Request(
      key: key, weight: 1, time: tick, timestamp: Int64(now / 1_000_000_000), carriesWeight: false)
    guard let slot = policy.lookup(request, { self.depart($0, $1, .capacity) }) else {
      if counts { statistics.misses &+= 1 }
      pendingMiss = key
      return nil
    }
    pendingMiss = nil
    let i = Int(slot)
    if let ages {
      if ageLimit != .max && elapsed(since: ages[i].stamp, until: now) > ageLimit {
        _ = policy.remove(key)
        depart(slot, key, .age)
        if counts { statistics.misses &+= 1 }
        return nil
      }
      touch(slot, now)
      if let reads, ageLimit != .max { reads.refresh(key, stamp: ages[i].stamp) }
    }
    if !stale && !expiries.isEmpty { slideExpiry(of: key, now: now) }
    if counts { statistics.hits &+= 1 }
    if stale { statistics.staleHits &+= 1 }
    if let reads { return reads.value(of: key).map { ($0, i, stale) } }
    return (values[i], i, stale)
  }

  /// Whether `key` expired by its time-to-live no longer than `grace`
  /// before `now` (see ``hit(_:now:counts:staleGrace:)``).
  @inlinable
  func isWithinGrace(_ key: Key, now: UInt64, grace: UInt64) -> Bool {
    guard !expiries.isEmpty, let expiry = expiries[key] else { return false }
    return expiry.at < now && now &- expiry.at <= grace
  }

  /// Stores `value` (see ``MemoryCache/setValue(_:forKey:cost:ttl:)``)
  /// and says what became of it.
  @inlinable @discardableResult
  func setValue(_ value: Value, forKey key: Key, cost: Int64, ttl: UInt64 = 0, idle: UInt64 = 0, now: UInt64)
    -> StoreOutcome
  {
    statistics.sets &+= 1
    // A set that cannot be stored changes nothing: the key's cached value stays.
    if cost < 0 { return .rejected(reject(key, value, .invalidCost)) }
    if let rule = refusalBeforeAdmission(cost) { return .rejected(reject(key, value, rule)) }
    noteChange(of: key, nil)
    expireIfDue(key, now: now)
    tick &+= 1
    // A new cost is the shard's to handle (below), not the lookup's.
    var weighed = Request(
      key: key, weight: weighsCost ? min(cost, weightBound) : 1, time: tick,
      timestamp: Int64(now / 1_000_000_000), carriesWeight: false)
    var found: Slot? = nil
    if pendingMiss != key {
      found = policy.lookup(weighed, { self.depart($0, $1, .capacity) })
    }
    pendingMiss = nil
    if let slot = found {
      let i = Int(slot)
      if !weighsCost || slotCost(i) == cost {
        departures[EvictionReason.replaced.ordinal] &+= 1
        setCost(cost, at: i)
        if ages != nil { touch(slot, now) }
        stampWrite(i, now)
        setExpiry(of: key, ttl: ttl, idle: idle, now: now)
        if let reads {
          let old = reads.store(
            key, value, slot: slot, stamp: ages?[i].stamp ?? now, cost: cost, expires: ttl != 0 || idle != 0,
            returnsOld: collectsDepartures)
          if let old { departed.append((key, old, .replaced)) }
        } else {
          if collectsDepartures { departed.append((key, values[i], .replaced)) }
          values[i] = value
        }
        return enforceLimits() && !policy.contains(key) ? .evicted : .stored
      }
      // A new weight: the policy admits the entry afresh.
      _ = policy.remove(key)
      depart(slot, key, .replaced)
    }
    if weighsCost && weighed.weight < cost { makeRoom(for: cost) }
    var admitted = policy.admit(weighed, { self.depart($0, $1, .capacity) })
    // Refused for its weight alone (an empty policy refuses it too): weigh
    // it as the heaviest entry the policy takes, and ask once more.
    var byWeight = false
    if admitted == nil && weighsCost && heavyEntries == .admit && weighed.weight > 1 {
      probeWeightBound(key)
      if weighed.weight > weightBound {
        byWeight = true
        weighed.weight = weightBound
        makeRoom(for: cost)
        admitted = policy.admit(weighed, { self.depart($0, $1, .capacity) })
      }
    }
    guard let slot = admitted else {
      if weighsCost && cost > policy.capacity {
        return .rejected(reject(key, value, cost > cacheCapacity ? .heavierThanCache : .heavierThanShard))
      }
      return .rejected(reject(key, value, isGated && !byWeight ? .admission : .policy))
    }
    let i = Int(slot)
    if i >= slotCapacity { growColumns(to: i + 1) }
    assert(!isOccupied(i), "the policy admitted into slot \(i), which holds an entry")
    if reads == nil { (values + i).initialize(to: value) }
    occupancy[i >> 6] |= 1 << UInt64(i & 63)
    setCost(cost, at: i)
    stampWrite(i, now)
    if let ages {
      ages[i].stamp = now
      linkNewest(slot)
    }
    setExpiry(of: key, ttl: ttl, idle: idle, now: now)
    reads?.store(
      key, value, slot: slot, stamp: ages?[i].stamp ?? now, cost: cost, expires: ttl != 0 || idle != 0,
      returnsOld: false)
    return enforceLimits() && !policy.contains(key) ? .evicted : .stored
  }

  /// The rule that refuses an entry of `cost` before the policy sees it.
  /// (Under ``HeavyEntryRule/refuse`` the policy judges a weight above its
  /// capacity itself, as in the replay: ``nscache-linux`` takes it.)
  @inlinable
  func refusalBeforeAdmission(_ cost: Int64) -> RejectionRule? {
    let largest = weighsCost && heavyEntries == .refuse ? costLimit : largestCost
    if cost > largest { return cost > cacheCapacity ? .heavierThanCache : .heavierThanShard }
    return cost > largestAdmitted ? .admission : nil
  }

  /// Evicts the policy's victims (reason `capacity`) until an entry of
  /// `cost`, which the policy weighs less, fits the cost limit, before it
  /// is admitted: trimming after would evict the new entry first wherever
  /// the policy ranks a newcomer last (SLRU's probation). Not in front of
  /// an admission policy, which must judge the entry before anything
  /// leaves for it.
  @usableFromInline
  func makeRoom(for cost: Int64) {
    guard !isGated else { return }
    while self.cost + Int128(cost) > Int128(costLimit), policy.evictOne({ self.depart($0, $1, .capacity) }) {}
  }

  /// Finds ``weightBound`` once: the heaviest weight an empty policy like
  /// this one admits (a binary search over its capacity).
  @usableFromInline
  func probeWeightBound(_ key: Key) {
    guard !boundProbed, let probe else { return }
    boundProbed = true
    if let bound = heaviestAdmitted(upTo: policy.capacity, { probe(key, $0) }) { weightBound = bound }
  }

  /// The heaviest entry this shard stores.
  @inlinable
  var largestCost: Int64 { weighsCost ? min(costLimit, policy.capacity) : costLimit }

  /// Hands back an entry that was never stored.
  @inlinable
  func reject(_ key: Key, _ value: Value, _ rule: RejectionRule) -> RejectionRule {
    if collectsDepartures { departed.append((key, value, .rejected)) }
    departures[EvictionReason.rejected.ordinal] &+= 1
    statistics.rejections[rule, default: 0] &+= 1
    return rule
  }

  /// A set whose time-to-live has already run out (zero or negative): the
  /// key's cached value is replaced by one that is expired at once, so it
  /// leaves as `replaced` and the new value as `expired`.
  @usableFromInline func setExpired(_ value: Value, forKey key: Key, now: UInt64) {
    expireIfDue(key, now: now)
    tick &+= 1
    statistics.sets &+= 1
    pendingMiss = nil
    noteChange(of: key, nil)
    if let slot = policy.remove(key) { depart(slot, key, .replaced) }
    if collectsDepartures { departed.append((key, value, .expired)) }
    departures[EvictionReason.expired.ordinal] &+= 1
  }

  /// Removes `key` if its time-to-live ran out before `now`. A removal
  /// changes the policy, so a pending miss no longer stands.
  @inlinable @inline(__always)
  func expireIfDue(_ key: Key, now: UInt64) {
    guard !expiries.isEmpty, let expiry = expiries[key], expiry.at < now else { return }
    pendingMiss = nil
    if let slot = policy.remove(key) { depart(slot, key, .expired) }
  }

  /// Gives `key`, just stored, its expiry: `ttl` nanoseconds from `now`,
  /// or `idle` nanoseconds from its last read or write, whichever comes
  /// first; none when both are 0.
  @inlinable
  func setExpiry(of key: Key, ttl: UInt64, idle: UInt64 = 0, now: UInt64) {
    if ttl != 0 || idle != 0 {
      expirySerial &+= 1
      let deadline = ttl != 0 ? now &+ min(ttl, .max &- now) : .max
      let at = idle != 0 ? min(deadline, now &+ min(idle, .max &- now)) : deadline
      expiries[key] = Expiry(at: at, serial: expirySerial, idle: idle, deadline: deadline)
    } else if !expiries.isEmpty {
      expiries[key] = nil
    }
  }

  /// A read of `key` at `now` extends an idle expiry (never past its
  /// write's deadline, nor below what a later read already set: the clock
  /// is read before the lock).
  @inlinable
  func slideExpiry(of key: Key, now: UInt64) {
    guard let expiry = expiries[key], expiry.idle != 0 else { return }
    let slid = min(expiry.deadline, now &+ min(expiry.idle, .max &- now))
    if slid > expiry.at { expiries[key]!.at = slid }
  }

  /// Removes every entry whose time-to-live ran out before `now`.
  func trimExpired(now: UInt64) {
    let due = expiries.filter { $0.value.at < now }.sorted {
      ($0.value.at, $0.value.serial) < ($1.value.at, $1.value.serial)
    }
    if !due.isEmpty { pendingMiss = nil }
    for (key, _) in due {
      if let slot = policy.remove(key) { depart(slot, key, .expired) }
    }
  }

  /// Whether `key` is cached and not expired at `now` (not an access).
  @inlinable
  func contains(_ key: Key, now: UInt64) -> Bool {
    guard policy.contains(key) else { return false }
    guard !expiries.isEmpty, let expiry = expiries[key] else { return true }
    return expiry.at >= now
  }

  /// Removes `key`; an expired entry leaves as `expired`, and counts as
  /// not cached. A removal that finds nothing leaves the policy as it was,
  /// so a pending miss still stands (a `set` after it admits at once).
  @inlinable
  func removeValue(forKey key: Key, now: UInt64) -> Bool {
    expireIfDue(key, now: now)
    guard let slot = policy.remove(key) else { return false }
    pendingMiss = nil
    depart(slot, key, .removed)
    return true
  }

  func removeAll() {
    pendingMiss = nil
    while policy.evictOne({ self.depart($0, $1, .removed) }) {}
  }

  @usableFromInline func trim(toCount limit: Int) {
    while policy.count() > limit, policy.evictOne({ self.depart($0, $1, .count) }) {}
  }

  @usableFromInline func trim(toCost limit: Int64) {
    while cost > Int128(limit), policy.evictOne({ self.depart($0, $1, .cost) }) {}
  }

  /// Removes the entries not read or written within `age`. A shard that did
  /// not track ages starts now, with every entry read at `now`.
  func trim(toAge age: UInt64, now: UInt64) {
    guard let ages else { return trackAges(now: now) }
    while oldest >= 0 && elapsed(since: ages[Int(oldest)].stamp, until: now) > age {
      let slot = oldest
      let key = policy.keyAt(slot)
      _ = policy.remove(key)
      depart(slot, key, .age)
    }
  }

  /// Records slot `i`'s write at `now` (writes tracked).
  @inlinable @inline(__always)
  func stampWrite(_ i: Int, _ now: UInt64) {
    if let writes { writes[i] = now }
  }

  /// Starts tracking writes: every entry cached now counts as written at
  /// `now`. A write in place (`buffered`) would not be stamped, so those
  /// stop, as they do for ages.
  func trackWrites(now: UInt64) {
    guard writes == nil else { return }
    let column = UnsafeMutablePointer<UInt64>.allocate(capacity: slotCapacity)
    column.initialize(repeating: now, count: slotCapacity)
    writes = column
    reads?.stopWritesInPlace()
  }

  /// A read (counted as ``value(forKey:now:counts:)`` counts it) that
  /// also says when the value found was written, and whether it was served
  /// stale (see ``hit(_:now:counts:staleGrace:)``). Starts tracking writes
  /// if that has not begun.
  func valueAndWrite(forKey key: Key, now: UInt64, staleGrace: UInt64? = nil)
    -> (value: Value, written: UInt64, stale: Bool)?
  {
    if writes == nil { trackWrites(now: now) }
    guard let (value, i, stale) = hit(key, now: now, counts: true, staleGrace: staleGrace) else { return nil }
    return (value, writes![i], stale)
  }

  /// Marks `key` as being refreshed: the reload stores its value only if
  /// nothing wrote or removed the key meanwhile (``refreshes``).
  func beginRefresh(of key: Key) { refreshes[key] = .intact }

  /// Ends `key`'s refresh: what happened to the entry meanwhile.
  func endRefresh(of key: Key) -> RefreshedEntry { refreshes.removeValue(forKey: key) ?? .superseded }

  /// A write or a departure of `key` while it is being refreshed.
  @inlinable @inline(__always)
  func noteChange(of key: Key, _ reason: EvictionReason?) {
    guard !refreshes.isEmpty, let state = refreshes[key], state != .superseded else { return }
    switch reason {
    case nil, .replaced?, .removed?: refreshes[key] = .superseded
    default: refreshes[key] = .left
    }
  }

  /// Starts the age list: every entry cached now counts as read at `now`.
  func trackAges(now: UInt64) {
    guard ages == nil else { return }
    let links = UnsafeMutablePointer<AgeLink>.allocate(capacity: slotCapacity)
    links.initialize(repeating: AgeLink(stamp: 0, newer: -1, older: -1), count: slotCapacity)
    ages = links
    reads?.stopWritesInPlace()
    reads?.shared.pointee.timesHits.store(true, ordering: .relaxed)
    forEachOccupied { i in
      links[i].stamp = now
      linkNewest(Slot(i))
    }
  }

  /// Secondary limits (and primary ones lowered below the policy's capacity).
  /// Returns whether it trimmed.
  @inlinable @discardableResult
  func enforceLimits() -> Bool {
    var trimmed = false
    if policy.count() > countLimit {
      trim(toCount: countLimit)
      trimmed = true
    }
    if cost > Int128(costLimit) {
      trim(toCost: costLimit)
      trimmed = true
    }
    return trimmed
  }

  /// Grows every column to hold slot `minimum - 1`.
  @usableFromInline
  func growColumns(to minimum: Int) {
    let old = slotCapacity
    var capacity = old
    while capacity < minimum { capacity *= 2 }
    // Under `buffered` the read index holds the values.
    if reads == nil {
      let grownValues = UnsafeMutablePointer<Value>.allocate(capacity: capacity)
      if _isPOD(Value.self) {
        UnsafeMutableRawPointer(grownValues).copyMemory(from: values, byteCount: old * MemoryLayout<Value>.stride)
      } else {
        forEachOccupied { (grownValues + $0).moveInitialize(from: values + $0, count: 1) }
      }
      values.deallocate()
      values = grownValues
    }
    occupancy = Self.grow(occupancy, from: old / 64, to: capacity / 64, filling: 0)
    if let costs { self.costs = Self.grow(costs, from: old, to: capacity, filling: 0) }
    if let ages {
      self.ages = Self.grow(ages, from: old, to: capacity, filling: AgeLink(stamp: 0, newer: -1, older: -1))
    }
    if let writes { self.writes = Self.grow(writes, from: old, to: capacity, filling: 0) }
    slotCapacity = capacity
  }

  /// A column of trivial elements moved to a larger allocation, the new part filled.
  @usableFromInline
  static func grow<T>(_ column: UnsafeMutablePointer<T>, from old: Int, to new: Int, filling: T)
    -> UnsafeMutablePointer<T>
  {
    let grown = UnsafeMutablePointer<T>.allocate(capacity: new)
    grown.moveInitialize(from: column, count: old)
    (grown + old).initialize(repeating: filling, count: new - old)
    column.deallocate()
    return grown
  }

  /// Hands the departing entries to the caller, leaving an empty list.
  @inlinable
  func takeDeparted() -> [(key: Key, value: Value, reason: EvictionReason)] {
    if departed.isEmpty { return [] }
    var out: [(key: Key, value: Value, reason: EvictionReason)] = []
    swap(&out, &departed)
    return out
  }

  func snapshot() -> CacheStatistics {
    var s = statistics
    var replacedInPlace = 0
    if let reads {
      let (hits, dropped, updates) = reads.counts()
      s.hits += hits
      s.sets += updates
      s.droppedAccesses = dropped
      s.writesInPlace = updates
      replacedInPlace = updates
    }
    for reason in EvictionReason.allCases {
      let n = departures[reason.ordinal] + (reason == .replaced ? replacedInPlace : 0)
      if n > 0 { s.evictions[reason] = n }
    }
    s.count = policy.count()
    s.cost = Int(clamping: cost)
    return s
  }

  // MARK: Bookkeeping

  /// An entry left the policy: move its value out, drop it from the age list.
  @inlinable
  func depart(_ slot: Slot, _ key: Key, _ reason: EvictionReason) {
    let i = Int(slot)
    if ages != nil { unlink(slot) }
    if !expiries.isEmpty { expiries[key] = nil }
    noteChange(of: key, reason)
    if let costs {
      cost -= Int128(costs[i])
      costs[i] = 0
    }
    occupancy[i >> 6] &= ~(1 << UInt64(i & 63))
    if let reads {
      let value = reads.remove(key, returnsValue: collectsDepartures)
      if let value { departed.append((key, value, reason)) }
    } else {
      let value = (values + i).move()
      if collectsDepartures { departed.append((key, value, reason)) }
    }
    departures[reason.ordinal] &+= 1
  }

  /// Slot `i`'s cost (0 without a cost column).
  @inlinable
  func slotCost(_ i: Int) -> Int64 { costs?[i] ?? 0 }

  /// Sets slot `i`'s cost (the shard's total follows), making the cost
  /// column on the first non-zero cost.
  @inlinable
  func setCost(_ newCost: Int64, at i: Int) {
    if costs == nil {
      if newCost == 0 { return }
      let column = UnsafeMutablePointer<Int64>.allocate(capacity: slotCapacity)
      column.initialize(repeating: 0, count: slotCapacity)
      costs = column
    }
    cost += Int128(newCost) - Int128(costs![i])
    costs![i] = newCost
  }

  /// Marks `slot` accessed at `now` (ages tracked). Threads read the clock
  /// before taking the lock, so a stamp may come in late: the list keeps
  /// stamps non-increasing from newest to oldest by never stamping below
  /// the newest.
  @inlinable
  func touch(_ slot: Slot, _ now: UInt64) {
    let ages = ages!
    ages[Int(slot)].stamp = newest >= 0 ? max(now, ages[Int(newest)].stamp) : now
    if newest == slot { return }
    unlink(slot)
    linkNewest(slot)
  }

  @inlinable
  func linkNewest(_ slot: Slot) {
    let ages = ages!
    if newest >= 0 { ages[Int(slot)].stamp = max(ages[Int(slot)].stamp, ages[Int(newest)].stamp) }
    ages[Int(slot)].newer = -1
    ages[Int(slot)].older = newest
    if newest >= 0 { ages[Int(newest)].newer = slot } else { oldest = slot }
    newest = slot
  }

  @inlinable
  func unlink(_ slot: Slot) {
    let ages = ages!
    let (newer, older) = (ages[Int(slot)].newer, ages[Int(slot)].older)
    if newer >= 0 { ages[Int(newer)].older = older } else { newest = older }
    if older >= 0 { ages[Int(older)].newer = newer } else { oldest = newer }
  }

  @inlinable @inline(__always)
  func isOccupied(_ i: Int) -> Bool { occupancy[i >> 6] & (1 << UInt64(i & 63)) != 0 }

  /// Calls `body` with every occupied slot, in slot order.
  @inlinable
  func forEachOccupied(_ body: (Int) -> Void) {
    for word in 0..<slotCapacity / 64 {
      var bits = occupancy[word]
      while bits != 0 {
        body(word << 6 | bits.trailingZeroBitCount)
        bits &= bits &- 1
      }
    }
  }

  /// Checks the columns and the age list against the policy (tests).
  func checkInvariants() {
    policy.checkInvariants()
    var occupied = 0
    var total: Int128 = 0
    forEachOccupied { i in
      occupied += 1
      total += Int128(slotCost(i))
    }
    precondition(occupied == policy.count(), "\(occupied) slots hold values, the policy \(policy.count()) entries")
    precondition(total == cost, "slots cost \(total), counted \(cost)")
    if costs != nil {
      for i in 0..<slotCapacity where !isOccupied(i) { precondition(costs![i] == 0, "vacant slot \(i) has a cost") }
    }
    if let ages {
      var n = 0
      var slot = newest
      var previous: UInt64 = .max
      while slot >= 0 {
        precondition(isOccupied(Int(slot)), "age list holds an empty slot")
        let stamp = ages[Int(slot)].stamp
        precondition(stamp <= previous, "age list out of order")
        previous = stamp
        n += 1
        slot = ages[Int(slot)].older
      }
      precondition(n == policy.count(), "age list holds \(n), policy \(policy.count())")
    } else {
      precondition(newest < 0 && oldest < 0 && ageLimit == .max, "an age list or limit without tracking")
    }
    for key in expiries.keys { precondition(policy.contains(key), "an expiry for \(key), which is not cached") }
    if let reads {
      var costOf: [Key: Int64] = [:]
      var slotOf: [Key: Slot] = [:]
      forEachOccupied { i in
        let key = policy.keyAt(Slot(i))
        precondition(policy.contains(key), "slot \(i) holds \(key), which the policy does not")
        costOf[key] = slotCost(i)
        slotOf[key] = Slot(i)
      }
      reads.check(costs: costOf, slots: slotOf)
    }
  }
}

/// The heaviest weight from 1 to `capacity` that `admits` takes (nil: not
/// even 1), by a binary search: an empty policy admits every weight up to
/// its segment's size and none above. The memory cache's shards and the
/// disk cache find their heavy-entry bound with it.
package func heaviestAdmitted(upTo capacity: Int64, _ admits: (Int64) -> Bool) -> Int64? {
  guard admits(1) else { return nil }
  var (admitted, refused) = (Int64(1), capacity + 1)
  if admits(capacity) { admitted = capacity }
  while refused - admitted > 1 {
    let middle = admitted + (refused - admitted) / 2
    if admits(middle) { admitted = middle } else { refused = middle }
  }
  return admitted
}
