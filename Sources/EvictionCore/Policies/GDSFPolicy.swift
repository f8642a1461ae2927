/// Greedy-Dual-Size-Frequency (Cherkasova, "Improving WWW proxies
/// performance with Greedy-Dual-Size-Frequency caching policy", HP Labs
/// 1998): an object's priority is L + frequency × 10⁶ / size, where L is the
/// priority of the last victim; the lowest priority is evicted. Small,
/// popular objects stay; large, cold ones go.
///
/// Follows libCacheSim's `gdsf` at the reference's snapshot: frequency starts
/// at 1 and counts hits while resident, the size is the one admitted, ties go
/// to the entry updated longest ago, and eviction makes room before the new
/// object is inserted. (libCacheSim's later `GDSF.c` inserts first and may
/// evict the newcomer; that variant misses up to 13 requests more or fewer per
/// reference row, so it is not this one.) A weight of 0 counts as 1 in the
/// priority.
///
/// - Complexity: O(log n) per request (a heap of n resident objects).
public struct GDSFPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
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
  @usableFromInline var heap = SlotHeap<Rank>()
  /// L: the priority of the last victim.
  @usableFromInline var inflation: Double = 0
  @usableFromInline var clock: Int64 = 0

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  public var name: String { "GDSF" }

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
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: 1)
    heap.insert(slot, priority: Rank(priority: priority(frequency: 1, weight: request.weight), time: clock))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard heap.count > 0 else { return false }
    inflation = heap.priority(of: heap.top).priority
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
    [("by priority, next victim first", store.keysInEvictionOrder(heap))]
  }
}

/// GDSF in the catalog.
public enum GDSF: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "gdsf", summary: "Greedy-Dual-Size-Frequency, size-aware", citation: "Cherkasova, 1998",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(GDSFPolicy<Index>(capacity: capacity))
  }
}
