import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionRun
import EvictionSim
import EvictionTraces
import Foundation

/// `evlab compare`: a sweep of traces × policies × sizes (× seeds) with a
/// report; splittable into shards for job arrays.
struct Compare: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Compare policies across traces and sizes: results.csv/json, report.md and report.html with charts.",
    discussion: """
      The sweep comes from a TOML (or JSON) configuration, or from flags. With neither, it runs \
      configs/default.toml, the Quick start job. Output goes to results/NAME/ unless --output is given.

        evlab compare --config configs/default.toml
        evlab compare --trace traces/zipf-0.9.oracleGeneral.zst --policy lru,arc,s3fifo --size 0.1%,1%,10%
        evlab compare --config sweep.toml --shard 3/8 --output parts/3    # then: evlab merge parts/* -o results/sweep
        evlab compare --collection traces/catalog.toml --size 0.1%,10%   # every shared trace: box plots, summary.csv
      """)

  static let defaultConfig = "configs/default.toml"

  @Option(help: "The sweep's configuration, TOML or JSON (default: \(defaultConfig) when no --trace is given).")
  var config: String?

  @Option(name: .customLong("trace"), help: "Without --config: trace files (format from the file name, or --format).")
  var traces: [String] = []

  @OptionGroup(title: "Reading the --trace files") var traceOptions: TraceOptions

  @Option(
    help:
      "Instead of --config or --trace: a collection of traces (traces/catalog.toml lists the shared ones), with --policy (every online policy unless given) and --size (0.1%,1%,10% of each trace's footprint unless given)."
  )
  var collection: String?

  @Option(
    name: [.customLong("policy"), .customLong("policies")],
    help: "Without --config: policies, comma-separated (all for every one).")
  var policies: [String] = []

  @Option(
    name: [.customLong("size"), .customLong("sizes")],
    help: "Without --config: sizes, comma-separated: 5000, 64m or shares of the footprint such as 1%.")
  var sizes: [String] = []

  @Option(help: "Without --config: count or bytes (default count).")
  var sizeMode: String?

  @Option(
    name: .customLong("admission"), help: ArgumentHelp(stringLiteral: "Without --config. " + AdmissionOptions.help))
  var admissions: [String] = []

  @Option(help: "Without --config: seeds for randomised policies, comma-separated or repeated (default 1).")
  var seeds: [String] = []

  @Option(help: "Without --config: the sweep's name (results/NAME/; default compare).")
  var name: String?

  @Option(name: .shortAndLong, help: "Output folder (default: results/NAME/).")
  var output: String?

  @Option(help: "Run only part I of N of the sweep (1-based), writing a partial result for evlab merge into --output.")
  var shard: Checked<ShardSpec>?

  @Option(help: "Replays run at once (default: the configuration's jobs, else the number of cores).")
  var jobs: Int?

  @Option(help: declared(.warmup, "Without --config: "))
  var warmup: String?

  @Option(
    help: declared(.interval, "Without --config: ", suffix: " Written to timeseries.csv, with a chart per trace."))
  var interval: String?

  @Option(
    help: declared(
      .penalty, "Without --config: ",
      suffix:
        " As penalty = \"size:base=100,per-byte=0.01\" in a configuration; the report adds each policy's penalty "
        + "per request and names the cheapest."))
  var penalty: String?

  @Flag(
    help: declared(
      .attribution, suffix: " As attribution = true in a configuration; the report adds a chart of causes."))
  var attribution = false

  @Option(
    help: declared(
      .attributionReference, suffix: " As attribution_reference = \"foo\" in a configuration; implies --attribution."))
  var attributionReference: String?

  @OptionGroup(title: "Figures (over the configuration's [figures], [labels] and [colors])") var figureOptions:
    FigureOptions

  func validate() throws {
    try shard?.check()
    if shard != nil && output == nil {
      throw ArgumentError("--shard needs --output DIR: each shard writes its partial result into its own folder")
    }
    if let jobs, jobs < 1 { throw ArgumentError("--jobs \(jobs): at least one job is needed") }
    if shard != nil, let option = figureOptions.given.first {
      throw ArgumentError(
        "\(option) shapes the report's figures, and a shard writes no report: give it to evlab merge, which writes the report from the partial results"
      )
    }
    if let output, shard == nil { try OutputCheck.reportFolder(output, option: "--output", files: reportFiles) }
    if let output, shard != nil { try OutputCheck.folder(output, option: "--output") }
  }

  /// The sweep the options and configuration describe.
  func configuration() throws -> CompareConfig {
    var choices = CompareConfig.Choices()
    (choices.config, choices.collection, choices.traces, choices.name) = (self.config, collection, traces, name)
    (choices.sizeMode, choices.policies, choices.sizes, choices.seeds) = (sizeMode, policies, sizes, seeds)
    (choices.admissions, choices.warmup, choices.interval) = (admissions, warmup, interval)
    choices.penalty = penalty
    choices.reading = traceOptions.reading
    return try failing { () throws(ConfigError) in
      let config = try choices.configuration(defaultPath: Self.defaultConfig)
      guard let text = attributionReference else { return attribution ? try config.attributing() : config }
      guard let kind = AttributionReferenceKind(rawValue: text.lowercased()) else {
        throw ConfigError(file: "the command line", "--attribution-reference '\(text)': use belady, foo or pfoo-u")
      }
      return try config.attributing(reference: kind)
    }
  }

  /// The folder the comparison writes: `--output`, or results/NAME/.
  func outputFolder() throws -> String { try output ?? "results/\(configuration().name)" }

  func run() throws {
    let shardSpec = shard.map { ($0.value.index, $0.value.count) }
    var config = try configuration()
    config.figures = try figureOptions.apply(
      to: config.figures, policies: config.labels, traces: config.traces.map(\.name))
    let directory = output ?? "results/\(config.name)"
    let inputs = config.traces.compactMap { entry -> String? in
      if case .file(let source) = entry.origin { return source.path }
      return nil
    }
    // A shard writes its partial result; a whole run, the report's files.
    // (and every figure there: a chart's name comes from a trace's).
    let written =
      shardSpec.map {
        [ComparePartial.fileName(shard: $0.0, of: $0.1)].map { (directory as NSString).appendingPathComponent($0) }
      }
      ?? reportFiles.map { (directory as NSString).appendingPathComponent($0) } + OutputCheck.figureFiles(in: directory)
    try OutputCheck.notAnInput(
      written.map { ("--output", $0) }, inputs: inputs,
      others: [("the --config file", self.config ?? Self.defaultConfig), ("the --collection file", collection)])
    if shardSpec == nil {
      try OutputCheck.reportFolder(directory, option: "--output", files: reportFiles)
    } else {
      try OutputCheck.folder(directory, option: "--output")
      // A shard replaces only a partial result an evlab shard wrote.
      if let existing = written.first, let data = FileManager.default.contents(atPath: existing) {
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard object?["counts_digest"] != nil, object?["evlab_version"] != nil else {
          throw ArgumentError(
            "--output \(directory): \(existing) exists, and no evlab shard wrote it; name another folder, or remove it first"
          )
        }
      }
    }

    // Traces: generate the synthetic ones, read each once for its statistics.
    let parallelism = jobs ?? config.jobs ?? ProcessInfo.processInfo.activeProcessorCount
    let (workspace, plan) = try failing { () throws(TraceError) in
      if isatty(2) == 1 {
        printError("compare: reading \(Wording.count(config.traces.count, "trace")) for their statistics")
      }
      let workspace = try CompareWorkspace(config)
      let infos = try ComparePlan.measure(config, sources: workspace.sources, parallelism: parallelism)
      for (t, info) in infos.enumerated() { warnSkipped(info.skipped, path: config.traces[t].name) }
      return (workspace, ComparePlan(config: config, infos: infos, sources: workspace.sources))
    }
    if let small = plan.tooSmall.first {
      let trace = config.traces[small.trace].name
      let size = config.sizes[small.size]
      guard config.smallSizes == .skip else {
        if let earlier = small.sameAs {
          throw fail(
            "\(trace) at \(size) is \(small.cacheSize), as at \(config.sizes[earlier]): the same cache under two labels. Give sizes that differ on every trace, or set small_sizes = \"skip\" to keep the first of such sizes"
          )
        }
        throw fail(
          "\(trace) at \(size) is \(small.cacheSize); \(small.policy) needs at least \(small.minimum)\(small.policy.minimumCapacityHint). Raise the size, or set small_sizes = \"skip\" to leave such cells out"
        )
      }
      let same = plan.tooSmall.filter { $0.sameAs != nil }.count
      let tiny = plan.tooSmall.count - same
      if tiny > 0 {
        printError(
          "compare: \(tiny) (trace, size) cells are too small for \(small.policy) and are left out for every policy; the report lists them"
        )
      }
      if same > 0 {
        printError(
          "compare: \(same) (trace, size) cells come to the cache size of a smaller size on their trace and are left out for every policy; the report lists them"
        )
      }
      guard !plan.cells.isEmpty else {
        throw fail(
          "every (trace, size) cell is left out, so nothing would be compared: \(small.policy) needs a cache of at least \(small.minimum)\(small.policy.minimumCapacityHint); raise the sizes"
        )
      }
    }
    let (index, count) = shardSpec ?? (1, 1)
    let shard = CompareShard(plan: plan, index: index, of: count, parallelism: parallelism)
    let progress = ReplayProgress(expectedRequests: shard.expectedRequests)
    let display = ProgressLine(
      progress, total: shard.runs.count, label: shardSpec == nil ? "compare" : "compare \(index)/\(count)")
    display.begin()
    defer { display.end() }
    var partial = try failing { () throws(CompareError) in
      try shard.run(
        sources: workspace.sources, scratch: FileManager.default.temporaryDirectory.path, progress: progress
      ) { message in
        display.end()
        if isatty(2) == 1 { printError("compare: \(message)") }
      }
    }
    display.end()
    (partial.evlabVersion, partial.evlabCommit) = (EvlabVersion.number, EvlabVersion.commit)
    guard shardSpec == nil else {
      let path = try failing { () throws(CompareError) in try partial.write(into: directory) }
      return printError("shard \(index)/\(count): \(partial.runs.count) of \(plan.cells.count) runs written to \(path)")
    }
    try writeReport(shard.outcome(partial), config: config, to: directory, runs: partial)
  }
}

