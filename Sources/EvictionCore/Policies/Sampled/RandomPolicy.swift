/// Random eviction: the victim is drawn uniformly among resident entries.
///
/// Seeded (`random:seed=N`, default 1) and reproducible run to run. libCacheSim's
/// `random` draws with its own generator, so only its miss ratio, not its exact
/// count, can be compared.
public struct RandomPolicy<Index: SlotIndex & ~Copyable>: SampledPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Membership>
  public var members = OwnedArray<Slot>()
  @usableFromInline var generator: SeededGenerator
  public let seed: UInt64
  /// The victim drawn by ``nextVictim()`` and not yet evicted, or -1.
  @usableFromInline var drawn: Slot = -1

  @inlinable
  public init(capacity: Int64, seed: UInt64 = 1) {
    store = PolicyStorage(capacity: capacity)
    generator = SeededGenerator(seed: seed)
    self.seed = seed
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "Random(seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    return slot >= 0 ? slot : nil
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    return insertMember(request, payload: Membership(position: 0))
  }

  /// Draws the victim once; it stays the next until evicted or removed.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    if drawn < 0 {
      guard !members.isEmpty else { return nil }
      drawn = members.randomElement(using: &generator)
    }
    return drawn
  }

  /// A member leaving is no longer the drawn victim.
  @inlinable @inline(__always)
  public mutating func willLeave(_ slot: Slot) {
    if slot == drawn { drawn = -1 }
  }

  public func checkInvariants() {
    checkAllMembers()
    precondition(store.index.count == store.count, "index and members differ")
    precondition(
      drawn < 0 || members[Int(store.table[drawn].payload.position)] == drawn, "the drawn victim is not a member")
  }
}

/// Random eviction in the catalog.
public enum RandomEviction: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "random", displayName: "Random", summary: "uniformly random victim",
    parameters: [
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed")
    ],
    traits: [.randomized, .namesVictims],
    checkedAgainst: "libCacheSim's miss ratio within 1% (its generator differs)", libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(RandomPolicy<Index>(capacity: capacity, seed: UInt64(spec.integer("seed"))))
  }
}
