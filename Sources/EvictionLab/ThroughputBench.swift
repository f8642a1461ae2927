import ArgumentParser
import EvictionExperiments
import EvictionReports
import EvictionSim
import Foundation

/// `evlab bench throughput`: replay throughput per policy, and, for people
/// who want a speed gate on a quiet machine of their own, a comparison
/// against a baseline that calls a regression only when Welch's test and a
/// minimum effect size both say so. Never run as a gate in CI (a shared
/// 2-core machine is too noisy for wall-clock gates).
struct ThroughputBench: ParsableCommand, TakesSizeMode {
  static let configuration = CommandConfiguration(
    commandName: "throughput",
    abstract:
      "Replay throughput per policy; with --baseline, a statistical regression check against another build or a recorded run.",
    discussion: """
      Record a baseline, change the code, rebuild, compare:
        evlab bench throughput --runs 9 --json base.json
        evlab bench throughput --runs 9 --baseline base.json
      Or interleave runs of two builds in one session (what drifts with the machine drifts for both):
        cp .build/release/evlab /tmp/evlab-before; <change, rebuild>
        evlab bench throughput --runs 9 --baseline /tmp/evlab-before
      A policy regressed when its samples differ by Welch's t-test at --alpha AND its median dropped by at \
      least --min-effect; the exit status is 1 then.
      """)

  @Argument(help: "The trace to replay (the bundled Zipf trace by default).")
  var trace: String = "traces/zipf-0.9.oracleGeneral.zst"

  @OptionGroup var traceOptions: TraceOptions

  @Option(name: [.customLong("policy"), .customLong("policies")], help: "Policies.")
  var policies: [Checked<PolicyList>] = ["lru,fifo,clock,sieve,arc,s3fifo,wtinylfu"]

  @Option(help: "Cache size.")
  var size: Checked<AbsoluteSize> = "2000"

  @OptionGroup var sizeModeOption: SizeModeOption

  @Option(
    name: .customLong("repeat"),
    help: "Tile the trace this many times per run, so a run lasts long enough to time.")
  var copies: Int = 5

  @Option(help: "Runs per side (at least 2 with --baseline).")
  var runs: Int = 7

  @Option(help: "Write the samples as JSON to PATH (a baseline for a later --baseline).")
  var json: String?

  @Option(help: "A samples file written by --json, or another evlab executable to run interleaved with this one.")
  var baseline: String?

  @Option(name: .customLong("alpha"), help: "With --baseline: significance level of Welch's test (default 0.01).")
  var alphaGiven: Double?
  var alpha: Double { alphaGiven ?? 0.01 }

  @Option(
    name: .customLong("min-effect"),
    help: "With --baseline: smallest drop of the median called a regression, as a fraction (default 0.05).")
  var minEffectGiven: Double?
  var minEffect: Double { minEffectGiven ?? 0.05 }

  func validate() throws {
    _ = try policies.specs()
    try size.check()
    guard copies >= 1 else { throw ArgumentError("--repeat must be at least 1") }
    if let json { try OutputCheck.file(json, option: "--json") }
    try OutputCheck.notAnInput([("--json", json)], inputs: [trace], others: [("the --baseline file", baseline)])
    guard runs <= maximumRuns else { throw ArgumentError("--runs \(runs): at most \(maximumRuns)") }
    guard runs >= (baseline == nil ? 1 : 2) else {
      throw ArgumentError("--runs \(runs): a comparison needs at least 2 runs per side")
    }
    if baseline == nil,
      let given = [("--alpha", alphaGiven != nil), ("--min-effect", minEffectGiven != nil)].first(where: \.1)
    {
      throw ArgumentError(
        "\(given.0) is for --baseline (it judges a comparison); add --baseline or leave \(given.0) out")
    }
    guard alpha > 0 && alpha < 1 else {
      throw ArgumentError("--alpha \(alpha): a significance level lies between 0 and 1")
    }
    guard minEffect >= 0 && minEffect < 1 else {
      throw ArgumentError("--min-effect \(minEffect): a fraction from 0 to below 1")
    }
  }

  func run() throws {
    let specs = try policies.specs()
    let source = try traceSource(trace, traceOptions, copies: copies)
    let interleaved = baseline.map(ThroughputBenchmark.isExecutable) ?? false
    var base: ThroughputBenchmark.Samples? = nil
    if let baseline, !interleaved {
      // A baseline that cannot be compared is refused before the run, not after it.
      let loaded = try failing { () throws(BenchError) in try ThroughputBenchmark.load(baseline) }
      let planned = ThroughputBenchmark.Samples(
        trace: source.name, cacheSize: size.bytes, sizeMode: sizeMode, copies: source.copies,
        policies: specs.map(\.description))
      try failing { () throws(BenchError) in try ThroughputBenchmark.check(baseline: loaded, covers: planned) }
      base = loaded
    }
    let passes = runs * specs.count * (interleaved ? 2 : 1)
    try noteLongBench(
      source, copies: copies, passes: passes,
      asked: "--repeat \(copies) in \(Wording.count(passes, "timed pass", plural: "timed passes")) (--runs \(runs))")
    var current: ThroughputBenchmark.Samples
    if let baseline, interleaved {
      var arguments = ["bench", "throughput", trace, "--size", size.text, "--size-mode", sizeMode.rawValue]
      arguments += ["--repeat", String(copies), "--policy", policies.map(\.text).joined(separator: ",")]
      if let format = traceOptions.format { arguments += ["--format", format] }
      (base, current) = try failing { () throws(BenchError) in
        try ThroughputBenchmark.interleave(
          baseline: baseline, current: ThroughputBenchmark.currentExecutable,
          arguments: { arguments + ["--runs", "1", "--json", $0] }, rounds: runs, log: printError)
      }
    } else {
      current = try failing { () throws(BenchError) in
        try ThroughputBenchmark.measure(
          specs, source: source, cacheSize: size.bytes, sizeMode: sizeMode, rounds: runs, log: printError)
      }
    }
    try write(current.encoded(), to: json)
    guard let base else { return print(BenchTables.throughput(current), terminator: "") }
    let verdicts = try failing { () throws(BenchError) in
      try ThroughputBenchmark.compare(baseline: base, current: current, alpha: alpha, minimumEffect: minEffect)
    }
    print(BenchTables.comparison(verdicts), terminator: "")
    if let regressions = ThroughputBenchmark.regressions(verdicts, alpha: alpha, minimumEffect: minEffect) {
      throw fail(regressions)
    }
  }
}
