import ArgumentParser
import EvictionCache
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim

/// A read/write mix in percent: `100/0`, `75/25`.
extension ConcurrentBenchmark.Mix: ListItem {
  static var option: String { "--mix" }
  init(item: String) throws(ArgumentError) {
    do throws(BenchError) { self = try Self(item) } catch { throw ArgumentError("--mix \(error.description)") }
  }
}

/// Caffeine's GetPut benchmark: operations per second by lock strategy,
/// read/write mix and thread count.
struct ConcurrentBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "concurrent",
    abstract: "GetPut throughput (Caffeine's JMH benchmark) of MemoryCache per lock strategy, mix and thread count.",
    discussion: """
      A cache of 65,536 entries, filled, read and written at Zipf-distributed keys (exponent 0.99, \
      scrambled) from N threads for a fixed time; every read hits, every write replaces. Rounds \
      interleave every cell and the median is reported, beside Dictionary+Mutex and NSCache \
      (lock values dictionary+mutex and nscache). Threads beyond the machine's cores take turns: \
      the `cores` column says how many there were. Example (what results/concurrency/ holds):
        evlab bench concurrent --mix 100/0,75/25,50/50,0/100 --threads 1,2,4,8 \\
          --lock mutex,pthread,striped:8,buffered --csv concurrency.csv
      With --ceiling, each cell also runs as N threads with a cache each, sharing nothing: \
      what the hardware gives N threads, and each row's scaling efficiency against it.
      """)

  @Option(help: "Read/write mixes in percent, comma-separated or repeated.")
  var mix: [Checked<ListOf<ConcurrentBenchmark.Mix>>] = ["100/0,75/25,50/50,0/100"]

  @Option(help: "Thread counts, comma-separated or repeated.")
  var threads: [Checked<ThreadCounts>] = ["1,2,4,8"]

  @Option(
    help: "Lock strategies, comma-separated or repeated: \(LockStrategy.names).")
  var lock: [Checked<LockList>] = ["mutex,striped:8,buffered"]

  @Option(help: "The cache's policy (one; catalog name with parameters).")
  var policy: String = "lru"

  @Option(name: .customLong("seconds"), help: "Seconds each cell runs in each round (default 0.5).")
  var secondsGiven: Double?
  var seconds: Double { secondsGiven ?? 0.5 }

  @Option(
    help: ArgumentHelp(
      "Each thread makes N operations instead of running for --seconds: a fixed amount of work, for instruction counts (valgrind --tool=callgrind).",
      valueName: "n"))
  var operations: Int?

  @Option(help: "Rounds; the median is reported.")
  var runs: Int = 3

  @Flag(help: "Leave out the Dictionary+Mutex and NSCache comparison points.")
  var noBaselines = false

  @Flag(
    help: ArgumentHelp(
      "Also run each cell as N threads that share nothing (a cache each): the machine's ceiling, and each row's scaling efficiency against it.",
      discussion: "Doubles the run's time."))
  var ceiling = false

  @Option(
    help: ArgumentHelp(
      "Write the key ring and each mix's write positions into DIRECTORY (getput-keys.u64, getput-writes-R-W.u8) and stop, for a harness in another language (scripts/versus-caffeine.sh).",
      valueName: "directory"))
  var writeWorkload: String?

  @OptionGroup var output: OutputOptions

  @Option(
    help: "Write a chart per mix (getput-R-W.svg, .pdf and .png: ops/s by threads, a line per lock) into DIRECTORY.")
  var charts: String?

  func spec() throws -> PolicySpec {
    let spec: PolicySpec
    do throws(PolicyError) { spec = try PolicySpec(policy) } catch { throw ArgumentError(error.description) }
    guard spec.descriptor.canDriveACache else {
      throw ArgumentError("--policy \(spec.name) cannot run a cache (offline or trimmed on a timer)")
    }
    return spec
  }

  func validate() throws {
    _ = try spec()
    if let charts { try OutputCheck.folder(charts, option: "--charts") }
    try mix.check()
    try threads.check()
    try lock.check()
    let mixes: [ConcurrentBenchmark.Mix] = mix.values()
    let counts = threads.counts()
    let locks: [LockStrategy] = lock.values()
    guard Set(mixes).count == mixes.count else { throw ArgumentError("--mix names a mix twice") }
    guard Set(counts).count == counts.count else { throw ArgumentError("--threads names a count twice") }
    guard Set(locks).count == locks.count else { throw ArgumentError("--lock names a strategy twice") }
    if secondsGiven != nil && operations != nil {
      throw ArgumentError("--seconds and --operations both say how long each thread runs; give one of them")
    }
    guard seconds > 0 && seconds <= 3_600 else { throw ArgumentError("--seconds \(seconds): give 0 < seconds ≤ 3600") }
    guard runs >= 1 else { throw ArgumentError("--runs must be at least 1") }
    guard runs <= maximumRuns else { throw ArgumentError("--runs \(runs): at most \(maximumRuns)") }
    if writeWorkload != nil {
      // It runs nothing, so nothing would be written to these: say so.
      let ignored =
        (ceiling ? ["--ceiling"] : []) + (charts != nil ? ["--charts"] : [])
        + (output.json != nil ? ["--json"] : []) + (output.csv != nil ? ["--csv"] : [])
        + (operations != nil ? ["--operations"] : [])
      if !ignored.isEmpty {
        throw ArgumentError(
          "--write-workload runs no benchmark, so \(ignored.joined(separator: ", ")) would do nothing: run them apart")
      }
    }
    if let operations, !(1...(1 << 40)).contains(operations) {
      throw ArgumentError("--operations \(operations): give 1 to 2^40 operations per thread")
    }
  }

  func run() throws {
    var benchmark = ConcurrentBenchmark(
      policy: try spec(), locks: lock.values(), mixes: mix.values(), threads: threads.counts(), seconds: seconds,
      rounds: runs, baselines: !noBaselines, ceiling: ceiling)
    benchmark.operations = operations
    if let writeWorkload {
      let files = try failing { () throws(BenchError) in try benchmark.writeWorkload(into: writeWorkload) }
      for file in files { print(file) }
      return
    }
    let cells = lock.values().count * mix.values().count * threads.counts().count
    noteLongSpan(
      Double(cells) * Double(runs) * (operations.map { Double($0) / 5e6 } ?? seconds),
      "\(Wording.count(cells, "cell")) in each of \(runs) rounds, "
        + (operations.map { "\($0) operations a thread (at about 5 M a second)" } ?? "\(seconds) s each")
        + ", come to")
    let report = try failing { () throws(BenchError) in try benchmark.run(log: printError) }
    try output.emit(
      table: BenchTables.concurrent(report), json: ResultWriter.json(report.results),
      csv: ResultWriter.csv(report.results))
    if let charts {
      // Each chart as SVG, PDF and PNG, beside whatever the folder holds,
      // and what made it beside the SVG (NAME.svg.provenance.json).
      let figures = Figures()
      for chart in BenchTables.concurrentCharts(report) { figures.add(chart.name, chart.svg) }
      do {
        let (files, warning) = try figures.write(into: charts, ownFolder: false)
        for svg in files where svg.hasSuffix(".svg") {
          try runProvenance().file.write(toFile: svg + ".provenance.json", atomically: true, encoding: .utf8)
        }
        if let warning { printError("warning: \(warning)") }
        printError("wrote \(files.count) chart files to \(charts)/")
      } catch {
        throw fail("cannot write the charts into \(charts): \(error.localizedDescription)")
      }
    }
  }
}
