#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Cacheus (Rodriguez, Yusuf, Lyons, Paz, Rangaswami, Liu, Zhao and
/// Narasimhan, "Learning Cache Replacement with CACHEUS", FAST'21): LeCaR's
/// two weighted experts, with a scan-resistant LRU (``SRLRUPolicy``) and a
/// churn-resistant LFU (``CRLFU``) in place of plain LRU and LFU, and a
/// learning rate that tunes itself instead of a fixed one.
///
/// Both experts order the same resident set. At an eviction each names its
/// victim (SR-LRU: the oldest of SR, or of R when SR is empty; CR-LFU: the
/// newest of the least frequent); one of the two is chosen at random with
/// the LRU expert's weight and filed in that expert's ghost list. A miss on a
/// key in an expert's ghost list multiplies that expert's weight by e^(−λ).
///
/// Follows libCacheSim 0.3.5's `cacheus` (`eviction/Cacheus.c`, with its
/// `SR_LRU.c` and `CR_LFU.c` linked to each other) where the paper leaves a
/// choice or differs:
/// - SR and R start at ⌊N/2⌋ each. An object that entered SR on a miss and
///   left for H without a hit is marked new; when such an object comes back
///   from H, SR was too small, and it grows by ⌊D / M⌋ (at least 1), D the
///   demotions from R to SR so far less the demoted objects that left for
///   H, M the new objects that left for H; SR never exceeds the resident
///   weight less 1 (a cap that can also shrink it while the cache fills),
///   and R keeps the rest of N. The paper's opposite move (SR shrinks when a
///   demoted object is hit) never happens in libCacheSim: a hit in SR moves
///   the object to R without its mark;
/// - an object is not admitted when heavier than SR's share (R's, when it
///   comes back from H), though room is made for it first;
/// - SR-LRU's history H holds every evicted object, newest first, while it
///   weighs less than N, with the object's CR-LFU frequency: an object
///   readmitted from H resumes at that frequency plus one (at the newest end
///   of its frequency), a new one starts at 1;
/// - an object SR-LRU's own trimming pushes out of SR (after an admission)
///   leaves CR-LFU too, with no expert ghost; so does the victim both experts
///   name;
/// - each expert's ghost list is an LRU of N/2 weight; a missed request
///   leaves both, whether it was there or not;
/// - the draw compares ⌊100·u⌋/100 with the LRU weight (u uniform), on every
///   eviction; after a ghost hit the weights are renormalised;
/// - λ starts uniform in [0.001, 1.0] (in steps of 0.001) and is revised every
///   N requests from the hit rate of the last N, an integer division in
///   libCacheSim (0 unless every request hit): the rate moves by ±λ·|Δλ|,
///   falling to 10⁻⁴ at the floor of 10⁻³, and is drawn afresh after ten
///   revisions without progress. With a hit rate of 0 the first revision
///   makes λ(1 − λ) and later ones shrink it further, so the first λ decides
///   how much Cacheus ever learns;
/// - removing a key forgets it, ghosts included (a removal is not an
///   eviction), where libCacheSim files it in H.
///
/// The 2024 snapshot (aa0fc40) lost the new mark on the way back from H, so
/// its SR and R stayed at ⌊N/2⌋: `cacheus:v0=true`, which the reference rows
/// measured with the snapshot follow (`Cacheus.c` did not change).
///
/// The draws are seeded (`cacheus:seed=N`) from our generator, so that only
/// the miss ratio can agree with libCacheSim, or, with `draws=1` (0.3.5) or
/// `draws=2` (the snapshot), from libCacheSim's own `next_rand()`
/// (``LibCacheSimRandom``) seeded with `seed`, which reproduces its runs miss
/// for miss. Its `cachesim` draws the first λ when it creates the cache, from
/// the generator of the thread that creates all of a run's caches, never
/// seeded: in 0.3.5 the caches of a run start at 0.698, 0.983, 0.622, 0.433,
/// 0.161, 0.094, … in turn (`rate=698`, …), in the snapshot at 0.408, 0.467,
/// 0.794, 0.941, 0.284, 0.871, …; each cache then draws on its own (0.3.5:
/// seeded with glibc's next `rand()`, 1804289383 for the first cache, then
/// 846930886, …; the snapshot: its LCG from 0 for every cache). So
/// libCacheSim's λ is not random from run to run but fixed by the cache's
/// place in the run, and at 10,000 objects on cloudPhysicsIO it decides the
/// result: 0.3.5 misses 76238 times starting at 0.698 and 83257 at 0.983
/// (`cacheus:draws=1,seed=846930886,rate=983` gives 83257; over our seeds
/// 1...8 with `rate=983` the mean is 0.73105 against libCacheSim's 0.73114,
/// with λ drawn 0.70028).
public struct CacheusPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// A resident entry's frequency bucket and its node there; an entry in H,
  /// its frequency when it left. Both carry SR-LRU's marks (`isNew`,
  /// `isDemoted`).
  @frozen public struct Node {
    @usableFromInline var bucket: Slot
    @usableFromInline var frequencyNode: Slot
    @usableFromInline var frequency: Int64
    @usableFromInline var marks: UInt8 = 0
    @inlinable init(bucket: Slot, frequencyNode: Slot, frequency: Int64) {
      self.bucket = bucket
      self.frequencyNode = frequencyNode
      self.frequency = frequency
    }
  }

  /// Admitted into SR on a miss outside H, and not hit since.
  @inlinable @inline(__always) static var isNew: UInt8 { 1 }
  /// Demoted from R to SR, and not hit since.
  @inlinable @inline(__always) static var isDemoted: UInt8 { 2 }

  @inlinable @inline(__always) static var inR: UInt8 { 1 }
  @inlinable @inline(__always) static var inSR: UInt8 { 2 }
  @inlinable @inline(__always) static var inHistory: UInt8 { 3 }
  @inlinable @inline(__always) static var chosenByLRU: UInt8 { 1 }
  @inlinable @inline(__always) static var chosenByLFU: UInt8 { 2 }

  /// Resident entries (in R or SR) and SR-LRU's history H.
  public var store: PolicyStorage<Index, Node>
  @usableFromInline var recent = EntryList()
  @usableFromInline var scanResistant = EntryList()
  @usableFromInline var history = EntryList()
  /// CR-LFU's order.
  @usableFromInline var byFrequency = FrequencyExpert()
  /// The experts' ghost lists, most recent first (a key may sit in H and in
  /// one of them at once, each trimmed on its own).
  @usableFromInline var ghosts: PolicyStorage<Index, UInt8>
  @usableFromInline var lruGhosts = EntryList()
  @usableFromInline var lfuGhosts = EntryList()
  /// The weight each of the two ghost lists keeps, and R's and SR's at the start.
  public let half: Int64
  /// SR's share of the capacity, and R's (the rest; ⌊N/2⌋ until SR first grows).
  @usableFromInline var scanResistantLimit: Int64
  @usableFromInline var recentLimit: Int64
  /// SR-LRU's counts of demotions to SR (less the demoted entries that
  /// left for H), and of new entries that left for H.
  @usableFromInline var demotedCount: UInt64 = 0
  @usableFromInline var newInHistoryCount: UInt64 = 0
  /// The 2024 snapshot: SR and R stay at ⌊N/2⌋.
  public let v0: Bool
  @usableFromInline var lruWeight = 0.5
  @usableFromInline var lfuWeight = 0.5
  @usableFromInline var rate: Double
  @usableFromInline var previousRate = 0.0
  @usableFromInline var previousHitRate = 0.0
  @usableFromInline var stalledRevisions = 0
  @usableFromInline var hitsSinceRevision: Int64 = 0
  @usableFromInline var requests: Int64 = 0
  @usableFromInline var generator: PolicyDraws
  public let seed: UInt64

  /// The first λ in thousandths, or 0 when it is drawn from the seed.
  public let startingRate: Int

  /// λ starts at `startingRate` thousandths (1...1000), or, when that is
  /// 0, at a draw from the seeded stream.
  @inlinable
  public init(
    capacity: Int64, seed: UInt64 = 1, startingRate: Int = 0, v0: Bool = false, draws: PolicyDraws.Kind = .seeded
  ) {
    precondition((0...1000).contains(startingRate), "Cacheus's starting rate is in 1...1000 thousandths, or 0")
    store = PolicyStorage(capacity: capacity)
    half = capacity / 2
    scanResistantLimit = capacity / 2
    recentLimit = capacity / 2
    self.v0 = v0
    ghosts = PolicyStorage(capacity: max(1, capacity / 2))
    generator = PolicyDraws(draws, seed: seed)
    rate = 0
    self.seed = seed
    self.startingRate = startingRate
    rate = startingRate > 0 ? Double(startingRate) / 1000 : drawRate()
  }

  public var name: String {
    "Cacheus(seed=\(seed)" + (startingRate > 0 ? ", rate=\(startingRate)" : "") + (v0 ? ", v0)" : ")")
  }

  /// The LRU expert's current weight (the LFU expert's is 1 minus it).
  public var weightOfLRU: Double { lruWeight }
  /// The current learning rate λ.
  public var learningRate: Double { rate }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].list != Self.inHistory
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    if requests > 0 && requests % store.capacity == 0 { reviseRate() }
    requests &+= 1
    let slot = store.find(request.key)
    if slot >= 0 {
      switch store.table[slot].list {
      case Self.inR:
        store.table.moveToFront(slot, &recent)
        countAccess(slot)
        return slot
      case Self.inSR:
        // Promoted to R unmarked (libCacheSim copies the entry, not its
        // marks), and the demotions count keeps it.
        store.table.unlink(slot, &scanResistant)
        store.table[slot].payload.marks = 0
        store.table.pushFront(slot, &recent, tag: Self.inR)
        demote(above: 0)
        countAccess(slot)
        return slot
      default: break
      }
    }
    if ghosts.count > 0 { learn(from: request.key) }
    return nil
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  /// SR's trim, which libCacheSim makes after inserting, runs before the
  /// insertion here (it evicts the same entries: the newcomer is never SR's
  /// oldest), so each of its victims can be approved before anything enters.
  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    guard request.weight <= store.capacity else { return nil }
    while store.used &+ request.weight > store.capacity {
      let (victim, ghostList) = chooseVictim()
      guard approve(store.table[victim].key) else { return nil }
      evict(victim, ghostList: ghostList, onEvict)
    }
    let known = store.find(request.key)
    guard request.weight <= (known >= 0 ? recentLimit : scanResistantLimit) else { return nil }
    let slot: Slot
    if known >= 0 {
      let frequency = store.table[known].payload.frequency &+ 1
      let wasNew = store.table[known].payload.marks & Self.isNew != 0
      store.forget(known, from: &history)
      demote(above: request.weight)
      if wasNew && !v0 { growScanResistant(occupied: store.used &+ request.weight) }
      guard trimScanResistant(making: 0, onEvict, approve) else { return nil }
      slot = store.insert(
        request.key, weight: request.weight, payload: Node(bucket: -1, frequencyNode: -1, frequency: 0))
      store.table.pushFront(slot, &recent, tag: Self.inR)
      attach(slot, frequency: frequency)
    } else {
      guard trimScanResistant(making: request.weight, onEvict, approve) else { return nil }
      slot = store.insert(
        request.key, weight: request.weight, payload: Node(bucket: -1, frequencyNode: -1, frequency: 0))
      store.table.pushFront(slot, &scanResistant, tag: Self.inSR)
      attach(slot, frequency: 1)
      store.table[slot].payload.marks = Self.isNew
    }
    return slot
  }

  /// SR-LRU's growth of SR (0.3.5): a new entry came back from H, so SR
  /// was too small. It grows by q = ⌊demotions / new entries in H⌋, at
  /// least 1, at most to one less than the weight `occupied` (R and SR with
  /// the newcomer), which can shrink it; R gets the rest of the capacity.
  @inlinable
  mutating func growScanResistant(occupied: Int64) {
    let quotient = Int32(truncatingIfNeeded: demotedCount / max(newInHistoryCount, 1))
    let delta = quotient < 1 ? 1.0 : Double(quotient) + 0.5
    if Double(scanResistantLimit) + delta > Double(occupied &- 1) {
      scanResistantLimit = max(occupied &- 1, 0)
    } else {
      scanResistantLimit = Int64(Double(scanResistantLimit) + delta)
    }
    recentLimit = store.capacity &- scanResistantLimit
  }

  /// Retires SR's oldest entries to H until `room` more fits SR's share;
  /// false when `approve` refuses one.
  @inlinable @inline(__always)
  mutating func trimScanResistant(
    making room: Int64, _ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool
  ) -> Bool {
    while scanResistant.weight &+ room > scanResistantLimit {
      guard approve(store.table[scanResistant.back].key) else { return false }
      retireToHistory(scanResistant.back, onEvict)
    }
    return true
  }

  /// Draws between the experts' victims and files the loser of the draw in
  /// the ghost list of the expert that chose it (no ghost when they agree).
  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    let (victim, ghostList) = chooseVictim()
    evict(victim, ghostList: ghostList, onEvict)
    return true
  }

  /// The experts' victims and the draw between them: the entry to evict
  /// and the ghost list of the expert that chose it (0 when they agree).
  @inlinable @inline(__always)
  mutating func chooseVictim() -> (Slot, UInt8) {
    let byRecency = scanResistant.isEmpty ? recent.back : scanResistant.back
    let leastFrequent = byFrequency.leastFrequentNewest
    let lruChooses = Double(generator.below(100)) / 100 < lruWeight
    if byRecency == leastFrequent { return (byRecency, 0) }
    return lruChooses ? (byRecency, Self.chosenByLRU) : (leastFrequent, Self.chosenByLFU)
  }

  @inlinable @inline(__always)
  mutating func evict(_ victim: Slot, ghostList: UInt8, _ onEvict: (Slot, Key) -> Void) {
    let key = store.table[victim].key
    let weight = store.table[victim].weight
    retireToHistory(victim, onEvict)
    if ghostList == Self.chosenByLRU {
      ghosts.file(key, weight: weight, in: &lruGhosts, capacity: half, tag: Self.chosenByLRU)
    } else if ghostList == Self.chosenByLFU {
      ghosts.file(key, weight: weight, in: &lfuGhosts, capacity: half, tag: Self.chosenByLFU)
    }
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    forgetGhost(key)
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inR: store.table.unlink(slot, &recent)
    case Self.inSR: store.table.unlink(slot, &scanResistant)
    default:
      store.forget(slot, from: &history)
      return nil
    }
    if store.table[slot].payload.marks & Self.isDemoted != 0 { demotedCount &-= 1 }
    detach(slot)
    store.delete(slot, resident: true)
    return slot
  }

  /// A miss: a key in an expert's ghost list proves that expert wrong, and
  /// the key leaves the ghost lists.
  @inlinable
  mutating func learn(from key: Key) {
    let ghost = ghosts.find(key)
    guard ghost >= 0 else { return }
    if ghosts.table[ghost].list == Self.chosenByLRU {
      lruWeight *= exp(-rate)
    } else {
      lfuWeight *= exp(-rate)
    }
    lruWeight /= lruWeight + lfuWeight
    lfuWeight = 1 - lruWeight
    forgetGhost(key)
  }

  @inlinable
  mutating func forgetGhost(_ key: Key) {
    let ghost = ghosts.find(key)
    guard ghost >= 0 else { return }
    if ghosts.table[ghost].list == Self.chosenByLRU {
      ghosts.table.unlink(ghost, &lruGhosts)
    } else {
      ghosts.table.unlink(ghost, &lfuGhosts)
    }
    ghosts.delete(ghost, resident: true)
  }

  /// Revises λ from the hit rate of the last N requests (see the header).
  @inlinable
  mutating func reviseRate() {
    let hitRate = Double(hitsSinceRevision / store.capacity)
    let hitRateChange = hitRate - previousHitRate
    let rateChange = rate - previousRate
    previousRate = rate
    previousHitRate = hitRate
    if rateChange != 0 {
      let step = (hitRateChange / rateChange > 0 ? 1.0 : -1.0) * abs(rate * rateChange)
      rate = rate + step > 0.001 ? rate + step : 0.0001
      stalledRevisions = 0
    } else if hitRate == 0 || hitRateChange <= 0 {
      stalledRevisions += 1
    } else if stalledRevisions >= 10 {
      stalledRevisions = 0
      rate = drawRate()
    }
    hitsSinceRevision = 0
  }

  @inlinable
  mutating func drawRate() -> Double { 0.001 + Double(generator.below(1000)) / 1000 }

  /// Moves a resident entry out of R or SR into H with its frequency, takes
  /// it off CR-LFU's order, and trims H below N.
  @inlinable @inline(__always)
  mutating func retireToHistory(_ slot: Slot, _ onEvict: (Slot, Key) -> Void) {
    if store.table[slot].list == Self.inSR {
      store.table.unlink(slot, &scanResistant)
    } else {
      store.table.unlink(slot, &recent)
    }
    let frequency = byFrequency.frequency(of: store.table[slot].payload.bucket)
    detach(slot)
    store.table[slot].payload.frequency = frequency
    // H keeps the entry's new mark; a demoted one no longer counts.
    let marks = store.table[slot].payload.marks
    if marks & Self.isNew != 0 { newInHistoryCount &+= 1 }
    if marks & Self.isDemoted != 0 { demotedCount &-= 1 }
    store.table[slot].payload.marks = marks & Self.isNew
    onEvict(slot, store.table[slot].key)
    store.retire(slot)
    store.table.pushFront(slot, &history, tag: Self.inHistory)
    while history.weight >= store.capacity { store.deleteBack(of: &history) }
  }

  /// A hit: SR-LRU has moved the entry; CR-LFU raises its frequency and puts
  /// it at the newest end of its new bucket.
  @inlinable @inline(__always)
  mutating func countAccess(_ slot: Slot) {
    hitsSinceRevision &+= 1
    let entry = store.table[slot].payload
    store.table[slot].payload.bucket = byFrequency.countUse(bucket: entry.bucket, node: entry.frequencyNode)
  }

  @inlinable @inline(__always)
  mutating func attach(_ slot: Slot, frequency: Int64) {
    (store.table[slot].payload.bucket, store.table[slot].payload.frequencyNode) = byFrequency.attach(
      slot, frequency: frequency)
    store.table[slot].payload.frequency = 0
  }

  @inlinable @inline(__always)
  mutating func detach(_ slot: Slot) {
    byFrequency.detach(bucket: store.table[slot].payload.bucket, node: store.table[slot].payload.frequencyNode)
  }

  /// Demotes R's oldest entries to the front of SR, marked and counted,
  /// until R, with `incoming` more weight, fits its share.
  @inlinable @inline(__always)
  mutating func demote(above incoming: Int64) {
    while recent.weight &+ incoming > recentLimit {
      let slot = recent.back
      store.table.unlink(slot, &recent)
      store.table.pushFront(slot, &scanResistant, tag: Self.inSR)
      store.table[slot].payload.marks = Self.isDemoted
      demotedCount &+= 1
    }
  }

  public func checkInvariants() {
    store.table.checkList(recent, tag: Self.inR, "R")
    store.table.checkList(scanResistant, tag: Self.inSR, "SR")
    store.table.checkList(history, tag: Self.inHistory, "H")
    let unmoved = scanResistantLimit == half && recentLimit == half
    precondition(unmoved || (!v0 && scanResistantLimit + recentLimit == store.capacity), "SR's and R's shares")
    precondition(history.weight < store.capacity, "H not below the capacity")
    store.checkTotals([recent, scanResistant])
    let counted = byFrequency.check { slot, bucket, node in
      let list = store.table[slot].list
      precondition(list == Self.inR || list == Self.inSR, "a non-resident entry in CR-LFU's order")
      precondition(store.table[slot].payload.bucket == bucket, "an entry points to the wrong bucket")
      precondition(store.table[slot].payload.frequencyNode == node, "an entry points to the wrong node")
    }
    precondition(counted == store.count, "the experts order \(store.count) and \(counted) entries")
    ghosts.table.checkList(lruGhosts, tag: Self.chosenByLRU, "LRU ghosts")
    ghosts.table.checkList(lfuGhosts, tag: Self.chosenByLFU, "LFU ghosts")
    precondition(lruGhosts.weight <= half && lfuGhosts.weight <= half, "a ghost list over N/2")
    precondition(ghosts.count == lruGhosts.count + lfuGhosts.count, "a ghost on no list")
    for key in ghosts.table.keys(of: lruGhosts) + ghosts.table.keys(of: lfuGhosts) {
      precondition(!contains(key), "a resident key is an expert's ghost")
    }
    precondition(abs(lruWeight + lfuWeight - 1) < 1e-9, "weights do not sum to 1")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("R", store.table.keys(of: recent)), ("SR", store.table.keys(of: scanResistant)),
      ("H", store.table.keys(of: history)), ("LRU ghosts", ghosts.table.keys(of: lruGhosts)),
      ("LFU ghosts", ghosts.table.keys(of: lfuGhosts)),
    ]
  }
}

