/// SIEVE (Zhang et al., "SIEVE is Simpler than LRU", NSDI'24): a FIFO queue
/// with one visited bit per entry and a hand that sweeps from the oldest
/// entry towards the newest, clearing visited bits and evicting the first
/// unvisited entry; survivors keep their place (no reinsertion), and the hand
/// stays where the victim was. New entries enter at the front unvisited.
///
/// Same definition as libCacheSim's `sieve`.
public struct SievePolicy<Index: SlotIndex & ~Copyable>: SingleListPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry their visited bit.
  public var store: PolicyStorage<Index, Bool>
  public var queue = EntryList()
  /// The next entry the hand looks at; -1 starts again from the back.
  @usableFromInline var hand: Slot = -1

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "Sieve" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    return lookupResident(request, at: slot, onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    store.table[slot].payload = true
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request, payload: false, atFrontOf: &queue, tag: 0)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    hand = store.table[victim].prev
    store.evict(victim, from: &queue, onEvict: onEvict)
    return true
  }

  /// The hand's sweep, clearing visited bits up to the first unvisited
  /// entry, where the hand then rests.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    guard queue.back >= 0 else { return nil }
    var victim = hand >= 0 ? hand : queue.back
    while store.table[victim].payload {
      store.table[victim].payload = false
      let towardsFront = store.table[victim].prev
      victim = towardsFront >= 0 ? towardsFront : queue.back
    }
    hand = victim
    return victim
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    if slot == hand { hand = store.table[slot].prev }
    store.table.unlink(slot, &queue)
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.table.checkList(queue, tag: 0, "queue")
    store.checkTotals([queue])
    precondition(hand < 0 || store.table[hand].list == 0, "the hand points at an entry not in the queue")
  }
}

/// SIEVE in the catalog.
public enum Sieve: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "sieve", displayName: "SIEVE", summary: "SIEVE", citation: "Zhang et al., NSDI'24",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(SievePolicy<Index>(capacity: capacity))
  }
}
