import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionRun
import EvictionSim
import EvictionTraces
import Foundation

struct Replay: ParsableCommand, TakesPolicies, TakesSizes, TakesSizeMode {
  static let configuration = CommandConfiguration(
    abstract: "Replay traces through policies at one or more cache sizes.",
    discussion: """
      With no TRACE, replays the bundled sample traces in traces/ with the seven core policies at \
      several sizes and writes results/default/replay.csv and replay.json (the Quick start job).

      Every (trace, policy, size) cell runs on its own core. Examples:
        evlab replay trace.oracleGeneral.bin --policy lru,arc,slru:segments=4 --size 1000,5000
        evlab replay trace.csv --policy lfu --size 16m,1g --size-mode bytes --csv -
      """)

  @Argument(help: "Trace files (.gz, .xz and .zst are decompressed on the fly).")
  var traces: [String] = []

  @OptionGroup var traceOptions: TraceOptions

  @OptionGroup var policyOptions: PolicyOptions
  @OptionGroup var sizeOptions: SizeOptions
  @OptionGroup var sizeModeOption: SizeModeOption

  @OptionGroup var admissions: AdmissionOptions

  @OptionGroup var output: OutputOptions

  @Option(help: declared(.jobs))
  var jobs: Int?

  @Option(help: declared(.tier))
  var tier: String?

  @Option(help: declared(.diskSize, "With --tier memory+disk: "))
  var diskSize: String?

  @Option(help: declared(.diskDirectory, "With --tier memory+disk: "))
  var diskDir: String?

  @Option(help: declared(.limit, "With --tier memory+disk: "))
  var limit: Int?

  @Option(help: declared(.warmup))
  var warmup: String?

  @Option(help: declared(.interval, suffix: " Needs --timeseries PATH for the series."))
  var interval: String?

  @Option(help: "With --interval: the CSV of miss ratios per interval (- for standard output).")
  var timeseries: String?

  @Flag(help: declared(.attribution))
  var attribution = false

  @Option(help: declared(.attributionReference))
  var attributionReference: String?

  @Option(
    help:
      "With --attribution: write each cell's costliest evictions and its misses by object size and reuse distance as JSON to PATH (- for standard output)."
  )
  var regret: String?

  @Flag(help: declared(.useTTL))
  var useTtl = false

  @Option(help: declared(.semantics))
  var semantics: RunDescription.Semantics = .libcachesim

  @Flag(help: declared(.fillOnMiss))
  var fillOnMiss = false

  @Option(help: declared(.expiration))
  var expiration: String?

  @Option(help: declared(.idleTTL))
  var idleTtl: String?

  @Option(name: .customLong("repeat"), help: declared(.repeatTrace))
  var copies: Int = 1

  @Option(help: declared(.penalty))
  var penalty: String?

  /// The replay these options describe, in the run description every front
  /// end fills (``RunDescription``); with no trace, the Quick start job's
  /// policies and sizes. `all` leaves out the policies this replay cannot run.
  func described() throws -> RunDescription {
    var run = RunDescription()
    run.policies = traces.isEmpty && policies.isEmpty ? DefaultJob.policies : try policies.specs()
    try sizes.check()
    run.sizes = traces.isEmpty && sizes.isEmpty ? DefaultJob.sizes : sizes.sizes
    try admissions.admissions.check()
    if !admissions.isEmpty { run.admissions = admissions.admissions.values() }
    (run.sizeMode, run.attribution, run.useTTL, run.semantics) = (sizeMode, attribution, useTtl, semantics)
    (run.fillOnMiss, run.copies, run.jobs, run.limit) = (fillOnMiss, copies, jobs, limit)
    try failing { () throws(RunError) in
      for (setting, text) in [
        (Setting.warmup, warmup), (.interval, interval), (.expiration, expiration), (.idleTTL, idleTtl),
        (.tier, tier), (.diskSize, diskSize), (.diskDirectory, diskDir),
        (.attributionReference, attributionReference), (.penalty, penalty),
      ] {
        if let text { try run.set(setting, to: text) }
      }
    }
    if run.hasOperations && policies.namesAll { run.policies.removeAll { $0.descriptor.isOffline } }
    return run
  }

