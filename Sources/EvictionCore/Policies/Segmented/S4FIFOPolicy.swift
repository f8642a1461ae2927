/// S4-FIFO, the data plane of "Learning-Augmented Heuristics" (Xia et al.,
/// OSDI'26): S3-FIFO with five knobs, so that a tuner can set them per
/// workload. With its defaults it is ``S3FIFOPolicy`` (`s3fifo`), decision
/// for decision.
///
/// The knobs, as libCacheSim's `S4FIFO.c` (pull request #335) defines them:
/// - `small` and `ghost`: the small FIFO's share of the capacity and the
///   ghost FIFO's weight as a multiple of it (up to 20; 0 keeps no ghost).
/// - `threshold`: hits in the small FIFO that earn main.
/// - `skip` (small-skip-ratio): a hit on an object admitted to small less
///   than ⌊skip × (objects in small)⌋ small admissions ago is not counted,
///   so quick re-requests (a scan touching a key twice) earn nothing. Ages
///   count admissions to small, so in byte mode too the window is in objects.
/// - `ghost-threshold` (ghost-to-main-threshold): at 0, a missed object
///   found in the ghost goes straight to main and leaves the ghost, as in
///   S3-FIFO. Above 0 it never does: the ghost entry stays, and the object
///   enters small like any new one. libCacheSim reads the value only as
///   zero or not, whatever its size; so does this policy (1 and 5 act alike).
///
/// Because a ghost entry may outlive the object's return to the cache, the
/// ghost here is a FIFO of its own (``GhostFIFO``), not a tag on the
/// resident table as in ``S3FIFOPolicy``. A ghost entry keeps its place
/// when its object is evicted from small again (libCacheSim's ghost is a
/// FIFO cache, and a hit in a FIFO moves nothing).
///
/// libCacheSim's learned control plane (`auto-tune=1`: a LightGBM model
/// picks one of 20 knob settings after 20 % of the trace) has its
/// counterpart here in `s4fifo:tune=true` (``S4FIFOTuning``), whose model
/// is EvictionLab's own, trained on XGBoost. Like `s3fifo`, an object as
/// heavy as the small FIFO is admitted here, where libCacheSim makes room
/// for it and then refuses it.
public struct S4FIFOPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// An entry's hit counter (saturating at 255) and, in small, its
  /// admission number there.
  @frozen public struct Mark {
    @usableFromInline var hits: UInt8
    @usableFromInline var admittedAt: Int64
    @inlinable init(hits: UInt8, admittedAt: Int64) {
      self.hits = hits
      self.admittedAt = admittedAt
    }
  }

  public var store: PolicyStorage<Index, Mark>
  @usableFromInline var small = EntryList()
  @usableFromInline var main = EntryList()
  @usableFromInline var ghost: GhostFIFO<Key>
  @usableFromInline var smallCapacity: Int64
  @usableFromInline var mainCapacity: Int64
  @usableFromInline var knobs: S4FIFOKnobs
  /// Admissions to small so far: an entry's age there is this minus its
  /// ``Mark/admittedAt``.
  @usableFromInline var smallAdmissions: Int64 = 0
  /// Admissions to main so far (a ghost's return, the first fill's
  /// overflow, a promotion from small); the tuner's hit positions there.
  @usableFromInline var mainAdmissions: Int64 = 0
  /// The tuner's state (`tune=true`), or nil.
  public var tuning: S4FIFOTuning?
  /// Whether the last lookup found its key in the ghost and took it.
  @usableFromInline var hitOnGhost = false
  /// Small's entry ``nextVictim()`` named after promoting the entries before it, or -1.
  @usableFromInline var namedInSmall: Slot = -1
  /// Whether eviction has begun: before, a new object enters main once
  /// small holds its share (libCacheSim 0.3.5's first fill, as `s3fifo`).
  @usableFromInline var hasEvicted = false
  /// The knobs the policy was built with (its name keeps them).
  public let initialKnobs: S4FIFOKnobs

  @usableFromInline static var inSmall: UInt8 { 1 }
  @usableFromInline static var inMain: UInt8 { 2 }

  /// A policy of `capacity` with `knobs` (``S4FIFOKnobs/isValid`` must
  /// hold: the catalog's parameter checks see to it), tuned if `tuning` is given.
  @inlinable
  public init(capacity: Int64, knobs: S4FIFOKnobs, tuning: S4FIFOTuning? = nil) {
    precondition(knobs.isValid, "S4-FIFO knobs out of range: \(knobs)")
    store = PolicyStorage(capacity: capacity)
    self.knobs = knobs
    initialKnobs = knobs
    self.tuning = tuning
    smallCapacity = Int64(Double(capacity) * knobs.small)
    mainCapacity = capacity - smallCapacity
    ghost = GhostFIFO(capacity: Self.share(knobs.ghost, of: capacity))
  }

  /// ⌊`ratio` × `capacity`⌋, as libCacheSim rounds a share; a ghost up to
  /// 20 × a capacity near `Int64.max` saturates instead of overflowing.
  @inlinable static func share(_ ratio: Double, of capacity: Int64) -> Int64 {
    let weight = Double(capacity) * ratio
    return weight >= 0x1p63 ? .max : Int64(weight)
  }

  public var name: String { tuning == nil ? "S4FIFO(\(initialKnobs))" : "S4FIFO(tuned from \(initialKnobs))" }

  /// The knobs in force: after ``apply(_:)``, the new ones, with the shares
  /// it could not apply as they were.
  public var currentKnobs: S4FIFOKnobs { knobs }

  /// The tuner's decision (one prediction) and what it chose; nil untuned.
  public var learning: LearningCounts? {
    tuning.map { LearningCounts(trainings: $0.decided ? 1 : 0, seconds: $0.seconds, choice: $0.summary) }
  }

  /// Sets new knobs on a running cache, as libCacheSim's tuner does: the
  /// thresholds and the skip window apply from the next request; the
  /// queues' new shares are reached by eviction, nothing is moved now.
  /// As there, a small share that would leave small or main empty is not
  /// applied, nor a ghost share that rounds to nothing, and a policy built
  /// without a ghost (`ghost=0`) gets none: ``currentKnobs`` then keeps the
  /// share in force.
  @inlinable
  public mutating func apply(_ new: S4FIFOKnobs) {
    precondition(new.isValid, "S4-FIFO knobs out of range: \(new)")
    var applied = new
    let capacity = store.capacity
    let newSmall = Int64(Double(capacity) * new.small)
    if newSmall > 0 && capacity - newSmall > 0 {
      smallCapacity = newSmall
      mainCapacity = capacity - newSmall
    } else {
      applied.small = knobs.small
    }
    let ghostCapacity = Self.share(new.ghost, of: capacity)
    if ghostCapacity > 0 && ghost.capacity > 0 {
      ghost.capacity = ghostCapacity
    } else {
      applied.ghost = knobs.ghost
    }
    knobs = applied
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    hitOnGhost = false
    namedInSmall = -1
    if tuning != nil { watch(request) }
    let slot = store.find(request.key)
    if slot >= 0 {
      if store.table[slot].list == Self.inSmall {
        let age = smallAdmissions - store.table[slot].payload.admittedAt
        if tuning?.isWatching == true { tuning!.hit(.small, age: age, of: Int64(small.count)) }
        guard age >= Int64(knobs.skip * Double(small.count)) else { return slot }
      } else if tuning?.isWatching == true {
        tuning!.hit(.main, age: mainAdmissions - store.table[slot].payload.admittedAt, of: Int64(main.count))
      }
      if store.table[slot].payload.hits < 255 { store.table[slot].payload.hits &+= 1 }
      return slot
    }
    if tuning?.isWatching == true {
      if let age = ghost.age(of: request.key) {
        tuning!.hit(.ghost, age: age, of: Int64(ghost.count))
      } else {
        tuning!.coldMisses += 1
      }
    }
    if knobs.ghostThreshold <= 0 && ghost.remove(request.key) { hitOnGhost = true }
    return nil
  }

  /// Counts a request for the tuner; once the window has passed, sets the
  /// knobs it chooses.
  @usableFromInline
  mutating func watch(_ request: Request<Key>) {
    guard let decided = tuning!.watch(request, filled: hasEvicted, current: knobs) else { return }
    if let knobs = decided { apply(knobs) }
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let weight = request.weight
    guard weight <= smallCapacity, makeRoom(for: weight, onEvict: onEvict) else { return nil }
    let toMain = hitOnGhost || (!hasEvicted && small.weight >= smallCapacity)
    hitOnGhost = false
    namedInSmall = -1
    if toMain {
      mainAdmissions += 1
      return store.insert(
        request, payload: Mark(hits: 0, admittedAt: mainAdmissions - 1), atFrontOf: &main, tag: Self.inMain)
    }
    smallAdmissions += 1
    return store.insert(
      request, payload: Mark(hits: 0, admittedAt: smallAdmissions - 1), atFrontOf: &small, tag: Self.inSmall)
  }

  /// The default ``ReplacementPolicy/admit(_:onEvict:approve:)`` after
  /// the one check ``admit(_:onEvict:)`` makes before evicting: an object
  /// heavier than small is refused before any victim is asked for.
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
    if store.table[slot].list == Self.inSmall {
      let key = store.table[slot].key
      let weight = store.table[slot].weight
      store.evict(slot, from: &small, onEvict: onEvict)
      ghost.insert(key, weight: weight)
      if tuning?.isWatching == true { tuning!.smallEvictions += 1 }
    } else {
      store.evict(slot, from: &main, onEvict: onEvict)
      if tuning?.isWatching == true { tuning!.mainEvictions += 1 }
    }
    return true
  }

  /// As ``S3FIFOPolicy/nextVictim()``: main's victim when main is over its
  /// share or small is empty, else small's oldest entry without enough
  /// hits, after moving those with enough to main.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    guard store.count > 0 else { return nil }
    hasEvicted = true
    if namedInSmall >= 0 && small.back == namedInSmall { return namedInSmall }
    if main.weight <= mainCapacity && !small.isEmpty {
      let threshold = knobs.threshold
      while !small.isEmpty {
        let slot = small.back
        guard Int(store.table[slot].payload.hits) >= threshold else {
          namedInSmall = slot
          return slot
        }
        store.table.unlink(slot, &small)
        store.table[slot].payload = Mark(hits: 0, admittedAt: mainAdmissions)
        mainAdmissions += 1
        store.table.pushFront(slot, &main, tag: Self.inMain)
        if tuning?.isWatching == true { tuning!.promotions += 1 }
      }
    }
    while true {
      let slot = main.back
      let hits = store.table[slot].payload.hits
      guard hits >= 1 else { return slot }
      store.table.moveToFront(slot, &main)
      store.table[slot].payload.hits = min(hits, 3) - 1
      if tuning?.isWatching == true { tuning!.reinsertions += 1 }
    }
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    _ = ghost.remove(key)
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == Self.inSmall {
      store.table.unlink(slot, &small)
    } else {
      store.table.unlink(slot, &main)
    }
    if namedInSmall == slot { namedInSmall = -1 }
    store.delete(slot, resident: true)
    return slot
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("small", store.table.keys(of: small)), ("main", store.table.keys(of: main)), ("ghost", ghost.keys)]
  }

  /// The queue and the hits counted there; a ghost entry says so, beside a
  /// resident one where both exist (`ghost-threshold` above 0).
  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    let inGhost = ghost.contains(key)
    guard slot >= 0 else { return inGhost ? "ghost" : nil }
    let queue = store.table[slot].list == Self.inSmall ? "small" : "main"
    return "\(queue), freq \(store.table[slot].payload.hits)" + (inGhost ? " (also in ghost)" : "")
  }

  public func checkInvariants() {
    // A share lowered by ``apply(_:)`` is reached at the ghost's next insertion.
    precondition(ghost.lowered || ghost.weight <= ghost.capacity, "ghost FIFO over its weight")
    precondition(
      smallCapacity == Int64(Double(store.capacity) * knobs.small) && mainCapacity == store.capacity - smallCapacity,
      "small and main are not the knobs' shares")
    precondition(ghost.capacity == Self.share(knobs.ghost, of: store.capacity), "the ghost is not the knobs' share")
    store.table.checkList(small, tag: Self.inSmall, "small")
    store.table.checkList(main, tag: Self.inMain, "main")
    store.checkTotals([small, main])
    ghost.checkInvariants()
  }
}

