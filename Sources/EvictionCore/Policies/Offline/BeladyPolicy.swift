/// Belady's optimum (Belady, "A study of replacement algorithms for a
/// virtual-storage computer", IBM Systems Journal 1966; MIN): evict the object
/// whose next request lies farthest in the future. Offline: it reads each
/// request's `nextAccess` (oracleGeneral traces carry it; the replay engine
/// computes it in a pre-pass for other formats). With equal weights no policy
/// misses less; with sizes it is the classic bound, not the optimum (see
/// `belady-size`).
///
/// Follows libCacheSim's `belady`: priorities are next-access times as
/// `double`s in libpqueue's heap (``SlotHeap``), so ties among objects never
/// requested again break as they do there.
///
/// - Complexity: O(log n) per request (a heap of n resident objects).
public struct BeladyPolicy<Index: SlotIndex & ~Copyable>: HeapPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  public var heap = SlotHeap<Double>()
  public static var heapOrder: String { "by next access, farthest first" }

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  public var name: String { "Belady" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    heap.changePriority(slot, to: Double(request.nextAccess))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: ())
    heap.insert(slot, priority: Double(request.nextAccess))
    return slot
  }

  /// When the object is requested next: what the optimum decides by.
  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let next = heap.priority(of: slot)
    return next >= Double(Request<Key>.never) ? "never requested again" : "next request \(Int64(next))"
  }
}

/// Belady's bound in the catalog.
public enum Belady: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "belady", displayName: "Belady", summary: "Belady's offline optimum: evict the farthest next request",
    citation: "Belady, IBM Systems Journal 1966",
    traits: .offline,
    checkedAgainst: "libCacheSim, byte mode included", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(BeladyPolicy<Index>(capacity: capacity))
  }
}
