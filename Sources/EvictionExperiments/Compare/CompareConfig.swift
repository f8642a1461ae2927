import EvictionCache
import EvictionCore
import EvictionDisk
import EvictionRun
import EvictionSim
import EvictionTraces
import EvictionWorkloads
import Foundation

/// What `evlab compare` sweeps: traces × policies × sizes (× seeds), read from
/// a TOML or JSON file or built from flags. Everything a run needs is
/// checked when the configuration is read, before any work starts.
public struct CompareConfig: Sendable {
  /// A cache size (see ``CacheSize``, the one size grammar).
  public typealias SizeSpec = CacheSize

  /// One trace of the sweep: a file, or a synthetic workload generated once
  /// per seed.
  public struct TraceEntry: Sendable {
    public enum Origin: Sendable {
      case file(TraceSource)
      case synthetic(SyntheticWorkload)
    }
    /// The name rows use: `name =`, else the file name (or the workload's kind and size).
    public var name: String
    /// Whether the configuration named the trace (else figures show its
    /// file name without format suffixes, ``TraceFormat/stem(of:)``).
    public var named = false
    public var origin: Origin
    /// The collection the trace belongs to (`arc`, `lirs`, ...): across-trace
    /// summaries average per dataset. By default the trace file's folder,
    /// `synthetic` for a generated workload.
    public var dataset: String = ""
    /// What a catalog says the trace holds, checked when it is measured.
    public var expectedRequests: Int64? = nil
    public var expectedObjects: Int? = nil

    public var isSynthetic: Bool {
      if case .synthetic = origin { return true }
      return false
    }
  }

  /// The optional disk-store experiment (`[disk]`): `evlab disk-bench`'s
  /// phases per storage mode and value size.
  public struct DiskSection: Sendable {
    public var modes: [DiskBench.Mode]
    public var valueSizes: [Int]
    public var ops: Int
    /// Runs of each cell, interleaved; the figures are their medians.
    public var rounds: Int = 1
    /// The mixed mode's inline threshold in bytes.
    public var inlineThreshold: Int = DiskStore.defaultInlineThreshold
  }

  /// The optional concurrent-replay experiment (`[stress]`): the memory
  /// cache under each lock at each thread count, on one trace.
  public struct StressSection: Sendable {
    public var trace: String
    public var policy: PolicySpec
    public var size: SizeSpec
    public var threads: [Int]
    public var locks: [LockStrategy]
    public var ops: Int
  }

  /// What a (trace, size) too small for a policy does (see ``ComparePlan/SmallCell``).
  public enum SmallSizes: String, Sendable {
    /// Stop before any replay, naming the policy and the size it needs.
    case error
    /// Leave the cell out for every policy and say so in the report.
    case skip
  }

  public var name: String
  public var sizeMode: SizeMode
  public var policies: [PolicySpec]
  /// Admission policies, each in front of every policy (default `none`).
  public var admissions: [AdmissionSpec] = [.none]
  public var sizes: [SizeSpec]
  public var seeds: [UInt64]
  public var traces: [TraceEntry]
  /// The size of the report's bar chart (default: the middle size).
  public var chartSize: SizeSpec
  public var stress: StressSection?
  public var disk: DiskSection?
  /// Parallel replays (default: the cores).
  public var jobs: Int?
  public var skipBadLines: Bool
  public var smallSizes: SmallSizes = .error
  /// The warm-up left out of every run's counts and the intervals of its
  /// time series (`warmup`, `interval`).
  public var window = ReplayWindow()
  /// Whether every miss is attributed to its cause against Belady's optimum
  /// (`attribution = true`; ``EvictionSim/MissAttribution``).
  public var attribution = false
  /// What misses are attributed against (`attribution_reference`).
  public var attributionReference: AttributionReferenceKind = .belady
  /// What each request costs, when the sweep weighs misses (`penalty`,
  /// ``EvictionSim/PenaltyModel``): every row then carries its penalties.
  public var penalty: PenaltyModel? = nil
  /// Whether the sweep was given as a front end's flags, not a file (its
  /// messages then name settings as flags).
  public var givenAsFlags = false
  /// How figures look, and what they call each policy and trace.
  public var figures = FigureSettings()
  /// The configuration as read (partial results carry it to `evlab merge`).
  public var source: String
  public var sourceFormat: String

  /// The sweep with every miss attributed (a front end's `--attribution`
  /// over a configuration that did not ask): ``source`` says so too, so a
  /// shard's partial result, the merge's check that shards are of one sweep
  /// and the provenance all see it.
  /// With `reference`, against that schedule (`--attribution-reference`).
  public func attributing(reference: AttributionReferenceKind? = nil) throws(ConfigError) -> CompareConfig {
    guard !attribution || (reference != nil && reference != attributionReference) else { return self }
    var config = self
    config.attribution = true
    config.attributionReference = reference ?? attributionReference
    var table =
      sourceFormat == "json"
      ? try ConfigValue.fromJSON(Data(source.utf8), file: "the configuration")
      : try TOMLParser.parse(source, file: "the configuration")
    table["attribution"] = .bool(true)
    if config.attributionReference != .belady {
      table["attribution_reference"] = .string(config.attributionReference.rawValue)
    }
    config.source = ConfigValue.table(table).jsonText
    config.sourceFormat = "json"
    try config.checkAttribution(file: givenAsFlags ? Self.commandLine : "the configuration")
    return config
  }

