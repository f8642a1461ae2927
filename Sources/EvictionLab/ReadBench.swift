import ArgumentParser
import EvictionExperiments
import EvictionReports
import EvictionSim

/// How fast a reader streams a trace from the page cache.
struct ReadBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "read",
    abstract: "Median records per second of reading a trace (warm page cache; decompression included).",
    discussion: """
      Reads the whole trace --runs times after one warm-up read and reports the median. Example:
        evlab bench read ../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin --runs 9
      """)

  @Argument(help: "Trace files.")
  var traces: [String]

  @OptionGroup var traceOptions: TraceOptions

  @Option(help: "Timed reads per trace.")
  var runs: Int = 7

  func validate() throws {
    guard runs >= 1 else { throw ArgumentError("--runs must be at least 1") }
    guard runs <= maximumRuns else { throw ArgumentError("--runs \(runs): at most \(maximumRuns)") }
  }

  func run() throws {
    let rows = try traces.map { path in
      let source = try traceSource(path, traceOptions)
      return try failing { () throws(BenchError) in try ReadBenchmark.run(source, rounds: runs) }
    }
    print(BenchTables.read(rows), terminator: "")
  }
}

/// The most timed runs (or rounds) a benchmark takes: medians settle long
/// before, and a count past it is a typo that would run for days.
let maximumRuns = 10_000
