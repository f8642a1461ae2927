/// Disk caches from app libraries that never evict on a write: they store
/// everything and a clean-up, run on a timer, trims afterwards. Between two
/// clean-ups such a cache holds more than its limit, which is part of what
/// the model shows. Both read each request's `timestamp` (the trace's
/// seconds; traces without timestamps put every request in second 0).
///
/// - `yy-disk`, YYDiskCache (YYCache, ibireme): every read and write stamps
///   the entry's last access time with `time(NULL)`, one-second resolution;
///   every `interval` seconds (its `autoTrimInterval`, 60) it trims to the cost
///   limit (the capacity) and then to `count` (default none), deleting in
///   `ORDER BY last_access_time` order, 16 rows per query. Among entries of
///   the same second SQLite returns the older row first, and a write
///   (`INSERT OR REPLACE`) makes a new row, so ties go to the least recently
///   written. The 16-row batches change how often it queries, not what it
///   deletes.
/// - `sd-disk`, SDWebImage's `SDImageCache` disk clean-up (run when the app
///   goes to the background; here every `interval` seconds, default one
///   day): delete files whose modification date is older than `age`
///   (`maxDiskAge`, one week), then, if the total still exceeds the limit
///   (`maxDiskSize`, the capacity), delete the oldest-modified files until
///   the total is below half the limit. Reads do not touch the modification
///   date.
///
/// The first clean-up runs `interval` seconds after the first request (the
/// libraries start their timers when the cache is created); clean-ups due at
/// or before a request's second run before it.
///
/// - Complexity: O(log n) per request (a heap of n resident objects), and
///   O(k log n) for a clean-up that deletes k.
public struct TimedTrimModel<Index: SlotIndex & ~Copyable>: HeapPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// Which library's clean-up applies.
  public enum Flavor: Sendable {
    /// YYDiskCache; a count limit of 0 means none.
    case yyDisk(countLimit: Int, interval: Int64)
    /// SDImageCache; files older than `maxAge` seconds expire.
    case sdDisk(maxAge: Int64, interval: Int64)
  }

  /// Oldest first: by stamp (seconds), then by the order of the last write.
  @frozen public struct Age: Comparable, BitwiseCopyable {
    @usableFromInline var stamp: Int64
    @usableFromInline var row: Int64
    @inlinable init(stamp: Int64, row: Int64) {
      self.stamp = stamp
      self.row = row
    }
    /// Reversed, so the max-heap's top is the oldest entry.
    @inlinable public static func < (a: Age, b: Age) -> Bool { (a.stamp, a.row) > (b.stamp, b.row) }
  }

  public var store: PolicyStorage<Index, Void>
  public var heap = SlotHeap<Age>()
  public static var heapOrder: String { "oldest first" }
  /// The libraries trim after a write, so a write may leave more than the limits between trims.
  public static var staysWithinCapacity: Bool { false }
  @usableFromInline var rows: Int64 = 0
  @usableFromInline var nextCleanUp: Int64 = .min
  public let flavor: Flavor

  @inlinable
  public init(capacity: Int64, flavor: Flavor) {
    store = PolicyStorage(capacity: capacity)
    self.flavor = flavor
  }

  public var name: String {
    switch flavor {
    case .yyDisk(let count, let interval):
      return "YYDiskCache(count=\(count),interval=\(interval)s)"
    case .sdDisk(let age, let interval):
      return "SDImageCache(age=\(age)s,interval=\(interval)s)"
    }
  }

  @inlinable
  var interval: Int64 {
    switch flavor {
    case .yyDisk(_, let interval), .sdDisk(_, let interval): interval
    }
  }

  /// Runs the clean-up if one is due at `now`.
  @inlinable @inline(__always)
  mutating func cleanUpIfDue(_ now: Int64, _ onEvict: (Slot, Key) -> Void) {
    if nextCleanUp == .min { nextCleanUp = now &+ interval }
    guard now >= nextCleanUp else { return }
    let elapsed = now &- nextCleanUp
    nextCleanUp = nextCleanUp &+ (elapsed / interval + 1) &* interval
    cleanUp(now, onEvict)
  }

  @inlinable
  mutating func cleanUp(_ now: Int64, _ onEvict: (Slot, Key) -> Void) {
    switch flavor {
    case .yyDisk(let countLimit, _):
      while store.used > store.capacity { store.evictTop(of: &heap, onEvict: onEvict) }
      if countLimit > 0 { while store.count > countLimit { store.evictTop(of: &heap, onEvict: onEvict) } }
    case .sdDisk(let maxAge, _):
      // Expired: modified at or before now − maxAge.
      while heap.count > 0 && now &- heap.priority(of: heap.top).stamp >= maxAge {
        store.evictTop(of: &heap, onEvict: onEvict)
      }
      if store.used > store.capacity {
        // SDImageCache deletes, then stops once the total is below half the limit.
        while heap.count > 0 && store.used >= store.capacity / 2 { store.evictTop(of: &heap, onEvict: onEvict) }
      }
    }
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    cleanUpIfDue(request.timestamp, onEvict)
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if case .yyDisk = flavor {
      // A read re-stamps the row; its place among equal stamps stays its write order.
      let row = heap.priority(of: slot).row
      heap.changePriority(slot, to: Age(stamp: request.timestamp, row: row))
    }
    return slot
  }

  @inlinable
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    cleanUpIfDue(request.timestamp, onEvict)
    let slot = store.insert(request.key, weight: request.weight, payload: ())
    rows &+= 1
    heap.insert(slot, priority: Age(stamp: request.timestamp, row: rows))
    return slot
  }

}

/// The YYDiskCache model in the catalog.
public enum YYDisk: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "yy-disk", displayName: "YYDiskCache",
    summary: "model of YYDiskCache (LRU by access second, trimmed on a timer)",
    parameters: [
      PolicyParameter("count", default: 0, range: 0...Int64(Int32.max), help: "countLimit, 0 for none"),
      PolicyParameter("interval", default: 60, range: 1...Int64(Int32.max), help: "autoTrimInterval, seconds"),
    ],
    traits: [.model, .mayExceedCapacity],
    checkedAgainst: "hand-worked scenarios")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      TimedTrimModel<Index>(
        capacity: capacity, flavor: .yyDisk(countLimit: Int(spec.integer("count")), interval: spec.integer("interval")))
    )
  }
}

/// The SDImageCache disk model in the catalog.
public enum SDDisk: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "sd-disk", displayName: "SDImageCache (disk)",
    summary: "model of SDImageCache's disk clean-up (expire by age, then oldest to half the limit)",
    parameters: [
      PolicyParameter("age", default: 604800, range: 1...Int64.max, help: "maxDiskAge, seconds (one week)"),
      PolicyParameter("interval", default: 86400, range: 1...Int64(Int32.max), help: "seconds between clean-ups"),
    ],
    traits: [.model, .mayExceedCapacity],
    checkedAgainst: "hand-worked scenarios")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      TimedTrimModel<Index>(
        capacity: capacity, flavor: .sdDisk(maxAge: spec.integer("age"), interval: spec.integer("interval"))))
  }
}
