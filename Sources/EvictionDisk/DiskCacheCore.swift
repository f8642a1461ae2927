import EvictionCache
import EvictionCore

#if canImport(Glibc)
  import Glibc
#endif

/// The engine under every ``DiskCache``: string keys, byte values, a
/// ``DiskStore`` and a policy boxed for `String` keys. It is not generic,
/// so it and the catalog's policies are compiled once, here: a
/// `DiskCache` of a new key or value type adds only its thin typed layer
/// to an app's build.
///
/// The policy's state lives in memory and is rebuilt when the cache opens,
/// by admitting the manifest's rows in last-access order (oldest first): an
/// LRU comes back exactly as it was, by last access time as YYDiskCache
/// orders it; other policies come back with that order as their history.
///
/// Every operation runs under one lock, the write to disk included, so of
/// two concurrent `set`s of a key the one that runs last is the one on disk:
/// never an older value written after a newer one (the stale-write fault of
/// a plist-backed file cache in our seed material).
final class DiskCacheCore: @unchecked Sendable {
  let store: DiskStore
  let spec: PolicySpec
  var policy: AnyCachePolicy<String>
  let weighsCost: Bool
  let countLimit: Int?
  let costLimit: Int?
  let ageLimit: Duration?
  let freeDiskSpaceLimit: Int?
  let heavyEntries: HeavyEntryRule
  /// On the heap: a `pthread_mutex_t` must not move.
  let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  var time: Int64 = 0
  /// The key of the last `value(forKey:)` that missed.
  var pendingMiss: String? = nil
  /// The bytes each heavy entry weighs beyond what the policy was told
  /// (`HeavyEntryRule.admit`), and their sum: the bytes stored are the
  /// policy's used weight plus this.
  var excess: [String: Int64] = [:]
  var excessTotal: Int64 = 0
  /// The heaviest weight an empty policy like this one admits (its
  /// capacity until a refusal has it probed).
  var weightBound: Int64
  var boundProbed = false
  /// Keys the policy let go during the current operation, to remove from the store.
  var departed: [String] = []
  var counters = DiskCacheStatistics()

  init(
    directory: String, policy: CachePolicy, countLimit: Int?, costLimit: Int?, ageLimit: Duration?,
    freeDiskSpaceLimit: Int?, heavyEntries: HeavyEntryRule, inlineThreshold: Int
  ) throws(DiskError) {
    let parsed: PolicySpec
    do { parsed = try policy.spec() } catch { throw .invalidPolicy(error.description) }
    if parsed.descriptor.isOffline || PolicyCatalog.entry(named: parsed.name)?.trimsOnATimer == true {
      throw .invalidPolicy(
        "\(parsed.name) cannot drive a live cache (it needs the future or trims on a timer); choose an online policy")
    }
    if let countLimit, countLimit < 1 { throw .invalidLimit("countLimit \(countLimit): at least 1 entry, or nil") }
    if let costLimit, costLimit < 1 { throw .invalidLimit("costLimit \(costLimit): at least 1 byte, or nil") }
    if let freeDiskSpaceLimit, freeDiskSpaceLimit < 0 {
      throw .invalidLimit("freeDiskSpaceLimit \(freeDiskSpaceLimit): 0 bytes or more, or nil")
    }
    if let ageLimit, ageLimit <= .zero { throw .invalidLimit("ageLimit \(ageLimit): more than zero, or nil") }
    weighsCost = costLimit != nil
    // A policy that sizes a structure by entries (W-TinyLFU's sketch) is
    // sized for the count limit, not one entry per byte of the cost limit.
    spec =
      weighsCost && heavyEntries == .admit
      ? MemoryCache<String, [UInt8]>.sizedForEntries(parsed, countLimit: countLimit, shards: 1) : parsed
    let capacity = Int64(costLimit ?? countLimit ?? Int(Int32.max))
    let minimum = spec.minimumCapacity
    if capacity < minimum {
      throw .invalidLimit(
        "\(spec) needs a capacity of at least \(minimum) (\(weighsCost ? "costLimit" : "countLimit") \(capacity))")
    }
    store = try DiskStore(directory: directory, inlineThreshold: inlineThreshold)
    self.countLimit = countLimit
    self.costLimit = costLimit
    self.ageLimit = ageLimit
    self.freeDiskSpaceLimit = freeDiskSpaceLimit
    self.heavyEntries = heavyEntries
    var visitor = BoxingVisitor<String>()
    self.policy = spec.withPolicy(capacity: capacity, index: HashedSlotIndex<String>.self, visitor: &visitor)
    weightBound = capacity
    pthread_mutex_init(mutex, nil)
    try locked { () throws(DiskError) in try rebuild() }
  }

