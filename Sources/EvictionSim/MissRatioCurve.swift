import EvictionCore
import EvictionRun
import EvictionTraces
import Foundation

/// One point of a miss-ratio curve (JSON keys are the snake_case names).
public struct CurvePoint: Sendable, Equatable {
  public var cacheSize: Int64
  public var requests: Int64
  public var misses: Int64
  public var bytesRequested: Int64
  public var bytesMissed: Int64
  public var missRatio: Double { requests == 0 ? 0 : Double(misses) / Double(requests) }
  public var byteMissRatio: Double { bytesRequested == 0 ? 0 : Double(bytesMissed) / Double(bytesRequested) }
}

/// A miss-ratio curve and how it was obtained.
public struct MissRatioCurve: Sendable {
  public enum Method: String, Sendable, CaseIterable {
    /// LRU by stack distances (Mattson et al., 1970): every size in one pass.
    case exact
    /// One pass over the trace, one cache per size (any policy).
    case simulate
    /// SHARDS spatial sampling (Waldspurger et al., FAST'15) at a fixed rate.
    case shards
  }

  public var trace: String
  public var policy: String
  public var method: Method
  /// The share of the key space sampled (1 unless SHARDS).
  public var rate: Double
  public var sizeMode: SizeMode
  public var points: [CurvePoint]
  /// Sizes the stack-distance pass could not answer exactly (objects heavier
  /// than the size, or objects whose size changes), simulated instead.
  public var simulatedSizes: [Int64] = []
  /// Malformed lines passed over under `--skip-bad-lines`.
  public var skipped = SkippedRecords()
  /// The admission policy in front of the policy (`none`).
  public var admission = "none"
  /// Under SHARDS in byte mode, the sizes whose scaled capacity is below the
  /// largest sampled object: the scaled cache cannot hold an object the
  /// full-size one holds, so the estimate there can be far off (most where
  /// few large objects carry the bytes). Empty otherwise.
  public var belowLargestObject: [Int64] = []
  /// The largest object the sample held (bytes; 0 unless SHARDS in byte mode).
  public var largestSampledObject: Int64 = 0
  /// The distinct objects a fixed-rate SHARDS sample kept (0 unless SHARDS
  /// at a rate), counted up to ``fewSampledObjects`` where the policy is
  /// simulated: a curve from fewer is barely an estimate.
  public var sampledObjects = 0
  /// Below this many sampled objects a SHARDS curve is flagged.
  public static let fewSampledObjects = 1000

  /// How the point at `cacheSize` was found: the curve's method, except a
  /// size of an exact curve the stack-distance pass could not answer
  /// (``simulatedSizes``), which was simulated. Under SHARDS every point is
  /// an estimate from the sample, however it was computed.
  public func method(at cacheSize: Int64) -> Method {
    method == .exact && simulatedSizes.contains(cacheSize) ? .simulate : method
  }
}

/// One point of a curve as a results row (`evlab mrc`'s CSV, and its JSON's
/// points): the curve's cell at the point's size, the point's counts, and
/// how the point was found.
public typealias CurveRow = CellRow<CurvePointFields>

public struct CurvePointFields: Sendable, Codable, Equatable {
  /// ``MissRatioCurve/method(at:)``: how this point was found.
  public var method: String
  /// The share of the key space sampled (1 unless SHARDS).
  public var rate: Double
  public var missRatio: Double
  public var byteMissRatio: Double
  /// ``MissRatioCurve/belowLargestObject`` holds this size.
  public var scaledBelowLargestObject: Bool
}

extension MissRatioCurve {
  /// The curve's points as rows, smallest size first. A curve names no
  /// trace format: its rows' is empty.
  public var rows: [CurveRow] {
    points.map { p in
      CurveRow(
        key: CellKey(
          trace: trace, format: "", policy: policy, cacheSize: p.cacheSize, sizeMode: sizeMode, admission: admission),
        counts: HitCounts(
          requests: p.requests, hits: p.requests - p.misses, bytesRequested: p.bytesRequested,
          bytesMissed: p.bytesMissed),
        fields: CurveRow.Fields(
          method: method(at: p.cacheSize).rawValue, rate: rate, missRatio: p.missRatio,
          byteMissRatio: p.byteMissRatio, scaledBelowLargestObject: belowLargestObject.contains(p.cacheSize)))
    }
  }
}