/// The whole sweep's runs, kept beside a report so that `evlab report`
/// (or `evlab merge`) can draw it again without replaying.
let sweepFile = ComparePartial.fileName(shard: 1, of: 1)

/// Every file a comparison's report may write into its folder.
let reportFiles = [
  "results.csv", "results.json", "results.jsonl", "summary.csv", "summary.json", "styles.json", "timings.csv",
  "traces.json",
  "report.md", "report.html", "timeseries.csv", "stress.csv", "stress.json", "disk.csv", "disk.json",
  "provenance.json", sweepFile,
]

/// Writes a comparison's outputs and says where they are; with `runs`
/// (the whole sweep as one shard), also ``sweepFile``, from which
/// `evlab report` draws the report again.
func writeReport(_ outcome: CompareOutcome, config: CompareConfig, to directory: String, runs: ComparePartial? = nil)
  throws
{
  for entry in config.traces {
    for ranking in CompareReport.rankings(outcome.rows, trace: entry.name, config: config) {
      if let note = CompareReport.faultyNote(ranking) { printError("warning: \(entry.name): \(note)") }
      if let note = CompareReport.anomalyNote(ranking) { printError("warning: \(entry.name): \(note)") }
    }
  }
  if config.traces.count > 1,
    !CompareReport.summaries(outcome, config: config).contains(where: { $0.meanReduction != nil })
  {
    printError("note: \(CompareReport.acrossWithoutFifo(config))")
  }
  let untrained = outcome.rows.filter { $0.fields.trainings == 0 }
  if !untrained.isEmpty {
    let cells = untrained.prefix(3).map { "\($0.label) on \($0.trace) at \($0.sizeLabel)" }.joined(separator: "; ")
    printError(
      "note: \(Wording.count(untrained.count, "learned policy's row")) never trained (\(cells)\(untrained.count > 3 ? "; …" : "")): "
        + "its misses are those of its untrained rule; results.csv's trainings column says which (docs/learned-policies.md)"
    )
  }
  // Two runs writing one folder would leave a mix of both; each publishes
  // under the lock of the folder around it (the files' own folder is
  // locked file by file), so the folder is one run's.
  let around = directory.parentPath
  try FolderLock.holding(around.isEmpty ? "." : around) { () throws -> Void in
    try publishReport(outcome, config: config, to: directory, runs: runs)
  }
}

