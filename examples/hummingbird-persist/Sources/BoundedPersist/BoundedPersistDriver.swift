import EvictionCache
import Foundation
import Hummingbird
import ServiceLifecycle

/// Hummingbird's `PersistDriver` over a `MemoryCache`: key-value state that
/// outlives a request (sessions, counters, cached responses), held within a
/// count and cost limit and evicted by any replacement policy of
/// EvictionLab's catalog, where Hummingbird's own `MemoryPersistDriver`
/// grows without bound.
///
/// Its semantics are `MemoryPersistDriver`'s:
/// - `create` stores a key only if it is absent (live), else throws
///   `PersistError.duplicate`; two concurrent creates of one key make one
///   entry (the cache's get-or-load runs one load per key).
/// - `set` stores or replaces; with `expires: nil` a replaced value keeps
///   the expiry of the value it replaces.
/// - `get` returns nil for a missing or expired key, and throws
///   `PersistError.invalidConversion` for a value of another type.
/// - Expired entries are removed as they are found, and by `run()` on a
///   timer (the service's tidy loop).
///
/// Unlike `MemoryPersistDriver`, a value may be evicted before it expires
/// when the limits are reached: a persist store that is a cache. The
/// policy decides which (`.lru` by default; `.s3fifo()` or `.wtinylfu()` keep
/// hot keys under scans).
public final class BoundedPersistDriver: PersistDriver {
  /// What is kept per key: the value, and its deadline on the driver's clock
  /// (nanoseconds; nil for none), so a replacing `set` can keep it.
  struct Item: Sendable {
    let value: any Codable & Sendable
    let deadline: UInt64?
  }

  /// The cache behind the driver.
  let cache: MemoryCache<String, Item>

  /// The entries held (expired ones not yet removed included).
  public var count: Int { cache.count }
  /// The most entries it holds.
  public var countLimit: Int? { cache.countLimit }
  /// Hits, misses and evictions by reason, as the cache counts them.
  public var statistics: CacheStatistics { cache.statistics }
  let clock: @Sendable () -> UInt64
  let tidyInterval: Duration

  /// A driver that holds at most `countLimit` entries (and, with `cost`,
  /// at most `costLimit` of cost), evicting by `policy`.
  /// - Parameters:
  ///   - lock: the cache's locking; a server with many cores serves reads
  ///     best under `.buffered` or `.striped(shards:)`.
  ///   - cost: what an entry weighs against `costLimit` (its encoded size,
  ///     say); without it every entry costs 1.
  ///   - tidyInterval: how often `run()` removes expired entries.
  ///   - clock: nanoseconds on a monotonic clock (for tests).
  public init(
    policy: CachePolicy = .lru, countLimit: Int? = 10_000, costLimit: Int? = nil, lock: LockStrategy = .mutex,
    cost: (@Sendable (any Codable & Sendable) -> Int)? = nil, tidyInterval: Duration = .seconds(60),
    clock: (@Sendable () -> UInt64)? = nil
  ) throws(CacheError) {
    let now = clock ?? { DispatchTime.now().uptimeNanoseconds }
    self.clock = now
    self.tidyInterval = tidyInterval
    var weigh: MemoryCache<String, Item>.CostFunction? = nil
    if let cost { weigh = { item in cost(item.value) } }
    cache = try MemoryCache<String, Item>(
      policy: policy, countLimit: countLimit, costLimit: costLimit, cost: weigh, lock: lock, clock: now)
  }

  /// The deadline `expires` from now, or nil for none.
  func deadline(_ expires: Duration?) -> UInt64? {
    guard let expires else { return nil }
    let nanoseconds = expires.components.seconds * 1_000_000_000 + expires.components.attoseconds / 1_000_000_000
    return nanoseconds <= 0 ? clock() : clock() &+ UInt64(clamping: nanoseconds)
  }

  public func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
    let item = Item(value: value, deadline: deadline(expires))
    let made = Made()
    // One load per key: of concurrent creates, exactly one runs its loader.
    _ = try await cache.value(forKey: key, ttl: expires) {
      made.mark()
      return item
    }
    guard made.done else { throw PersistError.duplicate }
  }

  public func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
    guard expires == nil else {
      return cache.setValue(Item(value: value, deadline: deadline(expires)), forKey: key, ttl: expires)
    }
    // A replaced value's expiry stands.
    guard let kept = cache.value(forKey: key)?.deadline else {
      return cache.setValue(Item(value: value, deadline: nil), forKey: key)
    }
    let now = clock()
    let left = kept > now ? Duration.nanoseconds(Int64(clamping: kept - now)) : .zero
    cache.setValue(Item(value: value, deadline: kept), forKey: key, ttl: left)
  }

  public func get<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> Object? {
    guard let item = cache.value(forKey: key) else { return nil }
    guard let object = item.value as? Object else { throw PersistError.invalidConversion }
    return object
  }

  public func getWithTTL<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> (
    object: Object, ttl: Duration?
  )? {
    guard let item = cache.value(forKey: key) else { return nil }
    guard let object = item.value as? Object else { throw PersistError.invalidConversion }
    let left = item.deadline.map { deadline in
      Duration.nanoseconds(Int64(clamping: deadline > clock() ? deadline - clock() : 0))
    }
    return (object, left)
  }

  public func remove(key: String) async throws {
    _ = cache.removeValue(forKey: key)
  }

  /// Removes expired entries every `tidyInterval` until the service group
  /// shuts down.
  public func run() async throws {
    try await cancelWhenGracefulShutdown {
      while !Task.isCancelled {
        try await Task.sleep(for: self.tidyInterval)
        self.cache.trimExpired()
      }
    }
  }

  /// Whether a create's loader ran.
  final class Made: @unchecked Sendable {
    private let lock = NSLock()
    private var ran = false
    func mark() { lock.withLock { ran = true } }
    var done: Bool { lock.withLock { ran } }
  }
}
