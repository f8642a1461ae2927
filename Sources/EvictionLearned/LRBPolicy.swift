import EvictionCore
import Foundation

/// LRB: Learning Relaxed Belady (Song, Berger, Li and Lloyd, "Learning
/// Relaxed Belady for content distribution network caching", NSDI'20).
/// A model learns when an object will next be requested and the cache
/// evicts, among 64 residents drawn at random, the one predicted furthest
/// away: Belady's rule relaxed to "any object not requested within the
/// memory window".
///
/// Every key requested within the last `memory-window` requests keeps its
/// metadata, resident or not: its last request, up to 31 gaps between its
/// past requests, ten exponentially decayed counts of those gaps (windows
/// of 2¹⁰ … 2¹⁹ requests) and its size. After the first eviction, each
/// request also draws one remembered key at random as a training sample;
/// the sample's label is log(1 + the requests until that key's next
/// request), or twice the window when none comes within it. Every
/// `batch-size` labelled samples train a new model of gradient-boosted
/// trees (``TreeLearner`` says how it stands for libCacheSim's LightGBM).
/// Until the first training, and whenever the least recently used resident
/// has not been requested for a whole memory window, it evicts that
/// resident: before a model exists LRB is LRU, eviction for eviction.
///
/// Follows libCacheSim 0.3.5's `LRB` (`eviction/LRB/`, from the authors'
/// webcachesim2) step for step, including where its code is the only
/// definition:
/// - time is the request count; the window's default is 2²⁶ requests and
///   a key unrequested that long is forgotten at the start of the request
///   that ends its window;
/// - the training sample and the 64 ranking candidates are drawn with
///   libstdc++'s `minstd_rand0` (seed 1) and distributions, replayed by
///   ``StdRandom``; metadata sits in two arrays (resident and not), removal
///   swapping the last entry into the gap, so the same draws pick the same
///   keys and the training rows equal libCacheSim's, row for row;
/// - a candidate already drawn is drawn again, up to 200 draws in all;
/// - with `object-miss-ratio` off (libCacheSim's default, `LRB-BMR`) the
///   candidate predicted furthest is evicted; with it on (`LRB-OMR`) the
///   prediction is multiplied by the object's size first.
///
/// Where it differs: the trees (XGBoost, not LightGBM; see
/// ``TreeLearner``); of candidates with equal predictions the first drawn is
/// evicted (libCacheSim takes the first after `std::sort`, an order no
/// standard fixes); ``remove(_:)`` (libCacheSim aborts) forgets the key and
/// its unlabelled samples.
public struct LRBPolicy<Index: SlotIndex & ~Copyable>: ReplacementPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// Where a key's metadata is: the resident or the remembered array, and
  /// its position there.
  public struct KeyRecord: BitwiseCopyable {
    @usableFromInline var resident: Bool
    @usableFromInline var position: Int32
    @inlinable init(resident: Bool, position: Int32) {
      self.resident = resident
      self.position = position
    }
  }

  public var store: PolicyStorage<Index, KeyRecord>
  /// Residents, most recently requested first.
  @usableFromInline var recency = EntryList()
  @usableFromInline var residents: [LRBMeta] = []
  @usableFromInline var remembered: [LRBMeta] = []
  /// Remembered keys by their last request modulo the window: who to forget when.
  @usableFromInline var forgetAt: [UInt32: Slot] = [:]
  @usableFromInline var history = LRBHistory()
  @usableFromInline var samples = LRBSamples()
  @usableFromInline var random = StdRandom()
  @usableFromInline var learner: TreeLearner
  /// The request count, from 0 (libCacheSim's `current_seq`, a `uint32_t`).
  @usableFromInline var now: UInt32 = .max
  /// Sampling starts with the first eviction.
  @usableFromInline var sampling = false
  /// The key of a lookup that missed and awaits its admission.
  @usableFromInline var pendingKey: Key? = nil
  /// Ranking scratch: candidates' positions and a mark per
  /// resident position (drawn in the ranking numbered `rankStamp`).
  @usableFromInline var candidates: [Int32]
  @usableFromInline var drawn: [UInt32] = []
  @usableFromInline var rankStamp: UInt32 = 0

  /// Features per row: the age, 31 past gaps, the size, the gaps within
  /// the window, 10 decayed counts.
  static var featureCount: Int { 44 }

  public let sampleRate: Int
  public let memoryWindow: UInt32
  public let batchSize: Int
  public let objectMissRatio: Bool
  /// `hash_edc`: 2⁻ⁱ for i up to the window in 1,024-request units.
  @usableFromInline let decay: [Double]

  public init(
    capacity: Int64, sampleRate: Int = 64, memoryWindow: UInt32 = 67_108_864, batchSize: Int = 131_072,
    rounds: Int = 32, leaves: Int = 32, objectMissRatio: Bool = false
  ) {
    precondition(sampleRate >= 1 && memoryWindow >= 1_024 && batchSize >= 1, "LRB: parameters out of range")
    store = PolicyStorage(capacity: capacity)
    self.sampleRate = sampleRate
    self.memoryWindow = memoryWindow
    self.batchSize = batchSize
    self.objectMissRatio = objectMissRatio
    decay = (0..<Int(memoryWindow / 1_024)).map { pow(0.5, Double($0)) }
    learner = TreeLearner(
      width: Self.featureCount, rounds: rounds, leaves: leaves, batchSize: batchSize, rankedRows: sampleRate)
    candidates = Array(repeating: 0, count: sampleRate)
  }

  public var name: String {
    "LRB(\(objectMissRatio ? "object" : "byte")-miss-ratio,sample=\(sampleRate),window=\(memoryWindow))"
  }
  public var capacity: Int64 { store.capacity }
  public var usedWeight: Int64 { store.used }
  public var count: Int { store.count }
  public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].payload.resident
  }
  public func key(at slot: Slot) -> Key { store.table[slot].key }

  /// How often the model was trained, and the seconds training and ranking took.
  public var learning: LearningCounts? { LearningCounts(trainings: learner.trainings, seconds: learner.seconds) }

  // MARK: Requests

  /// libCacheSim's `LRBCache::lookup`: forget the key whose window ends,
  /// label the requested key's samples, record the request, draw a sample.
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    pendingKey = nil
    now &+= 1
    forget()
    let slot = store.find(request.key)
    var hit = false
    if slot >= 0 {
      let record = store.table[slot].payload
      let position = Int(record.position)
      let previous = record.resident ? residents[position].lastRequest : remembered[position].lastRequest
      var meta = record.resident ? residents[position] : remembered[position]
      let time = now
      label(&meta) { time &- $0 }
      history.record(&meta, at: now, decay: decay)
      if record.resident {
        residents[position] = meta
        store.table.moveToFront(slot, &recency)
        hit = true
      } else {
        remembered[position] = meta
        forgetAt[previous % memoryWindow] = nil
        forgetAt[now % memoryWindow] = slot
      }
    }
    if sampling { drawSample() }
    if hit { return slot }
    pendingKey = request.key
    return nil
  }

  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    if pendingKey != request.key {
      // A set without a read first: the request is counted here.
      if let slot = lookup(request, onEvict: onEvict) { return slot }
    }
    pendingKey = nil
    guard request.weight <= store.capacity else { return nil }
    while store.used &+ request.weight > store.capacity && store.count > 0 { evict(onEvict: onEvict) }
    let slot = store.find(request.key)
    if slot < 0 {
      let slot = store.insert(
        request.key, weight: request.weight, payload: KeyRecord(resident: true, position: Int32(residents.count)))
      store.table.pushFront(slot, &recency, tag: 0)
      residents.append(LRBMeta(slot: slot, size: request.weight, lastRequest: now))
      return slot
    }
    // A remembered key comes back.
    let position = Int(store.table[slot].payload.position)
    var meta = remembered[position]
    meta.size = request.weight
    forgetAt[meta.lastRequest % memoryWindow] = nil
    store.table[slot].weight = request.weight
    store.used &+= request.weight
    store.count &+= 1
    store.table.pushFront(slot, &recency, tag: 0)
    store.table[slot].payload = KeyRecord(resident: true, position: Int32(residents.count))
    residents.append(meta)
    removeRemembered(at: position)
    return slot
  }

  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    pendingKey = nil
    guard store.count > 0 else { return false }
    evict(onEvict: onEvict)
    return true
  }

  public mutating func remove(_ key: Key) -> Slot? {
    pendingKey = nil
    let slot = store.find(key)
    guard slot >= 0, store.table[slot].payload.resident else { return nil }
    let position = Int(store.table[slot].payload.position)
    samples.release(&residents[position])
    history.release(residents[position].history)
    store.table.unlink(slot, &recency)
    store.delete(slot, resident: true)
    removeResident(at: position)
    return slot
  }

  // MARK: Eviction

  @usableFromInline
  mutating func evict(onEvict: (Slot, Key) -> Void) {
    let position = learner.isTrained ? rank() : Int(store.table[recency.back].payload.position)
    evictResident(at: position, onEvict: onEvict)
  }

  /// `LRBCache::rank`: the least recently used resident if it has been idle
  /// a whole window; otherwise the candidate, of `sample-rate` residents
  /// drawn at random, predicted to be requested furthest in the future.
  @usableFromInline
  mutating func rank() -> Int {
    let tail = Int(store.table[recency.back].payload.position)
    if memoryWindow <= now &- residents[tail].lastRequest { return tail }
    let start = ContinuousClock.now
    drawCandidates()
    let best = bestCandidate()
    learner.add(ContinuousClock.now - start)
    return best
  }

  /// `sample-rate` residents drawn at random (a resident drawn again is
  /// drawn anew, up to 200 draws), their features in the learner's rows.
  @usableFromInline
  mutating func drawCandidates() {
    if drawn.count < residents.count { drawn = Array(repeating: 0, count: residents.count * 2) }
    rankStamp &+= 1
    if rankStamp == 0 {
      drawn = Array(repeating: 0, count: drawn.count)
      rankStamp = 1
    }
    var filled = 0
    var trials = 0
    while filled < sampleRate {
      trials += 1
      let position = Int(random.any() % UInt64(residents.count))
      if drawn[position] != rankStamp || trials >= 200 {
        drawn[position] = rankStamp
        candidates[filled] = Int32(position)
        features(of: residents[position], at: now, into: learner.rows + filled * Self.featureCount)
        filled += 1
      }
    }
  }

  /// The drawn candidate predicted furthest (the first drawn of equals).
  @usableFromInline
  func bestCandidate() -> Int {
    var best = 0
    var bestScore = -Double.infinity
    for i in 0..<sampleRate {
      var score = Double(learner.model.predict(learner.rows + i * Self.featureCount))
      if objectMissRatio { score *= Double(residents[Int(candidates[i])].size) }
      if score > bestScore {
        bestScore = score
        best = i
      }
    }
    return Int(candidates[best])
  }

  /// `LRBCache::evict_with_candidate`: a resident idle a whole window is
  /// forgotten (its samples labelled as not requested again); any other
  /// is remembered until its window ends.
  @usableFromInline
  mutating func evictResident(at position: Int, onEvict: (Slot, Key) -> Void) {
    sampling = true
    var meta = residents[position]
    let slot = meta.slot
    store.table.unlink(slot, &recency)
    onEvict(slot, store.table[slot].key)
    let idle = now &- meta.lastRequest
    if memoryWindow <= idle {
      let distance = idle &+ memoryWindow
      label(&meta) { _ in distance }
      history.release(meta.history)
      store.delete(slot, resident: true)
      removeResident(at: position)
    } else {
      store.retire(slot)
      if forgetAt[meta.lastRequest % memoryWindow] == nil { forgetAt[meta.lastRequest % memoryWindow] = slot }
      store.table[slot].payload = KeyRecord(resident: false, position: Int32(remembered.count))
      remembered.append(meta)
      removeResident(at: position)
    }
  }

  /// `LRBCache::forget`: the remembered key last requested a window ago is
  /// dropped, its samples labelled as not requested within twice the window.
  @usableFromInline
  mutating func forget() {
    guard !forgetAt.isEmpty, let slot = forgetAt.removeValue(forKey: now % memoryWindow) else { return }
    let position = Int(store.table[slot].payload.position)
    let never = memoryWindow &* 2
    var meta = remembered[position]
    label(&meta) { _ in never }
    history.release(meta.history)
    store.delete(slot, resident: false)
    removeRemembered(at: position)
  }

  @usableFromInline
  mutating func removeResident(at position: Int) { Self.remove(at: position, from: &residents, in: &store.table) }

  @usableFromInline
  mutating func removeRemembered(at position: Int) { Self.remove(at: position, from: &remembered, in: &store.table) }

  /// Removes `metas[position]` as libCacheSim does: the last entry moves
  /// into its place, and its key's record learns its new position.
  @usableFromInline
  static func remove(at position: Int, from metas: inout [LRBMeta], in table: inout EntryTable<Key, KeyRecord>) {
    let last = metas.count - 1
    if position != last {
      metas[position] = metas[last]
      table[metas[position].slot].payload.position = Int32(position)
    }
    metas.removeLast()
  }

  // MARK: Training

  /// `LRBCache::sample`: one key, resident or remembered, drawn with
  /// probability proportional to each array's length, gets a sample now.
  @usableFromInline
  mutating func drawSample() {
    let draw = random.any()
    let inCache = UInt32(residents.count)
    let outside = UInt32(remembered.count)
    guard inCache &+ outside > 0 else { return }
    if random.bernoulli(Double(inCache) / Double(inCache &+ outside)) {
      samples.add(now, to: &residents[Int(draw % UInt64(inCache))])
    } else {
      samples.add(now, to: &remembered[Int(draw % UInt64(outside))])
    }
  }

  /// Labels `meta`'s samples (the label's distance from each sample's time)
  /// into training rows, training when a batch is full.
  @usableFromInline
  mutating func label(_ meta: inout LRBMeta, distance: (UInt32) -> UInt32) {
    guard meta.firstSample >= 0 else { return }
    var sample = meta.firstSample
    while sample >= 0 {
      let time = samples.time[Int(sample)]
      let row = learner.features.count
      learner.features.append(contentsOf: repeatElement(0, count: Self.featureCount))
      learner.features.withUnsafeMutableBufferPointer { features(of: meta, at: time, into: $0.baseAddress! + row) }
      learner.labels.append(Float(log1p(Double(distance(time)))))
      sample = samples.next[Int(sample)]
    }
    samples.release(&meta)
    if learner.labels.count >= batchSize { learner.fit() }
  }

  /// A key's 44 features at `time` (zeros where it has no value), as
  /// libCacheSim's `TrainingData::emplace_back` and `rank` write them:
  /// the requests since its last, its past gaps (most recent first), its
  /// size, how many of its past requests fall within the window, and its
  /// ten decayed counts carried forward to `time`.
  @usableFromInline
  func features(of meta: LRBMeta, at time: UInt32, into row: UnsafeMutablePointer<Float>) {
    let age = time &- meta.lastRequest
    row[0] = Float(age)
    var within: UInt8 = 0
    if meta.history >= 0 {
      let h = Int(meta.history)
      let next = Int(history.nextGap[h])
      var sum: UInt32 = 0
      var j = 0
      while j < next && j < LRBHistory.gaps {
        let gap = history.gap[h * LRBHistory.gaps + (next - 1 - j) % LRBHistory.gaps]
        sum &+= gap
        row[j + 1] = Float(gap)
        if sum < memoryWindow { within &+= 1 }
        j += 1
      }
      for k in j..<LRBHistory.gaps { row[k + 1] = 0 }
    } else {
      for k in 0..<LRBHistory.gaps { row[k + 1] = 0 }
    }
    row[32] = Float(meta.size)
    row[33] = Float(within)
    let last = UInt32(decay.count - 1)
    for k in 0..<LRBHistory.windows {
      let index = Int(min(age / (1 << (10 + UInt32(k))), last))
      let counted = meta.history >= 0 ? Double(history.decayed[Int(meta.history) * LRBHistory.windows + k]) : 1
      row[34 + k] = Float(counted * decay[index])
    }
  }

  // MARK: Checks and reports

  public func checkInvariants() {
    precondition(store.count == residents.count && Int(recency.count) == residents.count, "resident counts disagree")
    var weight: Int64 = 0
    for (position, meta) in residents.enumerated() {
      let record = store.table[meta.slot].payload
      precondition(record.resident && Int(record.position) == position, "a resident's record is wrong")
      weight += meta.size
    }
    for (position, meta) in remembered.enumerated() {
      let record = store.table[meta.slot].payload
      precondition(!record.resident && Int(record.position) == position, "a remembered key's record is wrong")
      precondition(forgetAt[meta.lastRequest % memoryWindow] == meta.slot, "a remembered key is never forgotten")
    }
    precondition(forgetAt.count == remembered.count, "the forget table holds keys no longer remembered")
    precondition(weight == store.used && store.used <= store.capacity, "weights disagree")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    var keys: [Key] = []
    var slot = recency.front
    while slot >= 0 {
      keys.append(store.table[slot].key)
      slot = store.table[slot].next
    }
    return [("residents, most recently requested first", keys)]
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let record = store.table[slot].payload
    let meta = record.resident ? residents[Int(record.position)] : remembered[Int(record.position)]
    let gaps = meta.history >= 0 ? min(Int(history.nextGap[Int(meta.history)]), LRBHistory.gaps) : 0
    return record.resident ? "resident, \(gaps) past gaps" : "remembered (not resident), \(gaps) past gaps"
  }

}

