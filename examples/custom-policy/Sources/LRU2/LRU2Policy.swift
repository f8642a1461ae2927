import EvictionCore

/// LRU-2, the K = 2 case of LRU-K (E. J. O'Neil, P. E. O'Neil and G. Weikum,
/// "The LRU-K Page Replacement Algorithm for Database Disk Buffering",
/// SIGMOD 1993): evict the resident object whose second-most-recent request
/// lies furthest in the past (its backward 2-distance is largest). Objects
/// requested only once have an infinite 2-distance and go first, least
/// recently requested first, the paper's "subsidiary policy" of classical LRU.
///
/// Simplifications against the paper, stated so results are read right: no
/// correlated-reference period (every request counts), and no retained
/// history, so an evicted object that comes back starts again at one request.
///
/// One heap orders every resident object by (penultimate request time, last
/// request time), a never-twice object's penultimate time being −1:
/// O(log n) per hit, admission and eviction.
public struct LRU2Policy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// What an entry remembers: its last two request times.
  public struct History: Comparable, BitwiseCopyable {
    public var penultimate: Int64
    public var last: Int64

    /// Ranks higher (is evicted sooner) when its penultimate request, then
    /// its last, is older: `SlotHeap` pops its greatest element.
    public static func < (a: History, b: History) -> Bool {
      (a.penultimate, a.last) > (b.penultimate, b.last)
    }
  }

  public var store: PolicyStorage<Index, History>
  var heap = SlotHeap<History>()
  var clock: Int64 = 0

  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  public var name: String { "LRU-2" }

  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    clock += 1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    let seen = store.table[slot].payload
    let now = History(penultimate: seen.last, last: clock)
    store.table[slot].payload = now
    heap.changePriority(slot, to: now)
    return slot
  }

  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let history = History(penultimate: -1, last: clock)
    let slot = store.insert(request.key, weight: request.weight, payload: history)
    heap.insert(slot, priority: history)
    return slot
  }

  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard heap.count > 0 else { return false }
    store.evictTop(of: &heap, onEvict: onEvict)
    return true
  }

  public mutating func remove(_ key: Key) -> Slot? { store.remove(key, from: &heap) }

  public func checkInvariants() { store.checkHeap(heap) }

  public func lists() -> [(name: String, keys: [Key])] {
    [("next victim first", store.keysInEvictionOrder(heap))]
  }
}

/// LRU-2's catalog entry: what `--policy lru2` builds.
public enum LRU2: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "lru2", displayName: "LRU-2", summary: "LRU-2: evict the oldest second-to-last request",
    citation: "O'Neil, O'Neil and Weikum, SIGMOD'93",
    checkedAgainst: "a brute-force LRU-2 in this package's tests")

  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LRU2Policy<Index>(capacity: capacity))
  }
}