/// ``writeReport(_:config:to:runs:)``'s files, written under its lock.
private func publishReport(
  _ outcome: CompareOutcome, config: CompareConfig, to directory: String, runs: ComparePartial?
)
  throws
{
  // A folder this report makes is removed if the run stops before the
  // report is whole (Ctrl-C, SIGTERM, a full disk): no half a report.
  // (Anything at the path, a link to nothing included, is not this run's.)
  var existing = stat()
  let made = lstat(directory, &existing) == 0 ? nil : ScratchPaths.shared.register(directory)
  defer { made.map(ScratchPaths.shared.unregister) }
  do {
    let provenance = runProvenance(configuration: config.source, seeds: config.seeds)
    let held = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
    // Rendering thousands of figures takes a while: say how far it got (on a terminal).
    var figureProgress: (@Sendable (Int, Int) -> Void)? = nil
    if isatty(2) == 1 {
      figureProgress = { done, total in
        guard done == total || done % 10 == 0 else { return }
        writeStandardError("\rrendering figures: \(done)/\(total)" + (done == total ? "\n" : ""))
      }
    }
    // The report is written whole into a folder of its own inside the
    // output folder, then moved into place with Ctrl-C held off: the folder
    // holds the earlier report or this one, never a mix.
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let stage = try ReportStage(in: directory)
    defer { stage.remove() }
    var files = try CompareReport.write(
      outcome, config: config, to: stage.path, provenance: provenance, warn: { printError("warning: \($0)") },
      figureProgress: figureProgress)
    if let runs {
      files.append(try failing { () throws(CompareError) in try runs.write(into: stage.path) })
    }
    try stage.publish()
    let names = files.map { ($0 as NSString).lastPathComponent }
    printError("wrote \(names.joined(separator: ", ")) to \(directory)/")
    writeStandardOutput(CompareReport.terminalSummary(outcome, config: config))
    // Files of an earlier run are replaced; say which, and what was left.
    let replaced = names.filter(held.contains)
    if !replaced.isEmpty {
      let others = held.subtracting(names).sorted()
      printError(
        "note: replaced \(replaced.count) files an earlier run wrote in \(directory)/"
          + (others.isEmpty
            ? ""
            : "; it also holds \(others.prefix(5).joined(separator: ", "))"
              + (others.count > 5 ? " and \(others.count - 5) more" : "") + ", left as they were"))
    }
  } catch {
    if made != nil { try? FileManager.default.removeItem(atPath: directory) }
    let reason = (error as? ArgumentError)?.description ?? error.localizedDescription
    throw fail("cannot write the report into \(directory): \(reason)")
  }
}