/// LRB in the catalog.
public enum LRB: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "lrb", displayName: "LRB",
    summary:
      "evicts, of sample-rate residents drawn at random, the one a learned model (XGBoost trees) predicts is requested last",
    citation: "Song et al., NSDI'20",
    parameters: [
      PolicyParameter("sample-rate", default: 64, range: 1...4_096, help: "residents ranked per eviction"),
      PolicyParameter(
        "memory-window", default: 67_108_864, range: 1_024...Int64(UInt32.max / 2),
        help: "requests a key's metadata is kept after its last request"),
    ] + TreeLearner.catalogParameters(batchSize: 131_072, iterations: 32, libCacheSimName: "LRB"),
    checkedAgainst: TreeLearner.checkedAgainst, libCacheSim: "0.3.5")

  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      LRBPolicy<Index>(
        capacity: capacity, sampleRate: Int(spec.integer("sample-rate")),
        memoryWindow: UInt32(spec.integer("memory-window")), batchSize: Int(spec.integer("batch-size")),
        rounds: Int(spec.integer("num-iterations")), leaves: Int(spec.integer("num-leaves")),
        objectMissRatio: spec.isOn("object-miss-ratio")))
  }
}

/// What LRB remembers of a key (libCacheSim's `Meta`).
@usableFromInline struct LRBMeta: BitwiseCopyable {
  @usableFromInline var slot: Slot
  @usableFromInline var size: Int64
  @usableFromInline var lastRequest: UInt32
  /// Its gaps and decayed counts in ``History`` (-1: requested once).
  @usableFromInline var history: Int32 = -1
  /// Its unlabelled training samples, oldest first, in ``Samples``.
  @usableFromInline var firstSample: Int32 = -1
  @usableFromInline var lastSample: Int32 = -1
  @inlinable init(slot: Slot, size: Int64, lastRequest: UInt32) {
    self.slot = slot
    self.size = size
    self.lastRequest = lastRequest
  }
}

