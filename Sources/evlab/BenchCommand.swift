import ArgumentParser
import EvictionCore
import EvictionReports
import EvictionSim
import EvictionStats
import EvictionTraces
import Foundation

struct Bench: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Benchmarks (figures for people; never a pass/fail test).",
    subcommands: [ReplayBench.self])
}

/// Single-thread replay throughput per policy: `runs` rounds, each replaying
/// every policy once in turn (interleaved, so machine noise spreads evenly),
/// reported as the median with min and max.
struct ReplayBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Median single-thread replay throughput per policy.",
    discussion: """
      The issue's workload: the cloudPhysicsIO oracleGeneral trace tiled 100 times with disjoint ids:
        evlab bench replay ../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin \\
          --repeat 100 --size 5000 --runs 7
        evlab bench replay ... --repeat 100 --size 256m --size-mode bytes --runs 7
      """)

  @Argument(help: "The trace to replay.")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions

  @Option(name: .customLong("policy"), help: "Policies (default: the seven core policies).")
  var policies: [String] = ["lru", "fifo", "lfu", "mru", "random", "arc", "slru"]

  @Option(help: "Cache size (objects in count mode, bytes in byte mode; k/m/g suffixes).")
  var size: String

  @Option(help: "count or bytes (default count).")
  var sizeMode: SizeMode = .count

  @Option(name: .customLong("repeat"), help: "Tile the trace this many times with disjoint ids (default 1).")
  var copies: Int = 1

  @Option(help: "Rounds; the median is reported (default 5).")
  var runs: Int = 5

  @Option(help: "Write the medians as JSON to PATH.")
  var json: String?

  /// Checks the arguments; a bad one is reported in one line by `oneLineErrors`.
  func checkArguments() throws {
    try traceOptions.checkArguments()
    guard runs >= 1 && copies >= 1 else { throw ValidationError("--runs and --repeat must be at least 1") }
    _ = try parseSize(size)
    _ = try parsePolicies(policies)
  }

  func run() throws {
    try oneLineErrors { try checkArguments() }
    let specs = try parsePolicies(policies)
    let capacity = try parseSize(size)
    let source: TraceSource
    do throws(TraceError) { source = try traceOptions.source(trace, copies: copies) } catch { throw fail(error) }
    var rates = Array(repeating: [Double](), count: specs.count)
    var reference: [ReplayResult?] = Array(repeating: nil, count: specs.count)
    for round in 1...runs {
      for (i, spec) in specs.enumerated() {
        let result: ReplayResult
        do throws(TraceError) {
          result = try TraceReplay.run(source, policy: spec, cacheSize: capacity, sizeMode: sizeMode)
        } catch { throw fail(error) }
        if let first = reference[i], first.misses != result.misses {
          throw fail("\(spec) gave \(result.misses) misses in round \(round) but \(first.misses) before: not deterministic")
        }
        reference[i] = result
        rates[i].append(result.requestsPerSecond)
        printError("round \(round)/\(runs) \(spec): \(ReplayTables.fixed(result.requestsPerSecond / 1e6, 2)) M req/s")
      }
    }
    print("policy          requests   miss ratio   median Mreq/s   min     max")
    var rows: [String] = []
    for (i, spec) in specs.enumerated() {
      let s = SampleSummary(rates[i])
      let r = reference[i]!
      print(
        spec.description.padding(16) + String(r.requests).padding(11)
          + ReplayTables.fixed(r.missRatio, 4).padding(13) + ReplayTables.fixed(s.median / 1e6, 2).padding(16)
          + ReplayTables.fixed(s.minimum / 1e6, 2).padding(8) + ReplayTables.fixed(s.maximum / 1e6, 2))
      rows.append(
        "{\"policy\": \"\(spec)\", \"requests\": \(r.requests), \"misses\": \(r.misses), \"runs\": \(runs), "
          + "\"median_requests_per_second\": \(s.median.rounded()), \"min_requests_per_second\": \(s.minimum.rounded()), "
          + "\"max_requests_per_second\": \(s.maximum.rounded())}")
    }
    try write(
      "{\"trace\": \"\(source.name)\", \"copies\": \(copies), \"cache_size\": \(capacity), \"size_mode\": \"\(sizeMode.rawValue)\", \"results\": [\n  "
        + rows.joined(separator: ",\n  ") + "\n]}\n", to: json)
  }
}
