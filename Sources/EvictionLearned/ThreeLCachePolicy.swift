import EvictionCore
import Foundation

/// 3L-Cache: low overhead and precise learning-based eviction (Zhou et al.,
/// "3L-Cache: Low Overhead and Precise Learning-based Eviction Policy for
/// Caches", FAST'25). Like LRB it learns when each object will next be
/// requested, with three changes that make it cheap: a model of six
/// features (the requests since the object's last, its last three gaps,
/// its size and its request count); candidates taken by a pointer walking
/// the residents from the least recently used, skipping objects requested
/// more often than a boundary learned from what was evicted (bidirectional
/// sampling), plus the newest admissions while they exceed a reserved share
/// of the cache (quick demotion); and one ranking predicting a whole batch
/// of victims, evicted in order of predicted next request. Evicted objects'
/// metadata stays, first in first out, for as many keys as the cache holds
/// (more once the history window widens), so their samples get labels.
///
/// Follows libCacheSim 0.3.5's `3LCache` (`eviction/3LCache/`, the authors'
/// code) step for step, including where its code is the only definition:
/// - time is the request count; one sample per key at a time, drawn (after
///   the first eviction) from the resident and remembered keys with
///   libstdc++'s `minstd_rand0` and `uniform_int_distribution`, replayed by
///   ``StdRandom``, and kept for training with probability 1/4 once a model
///   exists; a training every 65,536 labels, once the last ranking's
///   victims are all evicted;
/// - the history window (`hsw`, 2 … 6) widens when, over a million requests
///   after the remembered keys first filled, hits on them would have added
///   more than 1% to the hits;
/// - predictions go onto a heap (libstdc++'s `push_heap` and `pop_heap`,
///   with their order among equal values) and a victim is evicted only if
///   its prediction is still current;
/// - resident metadata sits in an array whose removals swap the last entry
///   into the gap, the walk's pointer following, as in libCacheSim.
///
/// Where it differs: the trees (XGBoost, not LightGBM; see ``TreeLearner``);
/// a new admission whose key was since forgotten counts its admitted size
/// out of the quick-demotion total (libCacheSim dereferences a missing
/// hash-map entry there, undefined behaviour, a reported crash); when a
/// ranking names no victim (libCacheSim evicts nothing and the simulator
/// asks again, possibly forever) the least recently used resident goes; a
/// remembered key brought back is marked so explicitly (libCacheSim sets
/// its old record's size to 0, which an object of weight 0 also has);
/// with `object-miss-ratio` an object's whole size multiplies its prediction
/// (libCacheSim keeps the sizes as `int32` there, so objects of 2 GiB or
/// more turn negative and are kept first); ``remove(_:)`` (libCacheSim
/// aborts) forgets the key.
public struct ThreeLCachePolicy<Index: SlotIndex & ~Copyable>: ReplacementPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// Where a key's metadata is: resident (a position in the resident array)
  /// or remembered (a position in the FIFO of evicted keys' metadata,
  /// counted from the first ever remembered).
  public struct KeyRecord: BitwiseCopyable {
    @usableFromInline var resident: Bool
    @usableFromInline var position: Int
    @inlinable init(resident: Bool, position: Int) {
      self.resident = resident
      self.position = position
    }
  }

  /// A heap entry: a predicted next request and the key predicted.
  @usableFromInline struct Prediction {
    @usableFromInline var time: Float
    @usableFromInline var key: Key
  }

  static var featureCount: Int { 6 }
  static var evictionRate: Int { 2 }

  public var store: PolicyStorage<Index, KeyRecord>
  @usableFromInline var residents: [ThreeLMeta] = []
  /// The residents' ring, oldest request at `head` (libCacheSim's `CircleList`).
  @usableFromInline var links: [(prev: Int32, next: Int32)] = []
  @usableFromInline var head: Int32 = -1
  @usableFromInline var tail: Int32 = -1
  /// Evicted keys' metadata, first in first out; entry `i` of the array
  /// is position `i - outOffset + frontIndex`.
  @usableFromInline var remembered: [ThreeLMeta] = []
  @usableFromInline var outOffset = 0
  @usableFromInline var frontIndex = 0
  @usableFromInline var heap: [Prediction] = []
  /// Predictions are current while their epoch is (`pred_map.clear()` moves it).
  @usableFromInline var epoch: UInt32 = 1
  @usableFromInline var predicted = 0
  @usableFromInline var newObjects: [(key: Key, weight: Int64)] = []
  @usableFromInline var newStart = 0
  @usableFromInline var newWeight: UInt64 = 0
  @usableFromInline var random = StdRandom()
  @usableFromInline var learner: TreeLearner
  @usableFromInline var pendingKey: Key? = nil

  // libCacheSim's counters, under its names.
  @usableFromInline var now: UInt64 = .max
  @usableFromInline var evictNums = 0
  @usableFromInline var sampleRate: UInt16 = 1_024
  @usableFromInline var sampleBoundary: UInt16 = 1
  @usableFromInline var samplingLRU: UInt8 = 1
  @usableFromInline var evictionDistribution: [UInt64] = [0, 0, 0, 0]
  @usableFromInline var evictedByFrequency: [Int32] = Array(repeating: 0, count: 16)
  @usableFromInline var initialQueueLength: Int32 = 0
  @usableFromInline var originSeq: UInt64 = 0
  @usableFromInline var reservedSpace: UInt8 = 2
  @usableFromInline var samplePointer: Int32 = 0
  @usableFromInline var scanLength: UInt64 = 0
  @usableFromInline var hsw: UInt8 = 2
  @usableFromInline var maxEvictionBoundary: (UInt64, UInt64) = (0, 0)
  @usableFromInline var isFull = false
  @usableFromInline var windowRequests: UInt64 = 0
  @usableFromInline var windowHits: UInt64 = 0
  @usableFromInline var windowGhostHits: UInt64 = 0
  @usableFromInline var pointerTimestamp: UInt64 = 0
  @usableFromInline var sampling = false

  public let objectMissRatio: Bool
  /// Labelled samples per training (libCacheSim's constant 65,536).
  public let batchSize: Int

  public init(
    capacity: Int64, batchSize: Int = 65_536, rounds: Int = 16, leaves: Int = 32, objectMissRatio: Bool = false
  ) {
    precondition(batchSize >= 1, "3L-Cache: batch-size must be positive")
    store = PolicyStorage(capacity: capacity)
    self.objectMissRatio = objectMissRatio
    self.batchSize = batchSize
    if objectMissRatio { sampleBoundary = .max }
    learner = TreeLearner(
      width: Self.featureCount, rounds: rounds, leaves: leaves, batchSize: batchSize, rankedRows: 1)
  }

  public var name: String { "3L-Cache(\(objectMissRatio ? "object" : "byte")-miss-ratio)" }
  public var capacity: Int64 { store.capacity }
  public var usedWeight: Int64 { store.used }
  public var count: Int { store.count }
  public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].payload.resident
  }
  public func key(at slot: Slot) -> Key { store.table[slot].key }
  public var learning: LearningCounts? { LearningCounts(trainings: learner.trainings, seconds: learner.seconds) }

  @inline(__always) func index(remembered position: Int) -> Int { position - frontIndex + outOffset }

  // MARK: Requests

  /// `ThreeLCacheCache::lookup`.
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    pendingKey = nil
    now &+= 1
    if isFull { windowRequests &+= 1 }
    let slot = store.find(request.key)
    var hit = false
    if slot >= 0 {
      let record = store.table[slot].payload
      if isFull {
        if record.resident { windowHits &+= 1 }
        windowGhostHits &+= 1
      }
      var meta = record.resident ? residents[record.position] : remembered[index(remembered: record.position)]
      let sampleTime = meta.sampleTime
      if sampleTime != 0 && (random.any() % 4 == 0 || learner.model.isEmpty) {
        addRow(meta, at: sampleTime, distance: Int32(truncatingIfNeeded: now &- sampleTime))
      }
      meta.sampleTime = 0
      meta.record(at: now)
      if record.resident {
        residents[record.position] = meta
        let position = Int32(record.position)
        if samplePointer == position { samplePointer = links[Int(position)].next }
        forgetPrediction(of: record.position)
        rerequest(position)
        hit = true
      } else {
        remembered[index(remembered: record.position)] = meta
      }
    }
    if sampling { drawSample() }
    trimRemembered()
    if hit { return slot }
    pendingKey = request.key
    return nil
  }

  /// `ThreeLCacheCache::admit`.
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    if pendingKey != request.key, let slot = lookup(request, onEvict: onEvict) { return slot }
    pendingKey = nil
    guard request.weight <= store.capacity else { return nil }
    while store.used &+ request.weight > store.capacity && store.count > 0 { evict(onEvict: onEvict) }
    let position = residents.count
    var slot = store.find(request.key)
    if slot < 0 {
      slot = store.insert(request.key, weight: request.weight, payload: KeyRecord(resident: true, position: position))
      residents.append(ThreeLMeta(slot: slot, size: request.weight, lastRequest: now))
    } else {
      let i = index(remembered: store.table[slot].payload.position)
      var meta = remembered[i]
      remembered[i].slot = -1
      meta.size = request.weight
      residents.append(meta)
      store.table[slot].weight = request.weight
      store.used &+= request.weight
      store.count &+= 1
      store.table[slot].payload = KeyRecord(resident: true, position: position)
    }
    links.append((-1, -1))
    append(Int32(position))
    if !learner.model.isEmpty {
      newWeight &+= UInt64(bitPattern: request.weight)
      newObjects.append((request.key, request.weight))
    }
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
    let position = store.table[slot].payload.position
    forgetPrediction(of: position)
    takeOut(Int32(position))
    store.delete(slot, resident: true)
    return slot
  }

  // MARK: The residents' ring

  @usableFromInline
  mutating func append(_ p: Int32) {
    if head < 0 {
      head = p
      tail = p
      links[Int(p)] = (p, p)
    } else {
      links[Int(tail)].next = p
      links[Int(head)].prev = p
      links[Int(p)] = (tail, head)
      tail = p
    }
  }

  /// `re_request`: to the newest end (at the head, a turn of the ring).
  @usableFromInline
  mutating func rerequest(_ p: Int32) {
    if p == head {
      tail = head
      head = links[Int(head)].next
    } else if p != tail {
      let (prev, next) = links[Int(p)]
      links[Int(prev)].next = next
      links[Int(next)].prev = prev
      links[Int(p)] = (tail, head)
      links[Int(head)].prev = p
      links[Int(tail)].next = p
      tail = p
    }
  }

  @usableFromInline
  mutating func unlink(_ p: Int32) {
    let (prev, next) = links[Int(p)]
    if prev == p {
      head = -1
      tail = -1
      return
    }
    if p == head { head = next } else if p == tail { tail = prev }
    links[Int(prev)].next = next
    links[Int(next)].prev = prev
  }

  /// Takes the resident at `p` out of the ring and the array, moving the
  /// last resident into its place (the walk's pointer moving past `p`,
  /// or with the moved resident).
  @usableFromInline
  mutating func takeOut(_ p: Int32) {
    if samplePointer == p { samplePointer = links[Int(p)].next }
    unlink(p)
    let last = Int32(residents.count - 1)
    if p != last {
      if samplePointer == last { samplePointer = p }
      let (prev, next) = links[Int(last)]
      links[Int(prev)].next = p
      links[Int(next)].prev = p
      residents[Int(p)] = residents[Int(last)]
      links[Int(p)] = links[Int(last)]
      store.table[residents[Int(p)].slot].payload.position = Int(p)
      if tail == last { tail = p }
      if head == last { head = p }
    }
    residents.removeLast()
    links.removeLast()
  }

  // MARK: Eviction

  @usableFromInline
  mutating func evict(onEvict: (Slot, Key) -> Void) {
    var position = learner.model.isEmpty ? Int(head) : nextVictimByPrediction()
    if position < 0 { position = Int(head) }
    sampling = true
    evictNums -= 1
    forgetPrediction(of: position)
    var meta = residents[position]
    let slot = meta.slot
    onEvict(slot, store.table[slot].key)
    store.retire(slot)
    store.table[slot].payload = KeyRecord(resident: false, position: frontIndex + remembered.count - outOffset)
    meta.predictedEpoch = 0
    takeOut(Int32(position))
    remembered.append(meta)
  }

  /// `evict_predobj`: the heap's furthest prediction still current,
  /// ranking a new batch first when the last one is spent.
  @usableFromInline
  mutating func nextVictimByPrediction() -> Int {
    if evictNums <= 0 || predicted == 0 {
      let start = ContinuousClock.now
      evictNums = rank() / Self.evictionRate
      learner.add(ContinuousClock.now - start)
    }
    while !heap.isEmpty {
      let top = popHeap()
      let slot = store.find(top.key)
      guard slot >= 0, store.table[slot].payload.resident else { continue }
      let position = store.table[slot].payload.position
      guard residents[position].predictedEpoch == epoch, residents[position].predicted == top.time else { continue }
      evictedByFrequency[Int(log2(Double(residents[position].frequency)))] &+= 1
      if residents[position].lastRequest <= pointerTimestamp { evictionDistribution[0] &+= 1 }
      return position
    }
    return -1
  }

  /// `rank`: the candidates (quick demotion's, then the walk's) and their predictions.
  @usableFromInline
  mutating func rank() -> Int {
    if initialQueueLength == 0 { initialQueueLength = Int32(residents.count) }
    func rate(_ length: Int32) -> UInt16 {
      length > 2 ? UInt16(truncatingIfNeeded: Int(Double(length) * 0.01 + Double(Self.evictionRate))) : 1
    }
    if Double(sampleRate) >= Double(initialQueueLength) * 0.01 + Double(Self.evictionRate) {
      sampleRate = rate(initialQueueLength)
    }
    var sampled = quickDemotion()
    let used = UInt64(store.used)
    if newWeight < used &* UInt64(reservedSpace) / 10 {
      var rows: UInt16 = 0
      while rows < sampleRate && sampled.count < Int(initialQueueLength) {
        let frequency = residents[Int(samplePointer)].frequency &- 1
        let lruShare = UInt64(initialQueueLength) &* UInt64(samplingLRU) / 100
        if evictionDistribution[3] == 0 && scanLength > lruShare {
          evictionDistribution[2] = evictionDistribution[0]
          evictionDistribution[3] = evictionDistribution[1]
          evictionDistribution[1] = 0
          evictionDistribution[0] = 0
        }
        if frequency < sampleBoundary || scanLength <= lruShare &+ UInt64(Self.evictionRate) {
          sampled.append(samplePointer)
          rows &+= 1
        }
        scanLength &+= 1
        if scanLength >= UInt64(initialQueueLength) {
          initialQueueLength = Int32(residents.count)
          sampleRate = 1_024
          if Int(sampleRate) >= Int(Double(initialQueueLength) * 0.01 + Double(Self.evictionRate)) {
            sampleRate = rate(initialQueueLength)
          }
          rows = 0
          samplePointer = head
          scanLength = 0
          clearPredictions()
          if objectMissRatio { continue }
          adapt()
          continue
        }
        samplePointer = links[Int(samplePointer)].next
      }
      if let last = sampled.last { pointerTimestamp = residents[Int(last)].lastRequest }
      evictionDistribution[1] &+= UInt64(sampleRate)
    }
    predict(sampled)
    return sampled.count
  }

  /// At the end of a walk: the frequency boundary from the 99th percentile
  /// of the evicted objects' frequencies, the walk's LRU share and the
  /// reserved share from how evictions split between old and new objects.
  @usableFromInline
  mutating func adapt() {
    var sum: Int32 = 0
    for n in evictedByFrequency { sum &+= n }
    var cumulative: Int32 = 0
    for i in 0..<16 {
      cumulative &+= evictedByFrequency[i]
      guard Double(cumulative) >= 0.99 * Double(sum) else { continue }
      if i == 0 {
        sampleBoundary = 1
      } else {
        let low = pow(2, Double(i - 1))
        let share =
          (0.99 * Double(sum) + Double(evictedByFrequency[i]) - Double(cumulative)) / Double(evictedByFrequency[i])
        sampleBoundary = UInt16(truncatingIfNeeded: Int(low + ceil((pow(2, Double(i)) - low) * share)))
      }
      break
    }
    let d = evictionDistribution
    if d[2] &* d[1] > d[0] &* d[3] {
      samplingLRU &+= 1
    } else if samplingLRU > 1 {
      samplingLRU -= 1
    }
    if d[0] &+ d[2] > UInt64(newObjects.count - newStart) {
      reservedSpace &+= 1
    } else if reservedSpace > 1 {
      reservedSpace /= 2
    }
    evictionDistribution = [0, 0, 0, 0]
    evictedByFrequency = Array(repeating: 0, count: 16)
  }

  /// `quick_demotion`: the newest admissions, oldest first, while they
  /// weigh more than the reserved share of the cache.
  @usableFromInline
  mutating func quickDemotion() -> [Int32] {
    var sampled: [Int32] = []
    var taken = 0
    let limit = Int(Double(sampleRate) * 1.5)
    let used = UInt64(store.used)
    var i = newStart
    while newWeight > used &* UInt64(reservedSpace) / 100 && taken < limit && i < newObjects.count {
      let (key, weight) = newObjects[i]
      let slot = store.find(key)
      if slot < 0 {
        newWeight &-= UInt64(bitPattern: weight)
      } else if store.table[slot].payload.resident {
        let position = store.table[slot].payload.position
        newWeight &-= UInt64(bitPattern: residents[position].size)
        sampled.append(Int32(position))
        taken += 1
      } else {
        newWeight &-= UInt64(bitPattern: remembered[index(remembered: store.table[slot].payload.position)].size)
      }
      i += 1
    }
    newStart = i
    if newStart == newObjects.count {
      newObjects.removeAll(keepingCapacity: true)
      newStart = 0
      newWeight = 0
    } else if newStart > 4_096 && newStart > newObjects.count / 2 {
      newObjects.removeFirst(newStart)
      newStart = 0
    }
    return sampled
  }

  /// `prediction`: each candidate's predicted next request (on the clock of
  /// the last training), onto the heap.
  @usableFromInline
  mutating func predict(_ sampled: [Int32]) {
    var row = [Float](repeating: 0, count: Self.featureCount)
    let offset = Double(now &- originSeq)
    for p in sampled {
      let meta = residents[Int(p)]
      meta.features(at: now, into: &row)
      let score = Double(row.withUnsafeBufferPointer { learner.model.predict($0.baseAddress!) })
      let time =
        objectMissRatio ? Float(Double(meta.size) * exp(score)) : Float(exp(score) + offset)
      pushHeap(Prediction(time: time, key: store.table[meta.slot].key))
      if residents[Int(p)].predictedEpoch != epoch {
        residents[Int(p)].predictedEpoch = epoch
        predicted += 1
      }
      residents[Int(p)].predicted = time
    }
  }

  @usableFromInline
  mutating func forgetPrediction(of position: Int) {
    guard residents[position].predictedEpoch == epoch else { return }
    residents[position].predictedEpoch = 0
    predicted -= 1
  }

  @usableFromInline
  mutating func clearPredictions() {
    epoch &+= 1
    if epoch == 0 {
      for i in residents.indices { residents[i].predictedEpoch = 0 }
      epoch = 1
    }
    predicted = 0
    heap.removeAll(keepingCapacity: false)
  }

  // MARK: Heap (libstdc++'s push_heap and pop_heap, a max-heap of predictions)

  @usableFromInline
  mutating func pushHeap(_ value: Prediction) {
    heap.append(value)
    var hole = heap.count - 1
    var parent = (hole - 1) / 2
    while hole > 0 && heap[parent].time < value.time {
      heap[hole] = heap[parent]
      hole = parent
      parent = (hole - 1) / 2
    }
    heap[hole] = value
  }

  @usableFromInline
  mutating func popHeap() -> Prediction {
    let top = heap[0]
    let value = heap.removeLast()
    guard !heap.isEmpty else { return top }
    // __adjust_heap: down to a leaf by the larger child (the right one on ties), then up.
    let length = heap.count
    var hole = 0
    var child = hole
    while child < (length - 1) / 2 {
      child = 2 * (child + 1)
      if heap[child].time < heap[child - 1].time { child -= 1 }
      heap[hole] = heap[child]
      hole = child
    }
    if length & 1 == 0 && child == (length - 2) / 2 {
      child = 2 * (child + 1)
      heap[hole] = heap[child - 1]
      hole = child - 1
    }
    var parent = (hole - 1) / 2
    while hole > 0 && heap[parent].time < value.time {
      heap[hole] = heap[parent]
      hole = parent
      parent = (hole - 1) / 2
    }
    heap[hole] = value
    return top
  }

  // MARK: Training

  /// `sample`: a key, resident or remembered (one draw over both arrays),
  /// gets a sample now unless it has one.
  @usableFromInline
  mutating func drawSample() {
    let live = remembered.count - outOffset
    let total = UInt64(residents.count + live)
    guard total > 0 else { return }
    let position = Int(Int32(truncatingIfNeeded: random.any() % total))
    if position < residents.count {
      if residents[position].sampleTime == 0 { residents[position].sampleTime = now }
    } else {
      let i = outOffset + position - residents.count
      if remembered[i].sampleTime == 0 { remembered[i].sampleTime = now }
    }
  }

  /// `erase_out_cache`: the oldest remembered key goes once there are more
  /// than `hsw − 1` per resident (plus 2); its sample is labelled as
  /// requested the longest idle time seen before, plus its own.
  @usableFromInline
  mutating func trimRemembered() {
    let limit = residents.count * (Int(hsw) - 1) + 2
    guard remembered.count - outOffset >= limit else { return }
    isFull = true
    let meta = remembered[outOffset]
    if meta.slot >= 0 {
      if meta.sampleTime != 0 && (random.any() % 4 == 0 || learner.model.isEmpty) {
        let idle = now &- meta.lastRequest
        if maxEvictionBoundary.1 < idle { maxEvictionBoundary.1 = idle }
        addRow(meta, at: meta.sampleTime, distance: Int32(truncatingIfNeeded: maxEvictionBoundary.0 &+ idle))
      }
      store.delete(meta.slot, resident: false)
    }
    outOffset += 1
    frontIndex += 1
    if outOffset > 4_096 && outOffset * 2 > remembered.count {
      remembered.removeFirst(outOffset)
      outOffset = 0
    }
  }

  @usableFromInline
  mutating func addRow(_ meta: ThreeLMeta, at time: UInt64, distance: Int32) {
    var row = [Float](repeating: 0, count: Self.featureCount)
    meta.features(at: time, into: &row)
    learner.features += row
    learner.labels.append(Float(log1p(Double(distance))))
    if learner.labels.count >= batchSize && evictNums <= 0 { train() }
  }

  /// A training, and what follows it: predictions restart, the idle-time
  /// bound moves, and the history window may widen.
  @usableFromInline
  mutating func train() {
    learner.fit()
    clearPredictions()
    maxEvictionBoundary.0 = maxEvictionBoundary.1
    originSeq = now
    if windowRequests > 1_000_000 && isFull {
      let extra = Double(windowGhostHits &- windowHits) / Double(windowHits &* UInt64(hsw - 1))
      if extra > 0.01 {
        if UInt64(hsw - 1) < (windowRequests &- windowHits) / (windowGhostHits &- windowHits) {
          hsw += 1
          isFull = false
        }
        hsw = min(hsw, 6)
      }
      windowHits = 0
      windowGhostHits = 0
      windowRequests = 0
    }
  }

  // MARK: Checks and reports

  public func checkInvariants() {
    precondition(residents.count == store.count && links.count == residents.count, "resident counts disagree")
    var weight: Int64 = 0
    for (p, meta) in residents.enumerated() {
      let record = store.table[meta.slot].payload
      precondition(record.resident && record.position == p, "a resident's record is wrong")
      weight += meta.size
    }
    var seen = 0
    var p = head
    while p >= 0 && seen <= residents.count {
      seen += 1
      precondition(links[Int(links[Int(p)].next)].prev == p, "the ring's links disagree")
      p = links[Int(p)].next
      if p == head { break }
    }
    precondition(seen == residents.count, "the ring holds \(seen) of \(residents.count) residents")
    for i in outOffset..<remembered.count where remembered[i].slot >= 0 {
      let record = store.table[remembered[i].slot].payload
      precondition(!record.resident && index(remembered: record.position) == i, "a remembered key's record is wrong")
    }
    precondition(weight == store.used && store.used <= store.capacity, "weights disagree")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    var keys: [Key] = []
    var p = tail
    while p >= 0 && keys.count < residents.count {
      keys.append(store.table[residents[Int(p)].slot].key)
      p = links[Int(p)].prev
    }
    return [("residents, most recently requested first", keys)]
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let record = store.table[slot].payload
    if record.resident { return "resident, requested \(residents[record.position].frequency) times" }
    let meta = remembered[index(remembered: record.position)]
    return "remembered (not resident), requested \(meta.frequency) times"
  }

}

