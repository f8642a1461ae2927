/// Size: evict the largest object. One of the first policies for web proxies
/// (Williams et al., "Removal policies in network caches for World-Wide Web
/// documents", SIGCOMM'96): many small documents are worth more hits than one
/// large one. In count mode every object weighs 1 and the choice among equals
/// is the heap's.
///
/// Follows libCacheSim's `size` (`eviction/Size.c`, unchanged in 0.3.5): a
/// max-heap keyed by size alone, ties broken by the heap's own order
/// (``SlotHeap`` is libCacheSim's heap step for step). A hit re-keys the
/// entry by the size its request carries, as libCacheSim does, while the
/// entry goes on weighing its admitted size against the capacity: an object
/// that shrank after admission is kept as if small and, when evicted, frees
/// its old size. A cache's read carries no size
/// (``Request/carriesWeight`` false) and leaves the key as it was. Before
/// this a hit re-keyed by the admitted size, which differs only on traces
/// whose objects change size: on the AdaptSize trace
/// (`caffeine/adapt_size/request.trace.xz`, ids kept, 4,876 size changes) in
/// byte mode at 2,800,000 bytes, 49,435 misses against libCacheSim's 49,848;
/// now 49,848.
///
/// - Complexity: O(log n) per request (a heap of n resident objects).
public struct SizePolicy<Index: SlotIndex & ~Copyable>: HeapPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  /// Resident entries by size; the largest leaves first.
  public var heap = SlotHeap<Int64>()
  public static var heapOrder: String { "by size, next victim first" }

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "Size" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    heap.changePriority(slot, to: request.carriesWeight ? request.weight : heap.priority(of: slot))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: ())
    heap.insert(slot, priority: request.weight)
    return slot
  }

  @inlinable @inline(__always)
  public func nextVictim() -> Slot? { heap.count > 0 ? heap.top : nil }

}

/// Size in the catalog.
public enum SizeEviction: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "size", displayName: "SIZE", summary: "evict the largest object", citation: "Williams et al., SIGCOMM'96",
    traits: .namesVictims,
    checkedAgainst:
      "libCacheSim (cloudPhysicsIO, count and bytes; seven more traces); 0.3.5 on twitter_cluster52 and on the "
      + "AdaptSize trace with its size changes (bytes)",
    libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(SizePolicy<Index>(capacity: capacity))
  }
}