extension MissRatioCurve {
  /// Records, in byte mode, the sizes whose scaled capacity is below the
  /// largest sampled object.
  mutating func flagSizes(_ sizes: [Int64], scaled: [Double], largest: Int64) {
    guard sizeMode == .bytes else { return }
    largestSampledObject = largest
    belowLargestObject = zip(sizes, scaled).filter { $0.1 < Double(largest) }.map(\.0)
  }
}

/// A curve that cannot be drawn as asked, in one line.
public struct CurveError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// Miss-ratio curves: exact LRU curves from stack distances, one-pass
/// multi-size simulation for any policy, and SHARDS sampling.
public enum MissRatioCurves {
  /// What `evlab mrc` computes for one policy.
  public enum Plan: Sendable, Equatable {
    case exact
    case simulate
    case shards(rate: Double)
    case fixedSizeShards(maxObjects: Int)
  }

  /// The method for `policy`: the one asked for, or exact for LRU and
  /// simulate otherwise. Exact and fixed-size SHARDS are LRU's (stack
  /// distances); offline policies have no curve here (they need the future).
  ///
  /// Behind an admission policy LRU is no longer a stack policy (a refused
  /// miss changes what a larger cache holds, not a smaller one's), so its
  /// curve is simulated: exact and fixed-size SHARDS are refused.
  public static func plan(
    for policy: PolicySpec, method: MissRatioCurve.Method?, rate: Double, maxObjects: Int?,
    admission: AdmissionSpec = .none
  ) throws(CurveError) -> Plan {
    let admitted = admission.kind != .none
    let lru = policy.name == "lru" && !admitted
    if admitted && (method == .exact || maxObjects != nil) {
      throw CurveError(
        "behind admission \(admission) LRU is not a stack policy, so \(maxObjects != nil ? "fixed-size SHARDS (\(Setting.maxObjects))" : "\(Setting.method) exact") does not apply; use \(Setting.method) simulate or shards \(Setting.rate)"
      )
    }
    if policy.descriptor.isOffline {
      throw CurveError(
        "\(policy.name) is offline; miss-ratio curves run online policies (replay it: \(Setting.replayCommand))")
    }
    guard rate > 0 && rate <= 1 else {
      throw CurveError("\(Setting.rate) \(rate): give a sampling rate in (0, 1], e.g. 0.01")
    }
    if let maxObjects {
      guard method == .shards else {
        throw CurveError("\(Setting.maxObjects) is fixed-size SHARDS: add \(Setting.method) shards")
      }
      guard lru else {
        throw CurveError("fixed-size SHARDS (\(Setting.maxObjects)) is for LRU; use \(Setting.rate) for \(policy.name)")
      }
      guard maxObjects >= 1 else { throw CurveError("\(Setting.maxObjects) \(maxObjects): at least 1") }
      return .fixedSizeShards(maxObjects: maxObjects)
    }
    switch method ?? (lru ? .exact : .simulate) {
    case .exact where !lru:
      throw CurveError(
        "\(Setting.method) exact is for LRU (a stack policy); use \(Setting.method) simulate or shards for \(policy.name)"
      )
    case .exact: return .exact
    case .simulate: return .simulate
    case .shards: return .shards(rate: rate)
    }
  }

  /// The curve of `policy` (behind `admission`) on `trace` as `plan` says.
  public static func curve(
    _ trace: TraceSource, policy: PolicySpec, plan: Plan, sizes: [Int64], sizeMode: SizeMode,
    admission: AdmissionSpec = .none, warmup: ReplayWindow.Span? = nil, progress: ReplayProgress? = nil
  ) throws(TraceError) -> MissRatioCurve {
    // A curve is one pass on one thread: a second core reads the trace ahead of it.
    var trace = trace
    if ProcessInfo.processInfo.activeProcessorCount > 1 { trace.readAhead = true }
    return switch plan {
    case .exact: try exactLRU(trace, sizes: sizes, sizeMode: sizeMode, warmup: warmup, progress: progress)
    case .simulate:
      try simulate(
        trace, policy: policy, sizes: sizes, sizeMode: sizeMode, admission: admission, warmup: warmup,
        progress: progress)
    case .shards(let rate):
      try shards(
        trace, policy: policy, sizes: sizes, sizeMode: sizeMode, rate: rate, admission: admission, warmup: warmup,
        progress: progress)
    case .fixedSizeShards(let maxObjects):
      try shardsFixedSize(trace, sizes: sizes, sizeMode: sizeMode, maxObjects: maxObjects, progress: progress)
    }
  }

