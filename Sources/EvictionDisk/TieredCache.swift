import EvictionCache
import Synchronization

/// A `MemoryCache` of decoded values over a ``DiskCache``: reads try
/// memory, then disk (a disk hit is decoded once and kept in memory);
/// writes go to both. Where the memory tier has a cost limit, a value
/// weighs its encoded bytes, as on disk.
///
/// ```swift
/// let thumbnails = try TieredCache<String, Thumbnail>(
///   directory: "/var/cache/app/thumbnails", policy: .s3fifo(),
///   memoryCostLimit: 64 << 20, diskCostLimit: 1 << 30)
/// let thumbnail = try await thumbnails.value(forKey: url) { url in try await render(url) }
/// ```
public final class TieredCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  /// The memory tier.
  public let memory: MemoryCache<Key, Value>
  /// The disk tier.
  public let disk: DiskCache<Key, Value>
  let counters = Mutex(Statistics())
  /// Locks by key hash: a key's write to both tiers, its removal, and a
  /// read's promotion from disk run one at a time, so the tiers never end
  /// up holding different values of a key (an older one in memory).
  let stripes: [Stripe] = (0..<64).map { _ in Stripe() }

  /// Where the reads were served, and what the disk tier cost.
  public struct Statistics: Sendable, Equatable {
    /// Reads the memory tier served.
    public var memoryHits = 0
    /// Reads the disk tier served (a disk read shared by several waiters of
    /// ``TieredCache/value(forKey:ttl:timeout:orLoad:)`` counts once).
    public var diskHits = 0
    /// Reads neither tier served.
    public var misses = 0
    /// Bytes read from the disk tier, before decoding.
    public var bytesReadFromDisk: Int64 = 0
    /// Values the get-or-load calls loaded (each load shared by its waiters counts once).
    public var loads = 0
    /// Values the disk tier refused or failed to write (heavier than its
    /// cost limit, a full disk, a coder's error): kept in memory only.
    public var diskWriteFailures = 0

    /// Counts as given.
    public init(memoryHits: Int = 0, diskHits: Int = 0, misses: Int = 0, bytesReadFromDisk: Int64 = 0, loads: Int = 0) {
      self.memoryHits = memoryHits
      self.diskHits = diskHits
      self.misses = misses
      self.bytesReadFromDisk = bytesReadFromDisk
      self.loads = loads
    }
  }

  /// Two tiers you built. A `MemoryCache` built in your own module runs its
  /// policy specialised for `Key` (fastest); the memory tier should weigh
  /// values as the disk does (`cost:`), or count them. Its `onEvict` must
  /// not write to this tiered cache (a write holds a lock of the key's).
  public init(memory: MemoryCache<Key, Value>, disk: DiskCache<Key, Value>) {
    self.memory = memory
    self.disk = disk
  }

  /// A memory tier of `policy` and its disk tier at `directory`, each with
  /// its own limits: counts, or bytes of encoded values where a cost limit
  /// is given.
  ///
  /// Built here, not inlined into the caller, so a caller does not compile
  /// every catalog policy once more for its key type; the memory tier's
  /// policy then runs through generic code, a few times slower than one
  /// specialised with ``init(memory:disk:)``.
  public convenience init(
    directory: String, policy: CachePolicy = .lru, memoryCountLimit: Int? = nil, memoryCostLimit: Int? = nil,
    diskCountLimit: Int? = nil, diskCostLimit: Int? = nil, coder: DiskCoder<Key, Value>
  ) throws {
    let memory = try MemoryCache<Key, Value>(
      policy: policy, countLimit: memoryCountLimit, costLimit: memoryCostLimit)
    let disk = try DiskCache(
      directory: directory, policy: policy, countLimit: diskCountLimit, costLimit: diskCostLimit, coder: coder)
    self.init(memory: memory, disk: disk)
  }

  /// Where the reads were served.
  public var statistics: Statistics { counters.withLock { $0 } }

  /// Which tier served a read.
  public enum Tier: Sendable, Equatable {
    /// The memory tier.
    case memory
    /// The disk tier (and the value is kept in memory, unless a write came in meanwhile).
    case disk
  }

  /// The value from memory, else from disk (then kept in memory too), else nil.
  public func value(forKey key: Key) throws -> Value? { try lookup(key)?.value }

  /// Like ``value(forKey:)``, and says which tier served it.
  public func lookup(_ key: Key) throws -> (value: Value, tier: Tier)? {
    if let value = memory.value(forKey: key) {
      counters.withLock { $0.memoryHits += 1 }
      return (value, .memory)
    }
    return try stripe(key).mutex.withLock { _ throws(DiskError) -> (value: Value, tier: Tier)? in
      guard let (value, bytes) = try readDisk(key) else {
        counters.withLock { $0.misses += 1 }
        return nil
      }
      // A write that came in meanwhile is newer: it stays.
      memory.storeIfAbsent(value, forKey: key, cost: bytes, ttl: nil)
      return (value, .disk)
    }
  }

  func stripe(_ key: Key) -> Stripe { stripes[key.hashValue & (stripes.count - 1)] }

  /// The value for `key`: from memory; else from disk; else loaded by
  /// `load`, written to disk and kept in memory. However many tasks ask for
  /// one missing key at once, the disk is read (and `load` runs) once, and
  /// every one of them receives the value or the error, as
  /// `MemoryCache.value(forKey:cost:ttl:timeout:orLoad:)` does.
  ///
  /// With a `ttl`, the value expires from memory that long after it is
  /// stored, and a value on disk written longer ago than that is not
  /// served but loaded again: the loader runs at least once per `ttl`.
  /// (The memory tier's own `expiry` closure or age limit bounds only the
  /// memory copy: without a `ttl` a disk copy serves until evicted.)
  /// `timeout` bounds each caller's wait. A value written while it loads
  /// is newer and stays, in both tiers. If the disk cannot take the loaded
  /// value (heavier than its limit, a full disk), it is still returned and
  /// kept in memory, and counted (``Statistics/diskWriteFailures``).
  public func value(
    forKey key: Key, ttl: Duration? = nil, timeout: Duration? = nil,
    orLoad load: @escaping @Sendable (Key) async throws -> Value
  ) async throws -> Value {
    if let value = memory.value(forKey: key) {
      counters.withLock { $0.memoryHits += 1 }
      return value
    }
    return try await memory.load(afterMiss: key, ttl: ttl, timeout: timeout) { [self] in
      let writtenAfter = ttl.map { ttl in
        let (seconds, attoseconds) = ttl.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return nanoseconds.overflow
          ? Int64.min : DiskStore.now() &- (nanoseconds.partialValue &+ attoseconds / 1_000_000_000)
      }
      let read = try await disk.onQueue { () throws(DiskError) in try self.readDisk(key, writtenAfter: writtenAfter) }
      if let (value, bytes) = read { return (value, bytes) }
      counters.withLock {
        $0.misses += 1
        $0.loads += 1
      }
      let value = try await load(key)
      let bytes = try await disk.onQueue { () -> Int? in
        self.stripe(key).mutex.withLock { _ in
          do throws(DiskError) {
            return try self.disk.write(value, forKey: key, ifAbsent: true).bytes
          } catch {
            self.counters.withLock { $0.diskWriteFailures += 1 }
            if case .valueTooLarge(_, let bytes, _) = error { return bytes }
            return nil
          }
        }
      }
      return (value, bytes)
    }
  }

  /// Reads `key` from the disk tier, counting a hit.
  func readDisk(_ key: Key, writtenAfter: Int64? = nil) throws(DiskError) -> (Value, Int)? {
    guard let (value, bytes) = try disk.read(key, writtenAfter: writtenAfter) else { return nil }
    counters.withLock {
      $0.diskHits += 1
      $0.bytesReadFromDisk += Int64(bytes)
    }
    return (value, bytes)
  }

  /// Writes to disk, then to memory (at its encoded bytes). A value
  /// heavier than the disk tier's cost limit is kept in memory only (the
  /// key's older value leaves the disk), and counted
  /// (``Statistics/diskWriteFailures``); another disk error removes the
  /// key from both tiers and is thrown.
  public func setValue(_ value: Value, forKey key: Key) throws {
    try stripe(key).mutex.withLock { _ throws(DiskError) in
      let bytes: Int
      do throws(DiskError) { bytes = try disk.write(value, forKey: key).bytes } catch {
        counters.withLock { $0.diskWriteFailures += 1 }
        guard case .valueTooLarge(_, let size, _) = error else {
          memory.removeValue(forKey: key)
          throw error
        }
        try disk.removeValue(forKey: key)
        bytes = size
      }
      memory.setValue(value, forKey: key, cost: bytes)
    }
  }

  /// Removes `key` from both tiers; true if either held it.
  @discardableResult
  public func removeValue(forKey key: Key) throws -> Bool {
    try stripe(key).mutex.withLock { _ throws(DiskError) in
      let inMemory = memory.removeValue(forKey: key)
      let onDisk = try disk.removeValue(forKey: key)
      return inMemory || onDisk
    }
  }
}

