import EvictionCore
import EvictionRun
import EvictionTraces

/// What of a replay is counted, and how the count is cut in time: a
/// warm-up whose requests reach the policy but not the counts (libCacheSim's
/// `--warmup-sec`), and intervals whose miss ratios make a time series
/// (libCacheSim's `--report-interval`). Durations read the trace's clock as
/// never going back: a request stamped before one already read counts at
/// the latest timestamp so far, so a warm-up ends once and an interval is
/// never reopened.
public struct ReplayWindow: Sendable, Hashable, Codable {
  /// A stretch of a trace: a number of requests, or a duration on the
  /// trace's own clock (its timestamps; seconds in oracleGeneral and most
  /// formats that carry time).
  public enum Span: Sendable, Hashable, Codable, CustomStringConvertible {
    case requests(Int64)
    case duration(Int64)

    /// `100000` requests, or a duration: `3600s`, `90m`, `6h`, `2d`.
    public init(parsing text: String, option: String) throws(TraceError) {
      let trimmed = String(text.filter { !$0.isWhitespace }).lowercased()
      let units: [(Character, Int64)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
      if let last = trimmed.last, let unit = units.first(where: { $0.0 == last }),
        let n = Int64(trimmed.dropLast()), n > 0, n <= Int64.max / unit.1
      {
        self = .duration(n * unit.1)
      } else if let n = Int64(trimmed), n > 0 {
        self = .requests(n)
      } else if let n = Int64(trimmed.filter { $0.isNumber || $0 == "-" }), n <= 0 {
        throw .invalidOption(
          "\(option.isEmpty ? "" : option + " ")'\(text)': a span is at least 1 request or 1 second; leave it out for none"
        )
      } else {
        throw .invalidOption(
          "\(option.isEmpty ? "" : option + " ")'\(text)' is neither a number of requests (100000) nor a duration on the trace's clock (3600s, 90m, 6h, 2d)"
        )
      }
    }

    public var description: String {
      switch self {
      case .requests(let n): "\(n)"
      case .duration(let seconds): "\(seconds)s"
      }
    }
  }

  public var warmup: Span?
  public var interval: Span?

  public init(warmup: Span? = nil, interval: Span? = nil) {
    self.warmup = warmup
    self.interval = interval
  }

  public var isEmpty: Bool { warmup == nil && interval == nil }

  /// The error of a warm-up that left none of `requests` to count. A
  /// duration reads the trace's clock: a trace without times (txt) has
  /// every request at time 0, inside any duration, so it says so.
  @usableFromInline func warmupCoversAll(_ path: String, requests: Int64) -> TraceError {
    var text =
      "\(path): the warm-up (\(warmup.map(String.init(describing:)) ?? "?")) covers all \(requests) requests; give a shorter \(Setting.warmup)"
    if case .duration = warmup {
      text +=
        ", or one in requests (e.g. \(Setting.warmup) \(max(1, requests / 10))): a duration reads the trace's clock, and a trace without times (such as txt) has every request at time 0"
    }
    return .invalidOption(text)
  }
}

/// Tells a stream of requests' warm-up from the rest: the first `n`
/// requests, or those before the first timestamp plus the duration. Every
/// request of the trace passes through it in order (sampled ones included).
public struct WarmupGate: Sendable {
  @usableFromInline let span: ReplayWindow.Span?
  @usableFromInline var seen: Int64 = 0
  @usableFromInline var end: Int64? = nil
  /// Whether the last request passed was in the warm-up.
  @usableFromInline var warming: Bool

  public init(_ span: ReplayWindow.Span?) {
    self.span = span
    warming = span != nil
  }

  /// Whether the next request, stamped `time`, falls in the warm-up. Once
  /// one does not, none after it does.
  @inlinable @inline(__always)
  public mutating func warms(_ time: Int64) -> Bool {
    guard warming, let span else { return false }
    seen &+= 1
    switch span {
    case .requests(let n): warming = seen <= n
    case .duration(let d):
      if end == nil {
        let (sum, overflow) = time.addingReportingOverflow(d)
        end = overflow ? .max : sum
      }
      warming = time < end!
    }
    return warming
  }
}

/// One interval of a replay's time series: its counts, and where it starts.
public struct IntervalCounts: Sendable, Equatable, Codable {
  /// 0-based: request intervals are numbered from the end of the warm-up;
  /// time intervals by how many durations after it they begin (an interval
  /// without requests is absent).
  public var index: Int
  /// The 1-based position in the trace of the interval's first request.
  public var firstRequest: Int64
  /// The trace's timestamp of that request.
  public var startTime: Int64
  public var counts: HitCounts

