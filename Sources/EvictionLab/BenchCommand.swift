import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim

struct Bench: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Benchmarks (figures for people; throughput --baseline is an opt-in speed gate for quiet machines) and the exact-results regression gate (check, update).",
    subcommands: [
      ReplayBench.self, ThroughputBench.self, CacheBench.self, ReadBench.self, MemoryBench.self, ConcurrentBench.self,
      BenchCheck.self,
      BenchUpdate.self,
    ])
}

/// Single-thread replay throughput per policy: `runs` rounds, each replaying
/// every policy once in turn (interleaved, so machine noise spreads evenly),
/// reported as the median with min and max.
struct ReplayBench: ParsableCommand, TakesSizeMode {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Median single-thread replay throughput per policy.",
    discussion: """
      A heavy workload: the cloudPhysicsIO oracleGeneral trace tiled 100 times with disjoint ids:
        evlab bench replay ../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin \\
          --repeat 100 --size 5000 --runs 7
        evlab bench replay ... --repeat 100 --size 256m --size-mode bytes --runs 7
      """)

  @Argument(help: "The trace to replay.")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions

  @Option(name: [.customLong("policy"), .customLong("policies")], help: "Policies.")
  var policies: [Checked<PolicyList>] = ["lru,fifo,lfu,mru,random,arc,slru"]

  @Option(help: "Cache size (objects in count mode, bytes in byte mode; k/m/g suffixes).")
  var size: Checked<AbsoluteSize>

  @OptionGroup var sizeModeOption: SizeModeOption

  @Option(name: .customLong("repeat"), help: "Tile the trace this many times with disjoint ids.")
  var copies: Int = 1

  @Option(help: "Rounds; the median is reported.")
  var runs: Int = 5

  @Option(help: "Write the medians as JSON to PATH.")
  var json: String?

  @Flag(
    help:
      "Also time a bare-bones LRU loop (keys in memory, one open-addressing table, no framework) in every round, as the practical limit to compare against (count mode only)."
  )
  var bareReference = false

  func validate() throws {
    _ = try policies.specs()
    try size.check()
    guard runs >= 1 && copies >= 1 else { throw ArgumentError("--runs and --repeat must be at least 1") }
    guard runs <= maximumRuns else { throw ArgumentError("--runs \(runs): at most \(maximumRuns)") }
    if let json { try OutputCheck.file(json, option: "--json") }
    try OutputCheck.notAnInput([("--json", json)], inputs: [trace])
    if bareReference && sizeMode != .count {
      throw ArgumentError("--bare-reference is a count-mode LRU loop; drop it or use --size-mode count")
    }
  }

  func run() throws {
    let source = try traceSource(trace, traceOptions, copies: copies)
    let passes = runs * (try policies.specs().count + (bareReference ? 1 : 0))
    try noteLongBench(
      source, copies: copies, passes: passes,
      asked: "--repeat \(copies) in \(Wording.count(passes, "timed pass", plural: "timed passes")) (--runs \(runs))")
    let benchmark = ReplayBenchmark(
      source: source, policies: try policies.specs(),
      cacheSize: size.bytes, sizeMode: sizeMode, rounds: runs, bareReference: bareReference)
    let report = try failing { () throws(BenchError) in try benchmark.run(log: printError) }
    print(BenchTables.replay(report), terminator: "")
    try write(OutputFile.json(report), to: json)
  }
}
