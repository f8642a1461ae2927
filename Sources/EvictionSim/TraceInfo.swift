import EvictionCore
import EvictionTraces
import Foundation

/// What a researcher looks at before choosing cache sizes: one streaming
/// pass over a trace (memory grows with its distinct objects only).
public struct TraceInfo: Sendable, Codable, Equatable {
  public var trace: String
  public var format: String
  public var requests: Int64 = 0
  public var uniqueObjects: Int = 0
  public var bytesRequested: Int64 = 0
  /// The sum of the distinct objects' sizes (each at its first size).
  public var footprintBytes: Int64 = 0
  /// The share of objects requested exactly once.
  public var oneHitWonderShare: Double = 0
  /// Zipf exponent of the rank-frequency curve (least squares on log-log)
  /// and the fit's R², over the ranks requested at least 10 times (all
  /// ranks when fewer than 10 are).
  public var zipfAlpha: Double = 0
  public var zipfR2: Double = 0
  /// Requests by reuse distance (requests since the key's last request) and
  /// by stack distance (distinct objects since then, the object included),
  /// in power-of-two buckets: bucket i counts distances in [2^i, 2^(i+1)).
  /// First requests are counted apart.
  public var reuseDistanceBuckets: [Int64] = []
  public var stackDistanceBuckets: [Int64] = []
  public var firstRequests: Int64 = 0
  /// Object sizes (distinct objects): percentiles 0, 25, 50, 75, 90, 99, 100.
  public var sizePercentiles: [Int64] = []
  /// First and last timestamps (seconds), and the span.
  public var firstTime: Int64 = 0
  public var lastTime: Int64 = 0
  /// The latest timestamp less the earliest (not the last less the first:
  /// a clock may go back), at most 2⁶³−1: a longer one is flagged by
  /// ``timeSpanOverflows``.
  public var timeSpan: Int64 = 0
  /// Whether the timestamps lie further apart than 2⁶³−1 s (``timeSpan``
  /// then holds 2⁶³−1).
  public var timeSpanOverflows = false
  /// Cache sizes worth sweeping: 0.1% to 10% of the distinct objects
  /// (count mode) and of the footprint (byte mode), log-spaced.
  public var suggestedSizes: [Int64] = []
  public var suggestedByteSizes: [Int64] = []
  /// Requests by operation (``TraceRecord/Operation``): every request is a
  /// get in a format without operations.
  public var gets: Int64 = 0
  public var sets: Int64 = 0
  public var deletes: Int64 = 0
  /// Requests that carry a time-to-live, and the TTLs' least, mean and
  /// greatest (seconds; 0 without any).
  public var requestsWithTtl: Int64 = 0
  public var ttlMin: Int64 = 0
  public var ttlMean: Double = 0
  public var ttlMax: Int64 = 0
  /// Malformed lines passed over under `--skip-bad-lines`.
  public var skipped = SkippedRecords()
  /// The request stream's fingerprint (``StreamDigest``: every key, size and
  /// time in order): two traces with the same counts but other requests
  /// have other digests. `evlab merge` checks that shards read the same.
  public var digest = ""

  /// Every field but `skipped`; the bucket lists' names say their scale
  /// (snake_case as every key: `reuse_distance_log2_buckets`).
  enum CodingKeys: String, CodingKey {
    case trace, format, requests, uniqueObjects, bytesRequested, footprintBytes, oneHitWonderShare, zipfAlpha, zipfR2
    case reuseDistanceBuckets = "reuseDistanceLog2Buckets"
    case stackDistanceBuckets = "stackDistanceLog2Buckets"
    case firstRequests, sizePercentiles, firstTime, lastTime, timeSpan, timeSpanOverflows, suggestedSizes,
      suggestedByteSizes, digest
    case gets, sets, deletes, requestsWithTtl, ttlMin, ttlMean, ttlMax
  }

  public static let percentileLevels: [Double] = [0, 25, 50, 75, 90, 99, 100]

