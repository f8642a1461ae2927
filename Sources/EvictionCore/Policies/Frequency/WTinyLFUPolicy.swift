/// W-TinyLFU (Einziger, Friedman and Manes, "TinyLFU: a highly efficient cache
/// admission policy", ACM TOS 2017): a small LRU window takes every new
/// object; an object leaving the window enters the main cache, a segmented
/// LRU (probation 20%, protected 80%), only if a frequency sketch rates it
/// above the main cache's victim. The sketch ages by halving.
///
/// Follows libCacheSim's `wtinylfu` (`WTinyLFU-w0.01-SLRU`) exactly:
/// - window = ⌊0.01c⌋ (at least 1 here, where libCacheSim would admit nothing),
///   main = c − window, probation and protected ⌊0.2·main⌋ and ⌊0.8·main⌋;
/// - the sketch is libCacheSim's counting Bloom filter (``CountingBloomFilter``,
///   sized for `main` entries at error 0.001), counting an object when it is
///   inserted, when it hits in the main cache, and when it leaves the window;
///   it halves after 32·main main-cache hits; window hits are not counted;
/// - room is made from the window's LRU end: while the main cache has room the
///   window's victim moves there (no eviction yet, and the next victim is
///   considered); otherwise the victim replaces the main cache's victim
///   (probation's LRU end, else protected's) when its estimate is strictly
///   higher, else it is evicted; with the window empty, the main cache
///   evicts. After a replacement the two names differ:
///   - `wtinylfu` follows libCacheSim 0.3.5's `WTinyLFU.c`: a replacement
///     evicted the main cache's victim, so it ends this eviction; the
///     insertion makes room again from the window only if the object still
///     does not fit. That is 0.3.5's only behavioural change to the file (its
///     SLRU now refuses a segment share that rounds to zero, which only tiny
///     caches meet; see below).
///   - `wtinylfu-v0` follows libCacheSim's 2024 snapshot (aa0fc40; 0.3.5
///     keeps no copy of it): a replacement does not count as an eviction, so
///     the window's next victim is considered in turn, and the window drains
///     into the main cache until a victim is rated no higher and evicted (or
///     the window is empty). The 2024 reference figures (cloudPhysicsIO and
///     seven more traces) agree with it to the miss.
///   On cloudPhysicsIO at 10,000 objects `wtinylfu` misses 77,281 requests,
///   `wtinylfu-v0` 77,188; at 1 GiB (byte mode), 53,657 and 53,564;
/// - the main cache is libCacheSim's SLRU: a moved-in object takes the lowest
///   segment with room for it; a main hit promotes to protected, whose
///   overflow falls back to probation, whose overflow is evicted;
/// - an object heavier than the window or than probation is not admitted.
///
/// Tiny caches, where libCacheSim's shares round to zero and it would admit
/// nothing (0.3.5 stops with an error once probation's share is zero, a main
/// cache under five units), get a one-unit window and admit into an empty probation; with no
/// room for a protected segment (a main cache of one unit), a main hit stays
/// in probation, where promotion would have evicted the object just hit.
///
/// `sketch=N` (not libCacheSim's) sizes the sketch for N entries and doubles
/// it, counts restarting, whenever the cache holds more (Caffeine's
/// `FrequencySketch.ensureCapacity`), aging it every 32 × N main hits: a
/// `MemoryCache` with a cost limit sets it, because libCacheSim's sizing
/// (one entry per unit of capacity, so per byte) gives a 2 MiB cache a
/// sketch of 30 million counters.
///
/// `adaptive=true` adds Caffeine's hill climber (Einziger, Eytan, Friedman and
/// Manes, "Adaptive software cache management", Middleware'18; the constants
/// are those of Caffeine's `BoundedLocalCache`). Once the cache is half full,
/// every sample period of 10 requests per resident object (Caffeine's 10 per
/// unit of capacity in a full cache of count mode; per byte, a period in byte
/// mode would never end), the climber compares
/// the period's hit ratio with the last one's and moves the window's share
/// by a step: in the same direction while the hit ratio does not fall, the
/// other way when it does. The first step shrinks the window by 6.25% of the
/// capacity; each step is 0.98 of the last, back to 6.25% when the hit ratio
/// moves by 0.05 or more. Capacity moves between the window and the protected
/// segment only, so probation keeps its share (here the main cache less
/// protected, which in count mode is the fixed mode's ⌊0.2·main⌋ or one
/// more). Entries move with it, at most 1,000 a step and no more weight than
/// the step: a growing window takes probation's least recent entries (then
/// protected's) at its most recent end; a shrinking one hands its least
/// recent entries to probation's most recent end. A segment's share changes
/// only by the weight that moved, so a step never evicts. What is not
/// Caffeine's is the main cache around it: libCacheSim's SLRU above, where a
/// full probation sends a window victim into protected while protected has
/// room. Checked: the shares always sum to the capacity, and the main cache
/// and protected stay within theirs (`checkInvariants`, after every request
/// of the conformance suite); on a recency trace the window grows from 1% to
/// about 80%, near the best fixed window's hit ratio; on Zipf it stays small
/// but wanders (a period's hit ratio is noisier than a step's effect), about
/// a point below the best fixed window (`AdaptiveWTinyLFUTests`).
public struct WTinyLFUPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  @usableFromInline var window = EntryList()
  @usableFromInline var probation = EntryList()
  @usableFromInline var protected = EntryList()
  @usableFromInline var sketch: CountingBloomFilter
  /// The segments' shares; with `adaptive`, the climber moves capacity
  /// between the window and protected (and so the main cache).
  @usableFromInline var windowCapacity: Int64
  @usableFromInline var mainCapacity: Int64
  @usableFromInline let probationCapacity: Int64
  @usableFromInline var protectedCapacity: Int64
  /// Main-cache hits since the sketch last halved, and how many halve it.
  @usableFromInline var mainHits: Int64 = 0
  @usableFromInline var agingPeriod: Int64
  /// The entries the sketch is sized for while it grows with the cache
  /// (`sketch=N`), or 0: sized once for the main cache's capacity, as
  /// libCacheSim does (in byte mode, one entry per byte).
  @usableFromInline var sketchEntries: Int64
  public let windowShare: Double
  /// The hill climber, when `adaptive`.
  @usableFromInline var climber: HillClimber?
  /// 2024's rule (`wtinylfu-v0`): a replacement in the main cache does not
  /// end the eviction, so the window drains. False: libCacheSim 0.3.5's
  /// (`wtinylfu`), a replacement is the eviction.
  @usableFromInline let drainsWindow: Bool

  @usableFromInline static var inWindow: UInt8 { 0 }
  @usableFromInline static var inProbation: UInt8 { 1 }
  @usableFromInline static var inProtected: UInt8 { 2 }

  @inlinable
  public init(
    capacity: Int64, window windowShare: Double = 0.01, adaptive: Bool = false, drainsWindow: Bool = false,
    sketchEntries: Int64 = 0
  ) {
    store = PolicyStorage(capacity: capacity)
    self.drainsWindow = drainsWindow
    self.windowShare = windowShare
    windowCapacity = min(capacity, max(1, Int64(Double(capacity) * windowShare)))
    mainCapacity = capacity - windowCapacity
    protectedCapacity = Int64(4.0 / 5.0 * Double(mainCapacity))
    // Adaptive: probation is what protected leaves of the main cache, a share
    // no step changes (fixed: libCacheSim's ⌊0.2·main⌋).
    probationCapacity = adaptive ? mainCapacity - protectedCapacity : Int64(1.0 / 5.0 * Double(mainCapacity))
    let sized = sketchEntries > 0 ? max(1, min(sketchEntries, mainCapacity)) : mainCapacity
    // Growth starts from the size built, which a tiny main cache caps.
    self.sketchEntries = sketchEntries > 0 ? sized : 0
    sketch = CountingBloomFilter(entries: Int(min(sized, Int64(Int32.max))), error: 0.001)
    agingPeriod = max(1, 32 * sized)
    climber = adaptive ? HillClimber(capacity: capacity) : nil
  }

  public var sketchBytes: Int { sketch.byteCount }

  public var name: String {
    "W-TinyLFU\(drainsWindow ? "v0" : "")(window=\(windowShare)\(climber == nil ? "" : ", adaptive"))"
  }

  @inlinable @inline(__always)
  func bits(_ key: Key) -> UInt64 { Index.sketchBits(key) }

  /// The key's sketch counters: at 500,000 objects the sketch is 19 MB, and
  /// each request reads and writes ten counters in it at random.
  @inlinable @inline(__always)
  public func prefetchState(of key: Key) { sketch.prefetch(bits(key)) }

  /// What the next miss compares: the window's LRU end (the candidate) and
  /// the main cache's victim, each a key whose counters were last touched
  /// thousands of requests ago, so twenty lines the miss would wait on.
  /// And the lists' links a hit or an eviction will write.
  @inlinable @inline(__always)
  public func prefetchLinks(of key: Key) {
    prefetchNeighbours(of: key)
    if window.back >= 0 {
      sketch.prefetch(bits(store.table[window.back].key))
      prefetchEviction(of: window.back)
    }
    let victim = mainVictim
    if victim >= 0 {
      sketch.prefetch(bits(store.table[victim].key))
      prefetchEviction(of: victim)
    }
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    if climber != nil { sample(hit: slot >= 0) }
    guard slot >= 0 else { return nil }
    return hit(slot, request, onEvict)
  }

  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    if climber != nil { sample(hit: true) }
    return hit(slot, request, onEvict)
  }

  /// A hit on resident `slot`: its segment's move, and the sketch counts it
  /// unless it sits in the window.
  @inlinable @inline(__always)
  mutating func hit(_ slot: Slot, _ request: Request<Key>, _ onEvict: (Slot, Key) -> Void) -> Slot {
    switch store.table[slot].list {
    case Self.inWindow:
      store.table.moveToFront(slot, &window)
      return slot
    case Self.inProtected:
      store.table.moveToFront(slot, &protected)
    case _ where protectedCapacity == 0:
      store.table.moveToFront(slot, &probation)
    default:
      store.table.unlink(slot, &probation)
      store.table.pushFront(slot, &protected, tag: Self.inProtected)
      while protected.weight > protectedCapacity {
        let demoted = protected.back
        store.table.unlink(demoted, &protected)
        store.table.pushFront(demoted, &probation, tag: Self.inProbation)
        while probation.weight > probationCapacity { evictFromMain(onEvict) }
      }
    }
    sketch.add(bits(request.key))
    mainHits &+= 1
    if mainHits >= agingPeriod {
      mainHits = 0
      sketch.halve()
    }
    return slot
  }

  /// Without the climber a missed lookup changes nothing, so one probe
  /// serves; the climber samples every lookup, so a key gone is passed over.
  @inlinable @inline(__always)
  public mutating func lookupIfResident(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard climber == nil || store.find(request.key) >= 0 else { return nil }
    return lookup(request, onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    guard request.weight <= windowCapacity, request.weight <= probationCapacity || probationCapacity == 0,
      request.weight <= store.capacity
    else { return nil }
    while store.used &+ request.weight > store.capacity {
      guard evictStep(onEvict, approve) else { return nil }
    }
    let slot = store.insert(request, payload: (), atFrontOf: &window, tag: Self.inWindow)
    if sketchEntries > 0 && Int64(store.count) > sketchEntries { growSketch() }
    sketch.add(bits(request.key))
    return slot
  }

  /// Doubles a growing sketch once the cache holds more entries than it was
  /// sized for (its counts restart, as Caffeine's `ensureCapacity` does):
  /// its memory follows the entries cached, not the capacity's unit.
  @usableFromInline
  mutating func growSketch() {
    while sketchEntries < Int64(store.count) && sketchEntries < Int64(Int32.max) { sketchEntries *= 2 }
    sketch = CountingBloomFilter(entries: Int(min(sketchEntries, Int64(Int32.max))), error: 0.001)
    agingPeriod = max(1, 32 * sketchEntries)
    mainHits = 0
  }

  /// The main cache's victim: probation's LRU end, else protected's.
  @inlinable @inline(__always)
  var mainVictim: Slot { probation.isEmpty ? protected.back : probation.back }

  @inlinable @inline(__always)
  mutating func evictFromMain(_ onEvict: (Slot, Key) -> Void) {
    if probation.isEmpty {
      store.evict(protected.back, from: &protected, onEvict: onEvict)
    } else {
      store.evict(probation.back, from: &probation, onEvict: onEvict)
    }
  }

  /// Moves the window's `slot` to the main cache: the lowest segment with
  /// room for it, or probation after evicting (each victim approved) until
  /// the main cache has room. False, with `slot` still in the window, when
  /// `approve` refuses a victim.
  @inlinable @inline(__always)
  mutating func moveToMain(_ slot: Slot, _ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    let weight = store.table[slot].weight
    if probation.weight &+ weight <= probationCapacity {
      store.table.unlink(slot, &window)
      store.table.pushFront(slot, &probation, tag: Self.inProbation)
    } else if protected.weight &+ weight <= protectedCapacity {
      store.table.unlink(slot, &window)
      store.table.pushFront(slot, &protected, tag: Self.inProtected)
    } else {
      while probation.weight &+ protected.weight &+ weight > mainCapacity {
        guard approve(store.table[mainVictim].key) else { return false }
        evictFromMain(onEvict)
      }
      store.table.unlink(slot, &window)
      store.table.pushFront(slot, &probation, tag: Self.inProbation)
    }
    return true
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    evictStep(onEvict) { _ in true }
  }

  /// Makes room from the window's LRU end (see the header) until an entry
  /// has left; false when nothing is resident or `approve` refuses a victim,
  /// which then stays.
  @inlinable @inline(__always)
  mutating func evictStep(_ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    while !window.isEmpty {
      let candidate = window.back
      let weight = store.table[candidate].weight
      let candidateBits = bits(store.table[candidate].key)
      if probation.weight &+ protected.weight &+ weight <= mainCapacity {
        guard moveToMain(candidate, onEvict, approve) else { return false }
        sketch.add(candidateBits)
        continue
      }
      // A candidate competes only if the main cache can hold it at all: one
      // that outweighs the main cache's share (a tiny capacity, whose main
      // cache holds only objects that weigh nothing) would empty it in vain.
      let mainIsEmpty = probation.isEmpty && protected.isEmpty
      if weight <= mainCapacity && !mainIsEmpty
        && sketch.estimate(candidateBits) > sketch.estimate(bits(store.table[mainVictim].key))
      {
        guard approve(store.table[mainVictim].key) else { return false }
        evictFromMain(onEvict)
        guard moveToMain(candidate, onEvict, approve) else { return false }
        sketch.add(candidateBits)
        if drainsWindow { continue }
        return true
      }
      guard approve(store.table[candidate].key) else { return false }
      store.evict(candidate, from: &window, onEvict: onEvict)
      sketch.add(candidateBits)
      return true
    }
    guard !probation.isEmpty || !protected.isEmpty, approve(store.table[mainVictim].key) else { return false }
    evictFromMain(onEvict)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inWindow: store.table.unlink(slot, &window)
    case Self.inProbation: store.table.unlink(slot, &probation)
    default: store.table.unlink(slot, &protected)
    }
    store.delete(slot, resident: true)
    return slot
  }

  /// Counts a request in the climber's sample, and climbs at its end.
  @usableFromInline
  mutating func sample(hit: Bool) {
    guard let adjustment = climber!.record(hit: hit, residents: store.count, used: store.used), adjustment != 0
    else { return }
    if adjustment > 0 { growWindow(by: adjustment) } else { shrinkWindow(by: -adjustment) }
  }

  /// Moves up to `quota` of capacity from protected to the window, with
  /// entries from probation's least recent end (then protected's).
  @usableFromInline
  mutating func growWindow(by quota: Int64) {
    guard protectedCapacity > 0 else { return }
    var quota = min(quota, protectedCapacity)
    protectedCapacity -= quota
    mainCapacity -= quota
    windowCapacity += quota
    while protected.weight > protectedCapacity {
      let demoted = protected.back
      store.table.unlink(demoted, &protected)
      store.table.pushFront(demoted, &probation, tag: Self.inProbation)
    }
    for _ in 0..<HillClimber.transfersPerStep {
      let fromProbation = !probation.isEmpty && store.table[probation.back].weight <= quota
      let candidate = fromProbation ? probation.back : protected.back
      guard candidate >= 0, store.table[candidate].weight <= quota else { break }
      quota -= store.table[candidate].weight
      if fromProbation { store.table.unlink(candidate, &probation) } else { store.table.unlink(candidate, &protected) }
      store.table.pushFront(candidate, &window, tag: Self.inWindow)
    }
    protectedCapacity += quota
    mainCapacity += quota
    windowCapacity -= quota
  }

  /// Moves up to `quota` of capacity from the window to protected, handing
  /// the window's least recent entries to probation. The window keeps one unit.
  @usableFromInline
  mutating func shrinkWindow(by quota: Int64) {
    guard windowCapacity > 1 else { return }
    var quota = min(quota, windowCapacity - 1)
    windowCapacity -= quota
    protectedCapacity += quota
    mainCapacity += quota
    for _ in 0..<HillClimber.transfersPerStep {
      let candidate = window.back
      guard candidate >= 0, store.table[candidate].weight <= quota else { break }
      quota -= store.table[candidate].weight
      store.table.unlink(candidate, &window)
      store.table.pushFront(candidate, &probation, tag: Self.inProbation)
    }
    windowCapacity += quota
    protectedCapacity -= quota
    mainCapacity -= quota
  }

  public func checkInvariants() {
    store.table.checkList(window, tag: Self.inWindow, "window")
    store.table.checkList(probation, tag: Self.inProbation, "probation")
    store.table.checkList(protected, tag: Self.inProtected, "protected")
    precondition(protected.weight <= protectedCapacity, "protected segment over its share")
    precondition(
      windowCapacity + mainCapacity == store.capacity, "the window and the main cache do not sum to the capacity")
    precondition(windowCapacity >= 1 && protectedCapacity >= 0, "a segment's share is out of range")
    // The window may hold more than its share until the cache is full (a
    // window victim moves to the main cache only when room is made). The
    // main cache may hold more than its share too, as libCacheSim's SLRU
    // does in byte mode: a victim that finds no segment with room goes to
    // probation once the main cache as a whole has room, which can leave
    // probation over its share, and a later victim then fits protected's
    // share and enters it regardless of the total. So the main cache is
    // within its share whenever probation is within its own.
    precondition(
      probation.weight + protected.weight <= mainCapacity || probation.weight > probationCapacity,
      "main cache over its share with probation within its own")
    if climber != nil {
      precondition(probationCapacity + protectedCapacity == mainCapacity, "probation's share moved")
    }
    store.checkTotals([window, probation, protected])
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("window", store.table.keys(of: window)),
      ("probation", store.table.keys(of: probation)),
      ("protected", store.table.keys(of: protected)),
    ]
  }
}