  deinit {
    store.close()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func locked<T>(_ body: () throws(DiskError) -> T) throws(DiskError) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// What an entry of `bytes` bytes weighs.
  func cost(of bytes: Int) -> Int64 { weighsCost ? max(1, Int64(bytes)) : 1 }

  /// Admits the rows oldest-access first; what the limits no longer allow is removed.
  func rebuild() throws(DiskError) {
    var refused: [String] = []
    for entry in try store.entriesByAccessTime() {
      time += 1
      if admit(entry.key, cost: cost(of: Int(clamping: entry.size))) == nil { refused.append(entry.key) }
    }
    for key in refused { try store.removeValue(forKey: key) }
    try removeDeparted()
    try enforceLimits()
    try trimAgeAndSpace()
  }

  /// Collects a key the policy let go (its excess weight goes with it).
  func depart(_ key: String) {
    departed.append(key)
    if let bytes = excess.removeValue(forKey: key) { excessTotal -= bytes }
  }

  func forget(_ key: String) {
    _ = policy.remove(key)
    if let bytes = excess.removeValue(forKey: key) { excessTotal -= bytes }
  }

  /// Removes what departed from the store (a key stays listed until its
  /// removal succeeds, so a failed one is tried again at the next write).
  func removeDeparted() throws(DiskError) {
    while let key = departed.last {
      try store.removeValue(forKey: key)
      departed.removeLast()
      counters.evictions += 1
    }
  }

  /// Admits `key` at `cost`: at its true cost when the policy takes it;
  /// else, under `HeavyEntryRule.admit`, at the heaviest weight an empty
  /// policy takes, after evicting until its true cost fits the cost limit.
  func admit(_ key: String, cost: Int64) -> Slot? {
    var request = Request(key: key, weight: weighsCost ? min(cost, weightBound) : 1, time: time)
    if request.weight < cost { makeRoom(for: cost) }
    var slot = policy.admit(request) { _, key in self.depart(key) }
    if slot == nil && weighsCost && heavyEntries == .admit && request.weight > 1 {
      probeWeightBound(key)
      if request.weight > weightBound {
        request.weight = weightBound
        makeRoom(for: cost)
        slot = policy.admit(request) { _, key in self.depart(key) }
      }
    }
    if slot != nil && request.weight < cost {
      excess[key] = cost - request.weight
      excessTotal += cost - request.weight
    }
    return slot
  }

  /// The bytes the stored entries weigh (the policy's weights, and what heavy entries weigh beyond them).
  var storedCost: Int64 { policy.usedWeight() + excessTotal }

  /// Evicts the policy's victims until an entry of `cost`, which the policy
  /// weighs less, fits the cost limit beside what is stored.
  func makeRoom(for cost: Int64) {
    guard let costLimit else { return }
    while storedCost > Int64(costLimit) - cost, policy.evictOne({ _, key in self.depart(key) }) {}
  }

  /// Finds ``weightBound`` once: the heaviest weight an empty policy like
  /// this one admits (a binary search over its capacity).
  func probeWeightBound(_ key: String) {
    guard !boundProbed else { return }
    boundProbed = true
    let capacity = policy.capacity
    let spec = spec
    func admits(_ weight: Int64) -> Bool {
      var visitor = BoxingVisitor<String>()
      let empty = spec.withPolicy(capacity: capacity, index: HashedSlotIndex<String>.self, visitor: &visitor)
      return empty.admit(Request(key: key, weight: weight, time: 1, carriesWeight: false), { _, _ in }) != nil
    }
    if let bound = heaviestAdmitted(upTo: capacity, admits) { weightBound = bound }
  }

  /// Evicts until the cost and count limits hold (the policy keeps only its
  /// own primary limit, and weighs heavy entries less than their bytes).
  func enforceLimits() throws(DiskError) {
    if let costLimit {
      while storedCost > Int64(costLimit), policy.evictOne({ _, key in self.depart(key) }) {}
    }
    if weighsCost, let countLimit {
      while policy.count() > countLimit, policy.evictOne({ _, key in self.depart(key) }) {}
    }
    try removeDeparted()
  }

  /// Stores `value` under `key` (see ``DiskCache/setValue(_:forKey:)``);
  /// with `ifAbsent`, only if no value is stored under it (nil: one was,
  /// and it stays).
  func setValue(_ value: [UInt8], forKey key: String, ifAbsent: Bool = false) throws(DiskError) -> StoreOutcome? {
    guard !key.isEmpty else { throw .emptyKey }
    let cost = cost(of: value.count)
    if weighsCost, let costLimit, cost > Int64(costLimit) {
      throw .valueTooLarge(key: key, bytes: value.count, limit: costLimit)
    }
    return try locked { () throws(DiskError) -> StoreOutcome? in
      if ifAbsent, try store.contains(key) { return nil }
      time += 1
      counters.sets += 1
      var resident = false
      if pendingMiss != key {
        // A new weight is admitted afresh below, not re-weighed by the lookup.
        let probe = Request(key: key, weight: cost, time: time, carriesWeight: false)
        resident = policy.lookup(probe) { _, key in self.depart(key) } != nil
      }
      pendingMiss = nil
      if resident && weighsCost, try store.metadata(forKey: key)?.size != Int64(value.count) {
        // A new weight: the policy admits the entry afresh (the same
        // weight keeps its place, as in the memory cache).
        forget(key)
        resident = false
      }
      if !resident && admit(key, cost: cost) == nil {
        // Refused by the policy: the key's older value goes too (the policy
        // no longer knows it, and the cache never serves a value older
        // than the last one set).
        counters.rejections += 1
        try store.removeValue(forKey: key)
        try removeDeparted()
        return .rejected(.policy)
      }
      do throws(DiskError) { try store.setValue(value, forKey: key) } catch {
        // Not written: the key leaves the policy and the store both (an
        // older value the failed write left in place is not served).
        forget(key)
        _ = try? store.removeValue(forKey: key)
        try? removeDeparted()
        throw error
      }
      departed.removeAll { $0 == key }
      try removeDeparted()
      try enforceLimits()
      try trimAgeAndSpace()
      return policy.contains(key) ? .stored : .evicted
    }
  }

  /// The value under `key`, or nil; a hit counts as an access for the policy.
  func value(forKey key: String) throws(DiskError) -> [UInt8]? { try value(forKey: key) { $0 } }

  /// The value under `key` as `decode` makes it, or nil. Decoded under the
  /// lock, so a value that does not decode is dropped before another
  /// writer can replace it: a miss, counted. A value written before
  /// `writtenAfter` (nanoseconds since the Unix epoch) is removed and
  /// missed, counted as an expiration.
  func value<T>(forKey key: String, writtenAfter: Int64? = nil, decode: ([UInt8]) throws -> T) throws(DiskError)
    -> T?
  {
    guard !key.isEmpty else { throw .emptyKey }
    return try locked { () throws(DiskError) -> T? in
      time += 1
      let read = Request(key: key, weight: 1, time: time, carriesWeight: false)
      let found = policy.lookup(read) { _, key in self.depart(key) } != nil
      try removeDeparted()
      guard found else {
        pendingMiss = key
        counters.misses += 1
        return nil
      }
      pendingMiss = nil
      if let writtenAfter, let written = try store.metadata(forKey: key)?.modificationTime, written < writtenAfter {
        forget(key)
        counters.misses += 1
        counters.expirations += 1
        try store.removeValue(forKey: key)
        return nil
      }
      let value: [UInt8]?
      do throws(DiskError) { value = try store.value(forKey: key) } catch {
        // A value that failed verification was dropped by the store: a miss here.
        guard case .corruptValue = error else { throw error }
        counters.corruptValuesDropped += 1
        value = nil
      }
      guard let value else {
        // Removed behind the cache's back (another process, a repair) or dropped as damaged.
        forget(key)
        counters.misses += 1
        return nil
      }
      guard let decoded = try? decode(value) else {
        forget(key)
        counters.misses += 1
        counters.undecodableValuesDropped += 1
        try store.removeValue(forKey: key)
        return nil
      }
      counters.hits += 1
      counters.bytesRead += Int64(value.count)
      return decoded
    }
  }

  func contains(_ key: String) throws(DiskError) -> Bool {
    try locked { () throws(DiskError) in try store.contains(key) }
  }

  func removeValue(forKey key: String) throws(DiskError) -> Bool {
    try locked { () throws(DiskError) in
      forget(key)
      pendingMiss = nil
      return try store.removeValue(forKey: key)
    }
  }

  func removeAll() throws(DiskError) {
    try locked { () throws(DiskError) in
      while policy.evictOne({ _, _ in }) {}
      excess.removeAll()
      excessTotal = 0
      pendingMiss = nil
      try store.removeAll()
    }
  }

  func totals() throws(DiskError) -> (count: Int, bytes: Int64) {
    try locked { () throws(DiskError) in try store.totals() }
  }

  var policyCount: Int { (try? locked { () throws(DiskError) in policy.count() }) ?? 0 }

  var statistics: DiskCacheStatistics { (try? locked { () throws(DiskError) in counters }) ?? counters }

  func trimToLimits() throws(DiskError) {
    try locked { () throws(DiskError) in try trimAgeAndSpace() }
  }

  func trimAgeAndSpace() throws(DiskError) {
    if let ageLimit {
      let (seconds, attoseconds) = ageLimit.components
      let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
      let cutoff =
        nanoseconds.overflow ? Int64.min : DiskStore.now() &- (nanoseconds.partialValue &+ attoseconds / 1_000_000_000)
      for entry in try store.entriesByAccessTime() {
        guard entry.lastAccessTime < cutoff else { break }
        forget(entry.key)
        counters.expirations += 1
        try store.removeValue(forKey: entry.key)
      }
    }
    if let freeDiskSpaceLimit {
      while Self.freeBytes(store.directory) < Int64(freeDiskSpaceLimit),
        policy.evictOne({ _, key in self.depart(key) })
      {
        try removeDeparted()
      }
    }
  }

  /// Bytes available to this user on the file system holding `path`.
  static func freeBytes(_ path: String) -> Int64 {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return Int64.max }
    return Int64(clamping: UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize)).partialValue)
  }
}

/// What a ``DiskCache`` has done since it opened.
public struct DiskCacheStatistics: Sendable, Equatable {
  /// Reads that found a value.
  public var hits = 0
  /// Reads that found none (a value dropped as damaged or undecodable counts here).
  public var misses = 0
  /// Values written.
  public var sets = 0
  /// Writes the policy refused (the key's older value was removed).
  public var rejections = 0
  /// Entries evicted by the policy or the limits.
  public var evictions = 0
  /// Entries removed for the age limit.
  public var expirations = 0
  /// Values that failed verification on a read, were dropped and counted as misses.
  public var corruptValuesDropped = 0
  /// Values the cache's coder could not decode, dropped and counted as misses.
  public var undecodableValuesDropped = 0
  /// Bytes of the values read (before decoding).
  public var bytesRead: Int64 = 0

  /// All zero.
  public init() {}
}
