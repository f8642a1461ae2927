#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// LeCaR (Vietri, Rodriguez, Martinez, Lyons, Liu, Rangaswami, Zhao and
/// Narasimhan, "Driving Cache Replacement with ML-based LeCaR", HotStorage'18):
/// two experts, LRU and LFU, each name a victim; the cache evicts one of the
/// two at random, weighted, and remembers in that expert's history which
/// expert chose it. A request that finds its key in an expert's history
/// proves that expert wrong, and regret learning (weights multiplied by
/// e^(−λ·d^t), λ the learning rate, t the requests since the eviction)
/// moves weight to the other expert.
///
/// Follows libCacheSim 0.3.5's `lecar` (`eviction/LeCaR.c`, which 0.3.5 left
/// as the 2024 snapshot had it but for the integer type of its frequency
/// bounds; `lecarv0` there is an older LeCaR over two child caches, not
/// this one) where the paper leaves a choice:
/// - λ = 0.45, d = 0.005^(1/N) for a cache of N (objects, or bytes in byte
///   mode), both weights start at ½, and each update adds 10⁻¹⁰ to a weight
///   before normalising, so neither reaches 0;
/// - the LFU expert is ``LFU``'s order (frequencies restart at 1 on
///   admission, the oldest at a frequency first); when both experts name the
///   same entry it leaves with no history;
/// - the draw compares ⌊100·u⌋/100 with the LRU weight (u uniform);
/// - each history is a FIFO of at most N/2 weight, trimmed from its oldest
///   end after the new ghost is filed (a ghost heavier than N/2 empties it).
///
/// The draws are seeded (`lecar:seed=N`) from our generator, so that only the
/// miss ratio can agree with libCacheSim, or, with `draws=1` (0.3.5) or
/// `draws=2` (the 2024 snapshot), from libCacheSim's own `next_rand()`
/// (``LibCacheSimRandom``) seeded with `seed`, which reproduces its runs miss
/// for miss. Its `cachesim` seeds each cache of a run in turn: 0.3.5 with
/// glibc's next `rand()` (1804289383, 846930886, …), the snapshot its LCG
/// with 0 for every cache. On cloudPhysicsIO at 1000 objects 0.3.5's first
/// cache misses 94667 times (`lecar:draws=1,seed=1804289383`), the snapshot
/// 94518 (`lecar:draws=2,seed=0`); our seeds 1...8 average 0.83084, against
/// 0.83134 and 0.83004.
public struct LeCaRPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// A resident entry's frequency bucket and its node there; a ghost's
  /// request count at its eviction.
  @frozen public struct Node {
    @usableFromInline var bucket: Slot
    @usableFromInline var frequencyNode: Slot
    @usableFromInline var evictedAt: Int64
    @inlinable init(bucket: Slot, frequencyNode: Slot) {
      self.bucket = bucket
      self.frequencyNode = frequencyNode
      evictedAt = 0
    }
  }

  @inlinable @inline(__always) static var resident: UInt8 { 0 }
  @inlinable @inline(__always) static var inLRUHistory: UInt8 { 1 }
  @inlinable @inline(__always) static var inLFUHistory: UInt8 { 2 }

  public var store: PolicyStorage<Index, Node>
  /// Resident entries, most recently used first (the LRU expert's order).
  @usableFromInline var recency = EntryList()
  /// The LFU expert's order.
  @usableFromInline var byFrequency = FrequencyExpert(mapsFrequencies: false)
  /// Ghosts of the entries each expert chose, newest first.
  @usableFromInline var lruHistory = EntryList()
  @usableFromInline var lfuHistory = EntryList()
  @usableFromInline let historyCapacity: Int64
  @usableFromInline var lruWeight = 0.5
  @usableFromInline var lfuWeight = 0.5
  @usableFromInline let discount: Double
  public let learningRate: Double
  @usableFromInline var generator: PolicyDraws
  @usableFromInline var clock: Int64 = 0
  public let seed: UInt64

  @inlinable
  public init(
    capacity: Int64, learningRate: Double = 0.45, seed: UInt64 = 1, draws: PolicyDraws.Kind = .seeded
  ) {
    store = PolicyStorage(capacity: capacity)
    historyCapacity = capacity / 2
    discount = pow(0.005, 1 / Double(capacity))
    self.learningRate = learningRate
    generator = PolicyDraws(draws, seed: seed)
    self.seed = seed
  }

  public var name: String { "LeCaR(rate=\(learningRate), seed=\(seed))" }

  /// The LRU expert's current weight (the LFU expert's is 1 minus it).
  public var weightOfLRU: Double { lruWeight }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].list == Self.resident
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    clock &+= 1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.resident:
      store.table.moveToFront(slot, &recency)
      promote(slot)
      return slot
    case Self.inLRUHistory:
      (lruWeight, lfuWeight) = regret(clock &- store.table[slot].payload.evictedAt, lruWeight, lfuWeight)
      store.table.unlink(slot, &lruHistory)
    default:
      (lfuWeight, lruWeight) = regret(clock &- store.table[slot].payload.evictedAt, lfuWeight, lruWeight)
      store.table.unlink(slot, &lfuHistory)
    }
    store.delete(slot, resident: false)
    return nil
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    guard request.weight <= store.capacity else { return nil }
    while store.used &+ request.weight > store.capacity {
      let (victim, history) = chooseVictim()
      guard approve(store.table[victim].key) else { return nil }
      evict(victim, into: history, onEvict)
    }
    let slot = store.insert(
      request, payload: Node(bucket: -1, frequencyNode: -1), atFrontOf: &recency, tag: Self.resident)
    (store.table[slot].payload.bucket, store.table[slot].payload.frequencyNode) = byFrequency.attach(
      slot, frequency: 1)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard recency.back >= 0 else { return false }
    let (victim, history) = chooseVictim()
    evict(victim, into: history, onEvict)
    return true
  }

  /// The experts' victims and the draw between them: the entry to evict and
  /// the history it goes to (none when both experts name it).
  @inlinable @inline(__always)
  mutating func chooseVictim() -> (Slot, UInt8) {
    let byRecency = recency.back
    let leastFrequent = byFrequency.leastFrequentOldest
    if byRecency == leastFrequent { return (byRecency, Self.resident) }
    if Double(generator.below(100)) / 100 < lruWeight { return (byRecency, Self.inLRUHistory) }
    return (leastFrequent, Self.inLFUHistory)
  }

  @inlinable @inline(__always)
  mutating func evict(_ victim: Slot, into history: UInt8, _ onEvict: (Slot, Key) -> Void) {
    detach(victim)
    onEvict(victim, store.table[victim].key)
    if history == Self.resident {
      store.delete(victim, resident: true)
    } else {
      bury(victim, tag: history)
    }
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0, store.table[slot].list == Self.resident else { return nil }
    detach(slot)
    store.delete(slot, resident: true)
    return slot
  }

  /// Moves a resident entry's frequency node up one frequency, to the back
  /// of that bucket.
  @inlinable @inline(__always)
  mutating func promote(_ slot: Slot) {
    let entry = store.table[slot].payload
    store.table[slot].payload.bucket = byFrequency.countUse(bucket: entry.bucket, node: entry.frequencyNode)
  }

  /// Takes a resident entry off both experts' orders.
  @inlinable @inline(__always)
  mutating func detach(_ slot: Slot) {
    store.table.unlink(slot, &recency)
    byFrequency.detach(bucket: store.table[slot].payload.bucket, node: store.table[slot].payload.frequencyNode)
  }

  /// Files an evicted entry at the front of the history `tag` names, then
  /// trims that history's oldest ghosts until it weighs at most N/2.
  @inlinable @inline(__always)
  mutating func bury(_ slot: Slot, tag: UInt8) {
    store.retire(slot)
    store.table[slot].payload.evictedAt = clock
    var history = tag == Self.inLRUHistory ? lruHistory : lfuHistory
    store.table.pushFront(slot, &history, tag: tag)
    while history.weight > historyCapacity { store.deleteBack(of: &history) }
    if tag == Self.inLRUHistory { lruHistory = history } else { lfuHistory = history }
  }

  /// Regret: the expert whose history was hit `age` requests after the
  /// eviction loses weight, the more the sooner it is proven wrong; returns
  /// its new weight and the other's.
  @inlinable @inline(__always)
  func regret(_ age: Int64, _ penalised: Double, _ other: Double) -> (Double, Double) {
    let lowered = penalised * exp(-learningRate * pow(discount, Double(age))) + 1e-10
    let sum = lowered + other + 2e-10
    return (lowered / sum, (other + 1e-10) / sum)
  }

  public func checkInvariants() {
    store.table.checkList(recency, tag: Self.resident, "recency")
    store.table.checkList(lruHistory, tag: Self.inLRUHistory, "LRU history")
    store.table.checkList(lfuHistory, tag: Self.inLFUHistory, "LFU history")
    precondition(lruHistory.weight <= historyCapacity && lfuHistory.weight <= historyCapacity, "a history over N/2")
    let counted = byFrequency.check { slot, bucket, node in
      precondition(store.table[slot].list == Self.resident, "a ghost in a frequency bucket")
      precondition(store.table[slot].payload.bucket == bucket, "an entry points to the wrong bucket")
      precondition(store.table[slot].payload.frequencyNode == node, "an entry points to the wrong node")
    }
    precondition(counted == recency.count, "the experts hold \(recency.count) and \(counted) entries")
    precondition(abs(lruWeight + lfuWeight - 1) < 1e-6, "weights do not sum to 1")
    store.checkTotals([recency])
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("recency", store.table.keys(of: recency)), ("LRU history", store.table.keys(of: lruHistory)),
      ("LFU history", store.table.keys(of: lfuHistory)),
    ]
  }
}

/// LeCaR in the catalog.
public enum LeCaR: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lecar", displayName: "LeCaR", summary: "LRU and LFU experts weighted by regret learning",
    citation: "Vietri et al., HotStorage'18",
    parameters: [
      PolicyParameter(fraction: "rate", default: 0.45, help: "learning rate λ"),
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed"),
      PolicyParameter(
        "draws", default: 0, range: 0...2,
        help: "0: our generator; libCacheSim's next_rand() seeded with seed: 1 release 0.3.5's, 2 the 2024 snapshot's"),
    ],
    traits: [.randomized, .asksBeforeEvicting],
    checkedAgainst:
      "libCacheSim 0.3.5 and the 2024 snapshot exactly with their draws (cloudPhysicsIO, both size modes), "
      + "its miss ratio within 1% with ours (cloudPhysicsIO in 4 encodings × 2 size modes; seven more traces)",
    libCacheSim: "0.3.5"
  )

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      LeCaRPolicy<Index>(
        capacity: capacity, learningRate: spec.fraction("rate"), seed: UInt64(spec.integer("seed")),
        draws: PolicyDraws.Kind(rawValue: Int(spec.integer("draws")))!))
  }
}