  func validate() throws {
    let run = try described()
    try failing { () throws(RunError) in try run.check() }
    // What only the command line has: its traces and its output files.
    if interval != nil && timeseries == nil {
      throw ArgumentError("--interval needs --timeseries PATH for the series (a CSV file, or - for standard output)")
    }
    if timeseries != nil && interval == nil { throw ArgumentError("--timeseries needs --interval N") }
    if let timeseries {
      try OutputCheck.file(timeseries, option: "--timeseries")
      try OutputCheck.distinct([("--csv", output.csv), ("--json", output.json), ("--timeseries", timeseries)])
    }
    if regret != nil && !attribution { throw ArgumentError("--regret needs --attribution") }
    if let regret {
      try OutputCheck.file(regret, option: "--regret")
      try OutputCheck.distinct([
        ("--csv", output.csv), ("--json", output.json), ("--timeseries", timeseries), ("--regret", regret),
      ])
    }
    try OutputCheck.notAnInput(
      [("--csv", output.csv), ("--json", output.json), ("--timeseries", timeseries), ("--regret", regret)],
      inputs: traces)
    try OutputCheck.distinctTraces(traces)
    if !traces.isEmpty {
      guard !policies.isEmpty else { throw ArgumentError("no --policy given; e.g. --policy lru,arc") }
      guard !sizes.isEmpty else {
        throw ArgumentError("no --size given; e.g. --size 1000,5000 or --size 16m --size-mode bytes")
      }
    }
    if tier != nil && traces.isEmpty { throw ArgumentError("--tier memory+disk needs a trace") }
  }

  func run() throws {
    let run = try described()
    if run.tier != nil { return try runTiered(run) }
    let isDefaultJob = traces.isEmpty
    let (sources, cells, results) = try sweep(
      run, paths: isDefaultJob ? try defaultTraces() : traces, interactive: isatty(2) == 1)
    var output = self.output
    if isDefaultJob {
      output.json = output.json ?? DefaultJob.outputs.json
      output.csv = output.csv ?? DefaultJob.outputs.csv
    }
    if let timeseries {
      let rows = results.flatMap(\.timeseries)
      try write(ResultWriter.csv(rows, columns: TimeseriesRow.columns), to: timeseries)
    }
    if let regret {
      // What the policy held of each costly eviction's object: one more pass per cell, only for this file.
      let described = try failing { () throws(TraceError) in
        try zip(results, cells).map { result, cell throws(TraceError) in
          var result = result
          result.regret = try result.regret?.withStates(
            cell.trace, policy: cell.policy, cacheSize: cell.cacheSize, sizeMode: cell.sizeMode,
            admission: cell.admission)
          return result
        }
      }
      try write(RegretTables.json(described), to: regret)
    }
    // Said after the run, so a failed run's error stays its one line.
    announceCSVMappings(sources)
    warnFaulty(results)
    warnUntrained(results)
    // The table shows each size as it was given (`1%`), beside what it came to.
    var given: [String: String] = [:]
    for cell in cells { given["\(cell.trace.name)\u{0}\(cell.cacheSize)"] = cell.sizeGiven?.description }
    let table = ReplayTables.table(results) { given["\($0.trace)\u{0}\($0.cacheSize)"] }
    try output.emit(
      table: table, json: ReplayTables.json(results), csv: ReplayTables.csv(results),
      otherOutputs: [timeseries, regret])
  }