/// What 3L-Cache remembers of a key (libCacheSim's `Meta`).
@usableFromInline struct ThreeLMeta: BitwiseCopyable {
  /// The key's slot; -1 in a remembered entry whose key came back.
  @usableFromInline var slot: Slot
  @usableFromInline var size: Int64
  @usableFromInline var lastRequest: UInt64
  @usableFromInline var sampleTime: UInt64 = 0
  @usableFromInline var frequency: UInt16 = 1
  /// Its last three gaps, a ring (`_past_distances`), and libCacheSim's
  /// `_past_distance_idx` (0: requested once).
  @usableFromInline var gaps: (Int32, Int32, Int32) = (0, 0, 0)
  @usableFromInline var nextGap: UInt8 = 0
  @usableFromInline var predicted: Float = 0
  @usableFromInline var predictedEpoch: UInt32 = 0

  @usableFromInline init(slot: Slot, size: Int64, lastRequest: UInt64) {
    self.slot = slot
    self.size = size
    self.lastRequest = lastRequest
  }

  func gap(_ i: Int) -> Int32 { i == 0 ? gaps.0 : i == 1 ? gaps.1 : gaps.2 }

  /// `Meta::update`: a request at `time`.
  @usableFromInline mutating func record(at time: UInt64) {
    let distance = Int32(truncatingIfNeeded: time &- lastRequest)
    if nextGap == 0 {
      gaps.0 = distance
      nextGap = 1
    } else {
      switch Int(nextGap) % 3 {
      case 0: gaps.0 = distance
      case 1: gaps.1 = distance
      default: gaps.2 = distance
      }
      nextGap &+= 1
      if nextGap >= 6 { nextGap -= 3 }
    }
    lastRequest = time
    if frequency < 65_535 { frequency += 1 }
  }

