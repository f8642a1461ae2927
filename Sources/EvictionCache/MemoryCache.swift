import Dispatch
import EvictionCore
import Synchronization

/// What went wrong building or configuring a cache.
public enum CacheError: Error, Equatable, CustomStringConvertible {
  /// A lock strategy's name that is not one of ``LockStrategy/names`` (or a striped strategy given a
  /// hand-built policy, which runs in one shard).
  case unknownLock(String)
  /// Buffered reads asked of a primitive other than `pthread`, whose try-lock they need.
  case bufferedNeedsPthread(String)
  /// A striped layout's number of shards outside 1...4096.
  case invalidShardCount(Int)
  /// A count, cost or age limit of zero or less; `name` is the limit's parameter.
  case invalidLimit(name: String, value: String)
  /// A primary limit raised above the capacity the cache's policy was built with.
  case limitAbovePolicyCapacity(name: String, value: Int, capacity: Int)
  /// An offline policy (such as `belady`), which needs each request's next access: for `evlab replay` only.
  case offlinePolicy(String)
  /// A policy modelling a disk cache that trims on a timer, over its limit in between: for `evlab replay` only.
  case trimsOnATimer(String)
  /// A policy name or parameter that the catalog does not accept.
  case policy(PolicyError)
  /// More striped shards than the primary limit's capacity, so that some shard could hold nothing.
  case moreShardsThanCapacity(shards: Int, capacity: Int64)
  /// A shard's share of the primary limit below the least the policy caches anything at; `hint` adds
  /// advice to the message (possibly empty).
  case belowMinimumCapacity(policy: String, capacity: Int64, minimum: Int64, hint: String)
  /// An admission policy that does not parse, or that cannot go in front of the cache's policy.
  case admission(AdmissionError)
  /// An admission policy that judges entries by size, given to a cache without a cost limit.
  case admissionJudgesSize(String)
  /// A `largestCost` above the heaviest entry the configuration can cache (`largest`: the cost limit, or a
  /// striped shard's share of it).
  case entryHeavierThanConfiguration(cost: Int, largest: Int)
  /// A negative cost given to ``MemoryCache/store(_:forKey:cost:ttl:)``.
  case invalidCost(Int)
  /// A loader that asked its own cache for the key it is loading: it would wait for itself.
  case recursiveLoad(String)
  /// A wait for a key's load that ran past its timeout (`after`); the load itself goes on.
  case loadTimedOut(key: String, after: Duration)
  /// A key that the bulk loader's answer left out: nothing was cached for it.
  case notLoaded(String)
  /// A snapshot could not be restored into this cache (``MemoryCache/restore(_:elapsed:)``):
  /// the message says why.
  case snapshot(String)
  /// A snapshot's policy state or entries do not read back: damaged, or
  /// assembled by hand. Nothing was restored.
  case snapshotDamaged(String)

  public var description: String {
    switch self {
    case .unknownLock(let name):
      "unknown lock strategy '\(name)': use \(LockStrategy.names)"
    case .bufferedNeedsPthread(let name):
      "lock strategy '\(name)': buffered reads need pthread's try-lock; use buffered (pthread+buffered)"
    case .invalidShardCount(let n): "striped:\(n): the number of shards must be in 1...4096"
    case .moreShardsThanCapacity(let shards, let capacity):
      "striped:\(shards) splits a capacity of \(capacity) into more shards than it holds; use at most striped:\(capacity)"
    case .belowMinimumCapacity(let policy, let capacity, let minimum, let hint):
      "\(policy) caches nothing at a capacity of \(capacity) per shard; it needs at least \(minimum)\(hint)"
    case .invalidLimit(let name, let value):
      "\(name) \(value) is not a limit: give a positive value (a count or cost up to 2⁵⁶), or none"
    case .limitAbovePolicyCapacity(let name, let value, let capacity):
      "\(name) \(value) exceeds the \(capacity) the cache's policy was built for: create the cache with the larger limit"
    case .offlinePolicy(let name):
      "\(name) needs each request's next access (an offline policy): use it with `evlab replay`, not in a live cache"
    case .trimsOnATimer(let name):
      "\(name) models a disk cache that trims on a timer and holds more than its limit in between; a MemoryCache keeps its limits after every write: measure \(name) with `evlab replay`"
    case .policy(let error): "\(error)"
    case .admission(let error): "\(error)"
    case .entryHeavierThanConfiguration(let cost, let largest):
      "an entry of cost \(cost) cannot be cached: this configuration caches entries of cost \(largest) at most (a striped cache splits its cost limit among its shards); raise the cost limit or use fewer shards"
    case .invalidCost(let cost):
      "cost \(cost) is negative: a cost is a size or weight, 0 or more"
    case .recursiveLoad(let key):
      "the loader of key \(key) asked the same cache for the same key: it would wait for itself; load the key's dependencies under other keys"
    case .loadTimedOut(let key, let after):
      "the load of key \(key) did not finish within \(after); the load goes on, and the next request waits for it again"
    case .snapshot(let message): "cannot restore the snapshot: \(message)"
    case .snapshotDamaged(let message): "cannot restore the snapshot: \(message); nothing was restored"
    case .notLoaded(let key):
      "the bulk loader's answer has no value for key \(key); nothing was cached for it"
    case .admissionJudgesSize(let admission):
      "admission \(admission) judges sizes, but without a cost limit every entry weighs 1: give the cache a costLimit"
    }
  }
}

/// What became of a value given to ``MemoryCache/store(_:forKey:cost:ttl:)``.
public enum StoreOutcome: Equatable, Sendable {
  /// Cached.
  case stored
  /// Its time-to-live (`ttl:`, or the cache's `expiry` closure) was zero
  /// or less: expired at once, never stored.
  case expired
  /// Never stored, and why.
  case rejected(RejectionRule)
  /// Stored, then evicted by the cache's limits before the call returned:
  /// the policy ranked it first to go (MRU's newest entry, a count limit
  /// below the policy's capacity); `onEvict` heard why.
  case evicted
}

