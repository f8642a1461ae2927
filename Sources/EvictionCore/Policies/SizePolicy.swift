/// Size: evict the largest object. One of the first policies for web proxies
/// (Williams et al., "Removal policies in network caches for World-Wide Web
/// documents", SIGCOMM'96): many small documents are worth more hits than one
/// large one. In count mode every object weighs 1 and the choice among equals
/// is the heap's.
///
/// Follows libCacheSim's `size` (`eviction/Size.c`): a max-heap keyed by
/// size alone, ties broken by the heap's own order (``SlotHeap`` is
/// libCacheSim's heap step for step). One difference: libCacheSim re-keys an
/// entry on a hit by the size the request carries; here a hit leaves it keyed
/// by its admitted size, which is what the cache holds and all a
/// `MemoryCache` read (which carries no size) can know. The two agree on
/// every trace whose objects keep their size (all the reference rows).
///
/// - Complexity: O(log n) per request (a heap of n resident objects).
public struct SizePolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  /// Resident entries by size; the largest leaves first.
  @usableFromInline var heap = SlotHeap<Int64>()

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
    heap.changePriority(slot, to: store.table[slot].weight)
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
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard heap.count > 0 else { return false }
    store.evictTop(of: &heap, onEvict: onEvict)
    return true
  }

  @inlinable @inline(__always)
  public func nextVictim() -> Slot? { heap.count > 0 ? heap.top : nil }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? { store.remove(key, from: &heap) }

  public func checkInvariants() {
    store.checkHeap(heap)
    precondition(store.used <= store.capacity, "used exceeds capacity")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("by size, next victim first", store.keysInEvictionOrder(heap))]
  }
}

/// Size in the catalog.
public enum SizeEviction: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "size", summary: "evict the largest object", citation: "Williams et al., SIGCOMM'96",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim (cloudPhysicsIO, count and bytes; seven more traces)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(SizePolicy<Index>(capacity: capacity))
  }
}
