import EvictionCore

#if canImport(Glibc)
  import Glibc
#endif

/// A thread-safe disk cache over a ``DiskStore``: count, cost (bytes), age
/// and free-disk-space limits, eviction by any online catalog policy.
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
public final class DiskCache: @unchecked Sendable {
  let store: DiskStore
  var policy: AnyCachePolicy<String>
  let weighsCost: Bool
  public let countLimit: Int?
  public let costLimit: Int64?
  /// Values older than this (by last access) are removed on every write and by ``trimToLimits()``.
  public let ageLimit: Duration?
  /// Evict until the file system has at least this many bytes free.
  public let freeDiskSpaceLimit: Int64?
  var mutex = pthread_mutex_t()
  var time: Int64 = 0
  /// The key of the last `value(forKey:)` that missed.
  var pendingMiss: String? = nil
  /// Values that failed verification on a read, were dropped and counted as misses.
  public private(set) var corruptValuesDropped = 0

  /// Opens (or creates) the cache in `directory`. `policy` is a catalog spec
  /// (`lru`, `s3fifo`, `slru:segments=3`); with a `costLimit` it weighs
  /// values by their bytes, else it counts them.
  public init(
    directory: String, policy spec: String = "lru", countLimit: Int? = nil, costLimit: Int64? = nil,
    ageLimit: Duration? = nil, freeDiskSpaceLimit: Int64? = nil,
    inlineThreshold: Int = DiskStore.defaultInlineThreshold
  ) throws(DiskError) {
    let parsed: PolicySpec
    do { parsed = try PolicySpec(spec) } catch { throw .invalidPolicy(error.description) }
    if parsed.descriptor.isOffline || PolicyCatalog.entry(named: parsed.name)?.trimsOnATimer == true {
      throw .invalidPolicy(
        "\(parsed.name) cannot drive a live cache (it needs the future or trims on a timer); choose an online policy")
    }
    if let countLimit, countLimit < 1 { throw .invalidPolicy("countLimit \(countLimit): at least 1") }
    if let costLimit, costLimit < 1 { throw .invalidPolicy("costLimit \(costLimit): at least 1 byte") }
    store = try DiskStore(directory: directory, inlineThreshold: inlineThreshold)
    weighsCost = costLimit != nil
    self.countLimit = countLimit
    self.costLimit = costLimit
    self.ageLimit = ageLimit
    self.freeDiskSpaceLimit = freeDiskSpaceLimit
    let capacity = costLimit ?? Int64(countLimit ?? Int(Int32.max))
    var visitor = BoxingVisitor<String>()
    policy = parsed.withPolicy(capacity: capacity, index: HashedSlotIndex<String>.self, visitor: &visitor)
    pthread_mutex_init(&mutex, nil)
    try rebuild()
  }

  deinit {
    store.close()
    pthread_mutex_destroy(&mutex)
  }

  func locked<T>(_ body: () throws(DiskError) -> T) throws(DiskError) -> T {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    return try body()
  }

  /// Admits the rows oldest-access first; what the limits no longer allow is removed.
  func rebuild() throws(DiskError) {
    var evicted: [String] = []
    for entry in try store.entriesByAccessTime() {
      time += 1
      let request = Request(key: entry.key, weight: weighsCost ? max(1, entry.size) : 1, time: time)
      if policy.admit(request, { evicted.append($1) }) == nil { evicted.append(entry.key) }
    }
    for key in evicted { try store.removeValue(forKey: key) }
    try trimAgeAndSpace()
  }