  /// One curve per planned policy and admission, in order, each one pass
  /// over `trace`; `progress` counts a finished curve as a finished cell.
  public static func curves(
    _ trace: TraceSource, plans: [(policy: PolicySpec, admission: AdmissionSpec, plan: Plan)], sizes: [Int64],
    sizeMode: SizeMode, warmup: ReplayWindow.Span? = nil, progress: ReplayProgress? = nil
  ) throws(TraceError) -> [MissRatioCurve] {
    var curves: [MissRatioCurve] = []
    for (policy, admission, plan) in plans {
      curves.append(
        try curve(
          trace, policy: policy, plan: plan, sizes: sizes, sizeMode: sizeMode, admission: admission, warmup: warmup,
          progress: progress))
      progress?.cellsDone.add(1, ordering: .relaxed)
    }
    return curves
  }

  /// The error for a pass that counted nothing: an empty trace, or one the
  /// warm-up covers whole.
  static func warmupCoversAll(_ trace: TraceSource, _ warmup: ReplayWindow.Span?, sampling: Sampling? = nil)
    -> TraceError
  {
    if let sampling, sampling.rate < 1 {
      return .invalidOption(
        "\(trace.path): SHARDS at rate \(sampling.rate) sampled none of its objects\(warmup == nil ? "" : " after the warm-up"); raise \(Setting.rate)"
      )
    }
    guard let warmup else { return .emptyTrace(path: trace.path) }
    return .invalidOption(
      "\(trace.path): the warm-up (\(warmup)) covers every request; give a shorter \(Setting.warmup)")
  }

  /// The exact LRU curve at `sizes` in one pass. In count mode every size is
  /// exact. In byte mode the stack-distance rule (hit iff the distinct bytes
  /// requested since the object's last request, its own included, fit) holds
  /// when object sizes never change and no object is heavier than the cache;
  /// sizes where that fails are simulated in a second pass (LRU, one cache
  /// per size), so every point equals `evlab replay --policy lru` there.
  /// With `sampling`, the pass sees only the sampled keys and compares
  /// distances with sizes scaled by the rate (SHARDS).
  public static func exactLRU(
    _ trace: TraceSource, sizes: [Int64], sizeMode: SizeMode, sampling: Sampling? = nil,
    warmup: ReplayWindow.Span? = nil, progress: ReplayProgress? = nil
  ) throws(TraceError) -> MissRatioCurve {
    let sorted = Array(Set(sizes)).sorted()
    let scaled = sampling.map { s in sorted.map { s.scale($0) } } ?? sorted
    var gate = WarmupGate(warmup)
    var tree = StackDistanceTree()
    var hitsBelow = Array(repeating: Int64(0), count: sorted.count + 1)
    var hitBytesBelow = Array(repeating: Int64(0), count: sorted.count + 1)
    var requests: Int64 = 0
    var bytesRequested: Int64 = 0
    var largest: Int64 = 0
    var sizesChange = false
    let skipped = try trace.forEachBatch(progress: progress) { records, tile in
      let offset = tile.idOffset
      for record in records {
        let key = record.key &+ offset
        // The warm-up counts the trace's requests, sampled or not.
        let warming = gate.warms(record.time)
        if let sampling, !sampling.keeps(key) { continue }
        let weight = sizeMode == .count ? 1 : record.size
        largest = max(largest, weight)
        let (distance, changed) = tree.access(key, weight: weight)
        sizesChange = sizesChange || changed
        if warming { continue }
        requests &+= 1
        bytesRequested &+= record.size
        guard let distance else { continue }
        // The first size at which this request hits.
        var lo = 0
        var hi = scaled.count
        while lo < hi {
          let mid = (lo + hi) / 2
          if scaled[mid] >= distance { hi = mid } else { lo = mid + 1 }
        }
        hitsBelow[lo] &+= 1
        hitBytesBelow[lo] &+= record.size
      }
    }
    if requests == 0 { throw warmupCoversAll(trace, warmup, sampling: sampling) }
    var points: [CurvePoint] = []
    var hits: Int64 = 0
    var hitBytes: Int64 = 0
    for (i, size) in sorted.enumerated() {
      hits &+= hitsBelow[i]
      hitBytes &+= hitBytesBelow[i]
      points.append(
        CurvePoint(
          cacheSize: size, requests: requests, misses: requests - hits, bytesRequested: bytesRequested,
          bytesMissed: bytesRequested - hitBytes))
    }
    // Sizes the rule cannot answer: simulate them.
    let unanswered = sizeMode == .bytes ? sorted.indices.filter { sizesChange || scaled[$0] < largest } : []
    if !unanswered.isEmpty {
      let simulated = try simulate(
        trace, policy: try! PolicySpec("lru"), sizes: unanswered.map { sorted[$0] }, sizeMode: sizeMode,
        sampling: sampling, warmup: warmup)
      for (i, point) in zip(unanswered, simulated.points) { points[i] = point }
    }
    var curve = MissRatioCurve(
      trace: trace.name, policy: "lru", method: sampling == nil ? .exact : .shards, rate: sampling?.rate ?? 1,
      sizeMode: sizeMode, points: points, simulatedSizes: unanswered.map { sorted[$0] }, skipped: skipped)
    if sampling != nil {
      curve.flagSizes(sorted, scaled: scaled.map(Double.init), largest: largest)
      curve.sampledObjects = tree.latest.count
    }
    return curve
  }