/// A thread-safe in-memory cache of `Value`s by `Key`, driven by any
/// `ReplacementPolicy`: the policy measured by `evlab replay` is the one that
/// runs here, with the same answers (a single-threaded get-then-set stream
/// hits exactly where the replay does; with a cost limit, under
/// ``HeavyEntryRule/refuse``).
///
/// - **Limits.** The *primary* limit is the policy's capacity: the cost limit
///   if there is one (each entry weighs its cost), else the count limit (each
///   weighs 1). The other limit, and the age limit, are enforced by the cache
///   after every write (evicting the policy's victims) and can be changed at
///   run time; lowering a limit trims at once. The primary limit can be
///   lowered, and raised again up to the capacity the policy was built with.
/// - **One lookup.** The policy owns the only key index; its slots index the
///   values (DESIGN.md, "One index").
/// - **Off-lock release.** Evicted and replaced values leave the critical
///   section in a list that is dropped, and handed to `onEvict`, after
///   unlocking, so a slow `deinit` or callback never blocks other threads
///   (YYMemoryCache's trick).
/// - **Locks.** See ``LockStrategy``; `striped(N)` splits the cache into N
///   shards with 1/N of each limit.
public final class MemoryCache<Key: Hashable, Value> {
  /// Hears each entry that leaves and why, after the lock is released, on
  /// whichever thread made it leave: `@Sendable`, because that is any
  /// thread (a handler that mutates a captured `var` does not compile).
  public typealias EvictionHandler = @Sendable (Key, Value, EvictionReason) -> Void
  /// What an entry stored without an explicit cost weighs (see ``setValue(_:forKey:cost:ttl:)``).
  public typealias CostFunction = @Sendable (Value) -> Int
  /// How long an entry stored without a `ttl:` lives (nil: until evicted),
  /// asked at each write: Caffeine's `expireAfter(Expiry)` on create and update.
  public typealias ExpiryFunction = @Sendable (Key, Value) -> Duration?

  /// What missing an entry would cost, for the policies that keep what is
  /// dear to fetch again (`camp`, `gdwheel`; `ReplacementPolicy.willServe(penalty:)`):
  /// each write that admits an entry tells its policy the entry's penalty,
  /// as the replay's `--penalty` tells it each request's. An entry keeps
  /// the price it was admitted at while it stays (a write that replaces its
  /// value at the same cost does not admit it again). Every other policy
  /// ignores it. A penalty that is not a number, or below 0, counts as 0.
  public enum MissPenalty: Sendable {
    /// What the closure says for the entry's key and value, asked at each
    /// write (a load's included): a price in any unit, the same unit for
    /// every entry.
    case computed(@Sendable (Key, Value) -> Double)
    /// The seconds the entry's load took (a bulk load's time split evenly
    /// over the keys it loaded), so that a slow backend's values outlive a
    /// fast one's; an entry stored directly (a set, not a load) is priced
    /// `stored` seconds.
    case loadTime(stored: Double)
  }

  @usableFromInline let shards: [CacheShard<Key, Value>]
  /// The same shards held unretained (``shards`` owns them): an operation
  /// reaches its shard without writing the shard's reference count, a
  /// cache line every thread that uses the shard would otherwise write.
  @usableFromInline let unretainedShards: [Unmanaged<CacheShard<Key, Value>>]
  /// The `buffered` strategy's read side, owned by the one shard: held
  /// unretained so that a hit writes no reference count (a shared cache
  /// line between cores).
  @usableFromInline let bufferedReads: Unmanaged<BufferedReads<Key, Value>>?
  /// The `buffered` strategy's one shard, held unretained for the same
  /// reason: a hit that asks for a drain retains nothing.
  @usableFromInline let bufferedShard: Unmanaged<CacheShard<Key, Value>>?
  @usableFromInline let shardShift: UInt64
  @usableFromInline let clock: () -> UInt64
  @usableFromInline let onEvict: EvictionHandler?
  @usableFromInline let costOf: CostFunction?
  /// The `expiry` closure: a time-to-live for writes that give none.
  @usableFromInline let expiryOf: ExpiryFunction?
  /// How writes price their entries for cost-aware policies (nil: they do not).
  @usableFromInline let missPenalty: MissPenalty?
  /// Whether `missPenalty` is given: a write of a cache that prices nothing
  /// tests this flag and no more (``writePriced(_:forKey:cost:ttl:idle:)``).
  @usableFromInline let pricesEntries: Bool
  /// What an entry stored without a cost weighs when there is no `cost`
  /// closure: 1 while the cache has a cost limit, else 0 (a cache without
  /// costs keeps no cost column).
  @usableFromInline let unitCost: Atomic<Int>
  /// Loads in flight, for ``value(forKey:cost:ttl:timeout:orLoad:)``.
  @usableFromInline let loads = LoadTable<Key, Value>()
  /// Where the `barrier` strategy's asynchronous writes hand departures to
  /// `onEvict`, in order, outside the queue's barrier.
  @usableFromInline let deliveries: DispatchQueue?
  /// How threads share the cache, as it was built.
  public let lockStrategy: LockStrategy
  /// The policy's name as the catalog prints it.
  public let policyName: String
  /// The capacity the policy was built with (all shards), in the primary limit's unit.
  public let policyCapacity: Int
  /// Whether entries weigh their cost (a cost limit was given) or 1.
  public let weighsCost: Bool
  /// What the cache does with an entry heavier than its policy's segment takes.
  public let heavyEntries: HeavyEntryRule
  @usableFromInline var limits: (count: Int?, cost: Int?, age: Duration?)
  @usableFromInline let limitsLock = ShardLock(.mutex, instrumented: false)

