/// Random eviction: the victim is drawn uniformly among resident entries.
///
/// Seeded (`random:seed=N`, default 1) and reproducible run to run. libCacheSim's
/// `random` draws with its own generator, so only its miss ratio, not its exact
/// count, can be compared.
public struct RandomPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry their position in `members`.
  public var store: PolicyStorage<Index, Int32>
  /// Resident slots, in no particular order; removal swaps with the last.
  @usableFromInline var members: [Slot] = []
  @usableFromInline var generator: SeededGenerator
  public let seed: UInt64

  @inlinable
  public init(capacity: Int64, seed: UInt64 = 1) {
    store = PolicyStorage(capacity: capacity)
    generator = SeededGenerator(seed: seed)
    self.seed = seed
  }

  public var name: String { "Random(seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    return slot >= 0 ? slot : nil
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: Int32(members.count))
    members.append(slot)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard !members.isEmpty else { return false }
    let victim = members[generator.below(members.count)]
    detach(victim)
    onEvict(victim, store.table[victim].key)
    store.delete(victim, resident: true)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    detach(slot)
    store.delete(slot, resident: true)
    return slot
  }

  @inlinable @inline(__always)
  mutating func detach(_ slot: Slot) {
    let position = Int(store.table[slot].payload)
    let last = members.removeLast()
    if last != slot {
      members[position] = last
      store.table[last].payload = Int32(position)
    }
  }

  public func checkInvariants() {
    var weight: Int64 = 0
    for (position, slot) in members.enumerated() {
      precondition(store.table[slot].payload == Int32(position), "member position out of date")
      precondition(store.find(store.table[slot].key) == slot, "member not indexed")
      weight += store.table[slot].weight
    }
    precondition(members.count == store.count && weight == store.used, "member totals differ")
    precondition(store.used <= store.capacity, "used exceeds capacity")
    precondition(store.index.count == store.count, "index and members differ")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("members", members.map { store.table[$0].key })]
  }
}

/// Random eviction in the catalog.
public enum RandomEviction: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "random", summary: "uniformly random victim",
    parameters: [
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed")
    ],
    traits: .randomized,
    checkedAgainst: "libCacheSim's miss ratio within 1% (its generator differs)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(RandomPolicy<Index>(capacity: capacity, seed: UInt64(spec.integer("seed"))))
  }
}