/// W-TinyLFU in the catalog: libCacheSim 0.3.5's, where a replacement in
/// the main cache is the eviction.
public enum WTinyLFU: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "wtinylfu", displayName: "W-TinyLFU", summary: "W-TinyLFU: LRU window, frequency-filtered SLRU main",
    citation: "Einziger et al., TOS'17", parameters: WTinyLFUShared.parameters,
    traits: [.asksBeforeEvicting, .evictsOnHit],
    checkedAgainst: "libCacheSim 0.3.5 (cloudPhysicsIO and Twitter, both size modes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      WTinyLFUPolicy<Index>(
        capacity: capacity, window: spec.fraction("window"), adaptive: spec.isOn("adaptive"), drainsWindow: false,
        sketchEntries: spec.integer("sketch")))
  }
}

/// W-TinyLFU as libCacheSim had it in 2024: the window drains into the main
/// cache until one of its victims is evicted.
public enum WTinyLFUv0: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "wtinylfu-v0", displayName: "W-TinyLFU v0",
    summary: "W-TinyLFU whose window drains into the main cache while its victims win",
    citation: "Einziger et al., TOS'17", parameters: WTinyLFUShared.parameters,
    traits: [.asksBeforeEvicting, .evictsOnHit],
    checkedAgainst: "libCacheSim aa0fc40 (both size modes; seven more traces)", libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      WTinyLFUPolicy<Index>(
        capacity: capacity, window: spec.fraction("window"), adaptive: spec.isOn("adaptive"), drainsWindow: true,
        sketchEntries: spec.integer("sketch")))
  }
}