  /// A cache driven by a catalog policy: `.lru`, `.s3fifo(small: 0.1)`,
  /// `"slru:segments=2"`.
  ///
  /// - Parameters:
  ///   - policy: a ``CachePolicy``; online policies only (`belady` needs the
  ///     future). The text form is checked here (``CacheError/policy(_:)``).
  ///   - index: the policy's key index; `IntegerSlotIndex` is faster for integer keys.
  ///   - countLimit: at most this many entries (nil: no count limit).
  ///   - costLimit: at most this total cost (nil: none). With one, the policy
  ///     weighs entries by their cost, and the count limit is enforced beside it.
  ///   - cost: what an entry stored without an explicit cost weighs (the
  ///     subscript's sets, `setValue(_:forKey:)`). Without it such an entry
  ///     weighs 1 while the cache has a cost limit (so a cost limit always
  ///     binds), else 0.
  ///   - ageLimit: entries not read or written for this long leave at the next
  ///     write or trim (nil: none).
  ///   - lock: how threads share the cache (``LockStrategy``).
  ///   - instrumentLocks: count acquisitions and time waits (``lockStatistics``),
  ///     at a cost on every operation.
  ///   - clock: nanoseconds on a monotonic clock (tests inject their own);
  ///     by default the coarse monotonic clock (a few milliseconds' resolution,
  ///     a fifth of the cost of the precise one: ages are meant in seconds).
  ///   - autoTrimInterval: if given, a background task trims to the limits
  ///     (age included) this often.
  ///   - tracksAges: keep each entry's last access from the start, so that
  ///     `trim(toAge:)` and a later age limit judge every entry by it (16
  ///     bytes an entry). Implied by an `ageLimit`; without either, ages are
  ///     tracked from the first `trim(toAge:)` or `setAgeLimit(_:)` on.
  ///   - onEvict: called with each entry that leaves and why, after the lock
  ///     is released.
  ///   - admission: the admission policy in front of the policy
  ///     (``CacheAdmission``: `.bloomFilter`, `.probability(0.5)`, or
  ///     `evlab replay --admission`'s text): a set it refuses stores nothing
  ///     (reason `rejected`). Striped shards each have their own, `prob`'s
  ///     seed raised by the shard's number (shard 0 draws as the simulator does).
  ///   - heavyEntries: with a cost limit, what to do with an entry heavier
  ///     than the policy's segment takes (S3-FIFO's small queue, W-TinyLFU's
  ///     window) but within the limit: cache it (``HeavyEntryRule/admit``,
  ///     the default), or refuse it as the simulator does (``HeavyEntryRule/refuse``).
  ///   - expiry: the time-to-live of an entry stored without a `ttl:`,
  ///     asked at each write with its key and value (nil: it never
  ///     expires), as Caffeine's `expireAfter(Expiry)`: an HTTP response's
  ///     `max-age`, say. A `ttl:` given to the write wins.
  ///   - largestCost: the heaviest entry you will store: a configuration
  ///     that could not cache it (a cost limit below it, or `striped`
  ///     shards whose share of the limit is) is refused here, naming the
  ///     largest it can (``CacheError/entryHeavierThanConfiguration(cost:largest:)``).
  ///   - penalty: what missing each entry would cost (``MissPenalty``: a
  ///     closure, or the time its load took), for `camp` and `gdwheel`
  ///     (nil: every entry costs the same, and they rank as GDS and LRU do).
  ///
  /// Inlinable so the policy's code is specialised for `Key` and `Index` in
  /// the caller's module (an unspecialised policy runs about 5× slower).
  @inlinable
  public init<Index: SlotIndex & ~Copyable>(
    policy: CachePolicy = .lru, index: Index.Type, countLimit: Int? = nil, costLimit: Int? = nil,
    cost: CostFunction? = nil, ageLimit: Duration? = nil, tracksAges: Bool = false, lock: LockStrategy = .mutex,
    instrumentLocks: Bool = false, autoTrimInterval: Duration? = nil, clock: (@Sendable () -> UInt64)? = nil,
    onEvict: EvictionHandler? = nil, admission: CacheAdmission = .none, heavyEntries: HeavyEntryRule = .admit,
    largestCost: Int? = nil, expiry: ExpiryFunction? = nil, penalty: MissPenalty? = nil
  ) throws(CacheError) where Index.Key == Key {
    let named: PolicySpec
    do { named = try policy.spec() } catch { throw .policy(error) }
    let admissionSpec: AdmissionSpec
    do { admissionSpec = try admission.spec() } catch { throw .admission(error) }
    if admissionSpec.judgesSizes, costLimit == nil { throw .admissionJudgesSize(admissionSpec.description) }
    do { try admissionSpec.check(composesWith: named.descriptor) } catch { throw .admission(error) }
    guard !named.descriptor.isOffline else { throw .offlinePolicy(named.name) }
    guard PolicyCatalog.entry(named: named.name)?.trimsOnATimer != true else { throw .trimsOnATimer(named.name) }
    try Self.validate(countLimit: countLimit, costLimit: costLimit, ageLimit: ageLimit)
    let weighsCost = costLimit != nil
    let primary = costLimit.map(Int64.init) ?? countLimit.map(Int64.init) ?? Self.unbounded
    let shardCount: Int
    shardCount = lock.shards
    guard (1...4096).contains(shardCount) else { throw .invalidShardCount(shardCount) }
    let spec =
      weighsCost && heavyEntries == .admit
      ? Self.sizedForEntries(named, countLimit: countLimit, shards: shardCount) : named
    if let largestCost, let costLimit {
      let largest = Int(Self.share(of: Int64(costLimit), shard: shardCount - 1, of: shardCount))
      if largestCost > largest { throw .entryHeavierThanConfiguration(cost: largestCost, largest: largest) }
    }
    // Every shard must hold at least one object: more shards than that
    // would hold N objects whatever the limit (a hit ratio above Belady's).
    if shardCount > 1 && primary < Int64(shardCount) {
      throw .moreShardsThanCapacity(shards: shardCount, capacity: primary)
    }
    let smallestShare = Self.share(of: primary, shard: shardCount - 1, of: shardCount)
    if smallestShare < spec.minimumCapacity {
      throw .belowMinimumCapacity(
        policy: spec.description, capacity: smallestShare, minimum: spec.minimumCapacity, hint: spec.minimumCapacityHint
      )
    }
    let clock = clock ?? coarseMonotonicNanoseconds
    var built: [CacheShard<Key, Value>] = []
    for i in 0..<shardCount {
      var visitor = BoxingVisitor<Key>(admission: admissionSpec.withSeed(admissionSpec.seed &+ UInt64(i)))
      let share = Self.share(of: primary, shard: i, of: shardCount)
      let policy = spec.withPolicy(capacity: share, index: index, visitor: &visitor)
      // Asks an empty policy of this shard's capacity, without admission,
      // whether it takes a key at a weight (the same specialisation as the
      // shard's own policy: no code is compiled for it).
      let probe: ((Key, Int64) -> Bool)? =
        weighsCost
        ? { key, weight in
          var scratch = BoxingVisitor<Key>()
          let empty = spec.withPolicy(capacity: share, index: index, visitor: &scratch)
          let request = Request(key: key, weight: weight, time: 1, carriesWeight: false)
          return empty.admit(request, { _, _ in }) != nil
        } : nil
      built.append(
        CacheShard(
          policy: policy, lock: ShardLock(lock, instrumented: instrumentLocks), weighsCost: weighsCost,
          // The primary limit is the policy's own capacity, which the cache
          // enforces too (the policy may weigh a heavy entry less than its
          // cost: `heavyEntries`); and the other limit.
          countLimit: weighsCost
            ? countLimit.map { Int(Self.share(of: Int64($0), shard: i, of: shardCount)) } ?? Int.max : Int.max,
          costLimit: weighsCost && heavyEntries == .refuse
            ? Int64.max : costLimit.map { Self.share(of: Int64($0), shard: i, of: shardCount) } ?? Int64.max,
          ageLimit: ageLimit.map(nanoseconds) ?? .max, tracksAges: tracksAges, collectsDepartures: onEvict != nil,
          reads: lock.layout == .buffered
            ? BufferedReads(ageLimit: ageLimit.map(nanoseconds) ?? .max, clock: clock) : nil,
          heavyEntries: heavyEntries, probe: probe,
          emptyPolicy: {
            var visitor = BoxingVisitor<Key>(admission: admissionSpec.withSeed(admissionSpec.seed &+ UInt64(i)))
            return spec.withPolicy(capacity: share, index: index, visitor: &visitor)
          }, isGated: admissionSpec.kind != AdmissionSpec.Kind.none,
          cacheCapacity: costLimit.map(Int64.init) ?? .max, largestAdmitted: admissionSpec.largestAdmitted))
    }
    shards = built
    unretainedShards = built.map { Unmanaged.passUnretained($0) }
    bufferedReads = built[0].reads.map { Unmanaged.passUnretained($0) }
    bufferedShard = built[0].reads == nil ? nil : Unmanaged.passUnretained(built[0])
    shardShift = 32
    self.clock = clock
    self.onEvict = onEvict
    costOf = cost
    expiryOf = expiry
    missPenalty = penalty
    pricesEntries = penalty != nil
    unitCost = Atomic(costLimit == nil ? 0 : 1)
    deliveries = Self.deliveryQueue(lock, onEvict)
    lockStrategy = lock
    policyName = admissionSpec.kind == .none ? named.description : "\(named) + \(admissionSpec)"
    policyCapacity = Int(primary)
    self.weighsCost = weighsCost
    self.heavyEntries = heavyEntries
    limits = (countLimit, costLimit, ageLimit)
    if let autoTrimInterval { scheduleTrim(every: autoTrimInterval) }
  }