  /// Any catalog policy at every size in one pass over the trace: one reader,
  /// one cache per size, each behind its own `admission` gate (the gates of
  /// a seeded one draw the same numbers, as separate replays would). Online
  /// policies only.
  public static func simulate(
    _ trace: TraceSource, policy: PolicySpec, sizes: [Int64], sizeMode: SizeMode, sampling: Sampling? = nil,
    admission: AdmissionSpec = .none, warmup: ReplayWindow.Span? = nil, progress: ReplayProgress? = nil
  ) throws(TraceError) -> MissRatioCurve {
    let sorted = Array(Set(sizes)).sorted()
    let scaled = sampling.map { s in sorted.map { s.scale($0) } } ?? sorted
    for size in scaled { try TraceReplay.checkMinimumCapacity(policy, size) }
    var runner = MultiSizeRunner(
      sizes: scaled, sizeMode: sizeMode, trace: trace, sampling: sampling, warmup: warmup, progress: progress)
    let caches = scaled.map { policy.integerBox(capacity: $0, admission: admission) }
    let counts = try runner.run(caches)
    let points = zip(sorted, counts.perSize).map { size, c in
      CurvePoint(
        cacheSize: size, requests: counts.requests, misses: counts.requests - c.hits,
        bytesRequested: counts.bytesRequested, bytesMissed: counts.bytesRequested - c.hitBytes)
    }
    var curve = MissRatioCurve(
      trace: trace.name, policy: policy.description, method: sampling == nil ? .simulate : .shards,
      rate: sampling?.rate ?? 1, sizeMode: sizeMode, points: points, skipped: counts.skipped,
      admission: admission.description)
    if sampling != nil {
      curve.flagSizes(sorted, scaled: scaled.map(Double.init), largest: counts.largest)
      curve.sampledObjects = counts.sampledObjects
    }
    return curve
  }