  public init(index: Int, firstRequest: Int64, startTime: Int64, counts: HitCounts) {
    (self.index, self.firstRequest, self.startTime, self.counts) = (index, firstRequest, startTime, counts)
  }
}

extension TraceReplay {
  /// ``replay(_:through:sizeMode:needsNextAccess:progress:observe:)`` with a
  /// warm-up and intervals: every request reaches the policy in order; those
  /// of the warm-up are left out of the counts (but not of the peak
  /// occupancy), and the counted ones are also summed per interval. With a
  /// `penalty` schedule, the policy hears each request's miss penalty
  /// before it (``EvictionCore/ReplacementPolicy/willServe(penalty:)``) and
  /// the counted ones' penalties are summed (``ReplayCounts/penalties``).
  @inlinable
  public static func replay<Policy: ReplacementPolicy & ~Copyable>(
    _ trace: TraceSource, through policy: inout Policy, sizeMode: SizeMode, window: ReplayWindow,
    needsNextAccess: Bool = false, progress: ReplayProgress? = nil, penalty: PenaltySchedule? = nil
  ) throws(TraceError) -> ReplayCounts where Policy.Key == UInt64 {
    var counts = ReplayCounts()
    let countMode = sizeMode == .count
    var penalties = penalty.map { PenaltyTotals(model: $0.model) }
    var position: Int64 = 0
    var gate = WarmupGate(window.warmup)
    var countStart: (time: Int64, position: Int64)? = nil
    var current: IntervalCounts? = nil
    // Time intervals follow the latest timestamp seen: a request stamped
    // before one already counted falls in the current interval, so an
    // interval is never reopened (see ``ReplayWindow``).
    var latest = Int64.min
    counts.skipped = try trace.forEachBatch(withNextAccess: needsNextAccess, progress: progress) {
      records, tile throws(TraceError) in
      for record in records {
        position &+= 1
        latest = max(latest, record.time)
        let warming = gate.warms(record.time)
        let cost = try penalty?.penalties(of: record, at: position &- 1 &- tile.requestOffset)
        if let cost { policy.willServe(penalty: Float(cost.miss)) }
        let hit = policy.access(record.request(in: tile, time: position, countMode: countMode))
        if !hit { counts.maxOccupancy = max(counts.maxOccupancy, policy.usedWeight) }
        if warming {
          counts.warmupRequests &+= 1
          continue
        }
        let start = countStart ?? (latest, position)
        countStart = start
        counts.requests &+= 1
        counts.hits &+= hit ? 1 : 0
        counts.bytesRequested &+= record.size
        counts.bytesMissed &+= hit ? 0 : record.size
        if let cost { penalties?.add(cost, hit: hit) }
        guard let interval = window.interval else { continue }
        let index: Int
        switch interval {
        case .requests(let n): index = Int((position - start.position) / n)
        case .duration(let d):
          let (elapsed, overflow) = latest.subtractingReportingOverflow(start.time)
          index = Int((overflow ? .max : max(0, elapsed)) / d)
        }
        if let open = current, open.index != index {
          counts.intervals.append(open)
          current = nil
        }
        if current == nil {
          current = IntervalCounts(
            index: index, firstRequest: position, startTime: latest,
            counts: HitCounts(requests: 0, hits: 0, bytesRequested: 0, bytesMissed: 0))
        }
        current!.counts.requests &+= 1
        current!.counts.hits &+= hit ? 1 : 0
        current!.counts.misses &+= hit ? 0 : 1
        current!.counts.bytesRequested &+= record.size
        current!.counts.bytesMissed &+= hit ? 0 : record.size
      }
      if counts.bytesRequested < 0 {
        throw .invalidOption("\(trace.path): the bytes requested exceed 2^63; replay a shorter trace")
      }
    }
    if let open = current { counts.intervals.append(open) }
    if position == 0 { throw .emptyTrace(path: trace.path) }
    if counts.requests == 0 {
      throw window.warmupCoversAll(trace.path, requests: position)
    }
    counts.flashWrites = policy.flashWrites
    counts.learning = policy.learning
    counts.penalties = penalties
    return counts
  }
}
