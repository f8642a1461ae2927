import EvictionCache
import EvictionCore
import EvictionSim
import EvictionStats
import EvictionTraces

/// `evlab bench replay`: single-thread replay throughput per policy, in
/// interleaved rounds (each round replays every policy once, so machine
/// noise spreads evenly), reported as the median with min and max; with a
/// bare-bones LRU loop (``BareLRU``) timed in every round as the practical
/// limit to compare against.
public struct ReplayBenchmark: Sendable {
  public var source: TraceSource
  public var policies: [PolicySpec]
  public var cacheSize: Int64
  public var sizeMode: SizeMode
  public var rounds: Int
  public var bareReference: Bool

  public init(
    source: TraceSource, policies: [PolicySpec], cacheSize: Int64, sizeMode: SizeMode, rounds: Int,
    bareReference: Bool
  ) {
    self.source = source
    self.policies = policies
    self.cacheSize = cacheSize
    self.sizeMode = sizeMode
    self.rounds = rounds
    self.bareReference = bareReference
  }

  /// One row: a policy's medians (JSON keys: the snake_case names).
  public struct Row: Codable, Sendable, Equatable {
    public var policy: String
    public var requests: Int64
    public var misses: Int64
    public var runs: Int
    public var medianRequestsPerSecond: Double
    public var minRequestsPerSecond: Double
    public var maxRequestsPerSecond: Double
    public var ratioToBareLru: Double?
    public var missRatio: Double { requests == 0 ? 0 : Double(misses) / Double(requests) }
  }

  /// What `--json` writes.
  public struct Report: Codable, Sendable {
    public var trace: String
    public var copies: Int
    public var cacheSize: Int64
    public var sizeMode: SizeMode
    /// The bare-bones LRU first (policy `bare-bones lru`) when it ran.
    public var results: [Row]
  }

  /// The name the bare loop's row carries.
  public static let bareName = "bare-bones lru"

  /// Runs every round; `log` hears one line per timed replay. A policy
  /// whose misses change between rounds is an error (it is not deterministic).
  public func run(log: (String) -> Void = { _ in }) throws(BenchError) -> Report {
    var rates = Array(repeating: [Double](), count: policies.count)
    var first: [ReplayResult?] = Array(repeating: nil, count: policies.count)
    var bareRates: [Double] = []
    var bareMisses = 0
    var keys: [UInt64] = []
    var stride: UInt64 = 0
    if bareReference {
      guard sizeMode == .count else { throw BenchError("the bare-bones LRU is a count-mode loop; use count mode") }
      var single = source
      single.copies = 1
      do throws(TraceError) {
        try single.forEachBatch { records, _ in keys.append(contentsOf: records.lazy.map(\.key)) }
        stride = try source.tileStride()
      } catch { throw BenchError(error) }
    }
    for round in 1...rounds {
      if bareReference {
        let start = monotonicNanoseconds()
        bareMisses = BareLRU.replay(keys, copies: source.copies, stride: stride, capacity: Int(cacheSize))
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        bareRates.append(Double(keys.count * source.copies) / seconds)
        log("round \(round)/\(rounds) \(Self.bareName): \(millions(bareRates.last!)) M req/s")
      }
      for (i, spec) in policies.enumerated() {
        let result: ReplayResult
        do throws(TraceError) {
          result = try TraceReplay.run(source, policy: spec, cacheSize: cacheSize, sizeMode: sizeMode)
        } catch { throw BenchError(error) }
        if let earlier = first[i], earlier.misses != result.misses {
          throw BenchError(
            "\(spec) gave \(result.misses) misses in round \(round) but \(earlier.misses) before: not deterministic")
        }
        first[i] = result
        rates[i].append(result.requestsPerSecond)
        log("round \(round)/\(rounds) \(spec): \(millions(result.requestsPerSecond)) M req/s")
      }
    }
    var rows: [Row] = []
    let bare = bareRates.isEmpty ? nil : SampleSummary(bareRates)
    if let bare {
      let requests = Int64(keys.count * source.copies)
      rows.append(
        Row(
          policy: Self.bareName, requests: requests, misses: Int64(bareMisses), runs: rounds,
          medianRequestsPerSecond: bare.median.rounded(), minRequestsPerSecond: bare.minimum.rounded(),
          maxRequestsPerSecond: bare.maximum.rounded(), ratioToBareLru: 1))
    }
    for (i, spec) in policies.enumerated() {
      let s = SampleSummary(rates[i])
      rows.append(
        Row(
          policy: spec.description, requests: first[i]!.requests, misses: first[i]!.misses, runs: rounds,
          medianRequestsPerSecond: s.median.rounded(), minRequestsPerSecond: s.minimum.rounded(),
          maxRequestsPerSecond: s.maximum.rounded(), ratioToBareLru: bare.map { s.median / $0.median }))
    }
    return Report(
      trace: source.name, copies: source.copies, cacheSize: cacheSize, sizeMode: sizeMode, results: rows)
  }
}

/// A benchmark that cannot run, or whose result is wrong, in one line.
public struct BenchError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ message: String) { description = message }
  public init(_ error: some CustomStringConvertible) { description = error.description }
}

/// `x / 10⁶` with two decimals, for progress lines.
func millions(_ x: Double) -> String {
  let hundredths = Int64((x / 1e4).rounded())
  let fraction = hundredths % 100
  return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + String(fraction)
}
