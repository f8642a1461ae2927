import EvictionCache
import Foundation
import Synchronization

/// A cache as the cache and stress benchmarks drive it: get, and set on a
/// miss (read-through). `MemoryCache` and the two comparison points.
package protocol CacheTarget: AnyObject, Sendable {
  func get(_ key: UInt64) -> Bool
  func set(_ key: UInt64, cost: Int64)
  /// Lock waits and acquisitions, for caches that count them.
  var lockFigures: LockStatistics? { get }
  /// Hits, sets that replaced a value without the policy's lock, and the
  /// accesses (of either) the policy never heard of (`MemoryCache` only).
  var counters: (hits: Int, writesInPlace: Int, dropped: Int)? { get }
}

extension MemoryCache: CacheTarget where Key == UInt64, Value == UInt64 {
  package func get(_ key: UInt64) -> Bool { value(forKey: key) != nil }
  package func set(_ key: UInt64, cost: Int64) { setValue(key, forKey: key, cost: Int(cost)) }
  package var lockFigures: LockStatistics? { lockStatistics }
  package var counters: (hits: Int, writesInPlace: Int, dropped: Int)? {
    let statistics = statistics
    return (statistics.hits, statistics.writesInPlace, statistics.droppedAccesses)
  }
}

/// Foundation's NSCache, limited by count or by total cost.
package final class NSCacheTarget: CacheTarget, @unchecked Sendable {
  let cache = NSCache<NSNumber, NSNumber>()
  let bytes: Bool
  package init(limit: Int64, bytes: Bool) {
    self.bytes = bytes
    if bytes { cache.totalCostLimit = Int(limit) } else { cache.countLimit = Int(limit) }
  }
  package func get(_ key: UInt64) -> Bool { cache.object(forKey: NSNumber(value: key)) != nil }
  package func set(_ key: UInt64, cost: Int64) {
    cache.setObject(NSNumber(value: key), forKey: NSNumber(value: key), cost: bytes ? Int(cost) : 0)
  }
  package var lockFigures: LockStatistics? { nil }
  package var counters: (hits: Int, writesInPlace: Int, dropped: Int)? { nil }
}

/// The floor: an unbounded dictionary behind Swift's `Mutex`.
package final class MutexDictionary: CacheTarget {
  let mutex = Mutex<[UInt64: UInt64]>([:])
  package init() {}
  package func get(_ key: UInt64) -> Bool { mutex.withLock { $0[key] != nil } }
  package func set(_ key: UInt64, cost: Int64) { mutex.withLock { $0[key] = key } }
  package var lockFigures: LockStatistics? { nil }
  package var counters: (hits: Int, writesInPlace: Int, dropped: Int)? { nil }
}
