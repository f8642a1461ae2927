/// S3-FIFO (Yang et al., "FIFO queues are all you need for cache eviction",
/// SOSP'23): a small FIFO (10%) filters one-hit wonders, a main FIFO (90%)
/// with a 2-bit clock keeps the rest, and a ghost FIFO of evicted keys sends
/// returning objects straight to main.
///
/// Both catalog names follow libCacheSim (`S3FIFO-0.1000-2`): sizes are
/// weights (small = ⌊0.1c⌋, main = c − small, ghost = ⌊0.9c⌋ of weight); a hit
/// adds one to the entry's counter; eviction works on main when main is over
/// its share or small is empty, else on small. Small's oldest entry moves to
/// main (counter reset) when it has at least `threshold` hits, else it is
/// evicted into the ghost FIFO; main's oldest entry with a counter above zero
/// is reinserted with min(counter, 3) − 1, else evicted. An object found in
/// the ghost enters main. The two names differ in where any other new object
/// goes while the cache is filling:
/// - `s3fifo` follows libCacheSim 0.3.5's `S3FIFO.c`: until the first
///   eviction (here, the first time ``nextVictim()`` is asked), a new object
///   enters main once small holds its share (small's weight ≥ its capacity),
///   so the objects of the first fill beyond small's share skip the filter
///   and stay longer. From the first eviction on, new objects enter small as
///   in the paper. That is 0.3.5's only change to a plain replay. It also
///   consults an admission policy in its insert check (the 2024 file ignored
///   one; here admission is ``AdmittedPolicy``'s, the same for both names),
///   refuses to build a cache whose small or main share rounds to zero (here
///   such a capacity caches nothing, ``S3FIFO/cachesAnything(at:_:)``), and
///   no longer copies a statistics counter (`misc.freq`) that no decision
///   reads.
/// - `s3fifo-v0` is the SOSP'23 S3-FIFO, where every new object enters small:
///   libCacheSim's `S3FIFO.c` at the 2024 snapshot (aa0fc40), which 0.3.5
///   keeps as `S3FIFOv0.c` (`s3fifov0`); this name reproduces both.
///
/// The first fill is all that differs, yet it sets which objects main holds
/// for long: on cloudPhysicsIO at 1 GiB (byte mode) `s3fifo` misses 56,045
/// requests and `s3fifo-v0` 70,355; at 1,000 objects, 94,005 and 94,017.
///
/// One deliberate difference: libCacheSim refuses an object exactly as heavy
/// as the small FIFO (after making room for it), so in count mode below 20
/// objects it admits nothing; here an object up to small's size is admitted.
/// No reference row contains such an object.
public struct S3FIFOPolicy<Index: SlotIndex & ~Copyable>: ProbationGhostPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry their hit counter (saturating at 255; only `>= threshold`
  /// and min(counter, 3) are ever read).
  public var store: PolicyStorage<Index, UInt8>
  @usableFromInline var small = EntryList()
  public var main = EntryList()
  public var ghost = EntryList()
  /// The small FIFO is the probationary queue.
  @inlinable public var probation: EntryList {
    get { small }
    set { small = newValue }
  }
  @usableFromInline let smallCapacity: Int64
  @usableFromInline let mainCapacity: Int64
  @usableFromInline let ghostCapacity: Int64
  @usableFromInline let threshold: UInt8
  /// Whether the last lookup found its key in the ghost FIFO.
  public var hitOnGhost = false
  /// Small's entry ``nextVictim()`` named after promoting the entries before
  /// it, or -1: eviction chose small before those promotions (which may have
  /// put main over its share), so the choice is kept, not made again.
  @usableFromInline var namedInSmall: Slot = -1
  @usableFromInline let smallRatio: Double
  /// libCacheSim 0.3.5's rule (`s3fifo`): before the first eviction, a new
  /// object enters main once small holds its share. False: SOSP'23's
  /// (`s3fifo-v0`), every new object enters small.
  @usableFromInline let fillsMainBeforeFirstEviction: Bool
  /// Whether eviction has begun (``nextVictim()`` has been asked).
  @usableFromInline var hasEvicted = false

  public static var queueNames: (probation: String, main: String, ghost: String) { ("small", "main", "ghost") }

  @inlinable
  public init(
    capacity: Int64, small: Double = 0.1, ghost: Double = 0.9, threshold: Int = 2,
    fillsMainBeforeFirstEviction: Bool = true
  ) {
    store = PolicyStorage(capacity: capacity)
    smallCapacity = Int64(Double(capacity) * small)
    mainCapacity = capacity - smallCapacity
    ghostCapacity = Int64(Double(capacity) * ghost)
    self.threshold = UInt8(clamping: threshold)
    smallRatio = small
    self.fillsMainBeforeFirstEviction = fillsMainBeforeFirstEviction
  }

  public var name: String {
    let ratio = (smallRatio * 10_000).rounded() / 10_000
    return "S3FIFO\(fillsMainBeforeFirstEviction ? "" : "v0")(small=\(ratio),threshold=\(threshold))"
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    hitOnGhost = false
    namedInSmall = -1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == Self.inGhost {
      store.forget(slot, from: &ghost)
      hitOnGhost = true
      return nil
    }
    if store.table[slot].payload < 255 { store.table[slot].payload &+= 1 }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    hitOnGhost = false
    namedInSmall = -1
    if store.table[slot].payload < 255 { store.table[slot].payload &+= 1 }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let weight = request.weight
    guard weight <= smallCapacity, makeRoom(for: weight, onEvict: onEvict) else { return nil }
    let toMain = takeGhostHit() || (fillsMainBeforeFirstEviction && !hasEvicted && small.weight >= smallCapacity)
    namedInSmall = -1
    return toMain
      ? store.insert(request, payload: 0, atFrontOf: &main, tag: Self.inMain)
      : store.insert(request, payload: 0, atFrontOf: &small, tag: Self.inProbation)
  }

  /// The default ``ReplacementPolicy/admit(_:onEvict:approve:)`` after
  /// the one check ``admit(_:onEvict:)`` makes before evicting: an object
  /// heavier than small is refused before any victim is asked for, as
  /// without a veto.
  @inlinable
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    admitApprovingVictims(request, onEvict: onEvict, approve: approve, heaviest: smallCapacity)
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let slot = nextVictim() else { return false }
    namedInSmall = -1
    if store.table[slot].list == Self.inProbation {
      store.table.unlink(slot, &small)
      onEvict(slot, store.table[slot].key)
      store.retire(slot)
      store.remember(slot, in: &ghost, capacity: ghostCapacity, tag: Self.inGhost)
    } else {
      store.evict(slot, from: &main, onEvict: onEvict)
    }
    return true
  }

  /// The entry eviction takes: main's victim when main is over its share or
  /// small is empty, else small's oldest entry without enough hits, after
  /// moving those with enough to main (when that empties small, main's
  /// victim). The moves are eviction's own.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    guard store.count > 0 else { return nil }
    hasEvicted = true
    if namedInSmall >= 0 && small.back == namedInSmall { return namedInSmall }
    if main.weight <= mainCapacity && !small.isEmpty {
      while !small.isEmpty {
        let slot = small.back
        guard store.table[slot].payload >= threshold else {
          namedInSmall = slot
          return slot
        }
        store.table.unlink(slot, &small)
        store.table[slot].payload = 0
        store.table.pushFront(slot, &main, tag: Self.inMain)
      }
    }
    return mainVictim()
  }

  /// Main's oldest entry without hits, after reinserting those with hits,
  /// one hit poorer (a 2-bit CLOCK).
  @inlinable @inline(__always)
  mutating func mainVictim() -> Slot {
    while true {
      let slot = main.back
      let hits = store.table[slot].payload
      guard hits >= 1 else { return slot }
      store.table.moveToFront(slot, &main)
      store.table[slot].payload = min(hits, 3) - 1
    }
  }

  /// The queue, and the hits counted since it entered it (a ghost has none).
  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inProbation: return "small, freq \(store.table[slot].payload)"
    case Self.inMain: return "main, freq \(store.table[slot].payload)"
    default: return "ghost"
    }
  }

  public func checkInvariants() {
    checkQueues()
    precondition(ghost.weight <= ghostCapacity, "ghost FIFO over its weight")
  }
}

