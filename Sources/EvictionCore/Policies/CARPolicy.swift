/// CAR, CLOCK with Adaptive Replacement (Bansal and Modha, FAST'04): ARC's
/// directory (T1 and T2 resident, B1 and B2 their ghosts, a target p for T1)
/// with CLOCKs for T1 and T2, so a hit only sets a reference bit and needs no
/// list move (no lock on a hit in a concurrent cache).
///
/// From the paper's pseudocode (its Figure 2), step for step in count mode:
/// - a hit sets the entry's reference bit;
/// - a miss on a full cache runs REPLACE: while T1 holds at least max(1, p)
///   its hand looks at T1's oldest entry, otherwise at T2's; an entry with its
///   bit set is cleared and moves to T2's tail, an unset one is demoted to
///   the front of its ghost list, which ends REPLACE;
/// - a key in no list then trims history: B1's oldest ghost when |T1|+|B1|
///   reaches c, else B2's when the directory holds 2c; it enters T1's tail;
/// - a key in B1 (B2) moves p towards T1 (T2) by max(1, |B2|/|B1|)
///   (max(1, |B1|/|B2|)), after REPLACE as in the paper, and enters T2's tail.
///
/// The paper counts pages. With weights (byte mode) list sizes are weights,
/// REPLACE runs until the object fits, the history trims run until the new
/// object fits within c (T1+B1) and 2c (the directory), p moves by the
/// object's weight times the same ratio, and REPLACE looks at T1 when T2 is
/// empty; on equal weights each of these is the paper's step.
///
/// No reference figures exist here. Checked: the paper's invariants
/// (|T1|+|T2| ≤ c, |T1|+|B1| ≤ c, the directory ≤ 2c, and
/// B1 and B2 empty while the cache has room) after every request, the
/// conformance suite, and the paper's finding that CAR's hit ratio is as
/// good as ARC's and above CLOCK's: on the ARC paper's OLTP trace at its five
/// sizes CAR lies within 0.6 points of ARC and above CLOCK and LRU
/// (`ReferenceTests`).
public struct CARPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry the reference bit.
  public var store: PolicyStorage<Index, UInt8>
  /// The two clocks: the hand (oldest entry) at the back, the tail at the front.
  @usableFromInline var t1 = EntryList()
  @usableFromInline var t2 = EntryList()
  /// Ghosts, most recently demoted first.
  @usableFromInline var b1 = EntryList()
  @usableFromInline var b2 = EntryList()
  /// The target weight of T1.
  @usableFromInline var p: Double = 0
  /// Whether an entry ever left other than to make room for a new one (a
  /// removal, or a trim from outside): the cache may then have room while
  /// history is kept, which demand paging never allows.
  @usableFromInline var trimmed = false

  @usableFromInline static var inT1: UInt8 { 1 }
  @usableFromInline static var inT2: UInt8 { 2 }
  @usableFromInline static var inB1: UInt8 { 3 }
  @usableFromInline static var inB2: UInt8 { 4 }

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "CAR" }
  /// The current target weight of T1.
  public var target: Double { p }

  @inlinable public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].list <= Self.inT2
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0, store.table[slot].list <= Self.inT2 else { return nil }
    store.table[slot].payload = 1
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    let weight = request.weight
    let c = store.capacity
    guard weight <= c else { return nil }
    // A ghost of the key stays in its list through REPLACE, as in the paper.
    let ghost = store.find(request.key)
    while t1.weight &+ t2.weight &+ weight > c {
      let victim = replaceVictim()
      guard approve(store.table[victim].key) else { return nil }
      replace(victim, onEvict)
    }
    let slot: Slot
    if ghost < 0 {
      while t1.weight &+ b1.weight &+ weight > c && !b1.isEmpty { store.deleteBack(of: &b1) }
      while t1.weight &+ t2.weight &+ b1.weight &+ b2.weight &+ weight > 2 &* c && !b2.isEmpty {
        store.deleteBack(of: &b2)
      }
      slot = store.insert(request.key, weight: weight, payload: 0)
      store.table.pushFront(slot, &t1, tag: Self.inT1)
      return slot
    }
    // A ghost that weighs nothing moves p by nothing (and its list may weigh
    // nothing, which would make the ratio infinite and the step NaN).
    let w = Double(weight)
    if store.table[ghost].list == Self.inB1 {
      if weight > 0 { p = min(p + w * max(1, Double(b2.weight) / Double(b1.weight)), Double(c)) }
      store.table.unlink(ghost, &b1)
    } else {
      if weight > 0 { p = max(p - w * max(1, Double(b1.weight) / Double(b2.weight)), 0) }
      store.table.unlink(ghost, &b2)
    }
    store.delete(ghost, resident: false)
    slot = store.insert(request.key, weight: weight, payload: 0)
    store.table.pushFront(slot, &t2, tag: Self.inT2)
    return slot
  }

  /// The entry the paper's REPLACE demotes next: turns the hands (clearing
  /// reference bits, moving T1's referenced entries to T2) until an entry
  /// with its bit clear sits under one, and returns it, still resident.
  @inlinable @inline(__always)
  mutating func replaceVictim() -> Slot {
    while true {
      if Double(t1.weight) >= max(1, p) || t2.isEmpty {
        let slot = t1.back
        if store.table[slot].payload == 0 { return slot }
        store.table.unlink(slot, &t1)
        store.table[slot].payload = 0
        store.table.pushFront(slot, &t2, tag: Self.inT2)
      } else {
        let slot = t2.back
        if store.table[slot].payload == 0 { return slot }
        store.table[slot].payload = 0
        store.table.moveToFront(slot, &t2)
      }
    }
  }

  /// The paper's REPLACE: demotes `victim` (``replaceVictim()``) to B1 or B2.
  @inlinable @inline(__always)
  mutating func replace(_ victim: Slot, _ onEvict: (Slot, Key) -> Void) {
    if store.table[victim].list == Self.inT1 {
      store.table.unlink(victim, &t1)
      demote(victim, to: Self.inB1, onEvict)
    } else {
      store.table.unlink(victim, &t2)
      demote(victim, to: Self.inB2, onEvict)
    }
  }

  /// Makes an entry, already off its clock, the newest ghost of B1 or B2.
  @inlinable @inline(__always)
  mutating func demote(_ slot: Slot, to list: UInt8, _ onEvict: (Slot, Key) -> Void) {
    onEvict(slot, store.table[slot].key)
    store.retire(slot)
    if list == Self.inB1 {
      store.table.pushFront(slot, &b1, tag: list)
    } else {
      store.table.pushFront(slot, &b2, tag: list)
    }
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    replace(replaceVictim(), onEvict)
    trimmed = true
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inT1: store.table.unlink(slot, &t1)
    case Self.inT2: store.table.unlink(slot, &t2)
    case Self.inB1:
      store.table.unlink(slot, &b1)
      store.delete(slot, resident: false)
      return nil
    default:
      store.table.unlink(slot, &b2)
      store.delete(slot, resident: false)
      return nil
    }
    trimmed = true
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.table.checkList(t1, tag: Self.inT1, "T1")
    store.table.checkList(t2, tag: Self.inT2, "T2")
    store.table.checkList(b1, tag: Self.inB1, "B1")
    store.table.checkList(b2, tag: Self.inB2, "B2")
    store.checkTotals([t1, t2])
    let c = store.capacity
    precondition(p >= 0 && p <= Double(c), "p = \(p) outside [0, c]")
    precondition(t1.weight + b1.weight <= c, "|T1| + |B1| exceeds c")
    precondition(t1.weight + t2.weight + b1.weight + b2.weight <= 2 * c, "the directory exceeds 2c")
    if !trimmed && [t1, t2].allSatisfy({ $0.weight == Int64($0.count) }) && t1.count + t2.count < c {
      // Demand paging on equal weights: history begins once the cache is full.
      precondition(b1.isEmpty && b2.isEmpty, "ghosts while the cache has room")
    }
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("T1", store.table.keys(of: t1)), ("T2", store.table.keys(of: t2)),
      ("B1", store.table.keys(of: b1)), ("B2", store.table.keys(of: b2)),
    ]
  }
}

/// CAR in the catalog.
public enum CAR: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "car", summary: "CLOCK with adaptive replacement: ARC's directory over two CLOCKs",
    citation: "Bansal and Modha, FAST'04", traits: .asksBeforeEvicting,
    checkedAgainst: "the paper's invariants; within 0.6 points of ARC, above CLOCK and LRU on OLTP, as the paper finds")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(CARPolicy<Index>(capacity: capacity))
  }
}