  /// The six features at `time`: requests since the last, the last three
  /// gaps (most recent first, 0 where there are fewer), size, requests.
  @usableFromInline func features(at time: UInt64, into row: inout [Float]) {
    row[0] = Float(time &- lastRequest)
    let n = Int(nextGap)
    for j in 0..<3 { row[j + 1] = j < n ? Float(gap((n - 1 - j) % 3)) : 0 }
    row[4] = Float(size)
    row[5] = Float(frequency)
  }
}

/// 3L-Cache in the catalog.
public enum ThreeLCache: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "3lcache", displayName: "3L-Cache",
    summary:
      "evicts in batches the residents a learned model (XGBoost trees) predicts are requested last, sampled cheaply",
    citation: "Zhou et al., FAST'25",
    parameters: TreeLearner.catalogParameters(batchSize: 65_536, iterations: 16, libCacheSimName: "ThreeLCache"),
    checkedAgainst: TreeLearner.checkedAgainst, libCacheSim: "0.3.5")

  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      ThreeLCachePolicy<Index>(
        capacity: capacity, batchSize: Int(spec.integer("batch-size")), rounds: Int(spec.integer("num-iterations")),
        leaves: Int(spec.integer("num-leaves")),
        objectMissRatio: spec.isOn("object-miss-ratio")))
  }
}