  /// Refuses attribution with intervals: its replay does not cut them yet.
  public func checkAttribution(file: String) throws(ConfigError) {
    let flags: @Sendable (Setting) -> String = { $0.description }
    var run = RunDescription()
    (run.policies, run.sizeMode, run.admissions) = (policies, sizeMode, admissions)
    (run.window, run.attribution, run.jobs) = (window, attribution, jobs)
    (run.attributionReference, run.penalty) = (attributionReference, penalty)
    do throws(RunError) {
      try run.check(spelling: file == Self.commandLine ? flags : RunDescription.configSpelling)
    } catch {
      throw ConfigError(file: file, error.description)
    }
  }

  /// The replay settings a configuration's top level gives (``RunDescription``:
  /// every setting `compare` takes, read by its declaration), with
  /// `policies`, checked as every front end's replay is.
  static func runSettings(
    _ table: [String: ConfigValue], policies: [PolicySpec], reader: TableReader
  ) throws(ConfigError) -> RunDescription {
    // Settings given as flags are named as flags; a file's, as its keys.
    let flags: @Sendable (Setting) -> String = { $0.description }
    let spell = reader.file == commandLine ? flags : RunDescription.configSpelling
    var run = RunDescription()
    run.policies = policies
    for declared in RunDescription.settings where declared.declaration.commands.contains("compare") {
      guard let key = declared.declaration.configKey, let value = table[key] else { continue }
      let text: String
      switch value {
      case .string(let s): text = s
      case .integer(let n): text = String(n)
      case .bool(let b): text = String(b)
      case .array(let items):
        var pieces: [String] = []
        for item in items {
          guard case .string(let s) = item else { throw reader.fail(key, declared.declaration.value, value) }
          pieces.append(s)
        }
        text = pieces.joined(separator: ",")
      default: throw reader.fail(key, declared.declaration.value, value)
      }
      do throws(RunError) { try run.set(declared.setting, to: text, spelling: spell) } catch {
        throw ConfigError(file: reader.file, error.description)
      }
    }
    do throws(RunError) { try run.check(spelling: spell) } catch {
      throw ConfigError(file: reader.file, error.description)
    }
    return run
  }

  /// Every policy × admission as reports name them (``CompareRow/label``), in sweep order.
  public var labels: [String] {
    policies.flatMap { policy in
      admissions.map { $0.kind == .none ? policy.description : "\(policy.description) + \($0)" }
    }
  }

  /// Keys each table accepts; anything else is an error naming the known ones.
  /// (The replay settings among them come from their declarations, ``RunDescription/settings``.)
  static let topKeys: Set<String> = RunDescription.configKeys(of: "compare").union([
    "name", "policies", "sizes", "seeds", "traces", "chart_size", "stress", "disk", "skip_bad_lines", "small_sizes",
    "figures", "labels", "colors", "colours", "markers", "styles",
  ])
  static let readingKeys: Set<String> = [
    "format", "dataset", "key_column", "size_column", "time_column", "header", "delimiter", "renumber_ids",
  ]
  static let fileTraceKeys = readingKeys.union(["path", "name", "requests", "objects", "checksum"])
  /// A `glob` or `folder` entry: every trace it matches, read alike.
  static let patternKeys = readingKeys.union(["glob", "folder"])
  static let syntheticKeys: Set<String> = [
    "generate", "name", "dataset", "objects", "requests", "alpha", "object_size", "size_distribution", "scan_every",
    "scan_length", "hot_objects", "hot_share", "shift_every", "mix",
  ]
  static let stressKeys: Set<String> = ["trace", "policy", "size", "threads", "locks", "ops"]
  static let diskKeys: Set<String> = ["modes", "value_sizes", "ops", "rounds", "inline_threshold"]