/// Past gaps and decayed counts (libCacheSim's `MetaExtra`), for keys
/// requested more than once, in flat arrays with a free list.
@usableFromInline struct LRBHistory {
  static let gaps = 31
  static let windows = 10
  @usableFromInline var gap: [UInt32] = []
  @usableFromInline var decayed: [Float] = []
  /// libCacheSim's `_past_distance_idx`: where the next gap goes, counting
  /// on past 31 (kept between 31 and 61 once the ring is full).
  @usableFromInline var nextGap: [UInt8] = []
  @usableFromInline var free: [Int32] = []

  @usableFromInline init() {}

  /// Records a request at `time` for `meta`: a new gap, the decayed counts.
  @usableFromInline
  mutating func record(_ meta: inout LRBMeta, at time: UInt32, decay: [Double]) {
    let distance = time &- meta.lastRequest
    let last = UInt32(decay.count - 1)
    if meta.history < 0 {
      let h: Int
      if let reused = free.popLast() {
        h = Int(reused)
      } else {
        h = nextGap.count
        nextGap.append(0)
        gap.append(contentsOf: repeatElement(0, count: Self.gaps))
        decayed.append(contentsOf: repeatElement(0, count: Self.windows))
      }
      meta.history = Int32(h)
      gap[h * Self.gaps] = distance
      nextGap[h] = 1
      for k in 0..<Self.windows {
        let index = Int(min(distance / (1 << (10 + UInt32(k))), last))
        decayed[h * Self.windows + k] = Float(decay[index] + 1)
      }
    } else {
      let h = Int(meta.history)
      gap[h * Self.gaps + Int(nextGap[h]) % Self.gaps] = distance
      nextGap[h] &+= 1
      if nextGap[h] >= 2 * UInt8(Self.gaps) { nextGap[h] -= UInt8(Self.gaps) }
      for k in 0..<Self.windows {
        let index = Int(min(distance / (1 << (10 + UInt32(k))), last))
        let i = h * Self.windows + k
        decayed[i] = Float(Double(decayed[i]) * decay[index] + 1)
      }
    }
    meta.lastRequest = time
  }

  @usableFromInline
  mutating func release(_ h: Int32) {
    if h >= 0 { free.append(h) }
  }
}

/// Training samples' times, linked per key, with a free list.
@usableFromInline struct LRBSamples {
  @usableFromInline var time: [UInt32] = []
  @usableFromInline var next: [Int32] = []
  @usableFromInline var free: Int32 = -1

  @usableFromInline init() {}

  @usableFromInline
  mutating func add(_ t: UInt32, to meta: inout LRBMeta) {
    let s: Int32
    if free >= 0 {
      s = free
      free = next[Int(s)]
      time[Int(s)] = t
      next[Int(s)] = -1
    } else {
      s = Int32(time.count)
      time.append(t)
      next.append(-1)
    }
    if meta.lastSample >= 0 { next[Int(meta.lastSample)] = s } else { meta.firstSample = s }
    meta.lastSample = s
  }

  @usableFromInline
  mutating func release(_ meta: inout LRBMeta) {
    guard meta.firstSample >= 0 else { return }
    next[Int(meta.lastSample)] = free
    free = meta.firstSample
    meta.firstSample = -1
    meta.lastSample = -1
  }
}