/// `I/N` with 1 ≤ I ≤ N: part I of a sweep cut into N.
struct ShardSpec: ArgumentValue {
  var index: Int
  var count: Int
  init(parsing text: String) throws(ArgumentError) {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 1, i <= n else {
      throw ArgumentError("--shard '\(text)': write I/N with 1 ≤ I ≤ N, e.g. 3/8")
    }
    (index, count) = (i, n)
  }
}

/// `evlab merge`: joins the shards of a sweep into the outputs of a single run.
struct Merge: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Join the partial results of evlab compare --shard I/N into one report.",
    discussion: """
      Each DIR holds one or more partial-I-of-N.json files. Every shard must be present exactly once, \
      all from the same configuration, run by this evlab's version (one build for all), over the same traces \
      (their stream digests), with counts that add up and match their digest; ratios are computed again \
      from the counts. The outputs equal those of a single run (same rows, same order).
        evlab merge parts/1 parts/2 parts/3 -o results/sweep
      """)

  @Argument(help: "Folders (or partial-*.json files) the shards wrote.")
  var inputs: [String]

  @Option(name: .shortAndLong, help: "Output folder for results.csv/json, report.md, report.html.")
  var output: String

  @OptionGroup(title: "Figures (over the configuration's [figures], [labels] and [colors])") var figureOptions:
    FigureOptions

  func run() throws {
    guard !inputs.isEmpty else {
      throw fail("name the folders the shards wrote; e.g. evlab merge parts/* -o results/sweep")
    }
    try OutputCheck.reportFolder(output, option: "--output", files: reportFiles)
    let parts = try failing { () throws(CompareError) in try ComparePartial.load(inputs) }
    let merged = try failing { () throws(CompareError) in
      try ComparePartial.merge(parts, version: EvlabVersion.number, commit: EvlabVersion.commit)
    }
    var config = merged.0
    config.figures = try figureOptions.apply(
      to: config.figures, policies: config.labels, traces: config.traces.map(\.name))
    // The runs an earlier comparison kept in the output folder are not
    // these: evlab report would draw them in place of the merged report.
    let kept = (output as NSString).appendingPathComponent(sweepFile)
    let keptIsInput = parts.contains {
      URL(fileURLWithPath: $0.path).standardized == URL(fileURLWithPath: kept).standardized
    }
    if !keptIsInput && FileManager.default.fileExists(atPath: kept) {
      do { try FileManager.default.removeItem(atPath: kept) } catch {
        throw fail(
          "cannot remove \(kept), an earlier comparison's runs, from the output folder: \(error.localizedDescription)")
      }
      printError(
        "note: removed \(kept), the runs of the comparison \(output)/ held before; redraw this merge with evlab merge")
    }
    try writeReport(merged.1, config: config, to: output)
  }
}