  /// SHARDS at a fixed rate: requests whose key hashes below `rate` of the
  /// hash space are kept, and each cache size is scaled by `rate` (Waldspurger
  /// et al., "Efficient MRC construction with SHARDS", FAST'15). LRU uses the
  /// stack-distance pass on the sample, other policies the multi-size
  /// simulation.
  public static func shards(
    _ trace: TraceSource, policy: PolicySpec, sizes: [Int64], sizeMode: SizeMode, rate: Double,
    admission: AdmissionSpec = .none, warmup: ReplayWindow.Span? = nil, progress: ReplayProgress? = nil
  ) throws(TraceError) -> MissRatioCurve {
    let sampling = Sampling(rate: rate)
    if policy.name == "lru" && admission.kind == .none {
      return try exactLRU(
        trace, sizes: sizes, sizeMode: sizeMode, sampling: sampling, warmup: warmup, progress: progress)
    }
    return try simulate(
      trace, policy: policy, sizes: sizes, sizeMode: sizeMode, sampling: sampling, admission: admission,
      warmup: warmup, progress: progress)
  }

  /// Fixed-size SHARDS for LRU (Waldspurger et al., FAST'15, §3.2): the
  /// sample holds at most `maxObjects` distinct keys. It starts at rate 1;
  /// when a new key overflows it, the key with the largest hash leaves, its
  /// hash becomes the threshold (so the rate falls to threshold / 2⁶⁴), and
  /// the histogram gathered so far is rescaled by new rate / old rate.
  /// Distances are scaled by the rate in force when they are measured.
  /// Memory is bounded by `maxObjects`, whatever the trace.
  public static func shardsFixedSize(
    _ trace: TraceSource, sizes: [Int64], sizeMode: SizeMode, maxObjects: Int, progress: ReplayProgress? = nil
  ) throws(TraceError) -> MissRatioCurve {
    precondition(maxObjects >= 1, "the sample needs room for one object")
    let sorted = Array(Set(sizes)).sorted()
    var tree = StackDistanceTree()
    var sample = KeyHeap()
    var threshold = UInt64.max
    var rate = 1.0
    // Sampled references by the first size they hit at (the last bin: none),
    // as rescaled counts; bytes likewise.
    var bins = Array(repeating: 0.0, count: sorted.count + 1)
    var byteBins = Array(repeating: 0.0, count: sorted.count + 1)
    var requests: Int64 = 0
    var bytesRequested: Int64 = 0
    var largest: Int64 = 0
    let skipped = try trace.forEachBatch(progress: progress) { records, tile in
      let offset = tile.idOffset
      for record in records {
        let key = record.key &+ offset
        requests &+= 1
        bytesRequested &+= record.size
        let hash = Sampling.hash(key)
        guard hash < threshold else { continue }
        let weight = sizeMode == .count ? 1 : record.size
        largest = max(largest, weight)
        let isNew = tree.latest[key] == nil
        let (distance, _) = tree.access(key, weight: weight)
        if isNew {
          sample.push(hash: hash, key: key)
          if sample.count > maxObjects {
            // Lower the threshold to the largest sampled hash and drop every key at it.
            threshold = sample.top.hash
            while sample.count > 0 && sample.top.hash >= threshold { tree.remove(sample.pop().key) }
            let newRate = Double(threshold) / 18_446_744_073_709_551_616.0
            let factor = newRate / rate
            for i in bins.indices {
              bins[i] *= factor
              byteBins[i] *= factor
            }
            rate = newRate
            if !(hash < threshold) { continue }  // this key itself left the sample
          }
        }
        var bin = sorted.count
        if let distance {
          let scaled = Double(distance) / rate
          var lo = 0
          var hi = sorted.count
          while lo < hi {
            let mid = (lo + hi) / 2
            if Double(sorted[mid]) >= scaled { hi = mid } else { lo = mid + 1 }
          }
          bin = lo
        }
        bins[bin] += 1
        byteBins[bin] += Double(record.size)
      }
    }
    if requests == 0 { throw .emptyTrace(path: trace.path) }
    let total = bins.reduce(0, +)
    let totalBytes = byteBins.reduce(0, +)
    var points: [CurvePoint] = []
    var hit = 0.0
    var hitBytes = 0.0
    for (i, size) in sorted.enumerated() {
      hit += bins[i]
      hitBytes += byteBins[i]
      let missRatio = total > 0 ? 1 - hit / total : 1
      let byteMissRatio = totalBytes > 0 ? 1 - hitBytes / totalBytes : 1
      // Reported as counts over the whole trace, from the estimated ratios.
      points.append(
        CurvePoint(
          cacheSize: size, requests: requests, misses: Int64((missRatio * Double(requests)).rounded()),
          bytesRequested: bytesRequested, bytesMissed: Int64((byteMissRatio * Double(bytesRequested)).rounded())))
    }
    var curve = MissRatioCurve(
      trace: trace.name, policy: "lru", method: .shards, rate: rate, sizeMode: sizeMode, points: points,
      skipped: skipped)
    // The largest object over the whole run: an upper bound on the sample's at the end.
    curve.flagSizes(sorted, scaled: sorted.map { Double($0) * rate }, largest: largest)
    return curve
  }