  /// Stores `value` under `key`; evicts what the policy and limits say. A
  /// `set` right after a missed `value(forKey:)` of the same key admits
  /// without a second lookup, as the memory cache and the replay do, so a
  /// policy's ghost hits count the same in all three.
  public func set(_ value: [UInt8], forKey key: String) throws(DiskError) {
    guard !key.isEmpty else { throw .emptyKey }
    try locked { () throws(DiskError) in
      time += 1
      let request = Request(key: key, weight: weight(of: value), time: time)
      var evicted: [String] = []
      var resident = false
      if pendingMiss != key {
        // A new weight is admitted afresh below, not re-weighed by the lookup.
        var probe = request
        probe.carriesWeight = false
        resident = policy.lookup(probe, { evicted.append($1) }) != nil
      }
      pendingMiss = nil
      if resident && weighsCost {
        // A new weight: the policy admits the entry afresh.
        _ = policy.remove(key)
        resident = false
      }
      if !resident && policy.admit(request, { evicted.append($1) }) == nil {
        // Rejected by the policy: whatever was stored under the key goes.
        for victim in evicted { try store.removeValue(forKey: victim) }
        try store.removeValue(forKey: key)
        return
      }
      do throws(DiskError) { try store.set(value, forKey: key) } catch {
        // Not on disk: the policy must not believe it is.
        _ = policy.remove(key)
        throw error
      }
      for victim in evicted where victim != key { try store.removeValue(forKey: victim) }
      try trimAgeAndSpace()
    }
  }

  /// The value under `key`, or nil; a hit counts as an access for the policy.
  public func value(forKey key: String) throws(DiskError) -> [UInt8]? {
    guard !key.isEmpty else { throw .emptyKey }
    return try locked { () throws(DiskError) in
      time += 1
      var evicted: [String] = []
      let read = Request(key: key, weight: 1, time: time, carriesWeight: false)
      let found = policy.lookup(read, { evicted.append($1) }) != nil
      for victim in evicted { try store.removeValue(forKey: victim) }
      guard found else {
        pendingMiss = key
        return nil
      }
      pendingMiss = nil
      let value: [UInt8]?
      do throws(DiskError) { value = try store.value(forKey: key) } catch {
        // A value that failed verification was dropped by the store: a miss here.
        guard case .corruptValue = error else { throw error }
        corruptValuesDropped += 1
        value = nil
      }
      guard let value else {
        // Removed behind the cache's back (another process, a repair) or dropped as damaged.
        _ = policy.remove(key)
        return nil
      }
      return value
    }
  }

  func weight(of value: [UInt8]) -> Int64 { weighsCost ? max(1, Int64(value.count)) : 1 }

  /// Whether `key` is stored (not an access).
  public func contains(_ key: String) throws(DiskError) -> Bool {
    try locked { () throws(DiskError) in try store.contains(key) }
  }

  @discardableResult
  public func removeValue(forKey key: String) throws(DiskError) -> Bool {
    try locked { () throws(DiskError) in
      _ = policy.remove(key)
      pendingMiss = nil
      return try store.removeValue(forKey: key)
    }
  }

  public func removeAll() throws(DiskError) {
    try locked { () throws(DiskError) in
      while policy.evictOne({ _, _ in }) {}
      try store.removeAll()
    }
  }

  /// Values stored and their bytes.
  public func totals() throws(DiskError) -> (count: Int, bytes: Int64) {
    try locked { () throws(DiskError) in try store.totals() }
  }

  /// Entries the policy holds (equal to the stored count once consistent).
  public var policyCount: Int { (try? locked { () throws(DiskError) in policy.count() }) ?? 0 }

  /// Removes values older than the age limit and evicts until the free-space
  /// limit holds.
  public func trimToLimits() throws(DiskError) {
    try locked { () throws(DiskError) in try trimAgeAndSpace() }
  }

  func trimAgeAndSpace() throws(DiskError) {
    if let ageLimit {
      let nanoseconds = ageLimit.components.seconds * 1_000_000_000 + ageLimit.components.attoseconds / 1_000_000_000
      let cutoff = DiskStore.now() - nanoseconds
      for entry in try store.entriesByAccessTime() {
        guard entry.lastAccessTime < cutoff else { break }
        _ = policy.remove(entry.key)
        try store.removeValue(forKey: entry.key)
      }
    }
    if let freeDiskSpaceLimit {
      while Self.freeBytes(store.directory) < freeDiskSpaceLimit {
        var victim: String? = nil
        guard policy.evictOne({ victim = $1 }), let victim else { break }
        try store.removeValue(forKey: victim)
      }
    }
  }

  /// Bytes available to this user on the file system holding `path`.
  static func freeBytes(_ path: String) -> Int64 {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return Int64.max }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }
}
