/// CAMP, the cost-adaptive multi-queue policy (Ghandeharizadeh, Irani, Lam
/// and Yap, "CAMP: A Cost Adaptive Multi-Queue Eviction Policy for
/// Key-Value Stores", Middleware 2014): GreedyDual-Size with each object's
/// cost-to-size ratio rounded to a few significant bits. An object's
/// priority is L + ratio, where ratio is its miss penalty
/// (``ReplacementPolicy/willServe(penalty:)``) over its weight and L is
/// the priority of the last victim; the lowest priority leaves first, ties
/// to the entry touched longest ago. Objects that are cheap to fetch again per byte go first.
///
/// CAMP's point is its structure: rounding leaves few distinct ratios, so
/// it keeps one LRU queue per ratio and a heap of the queues' heads. Within
/// one queue priorities never fall from head to tail (L only grows), so the
/// least priority of all is always some queue's head, and evicting the
/// least (H, last touch) over all entries, as this heap of entries does,
/// makes the same decisions. Rounding keeps the `precision` most
/// significant bits of the ratio's binary form and drops the rest (CAMP's
/// rule, for real numbers); at 53 nothing is dropped and the policy is
/// GreedyDual-Size itself (Cao and Irani, 1997).
///
/// A missed object is admitted once room is made (victims lowest priority
/// first, L rising to each one's), ranked with the L they leave. A hit
/// ranks the entry again with its ratio at admission and today's L. The
/// penalty is the one in force when the object is admitted
/// (``ReplacementPolicy/willServe(penalty:)``); without penalties every
/// request costs 1, and in count mode CAMP is LRU.
///
/// - Complexity: O(log n) per request (a heap of n resident objects).
public struct CAMPPolicy<Index: SlotIndex & ~Copyable>: HeapPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// Entries carry their rounded cost-to-size ratio.
  public var store: PolicyStorage<Index, Double>
  public var heap = SlotHeap<GDSFPolicy<Index>.Rank>()
  public static var heapOrder: String { "by priority, next victim first" }
  /// L: the priority of the last victim.
  @usableFromInline var inflation: Double = 0
  @usableFromInline var clock: Int64 = 0
  /// The significant bits a ratio keeps (1 to 53).
  public let precision: Int
  /// The miss penalty of the requests being served.
  @usableFromInline var penalty: Float = 1

  /// The most significant bits a ratio can have (a Double's).
  public static var fullPrecision: Int { Double.significandBitCount + 1 }

  @inlinable
  public init(capacity: Int64, precision: Int = 5) {
    precondition((1...Self.fullPrecision).contains(precision), "precision must be 1 to 53")
    store = PolicyStorage(capacity: capacity)
    self.precision = precision
  }

  public var name: String { "CAMP(precision=\(precision))" }

  @inlinable public mutating func willServe(penalty: Float) { self.penalty = penalty }

  /// `penalty / weight` with its `precision` most significant bits kept.
  @inlinable @inline(__always)
  func ratio(penalty: Double, weight: Int64) -> Double {
    Self.rounded((penalty > 0 ? penalty : 0) / Double(max(weight, 1)), precision: precision)
  }

  /// `x` (at least 0) with its `precision` most significant bits
  /// kept and the lower ones cleared.
  @inlinable @inline(__always)
  public static func rounded(_ x: Double, precision: Int) -> Double {
    let dropped = Double.significandBitCount - (precision - 1)
    guard x.isFinite else { return x > 0 ? Double.greatestFiniteMagnitude : 0 }
    guard dropped > 0, x.isNormal else { return x }
    return Double(bitPattern: x.bitPattern & ~((1 << UInt64(dropped)) - 1))
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    clock &+= 1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    heap.changePriority(slot, to: .init(priority: inflation + store.table[slot].payload, time: clock))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    return insert(request)
  }

  @inlinable @inline(__always)
  mutating func insert(_ request: Request<Key>) -> Slot {
    let ratio = ratio(penalty: Double(penalty), weight: request.weight)
    let slot = store.insert(request.key, weight: request.weight, payload: ratio)
    heap.insert(slot, priority: .init(priority: inflation + ratio, time: clock))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard heap.count > 0 else { return false }
    inflation = heap.priority(of: heap.top).priority
    return evictTop(onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public func nextVictim() -> Slot? { heap.count > 0 ? heap.top : nil }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    return "cost/size \(store.table[slot].payload), priority \(heap.priority(of: slot).priority) (L \(inflation))"
  }
}

/// CAMP in the catalog.
public enum CAMP: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "camp", displayName: "CAMP", summary: "cost-aware: GreedyDual-Size over rounded cost-to-size ratios",
    citation: "Ghandeharizadeh et al., Middleware 2014",
    parameters: [
      PolicyParameter(
        "precision", default: 5, range: 1...53,
        help: "significant bits kept of each cost-to-size ratio; 53 keeps all (GreedyDual-Size)")
    ],
    traits: [.namesVictims],
    checkedAgainst: "GreedyDual-Size at precision 53 and LRU without penalties (CostAwareTests)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(CAMPPolicy<Index>(capacity: capacity, precision: Int(spec.integer("precision"))))
  }
}