/// S4-FIFO's five knobs (``S4FIFOPolicy``), with S3-FIFO's values by default.
public struct S4FIFOKnobs: Sendable, Hashable, CustomStringConvertible {
  /// The small FIFO's share of the capacity, in (0, 1).
  public var small: Double
  /// The ghost FIFO's weight as a multiple of the capacity (0 keeps none).
  public var ghost: Double
  /// Hits in small that earn main.
  public var threshold: Int
  /// Zero: a ghost hit enters main. Above zero: it enters small.
  public var ghostThreshold: Int
  /// The share of small's objects, the newest, whose hits are not counted.
  public var skip: Double

  public init(small: Double = 0.1, ghost: Double = 0.9, threshold: Int = 2, ghostThreshold: Int = 0, skip: Double = 0) {
    self.small = small
    self.ghost = ghost
    self.threshold = threshold
    self.ghostThreshold = ghostThreshold
    self.skip = skip
  }

  /// Whether the knobs make a cache: small in (0, 1), ghost in [0, 20],
  /// threshold at least 1, ghost threshold at least 0, skip in [0, 1]
  /// (the catalog's ranges).
  public var isValid: Bool {
    small > 0 && small < 1 && (0...20).contains(ghost) && threshold >= 1 && ghostThreshold >= 0
      && (0...1).contains(skip)
  }

