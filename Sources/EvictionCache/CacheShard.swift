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
  /// Never stored: heavier than the cache (or than the policy's admission share).
  case rejected
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
    }
  }
}

/// Counters of one cache (all shards).
public struct CacheStatistics: Sendable, Equatable {
  public var hits = 0
  public var misses = 0
  public var sets = 0
  public var evictions: [EvictionReason: Int] = [:]
  /// Hits the policy never heard of: the `buffered` strategy's ring buffers
  /// were full or being drained (always 0 for the other strategies).
  public var droppedAccesses = 0
  public var count = 0
  public var cost: Int64 = 0

  public init() {}

  public var hitRatio: Double { hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses) }

  mutating func merge(_ other: CacheStatistics) {
    hits += other.hits
    misses += other.misses
    sets += other.sets
    evictions.merge(other.evictions, uniquingKeysWith: +)
    droppedAccesses += other.droppedAccesses
    count += other.count
    cost += other.cost
  }
}

/// One shard: a policy, the values its slots index, an age list, and the
/// limits. Not thread-safe: `MemoryCache` calls it under the shard's lock.
@usableFromInline
final class CacheShard<Key: Hashable, Value>: @unchecked Sendable {
  /// A slot's value and bookkeeping. `value` is initialised only while the
  /// slot holds an entry (``isOccupied``): a vacant slot (never used, or
  /// left by a departed entry) has only its other fields written. So the
  /// value needs no `Optional` tag, which for an 8-byte value would pad the
  /// record from 32 to 40 bytes. `value` is reached only through
  /// ``valueAddress(_:)``, and a record is never copied whole.
  @usableFromInline
  struct Record {
    @usableFromInline var value: Value
    @usableFromInline var cost: Int64
    /// Last read or write, on the cache's clock (nanoseconds).
    @usableFromInline var stamp: UInt64
    /// The age list's links (-1 at its ends), or ``vacant`` in `newer`.
    @usableFromInline var newer: Slot
    @usableFromInline var older: Slot
  }

  /// `newer` of a slot that holds no entry.
  @inlinable static var vacant: Slot { -2 }