  /// SHARDS' sampling condition: keep a key when a 64-bit mix of it falls
  /// below `rate` of the range.
  public struct Sampling: Sendable {
    public let rate: Double
    let threshold: UInt64
    public init(rate: Double) {
      precondition(rate > 0 && rate <= 1, "sampling rate must be in (0, 1]")
      self.rate = rate
      threshold = rate >= 1 ? .max : UInt64(rate * 18_446_744_073_709_551_616.0)
    }
    /// A cache size scaled to the sample (at least 1).
    func scale(_ size: Int64) -> Int64 { max(1, Int64((Double(size) * rate).rounded())) }

    @inline(__always) func keeps(_ key: UInt64) -> Bool { Self.hash(key) < threshold }

    /// SplitMix64's finaliser: a well-mixed 64-bit hash of the key.
    @inline(__always) static func hash(_ key: UInt64) -> UInt64 {
      var x = key &+ 0x9E37_79B9_7F4A_7C15
      x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
      x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
      return x ^ (x >> 31)
    }
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Stack distances by a Fenwick tree over access positions: each object's
/// weight sits at the position of its latest request, so the weight requested
/// since an object's last request is a suffix sum. Positions are renumbered
/// when they run out, so memory follows the number of distinct objects, not
/// the trace length.
struct StackDistanceTree {
  var tree: [Int64] = Array(repeating: 0, count: 1025)  // 1-based
  var capacity = 1024
  var next = 0
  var total: Int64 = 0
  var latest: [UInt64: (position: Int, weight: Int64)] = [:]

  /// Records a request; returns its stack distance (the distinct weight
  /// requested since the key's last request, its own included; nil on a
  /// first request) and whether the key's weight changed.
  mutating func access(_ key: UInt64, weight: Int64) -> (distance: Int64?, changed: Bool) {
    // Renumber first, while every entry of `latest` is live.
    if next == capacity { compact() }
    if latest.count == latest.capacity {
      // A native dictionary's slot (8-byte key, 16-byte value), at most 3/4 full.
      GrowthWatch.willAllocate(
        latest.capacity * 2 * 32, "the stack-distance table (\(latest.count) objects)",
        from: GrowthWatch.perObjectThreshold)
    }
    var distance: Int64? = nil
    var changed = false
    if let last = latest[key] {
      distance = total - prefix(last.position) + weight
      add(last.position, -last.weight)
      total -= last.weight
      changed = last.weight != weight
    }
    add(next, weight)
    total += weight
    latest[key] = (next, weight)
    next += 1
    return (distance, changed)
  }

  /// Forgets `key` (SHARDS dropping a key from its sample).
  mutating func remove(_ key: UInt64) {
    guard let last = latest.removeValue(forKey: key) else { return }
    add(last.position, -last.weight)
    total -= last.weight
  }

  /// Sum of weights at positions 0...position.
  func prefix(_ position: Int) -> Int64 {
    var sum: Int64 = 0
    var i = position + 1
    while i > 0 {
      sum &+= tree[i]
      i &= i - 1
    }
    return sum
  }

  mutating func add(_ position: Int, _ delta: Int64) {
    var i = position + 1
    while i <= capacity {
      tree[i] &+= delta
      i += i & -i
    }
  }