  /// The run's cells over `paths`, replayed (`interactive`: a progress
  /// line), with the notes each trace's rows call for.
  func sweep(
    _ run: RunDescription, paths: [String], interactive: Bool,
    display: ((ReplayProgress, Int) -> (any ProgressDisplay)?)? = nil
  ) throws -> (
    sources: [TraceSource], cells: [ReplayCell], results: [ReplayResult]
  ) {
    let sources = try paths.map { try traceSource($0, traceOptions, copies: run.copies) }
    let cells = try failing { () throws(TraceError) in
      try ReplayCell.grid(
        sources, policies: run.policies, sizes: run.sizes, sizeMode: run.sizeMode, admissions: run.admissions,
        settings: run.replaySettings)
    }
    if run.copies >= 1000 || sources.allSatisfy(\.countIsCheap) {
      // Counting a trace costs one pass, against the run's thousand or more.
      let requests = try failing { () throws(TraceError) in
        var total = 0.0
        for source in sources {
          total += Double(try source.estimatedRequests()) * Double(cells.count { $0.trace.name == source.name })
        }
        return total
      }
      noteLongRun(
        requests: requests, workers: min(run.jobs ?? ProcessInfo.processInfo.activeProcessorCount, cells.count),
        perCore: 100e6,
        asked: (run.copies > 1 ? "--repeat \(run.copies) over " : "") + Wording.count(cells.count, "run"))
    }
    let results = try failing { () throws(TraceError) in
      try Sweep.replay(cells, jobs: run.jobs, interactive: interactive) { progress, total in
        display.map { $0(progress, total) } ?? ProgressLine(progress, total: total, label: "replay")
      }
    }
    // Every cell of a trace reads the same lines: report them once per trace.
    for source in sources {
      let rows = results.filter { $0.trace == source.name }
      if useTtl, !rows.isEmpty, rows.allSatisfy({ ($0.semantics?.expiredObjects ?? 0) == 0 }) {
        printError(
          "note: no object expired in \(source.path): its requests may carry no TTLs (lcs from version 3, twitter, "
            + "cachelib and csv with a ttl column do), or the trace may span less time than they last")
      }
      if let first = rows.first {
        warnSkipped(first.skipped, path: source.path)
        if first.semantics?.sets == 0 && !fillOnMiss {
          printError(
            "note: \(source.path) has no sets: under --semantics kv nothing fills the cache, so every get misses; "
              + "add --fill-on-miss for a cache that loads on a miss")
        }
      }
    }
    return (sources, cells, results)
  }
}

/// Names each policy that held more than its capacity without being a
/// model of a shipped cache (which may, by its library's rules): a faulty
/// policy, whose misses are not comparable with the others'.
func warnFaulty(_ results: [ReplayResult]) {
  for r in results where r.exceedsCapacity {
    let model = (try? PolicySpec(r.policy))?.descriptor.isModel ?? false
    guard !model else { continue }
    printError(
      "warning: \(r.policy) held up to \(r.maxOccupancy) on \(r.trace), above its capacity of \(r.cacheSize): a faulty policy, its misses are not comparable; evlab check-policy \(r.policy) shows which guarantee it breaks"
    )
  }
}

/// Names each learned policy that never trained: on a trace shorter than
/// its training interval it ran untrained (GL-Cache merges in FIFO order,
/// LRB and 3L-Cache evict as LRU), which a reader of the row should know.
func warnUntrained(_ results: [ReplayResult]) {
  let untrained = results.filter { $0.trainings == 0 }
  guard !untrained.isEmpty else { return }
  let cells = untrained.prefix(3).map { "\($0.policy) on \($0.trace) at \($0.cacheSize)" }
  let more = untrained.count > 3 ? " and \(untrained.count - 3) more" : ""
  printError(
    "note: \(cells.joined(separator: "; "))\(more) never trained: its misses are those of its untrained rule (GL-Cache trains once the trace's timestamps have run its training interval past a first eviction after the trace's first second, so a trace without timestamps never trains it; LRB and 3L-Cache once batch-size samples (131,072 and 65,536 by default), one drawn per request after the first eviction, have seen their key requested again or forgotten; docs/learned-policies.md)"
  )
}

/// Says, once per CSV trace, which columns it is read by when the options
/// left some to the header: a guess the user should see.
func announceCSVMappings(_ sources: [TraceSource]) {
  for source in sources where source.format == .csv {
    guard let mapping = try? source.csvMapping(), !(mapping.given.key && mapping.given.size && mapping.given.time)
    else { continue }
    printError(
      "\(source.name): read as CSV with \(mapping.description) (--key-column, --size-column, --time-column, --header and --delimiter change it)"
    )
  }
}

/// `--warmup` and `--interval`: requests, or a duration on the trace's clock.
struct SpanValue: ArgumentValue {
  var span: ReplayWindow.Span
  init(parsing text: String) throws(ArgumentError) {
    do throws(TraceError) { span = try ReplayWindow.Span(parsing: text, option: "") } catch {
      throw ArgumentError(error.description)
    }
  }
}