  /// As a catalog spec's parameters write them.
  public var description: String {
    "small=\(small),ghost=\(ghost),threshold=\(threshold),ghost-threshold=\(ghostThreshold),skip=\(skip)"
  }

  /// The 20 settings the OSDI'26 model chooses among (libCacheSim's
  /// `kS4FIFOConfigs`, pull request #335), in its class order: what
  /// ``S4FIFOTuning`` chooses among too.
  public static let candidates: [S4FIFOKnobs] = [
    S4FIFOKnobs(small: 0.20, ghost: 0.9, threshold: 1, skip: 0.25),
    S4FIFOKnobs(small: 0.04, ghost: 0.6, threshold: 2, skip: 0.80),
    S4FIFOKnobs(small: 0.30, ghost: 6.0, threshold: 1, skip: 0.25),
    S4FIFOKnobs(small: 0.03, ghost: 1.5, threshold: 3, skip: 0.20),
    S4FIFOKnobs(small: 0.015, ghost: 0.3, threshold: 50, skip: 0.80),
    S4FIFOKnobs(small: 0.08, ghost: 2.0, threshold: 10, skip: 0.00),
    S4FIFOKnobs(small: 0.16, ghost: 4.0, threshold: 6, skip: 0.35),
    S4FIFOKnobs(small: 0.70, ghost: 0.9, threshold: 1, ghostThreshold: 1, skip: 0.25),
    S4FIFOKnobs(small: 0.05, ghost: 6.0, threshold: 2, skip: 0.25),
    S4FIFOKnobs(small: 0.05, ghost: 0.9, threshold: 1, skip: 0.25),
    S4FIFOKnobs(small: 0.20, ghost: 3.0, threshold: 1, skip: 0.25),
    S4FIFOKnobs(small: 0.50, ghost: 0.9, threshold: 1, skip: 0.25),
    S4FIFOKnobs(small: 0.13, ghost: 8.0, threshold: 8, skip: 0.25),
    S4FIFOKnobs(small: 0.10, ghost: 1.5, threshold: 20, skip: 0.80),
    S4FIFOKnobs(small: 0.03, ghost: 6.0, threshold: 5, skip: 1.00),
    S4FIFOKnobs(small: 0.03, ghost: 1.2, threshold: 5, skip: 0.05),
    S4FIFOKnobs(small: 0.015, ghost: 20.0, threshold: 2, skip: 0.05),
    S4FIFOKnobs(small: 0.80, ghost: 0.0, threshold: 1, skip: 0.05),
    S4FIFOKnobs(small: 0.03, ghost: 1.5, threshold: 6, skip: 0.40),
    S4FIFOKnobs(small: 0.30, ghost: 3.0, threshold: 8, skip: 0.90),
  ]
}

