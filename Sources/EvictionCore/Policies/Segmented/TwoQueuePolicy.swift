/// 2Q (Johnson and Shasha, "2Q: a low overhead high performance buffer
/// management replacement algorithm", VLDB'94), the full version: new objects
/// enter A1in, a FIFO of 25% of the capacity; objects leaving A1in are
/// remembered in A1out, a ghost FIFO (50%); an object requested again while
/// in A1out enters Am, an LRU of the remaining 75%. Hits in A1in change nothing.
///
/// Follows libCacheSim's `2q` (`TwoQ`): shares are weights (A1in = ⌊0.25c⌋,
/// A1out = ⌊0.5c⌋, Am = c − A1in); eviction takes A1in's oldest entry while
/// A1in is over its share, else Am's LRU end; Am also keeps itself within its
/// own share when an object arrives from A1out. Objects heavier than A1in's
/// share are not admitted.
///
/// With `lazyPromotion`, Am is a CLOCK instead of an LRU (``LPTwoQ``): a hit
/// in Am sets the entry's reference bit, and Am's eviction passes over (and
/// clears) set bits, so a hit moves nothing.
public struct TwoQueuePolicy<Index: SlotIndex & ~Copyable>: ProbationGhostPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry a reference bit, used in Am under lazy promotion.
  public var store: PolicyStorage<Index, UInt8>
  @usableFromInline var ain = EntryList()
  @usableFromInline var am = EntryList()
  @usableFromInline var aout = EntryList()
  @usableFromInline let ainCapacity: Int64
  @usableFromInline let amCapacity: Int64
  @usableFromInline let aoutCapacity: Int64
  /// Whether the last lookup found its key in A1out.
  public var hitOnGhost = false
  @usableFromInline let shares: (in: Double, out: Double)
  @usableFromInline let lazyPromotion: Bool

  public static var queueNames: (probation: String, main: String, ghost: String) { ("A1in", "Am", "A1out") }
  @inlinable public var probation: EntryList {
    get { ain }
    set { ain = newValue }
  }
  @inlinable public var main: EntryList {
    get { am }
    set { am = newValue }
  }
  @inlinable public var ghost: EntryList {
    get { aout }
    set { aout = newValue }
  }

  @inlinable
  public init(capacity: Int64, inShare: Double = 0.25, outShare: Double = 0.5, lazyPromotion: Bool = false) {
    store = PolicyStorage(capacity: capacity)
    self.lazyPromotion = lazyPromotion
    ainCapacity = Int64(Double(capacity) * inShare)
    aoutCapacity = Int64(Double(capacity) * outShare)
    amCapacity = capacity - ainCapacity
    shares = (inShare, outShare)
  }

  public var name: String { "\(lazyPromotion ? "LP-2Q" : "2Q")(in=\(shares.in),out=\(shares.out))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    hitOnGhost = false
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inProbation:
      return slot
    case Self.inMain:
      if lazyPromotion { store.table[slot].payload = 1 } else { store.table.moveToFront(slot, &am) }
      return slot
    default:
      store.forget(slot, from: &aout)
      hitOnGhost = true
      return nil
    }
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  /// A ghost hit goes to Am, which may evict more than room for the object
  /// needs: those victims are asked about too.
  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    let weight = request.weight
    guard weight <= ainCapacity, weight <= store.capacity else { return nil }
    while store.used &+ weight > store.capacity {
      guard let victim = nextVictim(), approve(store.table[victim].key) else { return nil }
      _ = evictOne(onEvict: onEvict)
    }
    if takeGhostHit() {
      guard weight <= amCapacity else { return nil }
      while am.weight &+ weight > amCapacity {
        let victim = amVictim()
        guard approve(store.table[victim].key) else { return nil }
        store.evict(victim, from: &am, onEvict: onEvict)
      }
      return store.insert(request, payload: 0, atFrontOf: &am, tag: Self.inMain)
    }
    return store.insert(request, payload: 0, atFrontOf: &ain, tag: Self.inProbation)
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let slot = nextVictim() else { return false }
    if store.table[slot].list == Self.inProbation {
      // A1in's oldest leaves, remembered in A1out.
      store.table.unlink(slot, &ain)
      onEvict(slot, store.table[slot].key)
      store.retire(slot)
      store.remember(slot, in: &aout, capacity: aoutCapacity, tag: Self.inGhost)
    } else {
      store.evict(slot, from: &am, onEvict: onEvict)
    }
    return true
  }

  /// A1in's oldest while A1in is over its share (or Am is empty), else Am's
  /// victim (its CLOCK's under lazy promotion, whose sweep moves on the
  /// entries it passes, as evicting would).
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    guard store.count > 0 else { return nil }
    if ain.weight > ainCapacity || am.isEmpty { return ain.back }
    return amVictim()
  }

  /// Am's victim: its LRU end, or under lazy promotion its CLOCK's, where a
  /// referenced entry gets a second chance.
  @inlinable @inline(__always)
  mutating func amVictim() -> Slot { lazyPromotion ? store.clockVictim(of: &am) : am.back }

  public func checkInvariants() {
    checkQueues()
    precondition(aout.weight <= aoutCapacity, "A1out over its share")
    precondition(am.weight <= amCapacity, "Am over its share")
  }
}

/// 2Q in the catalog.
public enum TwoQ: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "2q", displayName: "2Q", summary: "2Q: A1in FIFO, A1out ghost, Am LRU",
    citation: "Johnson and Shasha, VLDB'94",
    parameters: [
      PolicyParameter(fraction: "in", default: 0.25, help: "A1in's share of the capacity"),
      PolicyParameter(fraction: "out", default: 0.5, help: "A1out's (ghost) weight as a share of the capacity"),
    ],
    traits: [.namesVictims, .asksBeforeEvicting],
    checkedAgainst: "libCacheSim", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      TwoQueuePolicy<Index>(capacity: capacity, inShare: spec.fraction("in"), outShare: spec.fraction("out")))
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    let ain = Int64(Double(capacity) * spec.fraction("in"))
    return ain >= 1 && capacity - ain >= 1
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; its A1in is in=\(spec.fraction("in")) of the capacity: raise the size or 2q:in="
  }
}
