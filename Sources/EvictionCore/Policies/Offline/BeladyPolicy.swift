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
/// With `bypass` (`belady:bypass=true`), a missed object that would have to
/// evict one requested sooner than itself is not admitted: that is MIN with
/// bypass, the optimum of a cache that may decline an object, and it equals
/// FOO in count mode (`evlab bounds`). libCacheSim's `belady` always admits,
/// the optimum of a cache that must: a few misses more.
///
/// - Complexity: O(log n) per request (a heap of n resident objects).
public struct BeladyPolicy<Index: SlotIndex & ~Copyable>: HeapPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  public var heap = SlotHeap<Double>()
  /// Whether a miss requested later than every resident object is declined.
  public let bypass: Bool
  public static var heapOrder: String { "by next access, farthest first" }

  @inlinable
  public init(capacity: Int64, bypass: Bool = false) {
    store = PolicyStorage(capacity: capacity)
    self.bypass = bypass
  }

  public var name: String { bypass ? "Belady(bypass)" : "Belady" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    heap.changePriority(slot, to: Double(request.nextAccess))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    if bypass && store.used + request.weight > store.capacity && heap.count > 0
      && Double(request.nextAccess) >= heap.priority(of: heap.top)
    {
      return nil
    }
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
    parameters: [
      PolicyParameter(
        switch: "bypass", default: false,
        help: "decline a missed object requested later than every resident one (MIN with bypass: FOO in count mode)")
    ],
    traits: .offline,
    checkedAgainst: "libCacheSim, byte mode included", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(BeladyPolicy<Index>(capacity: capacity, bypass: spec.isOn("bypass")))
  }
}