  /// A cache driven by a catalog policy over a `Dictionary` index (any `Hashable` key).
  @inlinable
  public convenience init(
    policy: CachePolicy = .lru, countLimit: Int? = nil, costLimit: Int? = nil, cost: CostFunction? = nil,
    ageLimit: Duration? = nil, tracksAges: Bool = false, lock: LockStrategy = .mutex, instrumentLocks: Bool = false,
    autoTrimInterval: Duration? = nil, clock: (@Sendable () -> UInt64)? = nil, onEvict: EvictionHandler? = nil,
    admission: CacheAdmission = .none, heavyEntries: HeavyEntryRule = .admit, largestCost: Int? = nil,
    expiry: ExpiryFunction? = nil, penalty: MissPenalty? = nil
  ) throws(CacheError) {
    try self.init(
      policy: policy, index: HashedSlotIndex<Key>.self, countLimit: countLimit, costLimit: costLimit, cost: cost,
      ageLimit: ageLimit, tracksAges: tracksAges, lock: lock, instrumentLocks: instrumentLocks,
      autoTrimInterval: autoTrimInterval, clock: clock, onEvict: onEvict, admission: admission,
      heavyEntries: heavyEntries, largestCost: largestCost, expiry: expiry, penalty: penalty)
  }

  /// A cache driven by a policy you built: its capacity is the primary limit
  /// (costs if `weighsCost`, else entry counts). One shard, any non-striped lock.
  @inlinable
  public init<Policy: ReplacementPolicy & ~Copyable>(
    policy: consuming Policy, weighsCost: Bool, cost: CostFunction? = nil, tracksAges: Bool = false,
    lock: LockStrategy = .mutex, instrumentLocks: Bool = false, clock: (@Sendable () -> UInt64)? = nil,
    onEvict: EvictionHandler? = nil, penalty: MissPenalty? = nil
  ) throws(CacheError) where Policy.Key == Key {
    if lock.shards > 1 { throw .unknownLock("\(lock) (a hand-built policy runs in one shard)") }
    let capacity = policy.capacity
    let box = AnyCachePolicy(policy)
    let clock = clock ?? coarseMonotonicNanoseconds
    shards = [
      CacheShard(
        policy: box, lock: ShardLock(lock, instrumented: instrumentLocks), weighsCost: weighsCost,
        countLimit: Int.max, costLimit: weighsCost ? capacity : Int64.max, ageLimit: .max, tracksAges: tracksAges,
        collectsDepartures: onEvict != nil,
        reads: lock.layout == .buffered ? BufferedReads(ageLimit: .max, clock: clock) : nil)
    ]
    unretainedShards = shards.map { Unmanaged.passUnretained($0) }
    bufferedReads = shards[0].reads.map { Unmanaged.passUnretained($0) }
    bufferedShard = shards[0].reads == nil ? nil : Unmanaged.passUnretained(shards[0])
    shardShift = 63
    self.clock = clock
    self.onEvict = onEvict
    costOf = cost
    expiryOf = nil
    missPenalty = penalty
    pricesEntries = penalty != nil
    unitCost = Atomic(weighsCost ? 1 : 0)
    deliveries = Self.deliveryQueue(lock, onEvict)
    lockStrategy = lock
    policyName = box.name
    policyCapacity = Int(capacity)
    self.weighsCost = weighsCost
    heavyEntries = .admit
    limits = weighsCost ? (nil, Int(capacity), nil) : (Int(capacity), nil, nil)
  }

  /// `spec` as a cache weighing costs builds it: a policy that sizes a
  /// structure by entries (W-TinyLFU's sketch, `sketch=N`) and was not told
  /// how many is sized for the count limit's share, or for 1,024 and grows;
  /// libCacheSim's rule, one entry per unit of capacity, would give a
  /// 16 MiB cache a sketch for 16 million entries.
  @usableFromInline package static func sizedForEntries(_ spec: PolicySpec, countLimit: Int?, shards: Int) -> PolicySpec
  {
    guard spec.descriptor.parameters.contains(where: { $0.name == "sketch" }), spec.parameters["sketch"] == nil
    else { return spec }
    let entries = countLimit.map { share(of: Int64($0), shard: 0, of: shards) } ?? 1_024
    let text = spec.description + (spec.parameters.isEmpty ? ":" : ",") + "sketch=\(min(entries, Int64(Int32.max)))"
    return (try? PolicySpec(text)) ?? spec
  }

  /// The capacity of a cache without a count or cost limit.
  @usableFromInline static var unbounded: Int64 { 1 << 40 }

  @usableFromInline static func share(of total: Int64, shard i: Int, of n: Int) -> Int64 {
    // Spread the remainder over the first shards; every shard holds at least 1.
    max(1, total / Int64(n) + (Int64(i) < total % Int64(n) ? 1 : 0))
  }

  /// The serial queue the `barrier` strategy's asynchronous writes deliver departures on.
  @usableFromInline static func deliveryQueue(_ lock: LockStrategy, _ onEvict: EvictionHandler?) -> DispatchQueue? {
    lock.primitive == .barrier && onEvict != nil ? DispatchQueue(label: "EvictionCache.deliveries") : nil
  }

