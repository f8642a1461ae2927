/// Hyperbolic caching (Blankstein, Sen and Freedman, "Hyperbolic Caching:
/// Flexible Caching for Web Applications", USENIX ATC'17): an entry's priority
/// is its hits per unit of time in the cache, n / t, which decays as the
/// entry ages unused; eviction samples a few residents and takes the one of
/// lowest priority, so no order needs to be maintained on a hit.
///
/// Follows libCacheSim's `hyperbolic` (`eviction/Hyperbolic.c`) where the
/// paper leaves a choice:
/// - n starts at 1 on admission and counts hits while resident (it restarts
///   on readmission); t counts requests since admission;
/// - each eviction draws `samples` residents (64) with replacement and the
///   first drawn of the lowest n / t leaves;
/// - the draws are uniform among residents and seeded (`hyperbolic:seed=N`).
///   libCacheSim draws the head of a random bucket of its hash table (2¹²
///   buckets at first, doubled only when it holds more objects than
///   buckets), so an object behind another in its bucket is never a
///   candidate; that moves its miss ratio by up to 5.4% on the reference
///   traces. With its draws made uniform its figures agree with
///   these within 1% (`MoreTracesReferenceTests`).
public struct HyperbolicPolicy<Index: SlotIndex & ~Copyable>: SampledPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// An entry's place in `members`, its hits since admission (plus one) and
  /// the request count at its admission.
  @frozen public struct Stamp: MemberPlace {
    public var position: Int32
    @usableFromInline var uses: Int32
    @usableFromInline var admittedAt: Int64
    @inlinable init(position: Int32, uses: Int32, admittedAt: Int64) {
      self.position = position
      self.uses = uses
      self.admittedAt = admittedAt
    }
  }

  public var store: PolicyStorage<Index, Stamp>
  public var members = OwnedArray<Slot>()
  @usableFromInline var generator: SeededGenerator
  @usableFromInline var clock: Int64 = 0
  public let samples: Int
  public let seed: UInt64
  /// The victim ``nextVictim()`` drew and not yet evicted, or -1; a
  /// request clears it (a hit changes what the samples rank).
  @usableFromInline var drawn: Slot = -1

  @inlinable
  public init(capacity: Int64, samples: Int = 64, seed: UInt64 = 1) {
    precondition(samples >= 1, "at least one sample per eviction")
    store = PolicyStorage(capacity: capacity)
    generator = SeededGenerator(seed: seed)
    self.samples = samples
    self.seed = seed
  }

  public var name: String { "Hyperbolic(samples=\(samples), seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    clock &+= 1
    drawn = -1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    let uses = store.table[slot].payload.uses
    store.table[slot].payload.uses = uses == .max ? uses : uses &+ 1
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    return insertMember(request, payload: Stamp(position: 0, uses: 1, admittedAt: clock))
  }

  /// Of `samples` draws, the lowest priority (hits per request cached);
  /// drawn once until evicted or the next request.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    guard drawn < 0 else { return drawn }
    guard !members.isEmpty else { return nil }
    var victim: Slot = -1
    var lowest = Double.infinity
    for _ in 0..<samples {
      let slot = members.randomElement(using: &generator)
      let stamp = store.table[slot].payload
      // Age 0 only for an entry admitted by this very request (a cache
      // trimmed by hand): it has had no time to earn its place yet.
      let age = Double(max(clock &- stamp.admittedAt, 1))
      let priority = Double(stamp.uses) / age
      if priority < lowest {
        lowest = priority
        victim = slot
      }
    }
    drawn = victim
    return victim
  }

  /// A member leaving is no longer the drawn victim.
  @inlinable @inline(__always)
  public mutating func willLeave(_ slot: Slot) {
    if slot == drawn { drawn = -1 }
  }

  public func checkInvariants() {
    checkAllMembers { stamp in
      precondition(stamp.admittedAt <= clock && stamp.uses >= 1, "an entry admitted in the future or never used")
    }
  }
}

/// Hyperbolic caching in the catalog.
public enum Hyperbolic: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "hyperbolic", displayName: "Hyperbolic",
    summary: "of sampled entries, evict the fewest hits per unit of time cached",
    citation: "Blankstein, Sen and Freedman, USENIX ATC'17",
    parameters: [
      PolicyParameter("samples", default: 64, range: 1...4096, help: "entries sampled per eviction"),
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed"),
    ],
    traits: [.randomized, .namesVictims],
    checkedAgainst:
      "libCacheSim drawing uniformly: miss ratio within 1% (cloudPhysicsIO, both size modes; seven more traces); its own sampler moves it by up to 5%",
    libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      HyperbolicPolicy<Index>(
        capacity: capacity, samples: Int(spec.integer("samples")), seed: UInt64(spec.integer("seed"))))
  }
}
