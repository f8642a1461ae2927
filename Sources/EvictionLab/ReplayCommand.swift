import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
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

  @Option(help: "Cells replayed at once (default: the number of cores).")
  var jobs: Int?

  @Option(
    help:
      "memory+disk: replay through a real TieredCache (a MemoryCache of --size over a DiskCache of --disk-size, same policy); reports memory hits, disk hits, misses, bytes read from disk and latency per class."
  )
  var tier: String?

  @Option(
    help: "With --tier memory+disk: the disk tier's size (objects in count mode, bytes in byte mode; k/m/g suffixes).")
  var diskSize: Checked<AbsoluteSize>?

  @Option(
    help: "With --tier memory+disk: the folder for the disk tier's scratch store.")
  var diskDir: String?

  @Option(help: "With --tier memory+disk: replay only the first N requests of each trace.")
  var limit: Int?

  @Option(
    help:
      "Requests each cell serves before counting starts, or a duration on the trace's clock (3600s, 90m, 6h, 2d); warmup_requests says how many."
  )
  var warmup: Checked<SpanValue>?

  @Option(
    help: "Also count per interval of N requests (or of a duration: 1h) and write the series to --timeseries PATH.")
  var interval: Checked<SpanValue>?

  @Option(help: "With --interval: the CSV of miss ratios per interval (- for standard output).")
  var timeseries: String?

  @Flag(
    help:
      "Attribute each counted miss to its cause against Belady's optimum at the same size: compulsory (first request), capacity (Belady misses it too), policy (Belady hits it) or admission (turned away by --admission at its last miss); adds compulsory_misses, capacity_misses, policy_misses, admission_misses and their bytes."
  )
  var attribution = false

  @Option(
    help:
      "With --attribution: write each cell's costliest evictions and its misses by object size and reuse distance as JSON to PATH (- for standard output)."
  )
  var regret: String?

  @Flag(
    help:
      "Honour the trace's TTLs as libCacheSim's TTL build does: an object expires ttl seconds after the request that admitted it, and a later request finds it expired, a miss that admits it again (lcs traces from version 3 carry TTLs); adds use_ttl and expired_requests."
  )
  var useTtl = false

  @Option(
    help:
      "How records are read: libcachesim (every record a request, as libCacheSim replays it) or kv (records are get, set and delete of a lookaside key-value cache: a get's miss fills only on the trace's next set or with --fill-on-miss, a set replaces the object, a delete removes it, TTLs always hold; adds gets, get_hits, sets, deletes)."
  )
  var semantics: Semantics = .libcachesim

  @Flag(help: "With --semantics kv: a get's miss admits the object at once, as a cache that loads on a miss.")
  var fillOnMiss = false

  @Option(
    help:
      "With --use-ttl or --semantics kv: when expired objects leave. lazy (the default, as libCacheSim): when next requested or evicted; scan[:interval=S]: also every S seconds of trace time (default 1, 0 before every request), as Segcache removes expired segments. Adds expiration, expired_objects (objects that expired while cached) and mean_expired_bytes (bytes held by expired objects, averaged over the trace's time)."
  )
  var expiration: String?

  @Option(
    name: .customLong("repeat"),
    help:
      "Replay each trace this many times in a row, copy k with k·(largest id + 1) added to every id so copies share no object (a longer trace with the same structure)."
  )
  var copies: Int = 1

  func validate() throws {
    _ = try policies.specs()
    _ = try admissions.specs(sizeMode: sizeMode, policies: try policies.specs())
    try sizes.check()
    try diskSize?.check()
    try warmup?.check()
    try interval?.check()
    if interval != nil && timeseries == nil {
      throw ArgumentError("--interval needs --timeseries PATH for the series (a CSV file, or - for standard output)")
    }
    if timeseries != nil && interval == nil { throw ArgumentError("--timeseries needs --interval N") }
    if let timeseries {
      try OutputCheck.file(timeseries, option: "--timeseries")
      try OutputCheck.distinct([("--csv", output.csv), ("--json", output.json), ("--timeseries", timeseries)])
    }
    if regret != nil && !attribution { throw ArgumentError("--regret needs --attribution") }
    if attribution && interval != nil {
      throw ArgumentError("--attribution does not cut a replay into intervals yet; drop --interval or --attribution")
    }
    if let regret {
      try OutputCheck.file(regret, option: "--regret")
      try OutputCheck.distinct([
        ("--csv", output.csv), ("--json", output.json), ("--timeseries", timeseries), ("--regret", regret),
      ])
    }
    try OutputCheck.notAnInput(
      [("--csv", output.csv), ("--json", output.json), ("--timeseries", timeseries), ("--regret", regret)],
      inputs: traces)
    if tier != nil && attribution { throw ArgumentError("--tier memory+disk does not take --attribution") }
    if fillOnMiss && semantics != .kv { throw ArgumentError("--fill-on-miss is for --semantics kv") }
    if let expiration {
      if !useTtl && semantics != .kv { throw ArgumentError("--expiration is for --use-ttl or --semantics kv") }
      do { _ = try Expiration(parsing: expiration) } catch { throw ArgumentError("--expiration: \(error)") }
    }
    if (useTtl || semantics == .kv) && copies > 1 {
      throw ArgumentError(
        "--repeat \(copies) restarts the trace's clock in each copy, so objects would expire backwards; "
          + "drop --repeat with \(useTtl ? "--use-ttl" : "--semantics kv")")
    }
    if useTtl || semantics == .kv, !policies.namesAll,
      let offline = try policies.specs().first(where: { $0.descriptor.isOffline })
    {
      throw ArgumentError(
        "\(offline.name) is no bound once objects expire or are set and deleted (it ignores TTLs and operations); "
          + "leave it out with \(useTtl ? "--use-ttl" : "--semantics kv")")
    }
    if semantics == .kv && (attribution || warmup != nil || interval != nil || tier != nil) {
      throw ArgumentError(
        "--semantics kv is not yet replayed with --attribution, --warmup, --interval or --tier; drop one of them")
    }
    if useTtl && (attribution || warmup != nil || interval != nil || tier != nil) {
      throw ArgumentError(
        "--use-ttl is not yet replayed with --attribution, --warmup, --interval or --tier; drop one of them")
    }
    if tier != nil && (warmup != nil || interval != nil) {
      throw ArgumentError("--tier memory+disk does not take --warmup or --interval yet")
    }
    if let jobs, jobs < 1 { throw ArgumentError("--jobs \(jobs): at least one job is needed") }
    guard copies >= 1 else { throw ArgumentError("--repeat \(copies): at least one copy is needed") }
    if tier == nil {
      for (given, option) in [
        (diskSize != nil, "--disk-size"), (diskDir != nil, "--disk-dir"), (limit != nil, "--limit"),
      ]
      where given {
        throw ArgumentError("\(option) is for --tier memory+disk; add --tier memory+disk or leave \(option) out")
      }
    }
    guard diskDir?.isEmpty != true else {
      throw ArgumentError("--disk-dir is an empty path; name a folder for the disk tier's scratch store")
    }
    if !traces.isEmpty {
      guard !policies.isEmpty else { throw ArgumentError("no --policy given; e.g. --policy lru,arc") }
      guard !sizes.isEmpty else {
        throw ArgumentError("no --size given; e.g. --size 1000,5000 or --size 16m --size-mode bytes")
      }
    }
    if let tier {
      guard tier.lowercased() == "memory+disk" else {
        throw ArgumentError("--tier '\(tier)': the one tier stack is memory+disk")
      }
      guard !traces.isEmpty else { throw ArgumentError("--tier memory+disk needs a trace") }
      guard admissions.isEmpty else { throw ArgumentError("--tier memory+disk does not take --admission yet") }
      guard diskSize != nil else {
        throw ArgumentError("--tier memory+disk needs --disk-size (the disk tier's capacity)")
      }
      if let limit, limit < 1 { throw ArgumentError("--limit \(limit): at least 1 request") }
      for spec in try policies.specs() where !spec.descriptor.canDriveACache {
        throw ArgumentError(
          "--tier memory+disk runs real caches: \(spec.name) cannot drive one; choose an online policy")
      }
      for size in sizes.sizes {
        guard case .absolute = size else {
          throw ArgumentError("--tier memory+disk takes absolute memory sizes (5000, 64m), not shares of the footprint")
        }
      }
    }
  }

  func run() throws {
    if tier != nil { return try runTiered() }
    let isDefaultJob = traces.isEmpty
    let paths = isDefaultJob ? try defaultTraces() : traces
    var specs = policies.isEmpty ? DefaultJob.policies : try policies.specs()
    // `all` is every policy this replay can run: not the offline ones under TTLs or kv.
    if useTtl || semantics == .kv { specs.removeAll { $0.descriptor.isOffline } }
    let sources = try paths.map { try traceSource($0, traceOptions, copies: copies) }
    let admissionSpecs = try admissions.specs(sizeMode: sizeMode, policies: specs)
    let expiry = try failing { () throws(TraceError) in try expiration.map(Expiration.init(parsing:)) ?? .lazy }
    let settings = ReplaySettings(
      window: ReplayWindow(warmup: warmup?.value.span, interval: interval?.value.span), attribution: attribution,
      ttl: useTtl ? TTLRule(expiration: expiry) : nil,
      kv: semantics == .kv ? KVRule(fillOnMiss: fillOnMiss, expiration: expiry) : nil)
    let cells = try failing { () throws(TraceError) in
      try ReplayCell.grid(
        sources, policies: specs, sizes: sizes.isEmpty ? DefaultJob.sizes : sizes.sizes, sizeMode: sizeMode,
        admissions: admissionSpecs, settings: settings)
    }
    let results = try failing { () throws(TraceError) in
      try Sweep.replay(cells, jobs: jobs, interactive: isatty(2) == 1) {
        ProgressLine($0, total: $1, label: "replay")
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
  func runTiered() throws {
    let specs = try policies.specs(or: DefaultJob.lru)
    let memorySizes = sizes.sizes.compactMap { size -> Int64? in if case .absolute(let n) = size { n } else { nil } }
    let sources = try traces.map { try traceSource($0, traceOptions, copies: copies) }
    let results: [TieredReplay.Result]
    do {
      results = try TieredReplay.runAll(
        sources, policies: specs, memorySizes: memorySizes, diskSize: diskSize!.bytes, sizeMode: sizeMode,
        directory: diskDir ?? FileManager.default.temporaryDirectory.path, limit: limit, log: printError)
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

/// The provenance of this run: version, command line, date, host, seeds.
func runProvenance(configuration: String? = nil, seeds: [UInt64] = []) -> Provenance {
  Provenance(
    version: EvlabVersion.number, commit: EvlabVersion.commit, arguments: CommandLine.arguments,
    configuration: configuration, seeds: seeds)
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

/// How `replay` reads records (``KVRule``).
enum Semantics: String, ExpressibleByArgument, CaseIterable {
  case libcachesim, kv
}
