/// Greedy-Dual-Size-Frequency (Cherkasova, "Improving WWW proxies
/// performance with Greedy-Dual-Size-Frequency caching policy", HP Labs
/// 1998): an object's priority is L + frequency × 10⁶ / size, where L is the
/// priority of the last victim; the lowest priority is evicted. Small,
/// popular objects stay; large, cold ones go.
///
/// Follows libCacheSim 0.3.5's `gdsf` (`eviction/cpp/GDSF.cpp`): frequency
/// starts at 1 and counts hits while resident, the size is the one admitted,
/// and ties go to the entry updated longest ago. A missed object is ranked
/// on arrival, with the L of the last eviction before it, and competes with
/// the residents for its own room: victims leave lowest priority first, and
/// if the newcomer ranks below the next victim it is the one that goes (it
/// is not admitted, L becomes its priority, and the victims taken before it
/// stay evicted). libCacheSim 0.3.5 writes this as "insert, then evict while
/// over the capacity"; here nothing is inserted before it fits, with the
/// same decisions.
///
/// The 2024 snapshot (aa0fc40) evicted first and then ranked the newcomer
/// with the L those evictions left, so it was always admitted: that is
/// `gdsf:v0=true`, which the reference rows measured with the snapshot
/// follow. On cloudPhysicsIO at 100 objects the two miss 99040 (0.3.5) and
/// 98977 (v0) times; on twitter_cluster52 at 1000 objects, 327894 and 327991.
/// A weight of 0 counts as 1 in the priority.
///
/// - Complexity: O(log n) per request (a heap of n resident objects).
public struct GDSFPolicy<Index: SlotIndex & ~Copyable>: HeapPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// Eviction order: a key ranks higher (leaves sooner) when its priority
  /// is lower, then when it was updated earlier.
  @frozen public struct Rank: Comparable, BitwiseCopyable {
    @usableFromInline let priority: Double
    @usableFromInline let time: Int64
    @inlinable init(priority: Double, time: Int64) {
      self.priority = priority
      self.time = time
    }
    /// Priorities are positive and finite (L ≥ 0, frequency ≥ 1, weight at
    /// least 1), and for such doubles the bit patterns order as the numbers
    /// do: an integer comparison, without the unordered (NaN) case.
    @inlinable public static func < (a: Rank, b: Rank) -> Bool {
      let (x, y) = (a.priority.bitPattern, b.priority.bitPattern)
      return x != y ? x > y : a.time > b.time
    }
  }

  /// Entries carry their hit count.
  public var store: PolicyStorage<Index, Int64>
  public var heap = SlotHeap<Rank>()
  public static var heapOrder: String { "by priority, next victim first" }
  /// L: the priority of the last victim.
  @usableFromInline var inflation: Double = 0
  @usableFromInline var clock: Int64 = 0
  /// The 2024 snapshot's order: make room first, then rank the newcomer.
  public let v0: Bool

  @inlinable
  public init(capacity: Int64, v0: Bool = false) {
    store = PolicyStorage(capacity: capacity)
    self.v0 = v0
  }

  public var name: String { v0 ? "GDSF(v0)" : "GDSF" }

  @inlinable @inline(__always)
  func priority(frequency: Int64, weight: Int64) -> Double {
    inflation + Double(frequency) * 1.0e6 / Double(max(weight, 1))
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    clock &+= 1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    store.table[slot].payload &+= 1
    let rank = Rank(
      priority: priority(frequency: store.table[slot].payload, weight: store.table[slot].weight), time: clock)
    heap.changePriority(slot, to: rank)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  /// Each resident victim is approved before it leaves; the newcomer losing
  /// to the residents (0.3.5) asks nothing, as nothing resident leaves.
  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    let weight = request.weight
    guard weight <= store.capacity else { return nil }
    // 0.3.5 ranks the newcomer before any eviction moves L.
    var rank = Rank(priority: priority(frequency: 1, weight: weight), time: clock)
    while store.used &+ weight > store.capacity {
      let victim = heap.top
      if !v0 && heap.priority(of: victim) < rank {
        inflation = rank.priority
        return nil
      }
      guard approve(store.table[victim].key) else { return nil }
      _ = evictOne(onEvict: onEvict)
    }
    if v0 { rank = Rank(priority: priority(frequency: 1, weight: weight), time: clock) }
    let slot = store.insert(request.key, weight: weight, payload: 1)
    heap.insert(slot, priority: rank)
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
}

/// GDSF in the catalog.
public enum GDSF: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "gdsf", displayName: "GDSF", summary: "Greedy-Dual-Size-Frequency, size-aware", citation: "Cherkasova, 1998",
    parameters: [
      PolicyParameter(
        switch: "v0", default: false,
        help: "libCacheSim's 2024 order: evict, then rank the newcomer with the new L (always admitted)")
    ],
    traits: [.namesVictims, .asksBeforeEvicting],
    checkedAgainst: "libCacheSim 0.3.5 (cloudPhysicsIO, twitter_cluster52; both size modes); v0: the 2024 snapshot",
    libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(GDSFPolicy<Index>(capacity: capacity, v0: spec.isOn("v0")))
  }
}
