/// LRU caches from app libraries that insert first and trim afterwards,
/// unlike a simulator's LRU, which makes room before admitting:
///
/// - `yy-memory`, YYMemoryCache (YYCache, ibireme): a hit moves the entry to
///   the head; after a set, while the total cost exceeds `costLimit` the tail
///   is removed (YYMemoryCache does this on its background queue; the model
///   runs it at once), then, if the count exceeds `countLimit`, exactly one
///   tail entry is removed (`yy-memory:count=N`, default none). An object
///   heavier than the whole limit is inserted and then trimmed away with
///   everything older.
/// - `af-autopurging`, AFNetworking's AFAutoPurgingImageCache: entries are
///   ordered by last access; when usage exceeds the capacity after an add, it
///   purges the least recently accessed entries until at least
///   usage − preferred usage has been freed (`af-autopurging:after=0.6`, the
///   defaults' 60 MB over 100 MB).
///
/// Here the capacity is the cost limit (YYMemoryCache) or the memory capacity
/// (AFNetworking), in whatever unit the replay uses.
public struct PurgingLRUModel<Index: SlotIndex & ~Copyable>: SingleListPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// Which library's trimming rule applies.
  public enum Flavor: Sendable {
    /// YYMemoryCache; a count limit of 0 means none.
    case yyMemory(countLimit: Int)
    /// AFAutoPurgingImageCache, purging down to this share of the capacity.
    case afAutoPurging(after: Double)
  }

  public var store: PolicyStorage<Index, Void>
  public var queue = EntryList()
  public let flavor: Flavor

  @inlinable
  public init(capacity: Int64, flavor: Flavor) {
    store = PolicyStorage(capacity: capacity)
    self.flavor = flavor
  }

  public var name: String {
    switch flavor {
    case .yyMemory(let count): return count > 0 ? "YYMemoryCache(count=\(count))" : "YYMemoryCache"
    case .afAutoPurging(let after): return "AFAutoPurgingImageCache(after=\(after))"
    }
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    store.table.moveToFront(slot, &queue)
    return slot
  }

  @inlinable
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.insert(request, payload: (), atFrontOf: &queue, tag: 0)
    var admitted = true
    func evictTail() {
      let victim = queue.back
      if victim == slot {
        admitted = false
        store.table.unlink(victim, &queue)
        store.delete(victim, resident: true)
      } else {
        store.evict(victim, from: &queue, onEvict: onEvict)
      }
    }
    switch flavor {
    case .yyMemory(let countLimit):
      while store.used > store.capacity { evictTail() }
      if countLimit > 0 && store.count > countLimit { evictTail() }
    case .afAutoPurging(let after):
      if store.used > store.capacity {
        let preferred = Int64(Double(store.capacity) * after)
        let target = store.used - preferred
        var purged: Int64 = 0
        while purged < target && store.count > 0 {
          purged += store.table[queue.back].weight
          evictTail()
        }
      }
    }
    return admitted ? slot : nil
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard queue.back >= 0 else { return false }
    store.evict(queue.back, from: &queue, onEvict: onEvict)
    return true
  }
}

/// The YYMemoryCache model in the catalog.
public enum YYMemory: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "yy-memory", displayName: "YYMemoryCache", summary: "model of YYMemoryCache (LRU, trims after insertion)",
    parameters: [
      PolicyParameter("count", default: 0, range: 0...Int64(Int32.max), help: "countLimit, 0 for none")
    ],
    traits: .model,
    checkedAgainst: "hand-worked scenarios")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(PurgingLRUModel<Index>(capacity: capacity, flavor: .yyMemory(countLimit: Int(spec.integer("count")))))
  }
}

/// The AFAutoPurgingImageCache model in the catalog.
public enum AFAutoPurging: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "af-autopurging", displayName: "AFAutoPurgingImageCache",
    summary: "model of AFNetworking's AFAutoPurgingImageCache (LRU, purges to a preferred usage)",
    parameters: [
      PolicyParameter(fraction: "after", default: 0.6, help: "usage to purge down to, share of the capacity")
    ],
    traits: .model,
    checkedAgainst: "hand-worked scenarios")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(PurgingLRUModel<Index>(capacity: capacity, flavor: .afAutoPurging(after: spec.fraction("after"))))
  }
}
