import EvictionCache
import Synchronization

/// A ``MemoryCache`` over a ``DiskCache``: reads try memory, then disk (a
/// disk hit is promoted into memory); writes go to both. Byte values, string
/// keys; the memory tier weighs a value by its bytes.
public final class TieredCache: Sendable {
  public let memory: MemoryCache<String, [UInt8]>
  public let disk: DiskCache
  let counters = Mutex(Statistics())

  /// Where the reads were served, and what the disk tier cost.
  public struct Statistics: Sendable, Equatable {
    public var memoryHits = 0
    public var diskHits = 0
    public var misses = 0
    public var bytesReadFromDisk: Int64 = 0

    public init(memoryHits: Int = 0, diskHits: Int = 0, misses: Int = 0, bytesReadFromDisk: Int64 = 0) {
      self.memoryHits = memoryHits
      self.diskHits = diskHits
      self.misses = misses
      self.bytesReadFromDisk = bytesReadFromDisk
    }
  }

  public init(memory: MemoryCache<String, [UInt8]>, disk: DiskCache) {
    self.memory = memory
    self.disk = disk
  }

  /// A memory tier of `policy` (a catalog spec) and its disk tier at
  /// `directory`, each with its own limits: counts, or bytes where a cost
  /// limit is given.
  ///
  /// Built here, not inlined into the caller: a `MemoryCache` with string
  /// keys boxes its policy in closures specialised for `String`, and this
  /// module already holds those (``DiskCache`` boxes its policy the same
  /// way), so a caller does not compile every catalog policy once more.
  @inline(never)
  public convenience init(
    directory: String, policy: String, memoryCountLimit: Int? = nil, memoryCostLimit: Int64? = nil,
    diskCountLimit: Int? = nil, diskCostLimit: Int64? = nil
  ) throws {
    let memory = try MemoryCache<String, [UInt8]>(
      policy: CachePolicy(policy), countLimit: memoryCountLimit, costLimit: memoryCostLimit.map { Int($0) })
    let disk = try DiskCache(
      directory: directory, policy: policy, countLimit: diskCountLimit, costLimit: diskCostLimit)
    self.init(memory: memory, disk: disk)
  }

  public var statistics: Statistics { counters.withLock { $0 } }

  /// Which tier served a read.
  public enum Tier: Sendable, Equatable { case memory, disk }

  /// The value from memory, else from disk (then kept in memory too), else nil.
  public func value(forKey key: String) throws -> [UInt8]? { try lookup(key)?.value }

  /// Like ``value(forKey:)``, and says which tier served it.
  public func lookup(_ key: String) throws -> (value: [UInt8], tier: Tier)? {
    if let value = memory.value(forKey: key) {
      counters.withLock { $0.memoryHits += 1 }
      return (value, .memory)
    }
    guard let value = try disk.value(forKey: key) else {
      counters.withLock { $0.misses += 1 }
      return nil
    }
    counters.withLock {
      $0.diskHits += 1
      $0.bytesReadFromDisk += Int64(value.count)
    }
    memory.setValue(value, forKey: key, cost: value.count)
    return (value, .disk)
  }

  /// Writes to disk, then to memory.
  public func set(_ value: [UInt8], forKey key: String) throws {
    try disk.set(value, forKey: key)
    memory.setValue(value, forKey: key, cost: value.count)
  }

  @discardableResult
  public func removeValue(forKey key: String) throws -> Bool {
    let inMemory = memory.removeValue(forKey: key)
    let onDisk = try disk.removeValue(forKey: key)
    return inMemory || onDisk
  }
}