  /// The `p` quantile of `sorted` (ascending, not empty) by linear
  /// interpolation between the two nearest ranks, as GSL's
  /// `gsl_stats_quantile_from_sorted_data` and NumPy's default define it.
  /// Here rather than from EvictionStats, so the engine links no GSL.
  static func quantile(sorted: [Double], _ p: Double) -> Double {
    let index = p * Double(sorted.count - 1)
    let lower = Int(index)
    guard lower < sorted.count - 1 else { return sorted[lower] }
    let delta = index - Double(lower)
    return (1 - delta) * sorted[lower] + delta * sorted[lower + 1]
  }

  /// Reads `source` once and computes its statistics.
  /// The footprint alone, as ``measure(_:progress:)`` counts it: distinct
  /// objects, and the sum of their sizes (each at its first). One pass that
  /// keeps a set of keys and nothing else (``DistinctKeys``), for sizes
  /// given as shares of the footprint; the whole analysis (stack distances,
  /// the Zipf fit) took about ten times as long.
  public static func footprint(_ source: TraceSource) throws(TraceError) -> (objects: Int, bytes: Int64) {
    var seen = DistinctKeys()
    // Decoding on a spare core while this one counts, as a replay does.
    var source = source
    if ProcessInfo.processInfo.activeProcessorCount > 1 { source.readAhead = true }
    _ = try source.forEachBatch { records, tile in seen.add(records, offset: tile.idOffset) }
    return (seen.count, seen.bytes)
  }

  public static func measure(_ source: TraceSource, progress: ReplayProgress? = nil) throws(TraceError) -> TraceInfo {
    var info = TraceInfo(trace: source.name, format: source.format.rawValue)
    var counts: [UInt64: Int] = [:]
    var lastSeen: [UInt64: Int64] = [:]
    var sizes: [UInt64: Int64] = [:]
    var tree = StackDistanceTree()
    var reuse = Array(repeating: Int64(0), count: 64)
    var stack = Array(repeating: Int64(0), count: 64)
    var first = true
    var digest = StreamDigest()
    var (earliest, latest) = (Int64.max, Int64.min)
    var (ttlMin, ttlMax, ttlSum) = (UInt32.max, UInt32(0), 0.0)
    /// The tables' capacity last reported to ``GrowthWatch``, so a full
    /// table is reported once, not at every request until it grows.
    var watched = 0
    info.skipped = try source.forEachBatch(progress: progress) { (records, tile) throws(TraceError) in
      let offset = tile.idOffset
      for record in records {
        let key = record.key &+ offset
        digest.add(key: key, size: record.size, time: record.time)
        info.requests += 1
        info.bytesRequested += record.size
        switch record.op {
        case .get: info.gets += 1
        case .set: info.sets += 1
        case .delete: info.deletes += 1
        }
        if record.ttl != 0 {
          info.requestsWithTtl += 1
          (ttlMin, ttlMax) = (min(ttlMin, record.ttl), max(ttlMax, record.ttl))
          ttlSum += Double(record.ttl)
        }
        if first {
          info.firstTime = record.time
          first = false
        }
        info.lastTime = record.time
        earliest = min(earliest, record.time)
        latest = max(latest, record.time)
        if counts.count == counts.capacity && counts.capacity != watched {
          // Three tables of 16-byte entries grow together, each to twice
          // its slots (at most 3/4 full: about 22 bytes an entry).
          // Checked at every doubling from 8 MiB (not only past
          // GrowthWatch's 64 MiB): the stack-distance tree grows beside
          // them. Smaller tables are left alone, or the check's 64 MiB
          // margin would refuse a trace of a few objects under a tight limit.
          watched = counts.capacity
          let growth = Int64(3 * counts.capacity * 2 * 22)
          if growth >= 8 << 20 {
            try MemoryBudget.check(
              growth, for: "the trace statistics' tables (\(counts.count) objects)",
              wayOut: "trace-info keeps an entry per distinct object; run it where more memory is free")
          }
        }
        counts[key, default: 0] += 1
        if let last = lastSeen[key] {
          reuse[63 - (info.requests - last).leadingZeroBitCount] += 1
        } else {
          info.firstRequests += 1
          sizes[key] = record.size
          info.footprintBytes += record.size
        }
        lastSeen[key] = info.requests
        if let distance = tree.access(key, weight: 1).distance {
          stack[63 - distance.leadingZeroBitCount] += 1
        }
      }
    }
    if info.requests == 0 { throw .emptyTrace(path: source.path) }
    info.digest = digest.description
    if info.requestsWithTtl > 0 {
      (info.ttlMin, info.ttlMax) = (Int64(ttlMin), Int64(ttlMax))
      info.ttlMean = ttlSum / Double(info.requestsWithTtl)
    }
    let (span, overflow) = latest.subtractingReportingOverflow(earliest)
    (info.timeSpan, info.timeSpanOverflows) = (overflow ? .max : span, overflow)
    info.uniqueObjects = counts.count
    info.oneHitWonderShare = Double(counts.values.filter { $0 == 1 }.count) / Double(counts.count)
    func trimmed(_ buckets: [Int64]) -> [Int64] {
      var b = buckets
      while let last = b.last, last == 0 { b.removeLast() }
      return b
    }
    info.reuseDistanceBuckets = trimmed(reuse)
    info.stackDistanceBuckets = trimmed(stack)
    // The sorted frequencies and sizes below, and their copies.
    GrowthWatch.willAllocate(counts.count * 4 * 8, "sorting \(counts.count) objects' frequencies and sizes")
    (info.zipfAlpha, info.zipfR2) = zipfFit(counts.values.sorted(by: >))
    let objectSizes = sizes.values.map(Double.init).sorted()
    info.sizePercentiles = percentileLevels.map { Int64(quantile(sorted: objectSizes, $0 / 100).rounded()) }
    info.suggestedSizes = sweep(Int64(info.uniqueObjects))
    // A byte cache below the median object holds almost nothing: the sweep starts there.
    let median = objectSizes.isEmpty ? 1 : Int64(quantile(sorted: objectSizes, 0.5).rounded())
    info.suggestedByteSizes = sweep(info.footprintBytes, from: median)
    return info
  }