/// What the two W-TinyLFU catalog entries share.
public enum WTinyLFUShared {
  public static let parameters = [
    PolicyParameter(fraction: "window", default: 0.01, help: "window LRU's share of the capacity"),
    PolicyParameter(
      switch: "adaptive", default: false,
      help: "Caffeine's hill climber moves capacity between the window and protected; not in libCacheSim"),
    PolicyParameter(
      "sketch", default: 0, range: 0...Int64(Int32.max),
      help:
        "entries the frequency sketch is first sized for, doubling as the cache outgrows it; 0: the main cache's capacity, as libCacheSim (a memory cache weighing costs sets it)"
    ),
  ]
}

/// Caffeine's hill climber for the window's share (Einziger et al.,
/// Middleware'18; constants from Caffeine's `BoundedLocalCache`): after each
/// sample period, a step in the direction that did not lower the hit ratio.
public struct HillClimber: Sendable {
  /// A step of this share of the capacity, after a start or a restart.
  static let stepShare = 0.0625
  /// Each step is this share of the last, unless the hit ratio jumped.
  static let decay = 0.98
  /// A change of the hit ratio this large restarts the step.
  static let restartThreshold = 0.05
  /// Sample period, in requests per resident object.
  static let requestsPerResident: Int64 = 10
  /// Entries moved at most by one step.
  @usableFromInline static let transfersPerStep = 1_000