extension Replay {
  /// `--tier memory+disk`: every trace × policy × memory size through a real tiered cache.
  func runTiered(_ run: RunDescription) throws {
    let memorySizes = run.sizes.compactMap { size -> Int64? in if case .absolute(let n) = size { n } else { nil } }
    let sources = try traces.map { try traceSource($0, traceOptions, copies: run.copies) }
    let results: [TieredReplay.Result]
    do {
      results = try TieredReplay.runAll(
        sources, policies: run.policies, memorySizes: memorySizes, diskSize: run.diskSize!, sizeMode: run.sizeMode,
        directory: run.diskDirectory ?? FileManager.default.temporaryDirectory.path, limit: run.limit,
        log: printError)
    } catch {
      throw fail(String(describing: error))
    }
    try output.emit(
      table: TieredTables.table(results), json: TieredTables.json(results), csv: TieredTables.csv(results))
  }
}

/// Writes `text` to `path` (`-` for standard output), creating parent folders.
func write(_ text: String, to path: String?) throws {
  guard let path else { return }
  do throws(OutputFile.Failure) {
    if let message = try OutputFile.write(text, to: path, provenance: runProvenance()) { printError(message) }
  } catch { throw fail(error) }
}

/// Writes `PATH.provenance.json` beside a trace this run wrote: what made
/// it, and what lets a later run replace it (``OutputCheck/trace(_:option:)``).
/// A trace written without it is whole all the same, so a failure here is
/// a warning.
func stampTrace(_ path: String) {
  // A device or a pipe (/dev/null) gets nothing beside it.
  guard let target = OutputCheck.regularFile(path) else { return }
  do {
    try runProvenance().file.write(
      to: URL(fileURLWithPath: target + ".provenance.json"), atomically: true, encoding: .utf8)
  } catch {
    printError(
      "warning: cannot write \(target).provenance.json (\(error.localizedDescription)); a later run will not replace \(path)"
    )
  }
}

/// Says, before a run that would take more than an hour, how much work it
/// was asked for and about how long that takes, so a mistyped `--repeat`
/// or `--ops` is noticed at once rather than after hours of silence.
/// `perCore` is a generous rate (requests a second on one core), so the
/// estimate errs short.
func noteLongRun(requests: Double, workers: Int, perCore: Double, asked: String) {
  noteLongSpan(
    requests / (perCore * Double(max(1, workers))),
    "\(asked) comes to about \(String(format: "%.2g", requests)) requests; at \(Int(perCore / 1e6)) M a second \(workers > 1 ? "on each of \(workers) cores" : "on one core") that is"
  )
}

/// Says, before a run estimated at more than an hour starts, how long it
/// is: "note: WHAT about SPAN. Ctrl-C stops it".
func noteLongSpan(_ seconds: Double, _ what: String) {
  guard seconds > 3600 else { return }
  let span =
    seconds < 2 * 86400
    ? "\(Int((seconds / 3600).rounded())) hours"
    : seconds < 2 * 365 * 86400
      ? "\(Int((seconds / 86400).rounded())) days"
      : "\(String(format: "%.2g", (seconds / (365 * 86400)).rounded())) years"
  printError("note: \(what) about \(span). Ctrl-C stops it")
}

/// ``noteLongRun(requests:workers:perCore:asked:)`` for a benchmark that
/// replays `source` `passes` times on one core: the trace is counted only
/// where counting is cheap, or where the run is a thousand passes or more.
func noteLongBench(_ source: TraceSource, copies: Int, passes: Int, asked: String) throws {
  guard Double(copies) * Double(passes) >= 1000 || source.countIsCheap else { return }
  let requests = try failing { () throws(TraceError) in try source.estimatedRequests() }
  noteLongRun(requests: Double(requests) * Double(passes), workers: 1, perCore: 50e6, asked: asked)
}

/// The provenance of this run: version, command line, date, host, seeds.
func runProvenance(configuration: String? = nil, seeds: [UInt64] = []) -> Provenance {
  var provenance = Provenance(
    version: EvlabVersion.number, commit: EvlabVersion.commit, arguments: CommandLine.arguments,
    configuration: configuration, seeds: seeds)
  provenance.plugin = EvlabVersion.plugin.map { Provenance.Plugin(package: $0.name, commit: $0.commit) }
  return provenance
}

/// The bundled sample traces, or an error that says where to run from.
func defaultTraces() throws -> [String] {
  guard let traces = DefaultJob.traces() else {
    throw fail(
      "no sample traces in ./\(DefaultJob.folder)/; run evlab from the repository root, or name traces: evlab replay TRACE --policy lru --size 1000"
    )
  }
  return traces
}

extension RunDescription.Semantics: ExpressibleByArgument {}