/// A FIFO of keys with weights that keeps at most `capacity` weight: a
/// ghost queue kept apart from the resident table, so that a key may be in
/// both. Inserting a key already held changes nothing; inserting one
/// heavier than the whole FIFO keeps nothing, and a FIFO of no weight keeps
/// nothing at all. Removal finds the key's slot in the ring by binary
/// search (O(log n)) and leaves it to be skipped when reached.
public struct GhostFIFO<Key: Hashable> {
  @usableFromInline var order: [Key: Int64] = [:]
  @usableFromInline var ring: [(key: Key, weight: Int64, order: Int64)] = []
  @usableFromInline var head = 0
  @usableFromInline var next: Int64 = 0
  @usableFromInline var held: Int64 = 0
  /// The weight of the keys held.
  @inlinable public var weight: Int64 { held }
  /// The most weight kept: lowering it takes effect at the next insertion.
  public var capacity: Int64 {
    didSet { if capacity < oldValue { loweredSinceInsertion = true } }
  }
  @usableFromInline var loweredSinceInsertion = false
  /// Whether the capacity was lowered since the last insertion, so the
  /// weight held may still be above it.
  public var lowered: Bool { loweredSinceInsertion }
  /// Slots in the ring, live or not: what the FIFO's memory grows with.
  public var slots: Int { ring.count }