  @usableFromInline let lock: ShardLock
  /// The `buffered` strategy's lock-free read side (nil for the others).
  @usableFromInline let reads: BufferedReads<Key, Value>?
  @usableFromInline let policy: AnyCachePolicy<Key>
  /// Indexed by the policy's slots; the first `recordCount` are initialised.
  @usableFromInline @exclusivity(unchecked) var records: UnsafeMutablePointer<Record>
  @usableFromInline @exclusivity(unchecked) var recordCount = 0
  @usableFromInline @exclusivity(unchecked) var recordCapacity = 64
  /// The age list, newest first: every resident slot by last access.
  @usableFromInline @exclusivity(unchecked) var newest: Slot = -1
  @usableFromInline @exclusivity(unchecked) var oldest: Slot = -1
  @usableFromInline @exclusivity(unchecked) var cost: Int64 = 0
  /// Whether the policy's weights are costs (else every entry weighs 1).
  @usableFromInline let weighsCost: Bool
  @usableFromInline @exclusivity(unchecked) var countLimit: Int
  @usableFromInline @exclusivity(unchecked) var costLimit: Int64
  @usableFromInline @exclusivity(unchecked) var ageLimit: UInt64
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
    ageLimit: UInt64, collectsDepartures: Bool, reads: BufferedReads<Key, Value>? = nil
  ) {
    self.reads = reads
    self.collectsDepartures = collectsDepartures || !_isPOD(Key.self) || !_isPOD(Value.self)
    self.policy = policy
    self.lock = lock
    records = .allocate(capacity: recordCapacity)
    departures = .allocate(capacity: EvictionReason.allCases.count)
    departures.initialize(repeating: 0, count: EvictionReason.allCases.count)
    self.weighsCost = weighsCost
    self.countLimit = countLimit
    self.costLimit = costLimit
    self.ageLimit = ageLimit
  }

  deinit {
    for i in 0..<recordCount where isOccupied(i) { valueAddress(i).deinitialize(count: 1) }
    records.deallocate()
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
    lock.exclusive {
      if let reads { drainReads(only: ownRing ? reads.currentStripe() : -1) }
      defer { reads?.endWrite() }
      return body()
    }
  }

  /// Replays the hits served without the lock into the policy, in order
  /// (every stripe's, or only `stripe`'s).
  @inlinable
  func drainReads(only stripe: Int = -1) {
    guard let reads else { return }
    let drained = reads.drain(only: stripe) { key, now in
      guard policy.contains(key) else { return }
      tick &+= 1
      let request = Request(key: key, weight: 1, time: tick, timestamp: Int64(now / 1_000_000_000))
      if let slot = policy.lookup(request, { self.depart($0, $1, .capacity) }) { touch(slot, now) }
    }
    // As a hit under the lock would have, the hits forget an earlier miss.
    if drained > 0 { pendingMiss = nil }
  }

  @inlinable
  func value(forKey key: Key, now: UInt64) -> Value? {
    tick &+= 1
    let request = Request(key: key, weight: 1, time: tick, timestamp: Int64(now / 1_000_000_000))
    guard let slot = policy.lookup(request, { self.depart($0, $1, .capacity) }) else {
      statistics.misses &+= 1
      pendingMiss = key
      return nil
    }
    pendingMiss = nil
    if ageLimit != .max && now &- records[Int(slot)].stamp > ageLimit {
      _ = policy.remove(key)
      depart(slot, key, .age)
      statistics.misses &+= 1
      return nil
    }
    statistics.hits &+= 1
    touch(slot, now)
    if let reads, ageLimit != .max { reads.refresh(key, stamp: records[Int(slot)].stamp) }
    return valueAddress(Int(slot)).pointee
  }

  @inlinable
  func setValue(_ value: Value, forKey key: Key, cost: Int64, now: UInt64) {
    tick &+= 1
    statistics.sets &+= 1
    let request = Request(key: key, weight: weighsCost ? cost : 1, time: tick, timestamp: Int64(now / 1_000_000_000))
    var found: Slot? = nil
    if pendingMiss != key {
      found = policy.lookup(request, { self.depart($0, $1, .capacity) })
    }
    pendingMiss = nil
    if let slot = found {
      let i = Int(slot)
      if !weighsCost || records[i].cost == cost {
        if collectsDepartures { departed.append((key, valueAddress(i).pointee, .replaced)) }
        departures[EvictionReason.replaced.ordinal] &+= 1
        valueAddress(i).pointee = value
        self.cost &+= cost &- records[i].cost
        records[i].cost = cost
        touch(slot, now)
        reads?.store(key, value, stamp: records[i].stamp)
        enforceLimits()
        return
      }
      // A new weight: the policy admits the entry afresh.
      _ = policy.remove(key)
      depart(slot, key, .replaced)
    }
    guard let slot = policy.admit(request, { self.depart($0, $1, .capacity) }) else {
      if collectsDepartures { departed.append((key, value, .rejected)) }
      departures[EvictionReason.rejected.ordinal] &+= 1
      return
    }
    let i = Int(slot)
    if i >= recordCount {
      if i >= recordCapacity { growRecords(to: i + 1) }
      while recordCount <= i {
        markVacant(recordCount)
        recordCount += 1
      }
    }
    assert(!isOccupied(i), "the policy admitted into slot \(i), which holds an entry")
    valueAddress(i).initialize(to: value)
    (records[i].cost, records[i].stamp) = (cost, now)
    linkNewest(slot)
    self.cost &+= cost
    reads?.store(key, value, stamp: records[i].stamp)
    enforceLimits()
  }

  @inlinable
  func removeValue(forKey key: Key) -> Bool {
    pendingMiss = nil
    guard let slot = policy.remove(key) else { return false }
    depart(slot, key, .removed)
    return true
  }

  func removeAll() {
    pendingMiss = nil
    while policy.evictOne({ self.depart($0, $1, .removed) }) {}
  }

  @inlinable
  func contains(_ key: Key) -> Bool { policy.contains(key) }

  @usableFromInline func trim(toCount limit: Int) {
    while policy.count() > limit, policy.evictOne({ self.depart($0, $1, .count) }) {}
  }

  @usableFromInline func trim(toCost limit: Int64) {
    while cost > limit, policy.evictOne({ self.depart($0, $1, .cost) }) {}
  }

  func trim(toAge age: UInt64, now: UInt64) {
    while oldest >= 0 && now &- records[Int(oldest)].stamp > age {
      let slot = oldest
      let key = policy.keyAt(slot)
      _ = policy.remove(key)
      depart(slot, key, .age)
    }
  }

  /// Secondary limits (and primary ones lowered below the policy's capacity).
  @inlinable
  func enforceLimits() {
    if policy.count() > countLimit { trim(toCount: countLimit) }
    if cost > costLimit { trim(toCost: costLimit) }
  }

  @usableFromInline
  func growRecords(to minimum: Int) {
    var capacity = recordCapacity
    while capacity < minimum { capacity *= 2 }
    let grown = UnsafeMutablePointer<Record>.allocate(capacity: capacity)
    for i in 0..<recordCount {
      if isOccupied(i) {
        (grown + i).initialize(to: (records + i).move())
      } else {
        Self.markVacant(grown + i)
      }
    }
    records.deallocate()
    records = grown
    recordCapacity = capacity
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
    if let reads {
      let (hits, dropped) = reads.counts()
      s.hits += hits
      s.droppedAccesses = dropped
    }
    for reason in EvictionReason.allCases where departures[reason.ordinal] > 0 {
      s.evictions[reason] = departures[reason.ordinal]
    }
    s.count = policy.count()
    s.cost = cost
    return s
  }

  // MARK: Bookkeeping

  /// An entry left the policy: move its value out, drop it from the age list.
  @inlinable
  func depart(_ slot: Slot, _ key: Key, _ reason: EvictionReason) {
    let i = Int(slot)
    unlink(slot)
    cost &-= records[i].cost
    let value = valueAddress(i).move()
    markVacant(i)
    reads?.remove(key)
    if collectsDepartures { departed.append((key, value, reason)) }
    departures[reason.ordinal] &+= 1
  }

  /// Marks `slot` accessed at `now`. Threads read the clock before taking
  /// the lock, so a stamp may come in late: the list keeps stamps
  /// non-increasing from newest to oldest by never stamping below the newest.
  @inlinable
  func touch(_ slot: Slot, _ now: UInt64) {
    records[Int(slot)].stamp = newest >= 0 ? max(now, records[Int(newest)].stamp) : now
    if newest == slot { return }
    unlink(slot)
    linkNewest(slot)
  }

  @inlinable
  func linkNewest(_ slot: Slot) {
    if newest >= 0 { records[Int(slot)].stamp = max(records[Int(slot)].stamp, records[Int(newest)].stamp) }
    records[Int(slot)].newer = -1
    records[Int(slot)].older = newest
    if newest >= 0 { records[Int(newest)].newer = slot } else { oldest = slot }
    newest = slot
  }

  @inlinable
  func unlink(_ slot: Slot) {
    let (newer, older) = (records[Int(slot)].newer, records[Int(slot)].older)
    if newer >= 0 { records[Int(newer)].older = older } else { newest = older }
    if older >= 0 { records[Int(older)].newer = newer } else { oldest = newer }
  }

  /// Where slot `i`'s value lives (initialised while the slot is occupied).
  @inlinable @inline(__always)
  func valueAddress(_ i: Int) -> UnsafeMutablePointer<Value> { (records + i).pointer(to: \.value)! }

  @inlinable @inline(__always)
  func isOccupied(_ i: Int) -> Bool { records[i].newer != Self.vacant }

  /// Marks slot `i` as holding no entry; its value must be uninitialised.
  @inlinable
  func markVacant(_ i: Int) { Self.markVacant(records + i) }

  /// Writes a vacant record's fields, one by one: the record as a whole is
  /// not initialised (its value is not).
  @inlinable
  static func markVacant(_ record: UnsafeMutablePointer<Record>) {
    record.pointer(to: \.cost)!.initialize(to: 0)
    record.pointer(to: \.stamp)!.initialize(to: 0)
    record.pointer(to: \.newer)!.initialize(to: vacant)
    record.pointer(to: \.older)!.initialize(to: -1)
  }

  /// Checks the age list against the policy (tests).
  func checkInvariants() {
    policy.checkInvariants()
    var n = 0
    var total: Int64 = 0
    var slot = newest
    var previous: UInt64 = .max
    while slot >= 0 {
      precondition(isOccupied(Int(slot)), "age list holds an empty slot")
      let (stamp, cost) = (records[Int(slot)].stamp, records[Int(slot)].cost)
      precondition(stamp <= previous, "age list out of order")
      previous = stamp
      total += cost
      n += 1
      slot = records[Int(slot)].older
    }
    precondition(n == policy.count(), "age list holds \(n), policy \(policy.count())")
    precondition(total == cost, "age list costs \(total), counted \(cost)")
    reads?.check(against: { policy.contains($0) }, count: n)
  }
}