  @usableFromInline static func validate(countLimit: Int?, costLimit: Int?, ageLimit: Duration?) throws(CacheError) {
    // Past PolicySpec.maximumCapacity a policy's sizing arithmetic could overflow.
    for (name, limit) in [("countLimit", countLimit), ("costLimit", costLimit)] {
      if let limit, limit <= 0 || Int64(limit) > PolicySpec.maximumCapacity {
        throw .invalidLimit(name: name, value: "\(limit)")
      }
    }
    if let ageLimit, ageLimit <= .zero { throw .invalidLimit(name: "ageLimit", value: "\(ageLimit)") }
  }

  // MARK: Reading and writing

  @inlinable @inline(__always)
  func shard(for key: Key) -> CacheShard<Key, Value> { shards[shardIndex(for: key)] }

  /// The index of `key`'s shard in ``shards``.
  @inlinable @inline(__always)
  func shardIndex(for key: Key) -> Int {
    if shards.count == 1 { return 0 }
    // Multiply-shift onto 0..<N (Lemire's range reduction of the top 32 bits
    // of a Fibonacci-mixed hash): every shard is used, whatever N is.
    let mixed = UInt64(bitPattern: Int64(key.hashValue)) &* 0x9E37_79B9_7F4A_7C15
    return Int(truncatingIfNeeded: ((mixed >> shardShift) &* UInt64(shards.count)) >> 32)
  }

  /// Runs `body` with `key`'s shard, not retained (``unretainedShards``):
  /// the cache, which owns the shard, outlives the call.
  @inlinable @inline(__always)
  func withShard<R>(for key: Key, _ body: (CacheShard<Key, Value>) -> R) -> R {
    unretainedShards[shardIndex(for: key)]._withUnsafeGuaranteedRef(body)
  }

  /// The value for `key`, or nil. A hit counts as an access for the policy.
  @inlinable
  public func value(forKey key: Key) -> Value? {
    if let bufferedReads, let (value, fullStripe) = bufferedReads._withUnsafeGuaranteedRef({ $0.read(key) }) {
      if fullStripe >= 0 { drainIfFree(stripe: fullStripe) }
      return value
    }
    let now = clock()
    // Optional, so that a read that evicts nothing releases no empty array.
    var departed: [(key: Key, value: Value, reason: EvictionReason)]? = nil
    let value = withShard(for: key) { shard in
      shard.exclusive(ownRing: true) {
        let value = shard.value(forKey: key, now: now)
        if !shard.departed.isEmpty { departed = shard.takeDeparted() }
        return value
      }
    }
    if let departed { deliver(departed) }
    return value
  }

  /// Replays a full ring's hits into the policy unless another thread holds
  /// its lock (the other rings wait for their own threads, or for the next
  /// operation under the lock: a drain reads no other core's ring).
  @inlinable
  func drainIfFree(stripe: Int) {
    var departed: [(key: Key, value: Value, reason: EvictionReason)] = []
    let drained = bufferedShard.unsafelyUnwrapped._withUnsafeGuaranteedRef { shard in
      shard.lock.tryExclusive {
        shard.drainReads(only: stripe)
        shard.reads?.reclaimIfDue(stripe: stripe)
        shard.reads?.endWrite()
        departed = shard.takeDeparted()
      }
    }
    if drained && !departed.isEmpty { deliver(departed) }
  }

  /// Stores `value` for `key` at `cost`: what the cost limit counts, 0 or
  /// more. Without a cost, the entry weighs what the cache's `cost` closure
  /// says; without that closure, 1 while the cache has a cost limit, else 0.
  /// An entry that cannot be stored leaves at once through `onEvict` with
  /// reason `rejected`: a negative cost, a cost above the limit (or above
  /// a `striped` shard's share of it: ``largestCacheableCost``), or a
  /// refusal by the admission policy; ``statistics`` counts each rule, and
  /// ``store(_:forKey:cost:ttl:)`` returns it.
  ///
  /// With a `ttl`, the entry expires that long after this call, on the
  /// cache's clock: from any later instant it is a miss (at the expiry
  /// itself it still serves), and the next read, write or removal of its
  /// key, or `trimExpired()`, removes it with reason `expired`; until then
  /// it keeps its room, as libCacheSim's and memcached's lazy expiry do. A
  /// hit does not extend it; a set replaces it (a set without `ttl` stores
  /// an entry that lives as the cache's `expiry` closure says, or never
  /// expires without one). A `ttl` of zero or less (an HTTP
  /// response's `max-age=0`) is expired already: the key's cached value
  /// leaves as `replaced` and the new one as `expired`, never stored. The
  /// replay's `--use-ttl` and `--semantics kv` expire objects by the same
  /// rule, request for request.
  ///
  /// Under the `barrier` strategy the write is a barrier block on the
  /// cache's queue and this returns before it runs (GCD's
  /// `dispatch_barrier_async`): every later read, on any thread, sees it.
  /// Under `buffered`, an entry with a TTL is read under the policy lock.
  @inlinable
  public func setValue(_ value: Value, forKey key: Key, cost: Int? = nil, ttl: Duration? = nil) {
    write(value, forKey: key, cost: cost ?? costOf?(value) ?? unitCost.load(ordering: .relaxed), ttl: ttl, waits: false)
  }

  /// Stores `value` as ``setValue(_:forKey:cost:ttl:)`` does, to expire
  /// once it has gone `timeToIdle` without a read (Caffeine's
  /// `expireAfterAccess`, per entry): each read (a hit, or a get-or-load
  /// served from the cache) extends it, and a write starts it again. With
  /// a `ttl` too, the entry expires at whichever comes first: reads never
  /// extend it past its time-to-live. A `timeToIdle` of zero or less is
  /// expired at once, as a `ttl` of zero is. (The cache-wide sliding limit
  /// is `ageLimit`, which writes and reads both renew.)
  @inlinable
  public func setValue(_ value: Value, forKey key: Key, cost: Int? = nil, ttl: Duration? = nil, timeToIdle: Duration) {
    write(
      value, forKey: key, cost: cost ?? costOf?(value) ?? unitCost.load(ordering: .relaxed),
      ttl: timeToIdle > .zero ? ttl : .zero, idle: Self.idleNanoseconds(timeToIdle), waits: false)
  }

  /// A positive idle time in nanoseconds, at least 1 (0 for none).
  @inlinable
  static func idleNanoseconds(_ idle: Duration) -> UInt64 { idle > .zero ? max(1, saturatingNanoseconds(idle)) : 0 }

  /// ``store(_:forKey:cost:ttl:)`` for an entry that expires when idle
  /// (``setValue(_:forKey:cost:ttl:timeToIdle:)``).
  @inlinable @discardableResult
  public func store(_ value: Value, forKey key: Key, cost: Int? = nil, ttl: Duration? = nil, timeToIdle: Duration)
    throws(CacheError) -> StoreOutcome
  {
    let cost = cost ?? costOf?(value) ?? unitCost.load(ordering: .relaxed)
    if cost < 0 { throw .invalidCost(cost) }
    return write(
      value, forKey: key, cost: cost, ttl: timeToIdle > .zero ? ttl : .zero, idle: Self.idleNanoseconds(timeToIdle),
      waits: true)
  }