/// S3-FIFO in the catalog: libCacheSim 0.3.5's, whose first fill goes to
/// main once small holds its share.
public enum S3FIFO: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "s3fifo", displayName: "S3-FIFO",
    summary: "S3-FIFO: small, main and ghost FIFOs; the first fill past small's share enters main",
    citation: "Yang et al., SOSP'23",
    parameters: S3FIFOShared.parameters, traits: .namesVictims,
    checkedAgainst: "libCacheSim 0.3.5 (cloudPhysicsIO and Twitter, both size modes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(S3FIFOShared.policy(spec, capacity: capacity, index: Index.self, fillsMainBeforeFirstEviction: true))
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    S3FIFOShared.cachesAnything(at: capacity, spec)
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    S3FIFOShared.minimumCapacityHint(spec, name: descriptor.name)
  }
}

/// The SOSP'23 S3-FIFO in the catalog, every new object entering small:
/// libCacheSim's 2024 `s3fifo`, 0.3.5's `s3fifov0`.
public enum S3FIFOv0: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "s3fifo-v0", displayName: "S3-FIFO v0",
    summary: "S3-FIFO as in SOSP'23: every new object enters the small FIFO",
    citation: "Yang et al., SOSP'23", parameters: S3FIFOShared.parameters, traits: .namesVictims,
    checkedAgainst: "libCacheSim aa0fc40's s3fifo and 0.3.5's s3fifov0 (both size modes)",
    libCacheSim: "aa0fc40 (2024); 0.3.5 as s3fifov0")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(S3FIFOShared.policy(spec, capacity: capacity, index: Index.self, fillsMainBeforeFirstEviction: false))
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    S3FIFOShared.cachesAnything(at: capacity, spec)
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    S3FIFOShared.minimumCapacityHint(spec, name: descriptor.name)
  }
}

/// What the two S3-FIFO catalog entries share.
public enum S3FIFOShared {
  public static let parameters = [
    PolicyParameter(fraction: "small", default: 0.1, help: "small FIFO's share of the capacity"),
    PolicyParameter(fraction: "ghost", default: 0.9, help: "ghost FIFO's weight as a share of the capacity"),
    PolicyParameter("threshold", default: 2, range: 1...255, help: "hits in the small FIFO that earn main"),
  ]

  @inlinable
  static func policy<Index: SlotIndex & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, fillsMainBeforeFirstEviction: Bool
  ) -> S3FIFOPolicy<Index> {
    S3FIFOPolicy<Index>(
      capacity: capacity, small: spec.fraction("small"), ghost: spec.fraction("ghost"),
      threshold: Int(spec.integer("threshold")), fillsMainBeforeFirstEviction: fillsMainBeforeFirstEviction)
  }

  static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    let small = Int64(Double(capacity) * spec.fraction("small"))
    return small >= 1 && capacity - small >= 1
  }

  static func minimumCapacityHint(_ spec: PolicySpec, name: String) -> String {
    "; its small FIFO is small=\(spec.fraction("small")) of the capacity: raise the size or \(name):small="
  }
}
