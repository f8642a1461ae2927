/// Random-two: draw two resident entries at random and evict the one used
/// less recently, the "power of two choices" approximation of LRU that
/// Psounis and Prabhakar proposed for web caches ("A randomized web-cache
/// replacement scheme", INFOCOM 2001). It needs no list, so a hit only stamps
/// the entry's time.
///
/// Follows libCacheSim's `randomTwo` (`eviction/RandomTwo.c`): both draws are
/// with replacement (they may pick the same entry), time counts requests, and
/// a tie goes to the second draw. The draws are uniform among residents and
/// seeded (`randomtwo:seed=N`); libCacheSim draws hash buckets from its own
/// generator, so only the miss ratio can agree with it.
public struct RandomTwoPolicy<Index: SlotIndex & ~Copyable>: SampledPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// An entry's place in `members` and the request count at its last use.
  @frozen public struct Stamp: MemberPlace {
    public var position: Int32
    @usableFromInline var lastUse: Int64
    @inlinable init(position: Int32, lastUse: Int64) {
      self.position = position
      self.lastUse = lastUse
    }
  }

  public var store: PolicyStorage<Index, Stamp>
  public var members = OwnedArray<Slot>()
  @usableFromInline var generator: SeededGenerator
  @usableFromInline var clock: Int64 = 0
  public let seed: UInt64
  /// The victim ``nextVictim()`` drew and not yet evicted, or -1; a
  /// request clears it (a hit changes what the samples rank).
  @usableFromInline var drawn: Slot = -1
  /// The next eviction's two draws from the stream, taken one eviction
  /// early (the stream's order is unchanged): an admission reads the entries
  /// they point at, so the eviction that compares them finds them cached.
  @usableFromInline var nextDraws: (UInt64, UInt64)
  /// What those early reads saw; kept so that they are made at all.
  @usableFromInline var warmed: Int64 = 0

  @inlinable
  public init(capacity: Int64, seed: UInt64 = 1) {
    store = PolicyStorage(capacity: capacity)
    generator = SeededGenerator(seed: seed)
    nextDraws = (generator.next(), generator.next())
    self.seed = seed
  }

  public var name: String { "RandomTwo(seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    clock &+= 1
    drawn = -1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    store.table[slot].payload.lastUse = clock
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = insertMember(request, payload: Stamp(position: 0, lastUse: clock))
    // A full cache evicts next with as many members as it has now.
    warmed = store.table[candidate(nextDraws.0)].payload.lastUse &+ store.table[candidate(nextDraws.1)].payload.lastUse
    return slot
  }

  /// The member a draw picks among the members now: the high word of
  /// draw × count, as ``SeededGenerator/below(_:)`` computes it.
  @inlinable @inline(__always)
  func candidate(_ draw: UInt64) -> Slot {
    members[Int(truncatingIfNeeded: draw.multipliedFullWidth(by: UInt64(members.count)).high)]
  }

  /// Of two draws, the one used less recently; drawn once until evicted or
  /// the next request.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    if drawn < 0 {
      guard !members.isEmpty else { return nil }
      let first = candidate(nextDraws.0)
      let second = candidate(nextDraws.1)
      nextDraws = (generator.next(), generator.next())
      drawn = store.table[first].payload.lastUse < store.table[second].payload.lastUse ? first : second
    }
    return drawn
  }

  /// A member leaving is no longer the drawn victim.
  @inlinable @inline(__always)
  public mutating func willLeave(_ slot: Slot) {
    if slot == drawn { drawn = -1 }
  }

  public func checkInvariants() {
    checkAllMembers { precondition($0.lastUse <= clock, "an entry used in the future") }
  }
}

/// Random-two in the catalog.
public enum RandomTwo: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "randomtwo", displayName: "Random-2", summary: "of two random entries, evict the less recently used",
    citation: "Psounis and Prabhakar, INFOCOM 2001",
    parameters: [
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed")
    ],
    traits: [.randomized, .namesVictims],
    checkedAgainst:
      "libCacheSim's miss ratio within 1% on cloudPhysicsIO (on small traces its sampler is not uniform; see the tests)",
    libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(RandomTwoPolicy<Index>(capacity: capacity, seed: UInt64(spec.integer("seed"))))
  }
}