  /// Stores `value` as ``setValue(_:forKey:cost:ttl:)`` does, and says what
  /// became of it: ``StoreOutcome/stored``, ``StoreOutcome/expired`` (a
  /// `ttl` of zero or less), ``StoreOutcome/rejected(_:)`` with the rule
  /// that refused it, or ``StoreOutcome/evicted`` when the limits evicted
  /// it at once. Under `barrier` it waits for its write. A negative
  /// cost is thrown (``CacheError/invalidCost(_:)``) and changes nothing.
  @inlinable @discardableResult
  public func store(_ value: Value, forKey key: Key, cost: Int? = nil, ttl: Duration? = nil) throws(CacheError)
    -> StoreOutcome
  {
    let cost = cost ?? costOf?(value) ?? unitCost.load(ordering: .relaxed)
    if cost < 0 { throw .invalidCost(cost) }
    return write(value, forKey: key, cost: cost, ttl: ttl, waits: true)
  }

  /// The write behind ``setValue(_:forKey:cost:ttl:)`` and ``store(_:forKey:cost:ttl:)``;
  /// `waits`: a `barrier` write runs before this returns (else it returns
  /// ``StoreOutcome/stored`` before the write runs); `idle`: nanoseconds
  /// each read extends the entry's life by (0: reads extend nothing).
  @inlinable @discardableResult
  func write(_ value: Value, forKey key: Key, cost: Int, ttl: Duration?, idle: UInt64 = 0, waits: Bool)
    -> StoreOutcome
  {
    let cost = Int64(cost)
    let lifetime = ttl ?? expiryOf?(key, value)
    if let lifetime, lifetime <= .zero, cost >= 0 {
      let now = clock()
      let shard = shard(for: key)
      deliver(
        shard.exclusive(ownRing: true) {
          shard.setExpired(value, forKey: key, now: now)
          return shard.takeDeparted()
        })
      return .expired
    }
    let ttl = lifetime.map { $0 > .zero ? saturatingNanoseconds($0) : 0 } ?? 0
    if pricesEntries { return writePriced(value, forKey: key, cost: cost, ttl: ttl, idle: idle) }
    if ttl == 0, idle == 0, cost >= 0, let bufferedReads,
      let (old, fullStripe) = bufferedReads._withUnsafeGuaranteedRef({
        $0.update(key, value, cost: cost, returnsOld: onEvict != nil)
      })
    {
      if fullStripe >= 0 { drainIfFree(stripe: fullStripe) }
      if let old { deliver([(key, old, .replaced)]) }
      return .stored
    }
    let now = clock()
    if !waits, shards[0].lock.kind == .barrier {
      let shard = shard(for: key)
      shard.lock.barrierWrite(shard.lock.barrierQueue.unsafelyUnwrapped) {
        shard.setValue(value, forKey: key, cost: cost, ttl: ttl, idle: idle, now: now)
        let departed = shard.takeDeparted()
        if !departed.isEmpty, let deliveries = self.deliveries {
          // Built outside the @Sendable block (see `scheduleTrim`); the
          // departed values now belong to the delivery queue alone.
          nonisolated(unsafe) let hand = { self.deliver(departed) }
          deliveries.async { hand() }
        }
      }
      return .stored
    }
    let (outcome, departed) = withShard(for: key) { shard in
      shard.exclusive(ownRing: true) {
        (shard.setValue(value, forKey: key, cost: cost, ttl: ttl, idle: idle, now: now), shard.takeDeparted())
      }
    }
    if !departed.isEmpty { deliver(departed) }
    return outcome
  }

  /// A write of a cache that prices its entries (``MissPenalty``): the
  /// entry's penalty told to the policy under the lock, just before the
  /// write. Apart from ``write(_:forKey:cost:ttl:idle:waits:)``, so that a
  /// cache that prices nothing runs none of it (told inside that write, a
  /// price cost every set 8 % more instructions); it takes the lock every
  /// time (no in-place update) and waits under `barrier`.
  @usableFromInline
  func writePriced(_ value: Value, forKey key: Key, cost: Int64, ttl: UInt64, idle: UInt64) -> StoreOutcome {
    let penalty = penalty(of: key, value)
    let now = clock()
    let (outcome, departed) = withShard(for: key) { shard in
      shard.exclusive(ownRing: true) {
        if let penalty { shard.policy.willServe(penalty) }
        return (shard.setValue(value, forKey: key, cost: cost, ttl: ttl, idle: idle, now: now), shard.takeDeparted())
      }
    }
    if !departed.isEmpty { deliver(departed) }
    return outcome
  }

  /// The penalty a write of `value` tells a cost-aware policy
  /// (``MissPenalty``; nil when the cache prices nothing); `loadSeconds`:
  /// how long the value's load took, for a loaded one.
  @inlinable
  func penalty(of key: Key, _ value: Value, loadSeconds: Double? = nil) -> Float? {
    guard let missPenalty else { return nil }
    let price: Double
    switch missPenalty {
    case .computed(let computed): price = computed(key, value)
    case .loadTime(let stored): price = loadSeconds ?? stored
    }
    // Not a number, or below 0: nothing (a Float holds up to 3.4e38).
    return price > 0 ? Float(min(price, Double(Float.greatestFiniteMagnitude))) : 0
  }

  /// A read that is not a request: the statistics do not count it.
  func valueUncounted(forKey key: Key) -> Value? {
    let shard = shard(for: key)
    let now = clock()
    let (value, departed) = shard.exclusive(ownRing: true) {
      (shard.value(forKey: key, now: now, counts: false), shard.takeDeparted())
    }
    deliver(departed)
    return value
  }

  /// Stores `value` unless `key` is cached (and not expired): a loaded
  /// value does not replace one stored while it loaded.
  package func storeIfAbsent(
    _ value: Value, forKey key: Key, cost: Int?, ttl: Duration?, idle: UInt64 = 0, loadSeconds: Double? = nil
  ) {
    storeLoaded(value, forKey: key, cost: cost, ttl: ttl, idle: idle, loadSeconds: loadSeconds) { shard, now in
      !shard.contains(key, now: now)
    }
  }