extension TieredCache where Key: Encodable, Value: Codable {
  /// Tiers of `Codable` keys and values, written to disk by
  /// ``DiskCoder/json``; the parameters are those of
  /// ``init(directory:policy:memoryCountLimit:memoryCostLimit:diskCountLimit:diskCostLimit:coder:)``.
  public convenience init(
    directory: String, policy: CachePolicy = .lru, memoryCountLimit: Int? = nil, memoryCostLimit: Int? = nil,
    diskCountLimit: Int? = nil, diskCostLimit: Int? = nil
  ) throws {
    try self.init(
      directory: directory, policy: policy, memoryCountLimit: memoryCountLimit, memoryCostLimit: memoryCostLimit,
      diskCountLimit: diskCountLimit, diskCostLimit: diskCostLimit, coder: .json)
  }
}

extension TieredCache where Key == String, Value == [UInt8] {
  /// Byte values under string keys, both tiers of `policy`: the memory
  /// tier's policy compiled here, specialised for `String` keys (the tiered
  /// replay's cache; the generic convenience initialiser runs it through
  /// generic code).
  @inline(never)
  package static func bytes(
    directory: String, policy: CachePolicy, memoryCountLimit: Int?, memoryCostLimit: Int?, diskCountLimit: Int?,
    diskCostLimit: Int?
  ) throws -> TieredCache {
    let memory = try MemoryCache<String, [UInt8]>(
      policy: policy, countLimit: memoryCountLimit, costLimit: memoryCostLimit)
    let disk = try DiskCache<String, [UInt8]>(
      directory: directory, policy: policy, countLimit: diskCountLimit, costLimit: diskCostLimit)
    return TieredCache(memory: memory, disk: disk)
  }
}

/// One of a tiered cache's key locks.
final class Stripe: Sendable {
  let mutex = Mutex(())
}