  @inlinable public init(capacity: Int64) { self.capacity = max(0, capacity) }

  @inlinable public var count: Int { order.count }
  @inlinable public func contains(_ key: Key) -> Bool { order[key] != nil }
  /// Insertions since `key`'s, counting its own (1 for the newest), or nil.
  @inlinable public func age(of key: Key) -> Int64? { order[key].map { next - $0 } }

  @inlinable
  public mutating func insert(_ key: Key, weight: Int64) {
    guard capacity > 0, order[key] == nil, weight <= capacity else { return }
    while weight > capacity - held { dropOldest() }
    loweredSinceInsertion = false
    order[key] = next
    ring.append((key, weight, next))
    next += 1
    held += weight
  }

  /// Forgets `key`; returns whether it was held.
  @inlinable
  public mutating func remove(_ key: Key) -> Bool {
    guard let position = order.removeValue(forKey: key) else { return false }
    // The ring is in insertion order: find the entry's place by its number.
    let index = ringIndex(of: position)
    held -= ring[index].weight
    compactIfSparse()
    return true
  }

  @usableFromInline
  func ringIndex(of position: Int64) -> Int {
    var low = head
    var high = ring.count - 1
    while low < high {
      let middle = (low + high) / 2
      if ring[middle].order < position { low = middle + 1 } else { high = middle }
    }
    return low
  }