  /// Stores a loaded `value` if `stores` says so, under the same lock
  /// (`idle`: nanoseconds without a read before it expires, 0 for none).
  func storeLoaded(
    _ value: Value, forKey key: Key, cost: Int?, ttl: Duration?, idle: UInt64 = 0, loadSeconds: Double? = nil,
    if stores: (CacheShard<Key, Value>, UInt64) -> Bool
  ) {
    let cost = Int64(cost ?? costOf?(value) ?? unitCost.load(ordering: .relaxed))
    let ttl = ttl ?? expiryOf?(key, value)
    let penalty = pricesEntries ? penalty(of: key, value, loadSeconds: loadSeconds) : nil
    let shard = shard(for: key)
    let now = clock()
    let departed = shard.exclusive(ownRing: true) {
      if stores(shard, now) {
        if let ttl, ttl <= .zero {
          shard.setExpired(value, forKey: key, now: now)
        } else {
          if let penalty { shard.policy.willServe(penalty) }
          shard.setValue(
            value, forKey: key, cost: cost, ttl: ttl.map(saturatingNanoseconds) ?? 0, idle: idle, now: now)
        }
      }
      return shard.takeDeparted()
    }
    deliver(departed)
  }

  /// Removes `key`; returns whether it was cached.
  @discardableResult
  public func removeValue(forKey key: Key) -> Bool {
    let now = clock()
    let (removed, departed) = withShard(for: key) { shard in
      shard.exclusive(ownRing: true) { (shard.removeValue(forKey: key, now: now), shard.takeDeparted()) }
    }
    deliver(departed)
    return removed
  }

  /// Empties the cache (every entry leaves with reason `removed`).
  public func removeAll() {
    for shard in shards {
      deliver(
        shard.exclusive {
          shard.removeAll()
          return shard.takeDeparted()
        })
    }
  }

  /// Whether `key` is cached and not expired (not an access: the policy's
  /// order is unchanged).
  public func contains(_ key: Key) -> Bool {
    let now = clock()
    return withShard(for: key) { shard in shard.lock.shared { shard.contains(key, now: now) } }
  }

  /// Reads like `value(forKey:)`; assigning nil removes, assigning a value
  /// stores it as ``setValue(_:forKey:cost:ttl:)`` without a cost does.
  public subscript(key: Key) -> Value? {
    get { value(forKey: key) }
    set {
      if let newValue { setValue(newValue, forKey: key) } else { removeValue(forKey: key) }
    }
  }

  /// Hands departures to `onEvict`. A handler that writes the key it is
  /// being told of (re-setting it on `replaced`) is not told that its own
  /// write replaced the value: it made that write, and telling it would
  /// call it again, without end, until the stack overflowed.
  @usableFromInline
  func deliver(_ departed: [(key: Key, value: Value, reason: EvictionReason)]) {
    guard let onEvict, !departed.isEmpty else { return }
    let delivering = HandlerDeliveries.current
    let me = ObjectIdentifier(self)
    for entry in departed {
      if entry.reason == .replaced && delivering.isDelivering(me, entry.key) { continue }
      delivering.push(me, entry.key)
      onEvict(entry.key, entry.value, entry.reason)
      delivering.pop()
    }
  }

  // MARK: Limits and trimming

  /// The count limit now, in entries (nil: none).
  public var countLimit: Int? { limitsLock.exclusive { limits.count } }
  /// The cost limit now, in the entries' cost unit (nil: none).
  public var costLimit: Int? { limitsLock.exclusive { limits.cost } }
  /// The age limit now: entries not read or written for longer leave (nil: none).
  public var ageLimit: Duration? { limitsLock.exclusive { limits.age } }

  /// Sets (or, with nil, lifts) the count limit; lowering it trims at once.
  public func setCountLimit(_ limit: Int?) throws(CacheError) {
    try Self.validate(countLimit: limit, costLimit: nil, ageLimit: nil)
    if !weighsCost, let limit, limit > policyCapacity {
      throw .limitAbovePolicyCapacity(name: "countLimit", value: limit, capacity: policyCapacity)
    }
    limitsLock.exclusive { limits.count = limit }
    for (i, shard) in shards.enumerated() {
      let isPolicyCapacity = !weighsCost && (limit == nil || limit! == policyCapacity)
      let share =
        isPolicyCapacity ? Int.max : limit.map { Int(Self.share(of: Int64($0), shard: i, of: shards.count)) } ?? Int.max
      deliver(
        shard.exclusive {
          shard.countLimit = share
          shard.trim(toCount: share)
          return shard.takeDeparted()
        })
    }
  }

  /// Sets (or, with nil, lifts) the cost limit; lowering it trims at once.
  public func setCostLimit(_ limit: Int?) throws(CacheError) {
    try Self.validate(countLimit: nil, costLimit: limit, ageLimit: nil)
    if weighsCost, let limit, limit > policyCapacity {
      throw .limitAbovePolicyCapacity(name: "costLimit", value: limit, capacity: policyCapacity)
    }
    limitsLock.exclusive { limits.cost = limit }
    // From now on, entries stored without a cost count against the limit.
    unitCost.store(limit != nil || weighsCost ? 1 : 0, ordering: .relaxed)
    // A cache weighing costs is held to its policy's capacity once the
    // limit is lifted: by the cache too where the policy may weigh an
    // entry less than its cost.
    let lifted = weighsCost && heavyEntries == .admit ? policyCapacity : nil
    let whole = (limit == policyCapacity && weighsCost ? lifted : limit ?? lifted).map(Int64.init)
    for (i, shard) in shards.enumerated() {
      let share = whole.map { Self.share(of: $0, shard: i, of: shards.count) } ?? Int64.max
      deliver(
        shard.exclusive {
          shard.costLimit = share
          shard.cacheCapacity = whole ?? .max
          shard.trim(toCost: share)
          return shard.takeDeparted()
        })
    }
  }

  /// Sets (or lifts) the age limit: entries not read or written for longer
  /// are misses, and are trimmed now and by every age trim. On a cache that
  /// did not track ages, tracking starts now: the entries cached count as
  /// read now.
  public func setAgeLimit(_ limit: Duration?) throws(CacheError) {
    try Self.validate(countLimit: nil, costLimit: nil, ageLimit: limit)
    limitsLock.exclusive { limits.age = limit }
    let now = clock()
    for shard in shards {
      let age = limit.map(nanoseconds) ?? .max
      deliver(
        shard.exclusive {
          shard.trackAges(now: now)
          shard.ageLimit = age
          shard.trim(toAge: age, now: now)
          return shard.takeDeparted()
        })
      // After the age list exists: the read index's stamps are only hints,
      // judged again under the lock, so a reader may see the limit at once.
      shard.reads?.shared.pointee.ageLimit.store(age, ordering: .relaxed)
    }
  }

  /// Evicts the policy's victims until at most `count` entries remain.
  public func trim(toCount count: Int) {
    for (i, shard) in shards.enumerated() {
      let share = Int(Self.share(of: Int64(max(0, count)), shard: i, of: shards.count))
      deliver(
        shard.exclusive {
          shard.trim(toCount: count <= 0 ? 0 : share)
          return shard.takeDeparted()
        })
    }
  }