  /// Reads the configuration at `path` (TOML, or JSON by its `.json`
  /// extension or a leading `{`). With `checkFiles`, trace files must exist
  /// (relative paths are tried against the current folder, then the
  /// configuration's folder).
  public static func load(path: String, checkFiles: Bool = true) throws(ConfigError) -> CompareConfig {
    guard let data = FileManager.default.contents(atPath: path) else {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
        var info = stat()
        let regular = stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        throw ConfigError(
          file: path,
          isDirectory.boolValue
            ? "is a folder; name the configuration file"
            : regular
              ? "cannot be read; check its permissions"
              : "is not a regular file (a FIFO or a device); write the configuration to a file and name that")
      }
      throw ConfigError(file: path, "no such configuration file; docs/comparing.md describes its keys")
    }
    let text = String(decoding: data, as: UTF8.self)
    let isJSON = path.lowercased().hasSuffix(".json") || text.drop(while: { $0.isWhitespace }).first == "{"
    return try parse(text, format: isJSON ? "json" : "toml", file: path, checkFiles: checkFiles)
  }

  /// What a front end was asked to sweep: a configuration file, a
  /// collection of traces, or the sweep item by item (traces, policies,
  /// sizes, ...; `evlab compare` gathers these from its flags). Exactly one
  /// of these makes the sweep (``configuration(defaultPath:)``).
  public struct Choices: Sendable {
    public var config: String?
    public var collection: String?
    public var traces: [String] = []
    public var name: String?
    public var sizeMode: String?
    public var policies: [String] = []
    public var sizes: [String] = []
    public var seeds: [String] = []
    public var admissions: [String] = []
    public var warmup: String?
    public var interval: String?
    /// The penalty model (``EvictionSim/PenaltyModel``), as given.
    public var penalty: String?
    /// How to read `traces`, as a configuration's reading keys give it for
    /// each trace (`format`, `key_column`, `size_column`, `time_column`,
    /// `header`, `delimiter`, `renumber_ids`), with `skip_bad_lines`.
    public var reading = Reading()
    public init() {}

    /// How the command line says to read its traces.
    public struct Reading: Sendable {
      public var format: String?
      public var keyColumn: Int?
      public var sizeColumn: Int?
      public var timeColumn: Int?
      public var header: String?
      public var delimiter: String?
      public var renumberIDs = false
      public var skipBadLines = false
      public init() {}

      /// The keys of each trace's table.
      var traceKeys: [String: Any] {
        var keys: [String: Any] = [:]
        keys["format"] = format
        keys["key_column"] = keyColumn
        keys["size_column"] = sizeColumn
        keys["time_column"] = timeColumn
        keys["header"] = header
        keys["delimiter"] = delimiter
        if renumberIDs { keys["renumber_ids"] = true }
        return keys
      }

      var isEmpty: Bool { traceKeys.isEmpty && !skipBadLines }
    }

    /// The sweep these flags describe; with none of config, collection or
    /// traces, the configuration at `defaultPath`.
    public func configuration(defaultPath: String) throws(ConfigError) -> CompareConfig {
      if let collection {
        guard config == nil && traces.isEmpty && reading.isEmpty else {
          throw ConfigError(
            file: collection,
            "give \(Setting.collection) alone, without \(Setting.config), \(Setting.trace) or the options for reading traces (\(Setting.format) and the CSV columns): a catalog sets them per trace"
          )
        }
        return try CompareConfig.collection(
          path: collection, name: name, sizeMode: sizeMode, policies: policies, sizes: sizes, seeds: seeds,
          admissions: admissions, warmup: warmup, interval: interval, penalty: penalty)
      }
      if config == nil && traces.isEmpty && !FileManager.default.fileExists(atPath: defaultPath) {
        throw ConfigError(
          file: "the sweep",
          "nothing to compare; give \(Setting.trace) FILE (with \(Setting.policy) and \(Setting.size)), \(Setting.config) FILE or \(Setting.collection) FILE; without them it runs \(defaultPath), the repository's Quick start sweep, which is not under the current folder"
        )
      }
      if let path = config ?? (traces.isEmpty ? defaultPath : nil) {
        let sweepFlags =
          policies.isEmpty && sizes.isEmpty && admissions.isEmpty && warmup == nil && interval == nil
          && penalty == nil && name == nil && sizeMode == nil && seeds.isEmpty && reading.isEmpty
        guard traces.isEmpty && sweepFlags else {
          throw ConfigError(
            file: path,
            "give either \(Setting.config) or "
              + [Setting.trace, .policy, .size, .sizeMode, .seeds, .runName, .warmup, .interval, .penalty, .format]
              .map(\.description)
              .joined(separator: "/")
              + ", not both; a configuration takes these as keys (name, size_mode, seeds, warmup, interval, penalty, ...)"
          )
        }
        return try CompareConfig.load(path: path)
      }
      return try CompareConfig.fromItems(
        name: name, sizeMode: sizeMode, policies: policies, traces: traces, sizes: sizes, seeds: seeds,
        admissions: admissions, warmup: warmup, interval: interval, penalty: penalty, reading: reading)
    }
  }

  /// The former name of ``Choices``.
  @available(*, deprecated, renamed: "Choices")
  public typealias Flags = Choices

  /// The former name of ``fromItems(name:sizeMode:policies:traces:sizes:seeds:admissions:warmup:interval:reading:)``.
  @available(*, deprecated, renamed: "fromItems")
  public static func fromFlags(
    name: String?, sizeMode: String?, policies: [String], traces: [String], sizes: [String], seeds: [String],
    admissions: [String] = [], warmup: String? = nil, interval: String? = nil,
    reading: Choices.Reading = Choices.Reading()
  ) throws(ConfigError) -> CompareConfig {
    try fromItems(
      name: name, sizeMode: sizeMode, policies: policies, traces: traces, sizes: sizes, seeds: seeds,
      admissions: admissions, warmup: warmup, interval: interval, reading: reading)
  }

  /// The sweep given item by item instead of in a file (values as given,
  /// each possibly a comma-separated list; `sizeMode` nil is count):
  /// written as a JSON configuration, so items and files go through one parser.
  public static func fromItems(
    name: String?, sizeMode: String?, policies: [String], traces: [String], sizes: [String], seeds: [String],
    admissions: [String] = [], warmup: String? = nil, interval: String? = nil, penalty: String? = nil,
    reading: Choices.Reading = Choices.Reading()
  ) throws(ConfigError) -> CompareConfig {
    let file = commandLine
    for trace in traces where reading.format == nil && TraceFormat.infer(fromPath: trace) == nil {
      throw ConfigError(
        file: file,
        "\(trace): cannot tell the trace format from the file name; pass \(Setting.format) (\(TraceFormat.allNames.joined(separator: ", ")))"
      )
    }
    var document = try flagDocument(
      name: name, sizeMode: sizeMode, policies: policies, traces: traces, sizes: sizes, seeds: seeds,
      admissions: admissions, warmup: warmup, interval: interval, penalty: penalty)
    document["traces"] = traces.map { ["path": $0].merging(reading.traceKeys) { given, _ in given } }
    if reading.skipBadLines { document["skip_bad_lines"] = true }
    let data = try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    var config = try parse(String(decoding: data, as: UTF8.self), format: "json", file: file)
    config.givenAsFlags = true
    return config
  }

  /// What errors about a sweep given as flags name as their file.
  static let commandLine = "the command line"

  /// The flags as a configuration document.
  static func flagDocument(
    name: String?, sizeMode: String?, policies: [String], traces: [String], sizes: [String], seeds: [String],
    admissions: [String], warmup: String? = nil, interval: String? = nil, penalty: String? = nil
  ) throws(ConfigError) -> [String: Any] {
    let file = commandLine
    func items(_ values: [String], _ option: String) throws(ConfigError) -> [String] {
      let items = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        .map { $0.trimmingCharacters(in: .whitespaces) }
      guard !items.contains(where: \.isEmpty) else {
        throw ConfigError(file: file, "\(option) '\(values.joined(separator: ","))' has an empty item")
      }
      return items
    }
    var document: [String: Any] = [
      "name": name ?? "compare", "size_mode": sizeMode ?? "count", "policies": policies,
      "traces": traces.map { ["path": $0] },
      "sizes": try items(sizes, Setting.size.description).map { Int64($0) ?? $0 as Any },
    ]
    if !admissions.isEmpty { document["admissions"] = admissions }
    if let warmup { document["warmup"] = warmup }
    if let interval { document["interval"] = interval }
    if let penalty { document["penalty"] = penalty }
    if !seeds.isEmpty {
      var values: [Int] = []
      for seed in try items(seeds, Setting.seeds.description) {
        guard let value = Int(seed) else {
          throw ConfigError(file: file, "\(Setting.seeds) '\(seed)': write integers such as 1,2,3")
        }
        values.append(value)
      }
      document["seeds"] = values
    }
    return document
  }

  /// A sweep over the traces a collection file lists (`[[traces]]` tables, as
  /// in a configuration; `traces/catalog.toml` is one), with the policies,
  /// sizes, seeds and admissions given as flags. By default: every online
  /// policy, at 0.1%, 1% and 10% of each trace's footprint.
  public static func collection(
    path: String, name: String?, sizeMode: String?, policies: [String], sizes: [String], seeds: [String],
    admissions: [String] = [], warmup: String? = nil, interval: String? = nil, penalty: String? = nil
  ) throws(ConfigError) -> CompareConfig {
    guard let contents = FileManager.default.contents(atPath: path) else {
      throw ConfigError(file: path, "no such collection file; traces/catalog.toml is one (evlab catalog writes them)")
    }
    let catalog = try TOMLParser.parse(String(decoding: contents, as: UTF8.self), file: path)
    let reader = TableReader(table: catalog, file: path, context: "the collection", known: ["name", "traces"])
    try reader.rejectUnknown()
    let given = try reader.string("name")
    let document = try flagDocument(
      name: name ?? given ?? "collection", sizeMode: sizeMode,
      policies: policies.isEmpty ? ["online"] : policies, traces: [],
      sizes: sizes.isEmpty ? ["0.1%", "1%", "10%"] : sizes, seeds: seeds, admissions: admissions, warmup: warmup,
      interval: interval, penalty: penalty)
    let data = try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    var table = try ConfigValue.fromJSON(data, file: path)
    table["traces"] = catalog["traces"]
    // Relative sizes leave some small traces at a handful of objects.
    table["small_sizes"] = .string("skip")
    return try parse(table: table, text: nil, format: "json", file: path)
  }

  /// Parses configuration text; `file` names it in errors and anchors relative paths.
  public static func parse(_ text: String, format: String, file: String, checkFiles: Bool = true) throws(ConfigError)
    -> CompareConfig
  {
    let table =
      format == "json"
      ? try ConfigValue.fromJSON(Data(text.utf8), file: file) : try TOMLParser.parse(text, file: file)
    return try parse(table: table, text: text, format: format, file: file, checkFiles: checkFiles)
  }

  /// Parses a configuration's table. `text` is what it was read from; nil
  /// (or traces given by `glob` or `folder`) keeps the table itself, as JSON,
  /// as the configuration's ``source``, so a shard's partial result names
  /// every trace it ran.
  static func parse(
    table: [String: ConfigValue], text: String?, format: String, file: String, checkFiles: Bool = true
  ) throws(ConfigError) -> CompareConfig {
    var table = table
    let reader = TableReader(table: table, file: file, context: "the configuration", known: topKeys)
    try reader.rejectUnknown()
    let name = try reader.string("name") ?? "default"
    guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
      throw ConfigError(file: file, "name '\(name)' must be a plain folder name (it becomes results/\(name)/)")
    }
    let policyTexts = try reader.strings("policies") ?? []
    guard !policyTexts.isEmpty else {
      throw ConfigError(
        file: file, "policies is empty; name at least one of \(PolicyCatalog.names.joined(separator: ", "))")
    }
    var policies: [PolicySpec] = []
    for text in policyTexts {
      do throws(PolicyError) { policies += try PolicySpec.list(text) } catch {
        throw ConfigError(file: file, "policies: \(error.description)")
      }
    }
    let run = try runSettings(table, policies: policies, reader: reader)
    let sizes = try reader.sizes("sizes") ?? []
    guard !sizes.isEmpty else {
      throw ConfigError(
        file: file,
        "sizes is empty; give cache sizes such as [100, 1000] or shares of the footprint such as [\"0.1%\", \"1%\"]")
    }
    guard Set(sizes).count == sizes.count else { throw ConfigError(file: file, "sizes lists a size twice") }
    let seedValues = try reader.integers("seeds") ?? [1]
    guard !seedValues.isEmpty, seedValues.allSatisfy({ $0 >= 0 }), Set(seedValues).count == seedValues.count else {
      throw ConfigError(file: file, "seeds must be distinct non-negative integers, e.g. [1, 2, 3]")
    }
    if seedValues.count > 1,
      let pinned = policies.first(where: {
        $0.parameters["seed"] != nil
          && PolicyCatalog.entry(named: $0.name)?.parameters.contains { $0.name == "seed" } == true
      })
    {
      throw ConfigError(
        file: file,
        "\(pinned) pins its seed, so it would run once where seeds asks for \(seedValues.count) runs; leave seed= out of it, or give one seed"
      )
    }
    let chartSize = try reader.sizes("chart_size", single: true)?.first ?? sizes[sizes.count / 2]
    guard sizes.contains(chartSize) else {
      throw ConfigError(file: file, "chart_size \(chartSize) is not one of the sizes")
    }
    let skipBadLines = try reader.bool("skip_bad_lines") ?? false
    let smallText = try reader.string("small_sizes") ?? "error"
    guard let smallSizes = SmallSizes(rawValue: smallText.lowercased()) else {
      throw ConfigError(file: file, "small_sizes '\(smallText)': use \"error\" or \"skip\"")
    }

    guard case .array(let givenItems)? = table["traces"], !givenItems.isEmpty else {
      throw ConfigError(file: file, "no traces; add a [[traces]] section with a path (or a generate kind)")
    }
    let (traceItems, expanded) = try expandPatterns(givenItems, file: file, checkFiles: checkFiles)
    var traces: [TraceEntry] = []
    for (i, item) in traceItems.enumerated() {
      guard case .table(let t) = item else { throw ConfigError(file: file, "traces[\(i + 1)] must be a table") }
      traces.append(
        try traceEntry(t, index: i + 1, file: file, checkFiles: checkFiles, skipBadLines: skipBadLines))
    }
    var seenNames: [String: Int] = [:]
    for (i, trace) in traces.enumerated() {
      if let other = seenNames.updateValue(i, forKey: trace.name) {
        throw ConfigError(
          file: file,
          "traces \(other + 1) and \(i + 1) are both named '\(trace.name)'; give one a name = \"...\" (a glob or folder entry names traces by file name)"
        )
      }
    }
    table["traces"] = .array(traceItems)
    let source = expanded ? ConfigValue.table(table).jsonText : text ?? ConfigValue.table(table).jsonText
    let sourceFormat = source == text ? format : "json"

    var stress: StressSection? = nil
    if let value = table["stress"] {
      guard case .table(let t) = value else { throw ConfigError(file: file, "stress must be a table: [stress]") }
      stress = try stressSection(t, traces: traces, policies: policies, sizes: sizes, file: file)
    }
    var disk: DiskSection? = nil
    if let value = table["disk"] {
      guard case .table(let t) = value else { throw ConfigError(file: file, "disk must be a table: [disk]") }
      disk = try diskSection(t, file: file)
    }
    var config = CompareConfig(
      name: name, sizeMode: run.sizeMode, policies: policies, sizes: sizes, seeds: seedValues.map { UInt64($0) },
      traces: traces, chartSize: chartSize, stress: stress, disk: disk, jobs: run.jobs, skipBadLines: skipBadLines,
      source: source, sourceFormat: sourceFormat)
    (config.admissions, config.window, config.attribution) = (run.admissions, run.window, run.attribution)
    (config.attributionReference, config.penalty) = (run.attributionReference, run.penalty)
    if let penalty = run.penalty { try checkPenalty(penalty, traces: traces, file: file) }
    config.smallSizes = smallSizes
    config.figures = try FigureSettings.read(table, file: file)
    try config.figures.check(policies: config.labels, traces: traces.map(\.name), file: file)
    return config
  }

  /// Refuses a penalty model that some trace cannot price: `trace` on a
  /// format that carries no penalties, or on a generated workload.
  static func checkPenalty(_ penalty: PenaltyModel, traces: [TraceEntry], file: String) throws(ConfigError) {
    for trace in traces {
      switch trace.origin {
      case .file(let source):
        do throws(TraceError) { try penalty.check(source) } catch {
          throw ConfigError(file: file, "penalty: \(error.description)")
        }
      case .synthetic where penalty == .trace:
        throw ConfigError(
          file: file,
          "penalty: the model trace reads each request's penalties from the trace, and \(trace.name) is a generated "
            + "workload, which carries none; give constant:miss=M or size:base=B,per-byte=P instead")
      case .synthetic: break
      }
    }
  }

  /// The trace tables with every `glob` or `folder` entry replaced by one
  /// table per trace it matches (sorted by path; each keeps the entry's
  /// other keys, and its dataset defaults to the trace's folder); and
  /// whether there was one. A folder contributes the files whose format its
  /// name or the folder's name tells, documentation (README, LICENSE,
  /// REFERENCE files) aside.
  static func expandPatterns(_ items: [ConfigValue], file: String, checkFiles: Bool) throws(ConfigError) -> (
    [ConfigValue], Bool
  ) {
    var out: [ConfigValue] = []
    var expanded = false
    for (i, item) in items.enumerated() {
      guard case .table(let t) = item, t["glob"] != nil || t["folder"] != nil else {
        out.append(item)
        continue
      }
      expanded = true
      let context = "traces[\(i + 1)]"
      let r = TableReader(table: t, file: file, context: context, known: patternKeys)
      try r.rejectUnknown()
      guard t["glob"] == nil || t["folder"] == nil else {
        throw ConfigError(file: file, "\(context): give glob or folder, not both")
      }
      var matches: [String]
      if let pattern = try r.string("glob") {
        matches = globMatches(pattern, configFile: file).filter { path in
          var isDirectory: ObjCBool = false
          return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
      } else {
        let given = try r.string("folder")!
        let folder = try resolvePath(given, configFile: file, context: context, folder: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        matches = names.sorted().map { (folder as NSString).appendingPathComponent($0) }.filter { path in
          let name = (path as NSString).lastPathComponent.uppercased()
          var isDirectory: ObjCBool = false
          return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && !["README", "LICENSE", "REFERENCE"].contains(where: { name.hasPrefix($0) })
            && (t["format"] != nil || TraceFormat.infer(fromPathOrFolder: path) != nil)
        }
      }
      // A run's own outputs are no traces: a folder that also holds a run's
      // results (an earlier one, or this one's if --output points there)
      // would otherwise feed its CSVs back in.
      matches.removeAll(where: isRunOutput)
      guard !matches.isEmpty else {
        throw ConfigError(
          file: file,
          "\(context): \(t["glob"] != nil ? "glob" : "folder") matches no trace file (looked in the current folder and beside the configuration)"
        )
      }
      for path in matches {
        var table = t
        table["glob"] = nil
        table["folder"] = nil
        table["path"] = .string(path)
        if table["format"] == nil, let format = TraceFormat.infer(fromPathOrFolder: path),
          TraceFormat.infer(fromPath: path) == nil
        {
          table["format"] = .string(format.rawValue)
        }
        out.append(.table(table))
      }
    }
    return (out, expanded)
  }

  /// The CSV files `evlab compare` writes beside its `provenance.json`.
  static let outputCSVs: Set<String> = [
    "results.csv", "summary.csv", "timings.csv", "timeseries.csv", "stress.csv", "disk.csv",
  ]

  /// Whether `path` is a CSV a run wrote: one of its names, beside the
  /// run's `provenance.json`.
  static func isRunOutput(_ path: String) -> Bool {
    let folder = path.parentPath
    return outputCSVs.contains((path as NSString).lastPathComponent)
      && FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("provenance.json"))
  }

  /// The files `pattern` matches (glob(3)), relative to the current folder,
  /// else to the configuration's; sorted.
  static func globMatches(_ pattern: String, configFile: String) -> [String] {
    var patterns = [pattern]
    if !pattern.hasPrefix("/") {
      patterns.append((configFile.parentPath as NSString).appendingPathComponent(pattern))
    }
    for candidate in patterns {
      var result = glob_t()
      defer { globfree(&result) }
      guard glob(candidate, 0, nil, &result) == 0 else { continue }
      let paths = (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
      if !paths.isEmpty { return paths.sorted() }
    }
    return []
  }

  static func traceEntry(
    _ t: [String: ConfigValue], index: Int, file: String, checkFiles: Bool, skipBadLines: Bool
  ) throws(ConfigError) -> TraceEntry {
    let context = "traces[\(index)]"
    if t["generate"] != nil {
      let r = TableReader(table: t, file: file, context: context, known: syntheticKeys)
      try r.rejectUnknown()
      let kindText = try r.string("generate")!
      guard let kind = SyntheticWorkload.Kind(rawValue: kindText.lowercased()) else {
        throw ConfigError(
          file: file,
          "\(context): generate '\(kindText)': known kinds are \(SyntheticWorkload.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      let objects = try r.positive("objects") ?? 10_000
      let requests = try r.positive("requests") ?? 100_000
      var workload = SyntheticWorkload(kind: kind, objects: objects, requests: requests)
      if let alpha = try r.number("alpha") { workload.alpha = alpha }
      if let size = try r.positive("object_size") { workload.objectSize = Int64(size) }
      if let every = try r.positive("scan_every") { workload.scanEvery = every }
      if let length = try r.positive("scan_length") { workload.scanLength = length }
      if let hot = try r.positive("hot_objects") { workload.hotObjects = hot }
      if let share = try r.number("hot_share") { workload.hotShare = share }
      if let shift = try r.positive("shift_every") { workload.shiftEvery = shift }
      let distribution = try r.string("size_distribution")
      let mix = try r.string("mix")
      do throws(TraceError) {
        if let distribution { workload.sizes = try .init(distribution) }
        if let mix { workload.components = try SyntheticWorkload.Component.parse(mix) }
        try workload.check()
      } catch {
        throw ConfigError(file: file, "\(context): \(error.description)")
      }
      if kind == .mix && workload.components.isEmpty {
        throw ConfigError(file: file, "\(context): generate = \"mix\" needs mix = \"zipf:0.8,scan:0.2\"")
      }
      let given = try r.string("name")
      var entry = TraceEntry(
        name: given ?? "\(kind.rawValue)-\(objects)", origin: .synthetic(workload),
        dataset: try r.string("dataset") ?? "synthetic")
      entry.named = given != nil
      return entry
    }
    let r = TableReader(table: t, file: file, context: context, known: fileTraceKeys)
    try r.rejectUnknown()
    guard let given = try r.string("path") else {
      throw ConfigError(file: file, "\(context) needs a path (or generate = \"zipf\" and its parameters)")
    }
    let path = checkFiles ? try resolvePath(given, configFile: file, context: context) : given
    let format: TraceFormat
    if let name = try r.string("format") {
      do throws(TraceError) { format = try TraceFormat(name: name) } catch {
        throw ConfigError(file: file, "\(context): \(error.description)")
      }
    } else if let inferred = TraceFormat.infer(fromPath: path) {
      format = inferred
    } else {
      throw ConfigError(
        file: file, "\(context): cannot tell the format of \(given) from its name; add format = \"...\"")
    }
    var csv = CSVOptions()
    if let c = try r.positive("key_column") { csv.keyColumn = c }
    if let c = try r.positive("size_column") { csv.sizeColumn = c }
    if let c = try r.positive("time_column") { csv.timeColumn = c }
    if let h = try r.string("header") {
      guard let header = CSVOptions.Header(rawValue: h.lowercased()) else {
        throw ConfigError(file: file, "\(context): header '\(h)': use auto, yes or no")
      }
      csv.header = header
    }
    if let d = try r.string("delimiter") {
      guard d.utf8.count == 1 else { throw ConfigError(file: file, "\(context): delimiter must be one character") }
      csv.delimiter = d.utf8.first!
    }
    let explicitName = try r.string("name")
    let name = explicitName ?? (given as NSString).lastPathComponent
    var source = TraceSource(path: path, format: format, csv: csv, skipBadRecords: skipBadLines)
    source.renumberIDs = try r.bool("renumber_ids") ?? false
    var folder = (given.parentPath as NSString).lastPathComponent
    // `../t.csv` is in a folder with a name: `..` is no dataset.
    if folder == ".." {
      folder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().lastPathComponent
    }
    var entry = TraceEntry(
      name: name, origin: .file(source), dataset: try r.string("dataset") ?? (folder.isEmpty ? "." : folder))
    entry.named = explicitName != nil
    entry.expectedRequests = try r.positive("requests").map(Int64.init)
    entry.expectedObjects = try r.positive("objects")
    if let expected = try r.string("checksum"), checkFiles {
      do throws(TraceError) {
        let actual = try FileChecksum.crc32(path: path)
        guard actual == expected.lowercased() else {
          throw TraceError.catalogMismatch(path: path, reason: "its checksum is \(actual), not \(expected)")
        }
      } catch {
        throw ConfigError(file: file, "\(context): \(error.description)")
      }
    }
    return entry
  }

  /// `given` as it exists: relative to the current folder, else to the
  /// configuration's. A relative path that names a file in both, and not
  /// the same file, is refused: which one the run read would depend on
  /// where it was started. `./NAME` is the current folder's only.
  static func resolvePath(_ given: String, configFile: String, context: String, folder: Bool = false)
    throws(ConfigError) -> String
  {
    let manager = FileManager.default
    var candidates = [given]
    // `./NAME` says "the current folder's": it is looked for nowhere else.
    if !given.hasPrefix("/") && !given.hasPrefix("./") {
      candidates.append((configFile.parentPath as NSString).appendingPathComponent(given))
    }
    var here = stat()
    var beside = stat()
    if candidates.count == 2, stat(candidates[0], &here) == 0, stat(candidates[1], &beside) == 0,
      here.st_dev != beside.st_dev || here.st_ino != beside.st_ino
    {
      throw ConfigError(
        file: configFile,
        "\(context): \(given) names two different files, one in the current folder and \(candidates[1]) beside the configuration; write the path you mean (./\(given) for the current folder's, or \(candidates[1]))"
      )
    }
    for candidate in candidates {
      var isDirectory: ObjCBool = false
      if manager.fileExists(atPath: candidate, isDirectory: &isDirectory) {
        guard isDirectory.boolValue == folder else {
          throw ConfigError(
            file: configFile,
            folder
              ? "\(context): \(given) is a file, not a folder" : "\(context): \(given) is a folder, not a trace file")
        }
        return candidate
      }
    }
    throw ConfigError(
      file: configFile,
      "\(context): trace \(given) does not exist (looked in the current folder and beside the configuration)")
  }

  static func stressSection(
    _ t: [String: ConfigValue], traces: [TraceEntry], policies: [PolicySpec], sizes: [SizeSpec], file: String
  ) throws(ConfigError) -> StressSection {
    let r = TableReader(table: t, file: file, context: "[stress]", known: stressKeys)
    try r.rejectUnknown()
    let traceName = try r.string("trace") ?? traces[0].name
    guard traces.contains(where: { $0.name == traceName }) else {
      throw ConfigError(
        file: file,
        "[stress]: trace '\(traceName)' is not one of the traces (\(traces.map(\.name).joined(separator: ", ")))")
    }
    var policy = policies[0]
    if let text = try r.string("policy") {
      do throws(PolicyError) { policy = try PolicySpec(text) } catch {
        throw ConfigError(file: file, "[stress]: \(error.description)")
      }
    }
    if let entry = PolicyCatalog.entry(named: policy.name), entry.trimsOnATimer || entry.isOffline {
      throw ConfigError(
        file: file, "[stress]: policy \(policy.name) cannot run inside a memory cache; choose an online policy")
    }
    let size = try r.sizes("size", single: true)?.first ?? sizes[sizes.count / 2]
    let threads = (try r.integers("threads") ?? [1, 2]).map(Int.init)
    guard !threads.isEmpty, threads.allSatisfy({ $0 >= 1 && $0 <= 256 }) else {
      throw ConfigError(file: file, "[stress]: threads must list thread counts from 1 to 256, e.g. [1, 2, 4]")
    }
    let lockTexts = try r.strings("locks") ?? ["mutex", "striped:8"]
    guard !lockTexts.isEmpty else {
      throw ConfigError(file: file, "[stress]: locks is empty; e.g. [\"mutex\", \"striped:8\"]")
    }
    var locks: [LockStrategy] = []
    for text in lockTexts {
      do throws(CacheError) { locks.append(try LockStrategy(text)) } catch {
        throw ConfigError(file: file, "[stress]: \(error.description)")
      }
    }
    let ops = try r.positive("ops") ?? 200_000
    return StressSection(trace: traceName, policy: policy, size: size, threads: threads, locks: locks, ops: ops)
  }

  static func diskSection(_ t: [String: ConfigValue], file: String) throws(ConfigError) -> DiskSection {
    let r = TableReader(table: t, file: file, context: "[disk]", known: diskKeys)
    try r.rejectUnknown()
    var modes: [DiskBench.Mode] = []
    for name in try r.strings("modes") ?? ["file", "sqlite", "mixed"] {
      guard let mode = DiskBench.Mode(rawValue: name.lowercased()) else {
        throw ConfigError(file: file, "[disk]: mode '\(name)': use file, sqlite or mixed")
      }
      modes.append(mode)
    }
    let sizes = try r.sizes("value_sizes") ?? [.absolute(256), .absolute(4096), .absolute(65536), .absolute(1 << 20)]
    var valueSizes: [Int] = []
    for size in sizes {
      guard case .absolute(let n) = size, n <= 256 << 20 else {
        throw ConfigError(file: file, "[disk]: value_sizes are byte counts up to 256m, not shares of a footprint")
      }
      valueSizes.append(Int(n))
    }
    let ops = try r.positive("ops") ?? 1000
    let rounds = try r.positive("rounds") ?? 1
    guard !modes.isEmpty, !valueSizes.isEmpty, ops >= 10 else {
      throw ConfigError(file: file, "[disk]: give at least one mode and one value size, and ops of at least 10")
    }
    var inlineThreshold = DiskStore.defaultInlineThreshold
    if let size = try r.sizes("inline_threshold", single: true)?.first {
      guard case .absolute(let n) = size else {
        throw ConfigError(file: file, "[disk]: inline_threshold is a byte count (\"32k\"), not a share")
      }
      inlineThreshold = Int(n)
    }
    return DiskSection(
      modes: modes, valueSizes: valueSizes, ops: ops, rounds: rounds, inlineThreshold: inlineThreshold)
  }

  /// Whether runs of `policy` differ by seed (a `seed` parameter it was not given).
  public static func isRandomised(_ policy: PolicySpec) -> Bool {
    guard let entry = PolicyCatalog.entry(named: policy.name) else { return false }
    return entry.parameters.contains { $0.name == "seed" } && policy.parameters["seed"] == nil
  }
}

/// Typed access to one table of a configuration, with errors that name the
/// file, the table and the key.
struct TableReader {
  let table: [String: ConfigValue]
  let file: String
  let context: String
  let known: Set<String>

  func rejectUnknown() throws(ConfigError) {
    for key in table.keys.sorted() where !known.contains(key) {
      throw ConfigError(
        file: file, "\(context): unknown key '\(key)'; known keys: \(known.sorted().joined(separator: ", "))")
    }
  }

  func fail(_ key: String, _ expected: String, _ value: ConfigValue) -> ConfigError {
    ConfigError(file: file, "\(context): \(key) must be \(expected), not \(value.kind)")
  }

  func string(_ key: String) throws(ConfigError) -> String? {
    guard let value = table[key] else { return nil }
    guard case .string(let s) = value else { throw fail(key, "a string", value) }
    return s
  }

  func bool(_ key: String) throws(ConfigError) -> Bool? {
    guard let value = table[key] else { return nil }
    guard case .bool(let b) = value else { throw fail(key, "true or false", value) }
    return b
  }

  func number(_ key: String) throws(ConfigError) -> Double? {
    switch table[key] {
    case nil: return nil
    case .integer(let i)?: return Double(i)
    case .float(let d)? where d.isFinite: return d
    case let value?: throw fail(key, "a finite number", value)
    }
  }

  func positive(_ key: String) throws(ConfigError) -> Int? {
    guard let value = table[key] else { return nil }
    guard case .integer(let i) = value, i > 0, i <= Int64(Int32.max) * 1024 else {
      throw fail(key, "a positive integer", value)
    }
    return Int(i)
  }

  func strings(_ key: String) throws(ConfigError) -> [String]? {
    guard let value = table[key] else { return nil }
    if case .string(let s) = value { return [s] }
    guard case .array(let items) = value else { throw fail(key, "an array of strings", value) }
    var out: [String] = []
    for item in items {
      guard case .string(let s) = item else { throw fail(key, "an array of strings", item) }
      out.append(s)
    }
    return out
  }

  func integers(_ key: String, single: Bool = false) throws(ConfigError) -> [Int64]? {
    guard let value = table[key] else { return nil }
    if case .integer(let i) = value { return [i] }
    guard !single, case .array(let items) = value else {
      throw fail(key, single ? "an integer" : "an array of integers", value)
    }
    var out: [Int64] = []
    for item in items {
      guard case .integer(let i) = item else { throw fail(key, "an array of integers", item) }
      out.append(i)
    }
    return out
  }

  /// Sizes: integers, or strings in the size grammar (`"64m"`, `"1%"`,
  /// `"0.01"`, `"100..5000:log8"`, `"auto"`; see ``CacheSize``).
  func sizes(_ key: String, single: Bool = false) throws(ConfigError) -> [CompareConfig.SizeSpec]? {
    guard let value = table[key] else { return nil }
    var items: [ConfigValue]
    switch value {
    case .array(let a) where !single: items = a
    case .integer, .string: items = [value]
    default: throw fail(key, single ? "a size" : "an array of sizes", value)
    }
    var out: [CompareConfig.SizeSpec] = []
    func add(_ size: CompareConfig.SizeSpec) throws(ConfigError) {
      guard !out.contains(size) else {
        throw ConfigError(file: file, "\(context): \(key) lists the size \(size) twice; list each once")
      }
      out.append(size)
    }
    for item in items {
      switch item {
      case .integer(let i) where i > PolicySpec.maximumCapacity:
        throw ConfigError(file: file, "\(context): \(key): \(i) is past the largest cache evlab builds, 2⁵⁶")
      case .integer(let i) where i > 0: try add(.absolute(i))
      case .string(let s):
        let parsed: [CacheSize]
        do throws(SizeError) {
          parsed = single ? [try CacheSize(s)] : try CacheSize.list(s)
        } catch {
          throw ConfigError(file: file, "\(context): \(key): \(error.message)")
        }
        for size in parsed { try add(size) }
      case .integer(let i):
        throw ConfigError(file: file, "\(context): \(key): \(i) is not a size; a cache needs a positive size")
      case .float(let f) where f > Double(PolicySpec.maximumCapacity):
        throw ConfigError(file: file, "\(context): \(key): \(f) is past the largest cache evlab builds, 2⁵⁶")
      case .float(let f):
        throw ConfigError(
          file: file,
          "\(context): \(key): \(f) is not a size: write a count or byte size as an integer (5000), a share of the footprint as text (\"1%\" or \"0.01\")"
        )
      default: throw ConfigError(file: file, "\(context): \(key): \(item.kind) is not a size; \(CacheSize.grammar)")
      }
    }
    return out
  }
}
