import CXGBoost
import EvictionCore
import Foundation

/// GL-Cache: group-level learned eviction (Yang, Mao, Yue and Rashmi,
/// "GL-Cache: Group-level learning for efficient and high-performance
/// caching", FAST'23). Objects are written into segments of 100 in arrival
/// order, as in a log-structured cache. To make room the cache merges two
/// neighbouring segments into one, keeping the half of their objects most
/// likely to be requested again (10⁸ / size / age in requests) and evicting
/// the rest. Which segments to merge is learned: every `retrain-intvl`
/// seconds of trace time a gradient-boosted tree model (XGBoost) is fitted
/// to the segments' features (age, mean object size, hits, active objects,
/// request rate and miss ratio when written) against the utility the
/// segments then showed (Σ 10⁶ / (requests since the snapshot) / size over
/// their objects requested again), and segments are ranked by predicted
/// utility per byte; the lowest are merged first. Until the first training
/// it merges in FIFO order.
///
/// Follows libCacheSim 0.3.5's `GLCache` (`eviction/GLCache/`, type
/// `learned`, training target `online`) step for step, including where its
/// code is the only definition:
/// - the clock a request sees is the previous request's (the cache's state
///   advances after it is served), and training starts only once a first
///   eviction happened at a trace time above 0 and `retrain-intvl` + 1
///   seconds have passed since;
/// - the first eviction snapshots every segment but the newest for training;
///   each later snapshot follows a training; an evicted object of a
///   snapshotted segment stays as a ghost until it is requested again or the
///   next training, so its utility still counts;
/// - a segment's utility counts only after `segment-size / n-merge` of its
///   objects' requests (the retained half), and is reset when the segment is
///   evicted;
/// - labels are min-max normalised, every tenth row (up to 819) is for
///   validation, rows whose features are all zero are dropped, and training
///   stops after 20 rounds or when the validation RMSE moved less than 1%
///   three rounds running (once there are 10 validation rows);
/// - XGBoost with `booster=gbtree`, `objective=reg:squarederror`, one
///   thread, otherwise its defaults; the model is XGBoost 1.7.4 as Debian
///   ships it, the version libCacheSim's reference figures were made with;
/// - ties of predicted utility go to the older segment, then to the one
///   nearer the log's start (glibc's stable merge sort);
/// - a segment whose prediction is exactly 0 keeps its previous utility.
///
/// Where a cache holds fewer than three segments it evicts the oldest
/// segment whole. On a trace shorter than `retrain-intvl` + 1 seconds it
/// never trains and stays the FIFO-order merge (`trainings` 0 in the row).
///
/// Not in libCacheSim: the clock never runs backwards (a timestamp earlier
/// than the last holds it; libCacheSim's would go back, and a trace replayed
/// in copies would never train again after the first); `remove(_:)`
/// (libCacheSim aborts there), which marks
/// the object gone; a merge never keeps it. An object of weight 0 (a
/// memory cache's cost; a replay skips size-0 requests, as libCacheSim does)
/// counts as weighing 1 in its score and its segment's utility, which would
/// otherwise be infinite, and XGBoost refuses infinite labels.
public struct GLCachePolicy<Index: SlotIndex & ~Copyable>: ReplacementPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// What a key's slot records: its resident copy and its ghosts (copies in
  /// segments kept for training), each as an object position (-1: none).
  public struct KeyRecord: BitwiseCopyable {
    @usableFromInline var object: Int32 = -1
    @usableFromInline var ghosts: Int32 = -1
    @inlinable init() {}
  }

  /// An object's copy in a segment.
  @usableFromInline struct Object: BitwiseCopyable {
    @usableFromInline var slot: Slot = -1
    @usableFromInline var size: Int64 = 0
    @usableFromInline var lastAccess: Int64 = 0
    /// The next ghost of the same key (-1: the last).
    @usableFromInline var nextGhost: Int32 = -1
    @usableFromInline var active = false
    @usableFromInline var inCache = false
    /// Requested since its segment's snapshot (libCacheSim's `seen_after_snapshot`).
    @usableFromInline var seen = false
    /// Kept as a ghost for training.
    @usableFromInline var ghost = false
    @usableFromInline var removed = false
    @inlinable init() {}
  }

  /// A segment: up to `segmentSize` objects, its features, its training state.
  @usableFromInline struct Segment: BitwiseCopyable {
    @usableFromInline var prev: Int32 = -1
    @usableFromInline var next: Int32 = -1
    @usableFromInline var count: Int32 = 0
    @usableFromInline var bytes: Int64 = 0
    @usableFromInline var hits: Int32 = 0
    @usableFromInline var active: Int32 = 0
    @usableFromInline var merges: Int32 = 0
    @usableFromInline var createTime: Int32 = 0
    @usableFromInline var requestRate = 0.0
    @usableFromInline var writeRate = 0.0
    @usableFromInline var missRatio = 0.0
    @usableFromInline var predicted = Double(Int64.max)
    @usableFromInline var utility = 0.0
    @usableFromInline var utilitySkipped: Int32 = 0
    @usableFromInline var rank: Int32 = -1
    @usableFromInline var selected = false
    @usableFromInline var training = false
    @usableFromInline var snapshotTime: Int64 = 0
    @usableFromInline var row: Int32 = 0
    @inlinable init() {}
  }

  /// A doubly linked list of segments, oldest first.
  @usableFromInline struct SegmentList {
    @usableFromInline var first: Int32 = -1
    @usableFromInline var last: Int32 = -1
    @usableFromInline var count: Int32 = 0
    @inlinable init() {}
  }

  public var store: PolicyStorage<Index, KeyRecord>
  public let segmentSize: Int
  public let mergeCount: Int
  public let rankInterval: Double
  public let retrainInterval: Int64

  @usableFromInline var objects: [Object] = []
  @usableFromInline var segments: [Segment] = []
  @usableFromInline var freeSegments: [Int32] = []
  @usableFromInline var inUse = SegmentList()
  @usableFromInline var trainingSegments = SegmentList()
  @usableFromInline var nextToEvict: Int32 = -1
  @usableFromInline var ranked: [Int32] = []
  @usableFromInline var rankedCount = 0
  @usableFromInline var rankedPosition = 0
  @usableFromInline var scores: [Double] = []
  @usableFromInline var chosen: [Int32]

  // The cache's state (libCacheSim's `cache_state_t` and clocks).
  @usableFromInline var now: Int64 = 0
  @usableFromInline var requests: Int64 = 0
  /// The first request's timestamp: the clock counts from it, as
  /// libCacheSim's simulator counts a trace's time from its first request.
  @usableFromInline var startTime: Int64 = -1
  @usableFromInline var missesSinceUpdate: Int64 = 0
  @usableFromInline var lastUpdateTime: Int64 = 0
  @usableFromInline var lastUpdateRequests: Int64 = 0
  @usableFromInline var requestRate = 1.0
  @usableFromInline var writeRate = 1.0
  @usableFromInline var missRatio = 0.5
  /// A lookup missed and its admission has not come yet.
  @usableFromInline var pending: (timestamp: Int64, open: Bool) = (0, false)
  @usableFromInline var pendingKey: Key? = nil

  @usableFromInline var learner: GLCacheLearner

  public init(
    capacity: Int64, segmentSize: Int = 100, mergeCount: Int = 2, rankInterval: Double = 0.02,
    retrainInterval: Int64 = 86_400
  ) {
    precondition(segmentSize / mergeCount > 1 && mergeCount > 1, "GL-Cache: segment-size / n-merge must exceed 1")
    store = PolicyStorage(capacity: capacity)
    self.segmentSize = segmentSize
    self.mergeCount = mergeCount
    self.rankInterval = rankInterval
    self.retrainInterval = retrainInterval
    chosen = Array(repeating: -1, count: mergeCount)
    learner = GLCacheLearner()
  }

  public var name: String {
    "GL-Cache(segment=\(segmentSize),merge=\(mergeCount),retrain=\(retrainInterval)s)"
  }
  public var capacity: Int64 { store.capacity }
  public var usedWeight: Int64 { store.used }
  public var count: Int { store.count }
  public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].payload.object >= 0
  }
  public func key(at slot: Slot) -> Key { store.table[slot].key }

  /// How often the model was trained, and the seconds training and ranking took.
  public var learning: LearningCounts? {
    LearningCounts(trainings: Int64(max(learner.trainings, 0)), seconds: learner.seconds)
  }

  // MARK: Requests

  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    if pending.open { finish(timestamp: pending.timestamp, hit: false) }
    let slot = store.find(request.key)
    guard slot >= 0 else {
      pending = (request.timestamp, true)
      pendingKey = request.key
      return nil
    }
    let object = store.table[slot].payload.object
    if object >= 0 {
      hit(object)
      countGhosts(of: slot)
      finish(timestamp: request.timestamp, hit: true)
      return slot
    }
    countGhosts(of: slot)
    pending = (request.timestamp, true)
    pendingKey = request.key
    return nil
  }

  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    // A lookup that missed another key (a cache read never followed by a
    // set) ended with that miss.
    if pending.open && pendingKey != request.key { finish(timestamp: pending.timestamp, hit: false) }
    if !pending.open {
      let slot = store.find(request.key)
      if slot >= 0 {
        // Admitting a resident key (a cache's set without a read first) is a hit.
        guard store.table[slot].payload.object < 0 else { return lookup(request, onEvict: onEvict) }
        countGhosts(of: slot)
      }
    }
    pending.open = false
    var admitted: Slot? = nil
    if request.weight <= store.capacity {
      while store.used &+ request.weight > store.capacity && inUse.count > 0 {
        evictGroup(onEvict: onEvict)
      }
      admitted = insert(request)
    }
    finish(timestamp: request.timestamp, hit: false)
    return admitted
  }

  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    if pending.open { finish(timestamp: pending.timestamp, hit: false) }
    guard store.count > 0 else { return false }
    evictGroup(onEvict: onEvict)
    return true
  }

  public mutating func remove(_ key: Key) -> Slot? {
    if pending.open { finish(timestamp: pending.timestamp, hit: false) }
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let position = store.table[slot].payload.object
    guard position >= 0 else { return nil }
    objects[Int(position)].inCache = false
    objects[Int(position)].removed = true
    store.table[slot].payload.object = -1
    store.retire(slot)
    releaseIfUnused(slot)
    return slot
  }

  /// The end of a request, as libCacheSim's `GLCache_get` ends one: train
  /// when it is time (on the previous request's clock), then advance the
  /// cache's state.
  @usableFromInline
  mutating func finish(timestamp: Int64, hit: Bool) {
    pending.open = false
    if learner.lastTrainTime > 0 && now &- learner.lastTrainTime >= retrainInterval &+ 1 {
      let start = ContinuousClock.now
      train()
      snapshot()
      learner.add(ContinuousClock.now - start)
    }
    if startTime == -1 { startTime = timestamp }
    // A timestamp before the clock (a trace's next copy under --repeat, or
    // disorder) holds the clock rather than turning it back.
    if timestamp &- startTime < now { startTime = timestamp &- now }
    now = timestamp &- startTime
    requests &+= 1
    if !hit { missesSinceUpdate &+= 1 }
    let elapsed = now &- lastUpdateTime
    let served = requests &- lastUpdateRequests
    if elapsed > 10 && served > 10_000 {
      writeRate = Double(missesSinceUpdate) / Double(elapsed)
      requestRate = Double(served) / Double(elapsed)
      missRatio = Double(missesSinceUpdate) / Double(served)
      missesSinceUpdate = 0
      lastUpdateTime = now
      lastUpdateRequests = requests
    }
  }

  /// A hit on a resident copy: the segment's features, and its utility when
  /// the segment is being watched for training.
  @usableFromInline
  mutating func hit(_ position: Int32) {
    let p = Int(position)
    let s = Int(segment(of: position))
    segments[s].hits &+= 1
    if !objects[p].active {
      segments[s].active &+= 1
      objects[p].active = true
    }
    objects[p].lastAccess = requests
    if segments[s].selected {
      objects[p].seen = true
      addUtility(segment: s, size: objects[p].size)
    }
  }

  /// A request for a key with ghosts: each adds to its segment's utility
  /// once and is dropped.
  @usableFromInline
  mutating func countGhosts(of slot: Slot) {
    var ghost = store.table[slot].payload.ghosts
    guard ghost >= 0 else { return }
    while ghost >= 0 {
      let g = Int(ghost)
      objects[g].seen = true
      objects[g].ghost = false
      addUtility(segment: Int(segment(of: ghost)), size: objects[g].size)
      ghost = objects[g].nextGhost
    }
    store.table[slot].payload.ghosts = -1
    releaseIfUnused(slot)
  }

  @usableFromInline
  mutating func addUtility(segment s: Int, size: Int64) {
    let skipped = segments[s].utilitySkipped
    segments[s].utilitySkipped &+= 1
    guard skipped >= Int32(segmentSize / mergeCount) else { return }
    let age = Double(requests &- segments[s].snapshotTime) + 1
    segments[s].utility += 1.0e6 / age / Double(max(size, 1))
    learner.trainY[Int(segments[s].row)] = Float(segments[s].utility)
  }

  /// Frees a key's slot once it is neither resident nor a ghost.
  @usableFromInline
  mutating func releaseIfUnused(_ slot: Slot) {
    let record = store.table[slot].payload
    guard record.object < 0 && record.ghosts < 0 else { return }
    store.delete(slot, resident: false)
  }

  @usableFromInline
  mutating func insert(_ request: Request<Key>) -> Slot {
    var s = inUse.last
    if s < 0 || Int(segments[Int(s)].count) == segmentSize {
      if s >= 0 {
        segments[Int(s)].requestRate = requestRate
        segments[Int(s)].writeRate = writeRate
        segments[Int(s)].missRatio = missRatio
      }
      s = allocateSegment()
      append(s, training: false)
      if inUse.count == 1 { nextToEvict = s }
    }
    let position = Int32(Int(s) &* segmentSize &+ Int(segments[Int(s)].count))
    // The key is not in the index: a missed key's ghosts were counted
    // (which releases a slot left with none) before it is admitted.
    let slot = store.insert(request.key, weight: request.weight, payload: KeyRecord())
    store.table[slot].payload.object = position
    var object = Object()
    object.slot = slot
    object.size = request.weight
    object.lastAccess = requests
    object.inCache = true
    objects[Int(position)] = object
    segments[Int(s)].bytes &+= request.weight
    segments[Int(s)].count &+= 1
    return slot
  }

  // MARK: Segments

  @inlinable func segment(of position: Int32) -> Int32 { Int32(Int(position) / segmentSize) }

  @usableFromInline
  mutating func allocateSegment() -> Int32 {
    let s: Int32
    if let reused = freeSegments.popLast() {
      s = reused
    } else {
      s = Int32(segments.count)
      segments.append(Segment())
      objects.append(contentsOf: repeatElement(Object(), count: segmentSize))
    }
    var fresh = Segment()
    fresh.createTime = Int32(truncatingIfNeeded: now)
    segments[Int(s)] = fresh
    return s
  }

  /// Appends `s` to the log (or to the training segments) as the newest.
  @usableFromInline
  mutating func append(_ s: Int32, training: Bool) {
    var list = training ? trainingSegments : inUse
    segments[Int(s)].prev = list.last
    segments[Int(s)].next = -1
    if list.last >= 0 { segments[Int(list.last)].next = s } else { list.first = s }
    list.last = s
    list.count &+= 1
    if training { trainingSegments = list } else { inUse = list }
  }

  /// Takes `s` out of the log.
  @usableFromInline
  mutating func unlink(_ s: Int32) {
    let prev = segments[Int(s)].prev
    let next = segments[Int(s)].next
    if inUse.first == s { inUse.first = next }
    if inUse.last == s { inUse.last = prev }
    if prev >= 0 { segments[Int(prev)].next = next }
    if next >= 0 { segments[Int(next)].prev = prev }
    inUse.count &-= 1
  }

  /// Whether `count` segments from `s` on each have a newer one after them.
  @usableFromInline
  func evictable(_ s: Int32, _ count: Int) -> Bool {
    var s = s
    var n = 0
    while s >= 0 && segments[Int(s)].next >= 0 {
      n += 1
      if n >= count { return true }
      s = segments[Int(s)].next
    }
    return n >= count
  }

  /// One eviction (libCacheSim's `GLCache_evict`): merge the chosen segments,
  /// or evict one segment whole when no run of `n-merge` can be chosen.
  @usableFromInline
  mutating func evictGroup(onEvict: (Slot, Key) -> Void) {
    if learner.trainings == -1 {
      snapshot()
      learner.lastTrainTime = now
      learner.trainings = 0
    }
    let merging = learner.trainings <= 0 ? chooseInFIFOOrder() : chooseByRank()
    if merging {
      merge(onEvict: onEvict)
    } else {
      evictWhole(chosen[0], onEvict: onEvict)
    }
  }

  /// `select_segs_fifo`: the next `n-merge` segments from where the last
  /// merge stopped, wrapping to the oldest.
  @usableFromInline
  mutating func chooseInFIFOOrder() -> Bool {
    var s = nextToEvict
    if !evictable(s, mergeCount) {
      nextToEvict = inUse.first
      s = inUse.first
      if !evictable(s, mergeCount) {
        chosen[0] = inUse.first
        nextToEvict = -1
        return false
      }
    }
    for i in 0..<mergeCount {
      chosen[i] = s
      s = segments[Int(s)].next
    }
    nextToEvict = Int(inUse.count) > mergeCount + 1 ? s : -1
    return true
  }

  /// `select_segs_learned`: the lowest-ranked segment with `n-merge` - 1
  /// newer ones after it, ranking again every `rank-intvl` of the segments.
  @usableFromInline
  mutating func chooseByRank() -> Bool {
    var resized = false
    if ranked.count < Int(inUse.count) {
      ranked = Array(repeating: -1, count: Int(inUse.count) * 2)
      resized = true
    }
    if Double(rankedPosition) >= Double(rankedCount) * rankInterval || resized { rank() }
    // Past the ranking's end, libCacheSim's array holds segments of earlier
    // rankings (since merged, evicted or freed): undefined behaviour in C,
    // met when `rank-intvl` lets the position run that far. Here the
    // ranking ends there, and a ranking with nothing left is made again.
    func at(_ i: Int) -> Int32 { i < rankedCount ? ranked[i] : -1 }
    var s = at(rankedPosition)
    while s < 0 && rankedPosition < rankedCount {
      rankedPosition += 1
      s = at(rankedPosition)
    }
    if s < 0 {
      rank()
      s = at(rankedPosition)
    }
    let first = s
    if rankedPosition < rankedCount { ranked[rankedPosition] = -1 }
    while !evictable(s, mergeCount) {
      if Double(rankedPosition) > Double(rankedCount) * 0.8 {
        chosen[0] = first >= 0 ? first : inUse.first
        rankedPosition = Int(Int32.max)
        return false
      }
      rankedPosition += 1
      s = at(rankedPosition)
      if rankedPosition < rankedCount { ranked[rankedPosition] = -1 }
    }
    rankedPosition += 1
    chosen[0] = s
    for i in 1..<mergeCount {
      chosen[i] = segments[Int(chosen[i - 1])].next
      let rank = segments[Int(chosen[i])].rank
      if rank != -1 && Int(rank) < ranked.count { ranked[Int(rank)] = -1 }
    }
    return true
  }

  /// Ranks every segment by predicted utility per byte, lowest first.
  @usableFromInline
  mutating func rank() {
    let n = Int(inUse.count)
    learner.prepareInference(rows: n)
    var s = inUse.first
    var row = 0
    while s >= 0 {
      features(of: Int(s), into: learner.inferenceX.baseAddress! + row * GLCacheLearner.featureCount)
      row += 1
      s = segments[Int(s)].next
    }
    let start = ContinuousClock.now
    let predictions = learner.predict(rows: n)
    learner.add(ContinuousClock.now - start)
    s = inUse.first
    row = 0
    let crowded = Int(inUse.count) < mergeCount + 1
    while s >= 0 {
      let i = Int(s)
      let p = predictions[row]
      if p > 0 {
        segments[i].predicted = Double(p) * 1.0e6 / Double(segments[i].bytes)
      } else if p < 0 {
        segments[i].predicted = Double(p * Float(segments[i].bytes))
      }
      if crowded { segments[i].predicted += Double(Int32.max / 2) }
      ranked[row] = s
      row += 1
      s = segments[i].next
    }
    rankedCount = n
    // Lower utility first, then the older segment, then log order: what
    // glibc's stable merge sort makes of libCacheSim's comparison.
    let order = (0..<n).sorted { a, b in
      let x = segments[Int(ranked[a])]
      let y = segments[Int(ranked[b])]
      if x.predicted != y.predicted { return x.predicted < y.predicted }
      if x.createTime != y.createTime { return x.createTime < y.createTime }
      return a < b
    }
    let before = Array(ranked[0..<n])
    for (place, from) in order.enumerated() {
      ranked[place] = before[from]
      segments[Int(before[from])].rank = Int32(place)
    }
    rankedPosition = 0
  }

  /// The six features libCacheSim's `prepare_one_row` writes, as floats.
  @usableFromInline
  func features(of s: Int, into x: UnsafeMutablePointer<Float>) {
    let segment = segments[s]
    x[0] = Float(now) - Float(segment.createTime)
    x[1] = Float(segment.bytes) / Float(segment.count)
    x[2] = Float(segment.hits)
    x[3] = Float(segment.active)
    x[4] = Float(segment.requestRate)
    x[5] = Float(segment.missRatio)
  }

  /// What keeping an object is worth at a merge: 10⁸ / size / requests since
  /// its last one.
  @inlinable func score(_ object: Object) -> Double {
    1.0e8 / Double(max(object.size, 1)) / Double(requests &- object.lastAccess)
  }

  /// Merges the chosen segments into a new one in their place, keeping the
  /// `segment-size` objects of highest score (in log order among equals
  /// at the cut-off) and evicting the others.
  @usableFromInline
  mutating func merge(onEvict: (Slot, Key) -> Void) {
    let merged = allocateSegment()
    var requestRate = 0.0
    var writeRate = 0.0
    var missRatio = 0.0
    var merges: Int32 = 0
    for i in 0..<mergeCount {
      let s = segments[Int(chosen[i])]
      requestRate += s.requestRate
      writeRate += s.writeRate
      missRatio += s.missRatio
      merges = max(merges, s.merges)
    }
    segments[Int(merged)].requestRate = requestRate / Double(mergeCount)
    segments[Int(merged)].writeRate = writeRate / Double(mergeCount)
    segments[Int(merged)].missRatio = missRatio / Double(mergeCount)
    segments[Int(merged)].merges = merges + 1
    linkBefore(chosen[0], merged)

    scores.removeAll(keepingCapacity: true)
    for i in 0..<mergeCount {
      let base = Int(chosen[i]) * segmentSize
      for p in base..<base + Int(segments[Int(chosen[i])].count) {
        scores.append(objects[p].removed ? -Double.infinity : score(objects[p]))
      }
    }
    let cutoff: Double
    if scores.count > segmentSize {
      scores.sort()
      cutoff = scores[scores.count - segmentSize]
    } else {
      cutoff = -Double.infinity
    }

    let mergedBase = Int(merged) * segmentSize
    for i in 0..<mergeCount {
      let s = chosen[i]
      let selected = segments[Int(s)].selected
      let base = Int(s) * segmentSize
      for p in base..<base + Int(segments[Int(s)].count) {
        let object = objects[p]
        guard !object.removed else { continue }
        let slot = object.slot
        if Int(segments[Int(merged)].count) < segmentSize && score(object) >= cutoff {
          let q = mergedBase + Int(segments[Int(merged)].count)
          var copy = object
          copy.active = false
          copy.inCache = true
          copy.seen = false
          copy.ghost = false
          copy.nextGhost = -1
          objects[q] = copy
          store.table[slot].payload.object = Int32(q)
          segments[Int(merged)].count &+= 1
          segments[Int(merged)].bytes &+= object.size
        } else {
          store.table[slot].payload.object = -1
          onEvict(slot, store.table[slot].key)
          store.retire(slot)
        }
        objects[p].inCache = false
        if selected && !object.seen {
          keepGhost(p)
        } else {
          releaseIfUnused(slot)
        }
      }
      retire(s, selected: selected)
    }
  }

  /// Evicts one segment whole (`evict_one_seg`).
  @usableFromInline
  mutating func evictWhole(_ s: Int32, onEvict: (Slot, Key) -> Void) {
    let selected = segments[Int(s)].selected
    let base = Int(s) * segmentSize
    for p in base..<base + Int(segments[Int(s)].count) {
      let object = objects[p]
      guard object.inCache else { continue }
      let slot = object.slot
      objects[p].inCache = false
      store.table[slot].payload.object = -1
      onEvict(slot, store.table[slot].key)
      store.retire(slot)
      if selected && !object.seen {
        keepGhost(p)
      } else {
        releaseIfUnused(slot)
      }
    }
    if nextToEvict == s { nextToEvict = -1 }
    retire(s, selected: selected)
  }

  /// A segment leaves the log: to the training segments if it was
  /// snapshotted (its utility restarts from its eviction), else freed.
  @usableFromInline
  mutating func retire(_ s: Int32, selected: Bool) {
    unlink(s)
    if selected {
      segments[Int(s)].snapshotTime = requests
      segments[Int(s)].utility = 0
      segments[Int(s)].training = true
      append(s, training: true)
    } else {
      freeSegments.append(s)
    }
  }

  /// Keeps an evicted copy at `position` as a ghost of its key.
  @usableFromInline
  mutating func keepGhost(_ position: Int) {
    let slot = objects[position].slot
    objects[position].ghost = true
    objects[position].nextGhost = store.table[slot].payload.ghosts
    store.table[slot].payload.ghosts = Int32(position)
  }

  @usableFromInline
  mutating func linkBefore(_ old: Int32, _ new: Int32) {
    let prev = segments[Int(old)].prev
    if prev < 0 { inUse.first = new } else { segments[Int(prev)].next = new }
    segments[Int(new)].prev = prev
    segments[Int(new)].next = old
    segments[Int(old)].prev = new
    inUse.count &+= 1
  }

  // MARK: Learning

  /// Samples segments (all but the newest, at most 8,192 rows) whose
  /// utility will be watched until the next training.
  @usableFromInline
  mutating func snapshot() {
    let rows = GLCacheLearner.trainingRows
    let ratio = max(Double(inUse.count) / Double(rows), 1.0)
    var credit = 0.0
    var s = inUse.first
    for _ in 0..<max(Int(inUse.count) - 1, 0) {
      let i = Int(s)
      credit += 1
      if credit >= ratio && segments[i].next >= 0 {
        segments[i].selected = true
        credit -= ratio
        if learner.trainingSamples < rows {
          let row = learner.trainingSamples
          learner.trainingSamples += 1
          segments[i].row = Int32(row)
          segments[i].snapshotTime = requests
          segments[i].utility = 0
          features(of: i, into: learner.trainX.baseAddress! + row * GLCacheLearner.featureCount)
          learner.trainY[row] = 0
        }
      } else {
        segments[i].selected = false
        segments[i].utility = 0
      }
      s = segments[i].next
    }
  }

  /// Fits the model to the snapshotted segments, then forgets them and
  /// their ghosts.
  @usableFromInline
  mutating func train() {
    learner.fit()
    var s = trainingSegments.first
    while s >= 0 {
      let base = Int(s) * segmentSize
      for p in base..<base + Int(segments[Int(s)].count) where objects[p].ghost {
        dropGhost(p)
      }
      let next = segments[Int(s)].next
      freeSegments.append(s)
      s = next
    }
    trainingSegments = SegmentList()
    learner.trainings += 1
    learner.lastTrainTime = now
  }

  /// Unlinks the ghost at `position` from its key's ghosts.
  @usableFromInline
  mutating func dropGhost(_ position: Int) {
    let slot = objects[position].slot
    objects[position].ghost = false
    var g = store.table[slot].payload.ghosts
    if g == Int32(position) {
      store.table[slot].payload.ghosts = objects[position].nextGhost
    } else {
      while g >= 0 && objects[Int(g)].nextGhost != Int32(position) { g = objects[Int(g)].nextGhost }
      if g >= 0 { objects[Int(g)].nextGhost = objects[position].nextGhost }
    }
    releaseIfUnused(slot)
  }

  // MARK: Reports and checks

  public func checkInvariants() {
    var weight: Int64 = 0
    var resident = 0
    var s = inUse.first
    var segmentsSeen: Int32 = 0
    while s >= 0 {
      let base = Int(s) * segmentSize
      precondition(Int(segments[Int(s)].count) <= segmentSize)
      for p in base..<base + Int(segments[Int(s)].count) where objects[p].inCache {
        weight += objects[p].size
        resident += 1
        precondition(store.table[objects[p].slot].payload.object == Int32(p), "a resident copy its key does not name")
      }
      segmentsSeen += 1
      s = segments[Int(s)].next
    }
    precondition(segmentsSeen == inUse.count, "the segment list's count is wrong")
    precondition(weight == store.used && resident == store.count, "totals disagree with the segments")
    precondition(store.used <= store.capacity, "over capacity")
  }

  /// Resident keys, newest segment first (the front, where objects arrive).
  public func lists() -> [(name: String, keys: [Key])] {
    var keys: [Key] = []
    var s = inUse.last
    while s >= 0 {
      let base = Int(s) * segmentSize
      for p in (base..<base + Int(segments[Int(s)].count)).reversed() where objects[p].inCache {
        keys.append(store.table[objects[p].slot].key)
      }
      s = segments[Int(s)].prev
    }
    return [("segments, newest first", keys)]
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let record = store.table[slot].payload
    guard record.object >= 0 else { return "a ghost kept for training" }
    let s = Int(segment(of: record.object))
    // What changes only when this object's segment does (not on every
    // other object's request): `explain`'s timeline lists changes.
    return "in a segment merged \(segments[s].merges) times"
  }
}