  let capacity: Int64
  var hits: Int64 = 0
  var requests: Int64 = 0
  var previousHitRatio = 0.0
  /// The next step, signed: negative shrinks the window.
  public private(set) var step: Double

  public init(capacity: Int64) {
    self.capacity = capacity
    step = -Self.stepShare * Double(capacity)
  }

  /// Counts one request; at the end of a period, the window's change in
  /// units of capacity (positive grows it), else nil. Like Caffeine, which
  /// starts its sketch when the cache is half full, it does not sample
  /// before `used` reaches half the capacity.
  @usableFromInline
  mutating func record(hit: Bool, residents: Int, used: Int64) -> Int64? {
    guard used >= capacity / 2 else {
      (hits, requests, previousHitRatio) = (0, 0, 0)
      return nil
    }
    requests &+= 1
    if hit { hits &+= 1 }
    guard requests >= Self.requestsPerResident * Int64(max(residents, 1)) else { return nil }
    let hitRatio = Double(hits) / Double(requests)
    let change = hitRatio - previousHitRatio
    let amount = change >= 0 ? step : -step
    step =
      abs(change) >= Self.restartThreshold
      ? Self.stepShare * Double(capacity) * (amount >= 0 ? 1.0 : -1.0) : Self.decay * amount
    previousHitRatio = hitRatio
    hits = 0
    requests = 0
    return Int64(amount)
  }
}

extension HillClimber {
  /// Writes the climber's period and step (a policy's saved state).
  func save<Key>(into writer: inout PolicyStateWriter<Key>) {
    writer.int(requests)
    writer.int(hits)
    writer.double(previousHitRatio)
    writer.double(step)
  }

  /// A climber ``save(into:)`` wrote, for a cache of `capacity`.
  static func read<Key>(from reader: inout PolicyStateReader<Key>, capacity: Int64) throws(PolicyStateError)
    -> HillClimber
  {
    var climber = HillClimber(capacity: capacity)
    climber.requests = try reader.int(in: 0...Int64.max, "the climber's requests")
    climber.hits = try reader.int(in: 0...climber.requests, "the climber's hits")
    climber.previousHitRatio = try reader.double(in: 0...1, "the climber's last hit ratio")
    climber.step = try reader.double(in: -Double(capacity)...Double(capacity), "the climber's step")
    return climber
  }
}
