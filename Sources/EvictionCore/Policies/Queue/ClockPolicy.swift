/// CLOCK, or second chance (Corbató, 1968): a FIFO queue whose entries carry a
/// small access counter; eviction looks at the oldest entry and, while its
/// counter is above zero, decrements it and moves the entry back to the front.
///
/// Follows libCacheSim's `clock`: a 1-bit counter by default (`clock:bits=N`
/// for an N-bit counter saturating at 2^N − 1), new entries start at
/// `clock:init=F` (default 0), and each hit adds one.
public struct ClockPolicy<Index: SlotIndex & ~Copyable>: SingleListPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry their counter.
  public var store: PolicyStorage<Index, UInt8>
  public var queue = EntryList()
  @usableFromInline let maximum: UInt8
  @usableFromInline let initial: UInt8

  /// Creates a CLOCK with a `bits`-bit counter starting at `initial`.
  @inlinable
  public init(capacity: Int64, bits: Int = 1, initial: Int = 0) {
    precondition((1...8).contains(bits), "bits must be in 1...8")
    store = PolicyStorage(capacity: capacity)
    maximum = UInt8((1 << bits) - 1)
    self.initial = UInt8(min(initial, (1 << bits) - 1))
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String {
    maximum == 1 && initial == 0 ? "Clock" : "Clock(bits=\(maximum.nonzeroBitCount),init=\(initial))"
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    return lookupResident(request, at: slot, onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    if store.table[slot].payload < maximum { store.table[slot].payload &+= 1 }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request, payload: initial, atFrontOf: &queue, tag: 0)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    store.evict(victim, from: &queue, onEvict: onEvict)
    return true
  }

  /// The hand's sweep, stopping at the first entry with a zero counter,
  /// which is left at the back.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? { queue.isEmpty ? nil : store.clockVictim(of: &queue) }

  public func checkInvariants() {
    store.table.checkList(queue, tag: 0, "queue")
    store.checkTotals([queue])
    var slot = queue.front
    while slot >= 0 {
      precondition(store.table[slot].payload <= maximum, "counter above its maximum")
      slot = store.table[slot].next
    }
  }
}

/// CLOCK in the catalog.
public enum CLOCK: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "clock", displayName: "CLOCK", summary: "CLOCK / second chance (FIFO with reinsertion)",
    citation: "Corbató, 1968",
    parameters: [
      PolicyParameter("bits", default: 1, range: 1...8, help: "bits of the access counter"),
      PolicyParameter("init", default: 0, range: 0...255, help: "counter of a new entry"),
    ],
    traits: .namesVictims,
    checkedAgainst: "libCacheSim", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      ClockPolicy<Index>(capacity: capacity, bits: Int(spec.integer("bits")), initial: Int(spec.integer("init"))))
  }

  /// A new entry's counter fits the counter's bits.
  public static func check(_ spec: PolicySpec) throws(PolicyError) {
    let (bits, initial) = (spec.integer("bits"), spec.integer("init"))
    guard initial < 1 << bits else {
      throw .invalidValue(
        policy: "clock", parameter: "init", value: String(initial),
        expected: "0 to \((1 << bits) - 1), what \(bits) bit\(bits == 1 ? "" : "s") hold (raise bits)")
    }
  }
}