  /// Evicts the policy's victims until the total cost is at most `cost`.
  public func trim(toCost cost: Int) {
    for (i, shard) in shards.enumerated() {
      let share = Self.share(of: Int64(max(0, cost)), shard: i, of: shards.count)
      deliver(
        shard.exclusive {
          shard.trim(toCost: cost <= 0 ? 0 : share)
          return shard.takeDeparted()
        })
    }
  }

  /// Keeps `fraction` (0...1) of what each shard holds, in entries and in
  /// cost, evicting the policy's victims (reasons `count` and `cost`): the
  /// purge NSCache and Nuke make on a memory warning, and what a
  /// ``MemoryPressureMonitor`` calls.
  public func trim(toFraction fraction: Double) {
    let keep = fraction.isNaN ? 1 : min(max(fraction, 0), 1)
    for shard in shards {
      deliver(
        shard.exclusive {
          let count = Int((Double(shard.policy.count()) * keep).rounded(.down))
          let cost = Int64(clamping: Int128((Double(shard.cost) * keep).rounded(.down)))
          shard.trim(toCount: count)
          shard.trim(toCost: cost)
          return shard.takeDeparted()
        })
    }
  }

  /// Removes every entry not read or written within `age`. A cache built
  /// without an age limit or `tracksAges` starts tracking ages at its first
  /// age trim, which therefore removes nothing: every entry cached then
  /// counts as read then.
  public func trim(toAge age: Duration) {
    let now = clock()
    let nanos = nanoseconds(max(age, .zero))
    for shard in shards {
      deliver(
        shard.exclusive {
          shard.trim(toAge: nanos, now: now)
          return shard.takeDeparted()
        })
    }
  }

  /// Removes every entry whose time-to-live has run out (reason `expired`):
  /// the proactive removal that the automatic trimming also does, as
  /// Segcache and memcached's LRU crawler remove expired items.
  public func trimExpired() {
    let now = clock()
    for shard in shards {
      deliver(
        shard.exclusive {
          shard.trimExpired(now: now)
          return shard.takeDeparted()
        })
    }
  }

  /// Trims to every limit now, and removes expired entries (what the
  /// automatic trimming does).
  public func trimToLimits() {
    let now = clock()
    for shard in shards {
      deliver(
        shard.exclusive {
          shard.trimExpired(now: now)
          shard.enforceLimits()
          if shard.ageLimit != .max { shard.trim(toAge: shard.ageLimit, now: now) }
          return shard.takeDeparted()
        })
    }
  }

  @usableFromInline func scheduleTrim(every interval: Duration) {
    let nanos = Int(nanoseconds(max(interval, .milliseconds(1))))
    let weak = WeakReference(self)
    // The tick is built outside the @Sendable closure: capturing the
    // generic context there would capture `Key.Type`, which Swift cannot
    // prove Sendable. The cache is Sendable and only held weakly.
    nonisolated(unsafe) let tick = {
      guard let cache = weak.object else { return }
      cache.trimToLimits()
      cache.scheduleTrim(every: interval)
    }
    DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(nanos)) { tick() }
  }

  // MARK: Observation

  /// Whether each entry's last access is kept (an age limit, `tracksAges`,
  /// or an age trim or limit since).
  public var tracksAges: Bool { shards.allSatisfy { shard in shard.lock.shared { shard.ages != nil } } }

  /// Entries cached (all shards).
  public var count: Int { shards.reduce(0) { total, shard in total + shard.lock.shared { shard.policy.count() } } }

  /// The sum of the cached entries' costs (`Int.max` if the sum is larger).
  public var totalCost: Int {
    Int(clamping: shards.reduce(Int128(0)) { total, shard in total + shard.lock.shared { shard.cost } })
  }

  /// The heaviest entry a set can store: the cost limit, or a `striped`
  /// shard's share of it (the smallest share); `Int.max` without a cost
  /// limit. Every policy caches an entry up to this cost (see
  /// ``HeavyEntryRule``), unless its admission policy refuses it.
  public var largestCacheableCost: Int {
    Int(shards.reduce(Int64.max) { least, shard in min(least, shard.lock.shared { shard.largestCost }) })
  }

  /// Bytes the policies hold beside their entries (all shards): frequency
  /// sketches, sized by the entries cached (see ``HeavyEntryRule``), not
  /// by the cost limit's unit. What the entries cost: docs/memory-cache.md.
  public var sketchBytes: Int {
    shards.reduce(0) { total, shard in total + shard.lock.shared { shard.policy.sketchBytes() } }
  }

  /// Hits, misses, sets, evictions by reason and rejections by rule,
  /// loads, count and cost.
  public var statistics: CacheStatistics {
    var total = CacheStatistics()
    for shard in shards { total.merge(shard.lock.shared { shard.snapshot() }) }
    (total.loads, total.loadFailures, total.loadTime) = loads.loadCounts
    (total.refreshes, total.refreshFailures) = loads.refreshCounts
    return total
  }

  /// Lock statistics merged over the shards (zero unless built with `instrumentLocks`).
  public var lockStatistics: LockStatistics {
    var total = LockStatistics()
    for shard in shards { total.merge(shard.lock.exclusive { shard.lock.statistics }) }
    return total
  }

  /// Returns once every write made before the call has run and its
  /// departures have reached `onEvict`: under the `barrier` strategy, whose
  /// `setValue` returns before its write runs (reads see the write either
  /// way); under the others at once.
  public func waitForWrites() {
    guard lockStrategy.primitive == .barrier else { return }
    for shard in shards { shard.lock.exclusive {} }
    deliveries?.sync {}
  }

  /// Checks every shard's policy and the value bookkeeping (for tests).
  public func checkInvariants() {
    for shard in shards { shard.exclusive { shard.checkInvariants() } }
  }
}

/// A non-negative duration in nanoseconds.
/// A positive duration in nanoseconds, at most `UInt64.max`.
@usableFromInline func saturatingNanoseconds(_ d: Duration) -> UInt64 {
  let (seconds, attoseconds) = d.components
  if seconds >= Int64(UInt64.max / 1_000_000_000) { return .max }
  return max(1, UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
}

@usableFromInline func nanoseconds(_ d: Duration) -> UInt64 {
  let (seconds, attoseconds) = d.components
  return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
}

extension MemoryCache: @unchecked Sendable where Key: Sendable, Value: Sendable {}

/// Lets the automatic trimming reach the cache from a background queue without
/// keeping it alive. The cache's own locks make that access safe; evicted
/// values then reach `onEvict` on that queue.
private struct WeakReference<Object: AnyObject>: @unchecked Sendable {
  weak var object: Object?
  init(_ object: Object) { self.object = object }
}