  @usableFromInline
  mutating func dropOldest() {
    while head < ring.count {
      let entry = ring[head]
      head += 1
      if order[entry.key] == entry.order {
        order[entry.key] = nil
        held -= entry.weight
        break
      }
    }
    compactIfSparse()
  }

  /// Drops the ring's consumed and forgotten slots once they outnumber the
  /// live ones, so memory stays proportional to what is held.
  @usableFromInline
  mutating func compactIfSparse() {
    guard ring.count > 64 && ring.count > 2 * order.count else { return }
    ring = ring[head...].filter { order[$0.key] == $0.order }
    head = 0
  }

  /// The keys held, newest first (as the policies' lists are reported).
  public var keys: [Key] {
    ring[head...].filter { order[$0.key] == $0.order }.reversed().map(\.key)
  }

  public func checkInvariants() {
    let live = ring[head...].filter { order[$0.key] == $0.order }
    precondition(live.count == order.count, "ghost FIFO: index and ring disagree")
    precondition(live.reduce(0) { $0 + $1.weight } == weight, "ghost FIFO: weight total is wrong")
  }
}

/// S4-FIFO in the catalog, its knobs fixed by the spec.
public enum S4FIFO: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "s4fifo", displayName: "S4-FIFO",
    summary: "S4-FIFO: S3-FIFO with five knobs (shares, promotion thresholds, a skip window for new objects' hits)",
    citation: "Xia et al., OSDI'26",
    parameters: [
      PolicyParameter(
        number: "small", default: 0.1, range: 0...1, help: "small FIFO's share of the capacity, in (0, 1)"),
      PolicyParameter(
        number: "ghost", default: 0.9, range: 0...20, help: "ghost FIFO's weight as a multiple of the capacity; 0: none"
      ),
      PolicyParameter("threshold", default: 2, range: 1...255, help: "hits in the small FIFO that earn main"),
      PolicyParameter(
        "ghost-threshold", default: 0, range: 0...255,
        help: "0: an object found in the ghost enters main; above 0: it enters small, its ghost entry kept"),
      PolicyParameter(
        number: "skip", default: 0, range: 0...1, help: "share of small's newest objects whose hits are not counted"),
      PolicyParameter(
        switch: "tune", default: false,
        help: "after `window` requests of a full cache, set the knobs the trained model picks (20 settings or these)"),
      PolicyParameter(
        "window", default: 20_000, range: 1...1_000_000_000_000,
        help: "requests the tuner watches once the cache is full"),
    ],
    traits: .namesVictims,
    checkedAgainst: "libCacheSim 0.3.5 with pull request #335's S4FIFO.c grafted, fixed knobs (both size modes)",
    libCacheSim: "0.3.5 + #335 (fixed knobs)")

  @inlinable public static func knobs(_ spec: PolicySpec) -> S4FIFOKnobs {
    S4FIFOKnobs(
      small: spec.fraction("small"), ghost: spec.fraction("ghost"), threshold: Int(spec.integer("threshold")),
      ghostThreshold: Int(spec.integer("ghost-threshold")), skip: spec.fraction("skip"))
  }

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    let tuning = spec.isOn("tune") ? S4FIFOTuning(capacity: capacity, window: spec.integer("window")) : nil
    return visitor.visit(S4FIFOPolicy<Index>(capacity: capacity, knobs: knobs(spec), tuning: tuning))
  }

  public static func check(_ spec: PolicySpec) throws(PolicyError) {
    let small = spec.fraction("small")
    guard small > 0 && small < 1 else {
      throw .invalidValue(
        policy: "s4fifo", parameter: "small", value: String(small),
        expected: "a share above 0 and below 1 (main needs room)")
    }
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    S3FIFOShared.cachesAnything(at: capacity, spec)
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    S3FIFOShared.minimumCapacityHint(spec, name: descriptor.name)
  }
}