/// Cacheus in the catalog.
public enum Cacheus: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "cacheus", displayName: "CACHEUS",
    summary: "SR-LRU and CR-LFU experts weighted by regret, self-tuning learning rate",
    citation: "Rodriguez et al., FAST'21",
    parameters: [
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed"),
      PolicyParameter(
        "draws", default: 0, range: 0...2,
        help: "0: our generator; libCacheSim's next_rand() seeded with seed: 1 release 0.3.5's, 2 the 2024 snapshot's"),
      PolicyParameter(
        "rate", default: 0, range: 0...1000,
        help: "first learning rate in thousandths; 0 draws it (libCacheSim's cachesim: see the policy's file)"),
      PolicyParameter(
        switch: "v0", default: false, help: "libCacheSim's 2024 SR-LRU: SR and R stay at half the capacity"),
    ],
    traits: [.randomized, .asksBeforeEvicting],
    checkedAgainst:
      "libCacheSim exactly with its draws and first λ: 0.3.5 (cloudPhysicsIO, twitter_cluster52), v0 the 2024 "
      + "snapshot (cloudPhysicsIO), both size modes; its miss ratio within 1% with ours (cloudPhysicsIO in 4 "
      + "encodings × 2 size modes; seven more traces)",
    libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      CacheusPolicy<Index>(
        capacity: capacity, seed: UInt64(spec.integer("seed")), startingRate: Int(spec.integer("rate")),
        v0: spec.isOn("v0"), draws: PolicyDraws.Kind(rawValue: Int(spec.integer("draws")))!))
  }

  /// SR and R each admit objects up to half the capacity: in count mode it needs 2.
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool { capacity / 2 >= 1 }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; Cacheus keeps SR-LRU's two halves of the capacity and admits only what fits one: raise the size"
  }
}