  /// Renumbers the live positions 0..<live in order, doubling the room when
  /// more than half of it is live.
  mutating func compact() {
    GrowthWatch.willAllocate(
      latest.count * 32 + (capacity * 2 + 1) * 8, "the stack-distance tree (\(latest.count) objects)",
      from: GrowthWatch.perObjectThreshold)
    let live = latest.sorted { $0.value.position < $1.value.position }
    if live.count * 2 > capacity { capacity *= 2 }
    tree = Array(repeating: 0, count: capacity + 1)
    for (i, entry) in live.enumerated() {
      latest[entry.key] = (i, entry.value.weight)
      tree[i + 1] = entry.value.weight
    }
    // Build the Fenwick tree in place in O(capacity).
    for i in 1...capacity {
      let parent = i + (i & -i)
      if parent <= capacity { tree[parent] &+= tree[i] }
    }
    next = live.count
  }
}

/// Per-size hit counts of a one-pass multi-size run.
struct SizeCounts {
  var hits: Int64 = 0
  var hitBytes: Int64 = 0
}

/// One reader feeding every cache of a multi-size run.
struct MultiSizeRunner {
  let sizes: [Int64]
  let sizeMode: SizeMode
  let trace: TraceSource
  let sampling: MissRatioCurves.Sampling?
  var warmup: ReplayWindow.Span? = nil
  let progress: ReplayProgress?

  struct Totals {
    var requests: Int64 = 0
    var bytesRequested: Int64 = 0
    /// The heaviest request the caches saw (its weight).
    var largest: Int64 = 0
    var perSize: [SizeCounts]
    var skipped = SkippedRecords()
    /// Distinct keys the sample kept (0 without sampling).
    var sampledObjects = 0
  }

  mutating func run(_ caches: [AnyCachePolicy<UInt64>]) throws(TraceError) -> Totals {
    var totals = Totals(perSize: Array(repeating: SizeCounts(), count: caches.count))
    var time: Int64 = 0
    var gate = WarmupGate(warmup)
    var sampledKeys = Set<UInt64>()
    totals.skipped = try trace.forEachBatch(progress: progress) { records, tile in
      let offset = tile.idOffset
      for record in records {
        let key = record.key &+ offset
        let warming = gate.warms(record.time)
        if let sampling {
          guard sampling.keeps(key) else { continue }
          // Only whether the sample is small matters: a bounded set, and
          // no hash lookup per request once it is full.
          if sampledKeys.count < MissRatioCurve.fewSampledObjects { sampledKeys.insert(key) }
        }
        time &+= 1
        let request = Request(
          key: key, weight: sizeMode == .count ? 1 : record.size, time: time, timestamp: record.time)
        totals.largest = max(totals.largest, request.weight)
        guard !warming else {
          for i in caches.indices { _ = caches[i].access(request) }
          continue
        }
        totals.requests &+= 1
        totals.bytesRequested &+= record.size
        for i in caches.indices where caches[i].access(request) {
          totals.perSize[i].hits &+= 1
          totals.perSize[i].hitBytes &+= record.size
        }
      }
    }
    if totals.requests == 0 { throw MissRatioCurves.warmupCoversAll(trace, warmup, sampling: sampling) }
    totals.sampledObjects = sampledKeys.count
    return totals
  }
}

/// A max-heap of sampled keys by hash (fixed-size SHARDS drops the largest).
struct KeyHeap {
  var items: [(hash: UInt64, key: UInt64)] = []
  var count: Int { items.count }
  var top: (hash: UInt64, key: UInt64) { items[0] }

  mutating func push(hash: UInt64, key: UInt64) {
    items.append((hash, key))
    var i = items.count - 1
    while i > 0 {
      let parent = (i - 1) / 2
      if items[parent].hash >= items[i].hash { break }
      items.swapAt(parent, i)
      i = parent
    }
  }

  mutating func pop() -> (hash: UInt64, key: UInt64) {
    let top = items[0]
    let last = items.removeLast()
    if items.isEmpty { return top }
    items[0] = last
    var i = 0
    while true {
      let l = 2 * i + 1
      let r = l + 1
      var largest = i
      if l < items.count && items[l].hash > items[largest].hash { largest = l }
      if r < items.count && items[r].hash > items[largest].hash { largest = r }
      if largest == i { break }
      items.swapAt(i, largest)
      i = largest
    }
    return top
  }
}