/// `evlab report`: draws a finished comparison again from the runs it kept.
struct Report: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Draw a finished comparison's report and figures again, without replaying.",
    discussion: """
      DIR is a folder evlab compare wrote: it keeps its runs in \(sweepFile), checked as evlab merge checks a \
      shard's (the configuration, the traces' digests, the counts' digest). The report, results and figures are \
      written again, into DIR or the --output folder, with the figure options given here over the \
      configuration's [figures], [labels], [colors], [markers] and [styles]; pass --styles DIR/styles.json to \
      keep the colours and markers the first report drew. Counts are never recomputed: the rows equal the first \
      report's.
        evlab report results/sweep --figure-width column --no-titles
        evlab report results/sweep -o results/sweep-page --figure-width page --label s3fifo=S3-FIFO
      """)

  @Argument(help: "A folder evlab compare wrote (holding \(sweepFile)).")
  var folder: String

  @Option(name: .shortAndLong, help: "Where to write the report (default: DIR itself).")
  var output: String?

  @OptionGroup(title: "Figures (over the configuration's [figures], [labels] and [colors])") var figureOptions:
    FigureOptions

  func run() throws {
    let runs = (folder as NSString).appendingPathComponent(sweepFile)
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
      throw fail(
        isFolder.boolValue || !FileManager.default.fileExists(atPath: folder)
          ? "\(folder): no such folder; name the folder evlab compare wrote (results/NAME by default)"
          : "\(folder) is a file; name the folder evlab compare wrote (results/NAME by default)")
    }
    guard FileManager.default.fileExists(atPath: runs) else {
      throw fail(
        "\(folder) holds no \(sweepFile): it is not a folder evlab compare wrote, or one from before evlab kept its "
          + "runs (run the comparison again), or a merged sweep (run evlab merge on its shards with -o instead)")
    }
    let output = self.output ?? folder
    try OutputCheck.reportFolder(output, option: "--output", files: reportFiles)
    let loaded = try failing { () throws(CompareError) in try ComparePartial.load([runs]) }
    let kept = loaded[0].partial
    if kept.evlabCommit != EvlabVersion.commit {
      printError(
        "note: the runs were made by evlab \(kept.evlabVersion) at commit \(kept.evlabCommit ?? "unknown"); "
          + "this evlab, at commit \(EvlabVersion.commit ?? "unknown"), draws them")
    }
    let (configuration, outcome) = try failing { () throws(CompareError) in
      try ComparePartial.merge(loaded, version: EvlabVersion.number)
    }
    var config = configuration
    config.figures = try figureOptions.apply(
      to: config.figures, policies: config.labels, traces: config.traces.map(\.name))
    try writeReport(outcome, config: config, to: output, runs: kept)
  }
}