/// GL-Cache in the catalog.
public enum GLCache: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "glcache", displayName: "GL-Cache",
    summary: "segments merged in the order a learned model (XGBoost trees) ranks their utility",
    citation: "Yang et al., FAST'23",
    parameters: [
      PolicyParameter("segment-size", default: 100, range: 4...1_000_000, help: "objects a segment holds"),
      PolicyParameter("n-merge", default: 2, range: 2...100, help: "segments merged into one per eviction"),
      PolicyParameter(
        fraction: "rank-intvl", default: 0.02, help: "share of the segments merged between two rankings"),
      PolicyParameter(
        "retrain-intvl", default: 86_400, range: 1...Int64(Int32.max),
        help: "trace seconds between trainings (the first after the first eviction)"),
    ],
    checkedAgainst:
      "libCacheSim 0.3.5 built with XGBoost 1.7.4 (cloudPhysicsIO, twitter_cluster52; both size modes; "
      + "also with training every 60 and 600 s)",
    libCacheSim: "0.3.5")

  public static func check(_ spec: PolicySpec) throws(PolicyError) {
    let size = spec.integer("segment-size")
    let merge = spec.integer("n-merge")
    guard size / merge > 1 else {
      throw .invalidValue(
        policy: "glcache", parameter: "n-merge", value: String(merge),
        expected:
          "at most segment-size / 2 (\(size / 2) with segment-size=\(size)): a merge keeps segment-size / n-merge objects of each segment, at least 2; lower n-merge or raise segment-size"
      )
    }
  }

  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      GLCachePolicy<Index>(
        capacity: capacity, segmentSize: Int(spec.integer("segment-size")), mergeCount: Int(spec.integer("n-merge")),
        rankInterval: spec.fraction("rank-intvl"), retrainInterval: spec.integer("retrain-intvl")))
  }
}