  /// Least squares of log(frequency) on log(rank): alpha is minus the slope.
  public static func zipfFit(_ frequencies: [Int]) -> (alpha: Double, r2: Double) {
    var points = frequencies.enumerated().filter { $0.element >= 10 }
    if points.count < 10 { points = Array(frequencies.enumerated()) }
    guard points.count >= 2 else { return (0, 0) }
    let xs = points.map { log(Double($0.offset + 1)) }
    let ys = points.map { log(Double($0.element)) }
    let n = Double(xs.count)
    let mx = xs.reduce(0, +) / n
    let my = ys.reduce(0, +) / n
    var sxy = 0.0
    var sxx = 0.0
    var syy = 0.0
    for (x, y) in zip(xs, ys) {
      sxy += (x - mx) * (y - my)
      sxx += (x - mx) * (x - mx)
      syy += (y - my) * (y - my)
    }
    guard sxx > 0 else { return (0, 0) }
    let slope = sxy / sxx
    let r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1
    return (-slope, r2)
  }

  /// Eight log-spaced sizes from 0.1% to 10% of `total`, none below `least`
  /// (at least 1, at most `total`, distinct).
  static func sweep(_ total: Int64, from least: Int64 = 1) -> [Int64] {
    var sizes: [Int64] = []
    for i in 0..<8 {
      let size = max(1, least, Int64((Double(total) * 0.001 * pow(100, Double(i) / 7)).rounded()))
      if sizes.last != size && size <= max(total, 1) { sizes.append(size) }
    }
    return sizes
  }

  /// `{"trace": …, "requests": …, …}` with snake_case keys.
}
