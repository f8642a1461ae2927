import ArgumentParser
import EvictionCache
import EvictionCore
import EvictionExperiments
import EvictionRun
import EvictionSim
import EvictionTraces
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A bad argument: one line on standard error and exit status 1 (see
/// ``EvictionLab/main(extraPolicies:)``), naming the value and what to write instead.
struct ArgumentError: Error, CustomStringConvertible, Equatable {
  var description: String
  init(_ message: String) { description = message }
}

/// A value an option parses into.
protocol ArgumentValue: Sendable {
  init(parsing text: String) throws(ArgumentError)
}

/// An option's value, parsed as the command line is read and checked in
/// `validate()`: a bad one becomes the tool's one-line error rather than a
/// usage screen. `value` is for `run()`, after validation.
struct Checked<Value: ArgumentValue>: ExpressibleByArgument, ExpressibleByStringLiteral, Sendable {
  let text: String
  let parsed: Result<Value, ArgumentError>

  init(argument: String) {
    text = argument
    parsed = Result { () throws(ArgumentError) in try Value(parsing: argument) }
  }
  init(stringLiteral text: String) { self.init(argument: text) }

  var value: Value { try! parsed.get() }
  func check() throws(ArgumentError) { _ = try parsed.get() }
  var defaultValueDescription: String { text }
}

extension Array {
  /// Every value of a repeated option, in order, after `check()`.
  func values<Value>() -> [Value.Element] where Element == Checked<Value>, Value: Sequence {
    flatMap(\.value)
  }
  func check<Value>() throws(ArgumentError) where Element == Checked<Value> {
    for item in self { try item.check() }
  }
  /// As ``check()``, and refuses a value named twice (every value given is
  /// used once: `--lock mutex,mutex` would measure one lock twice).
  func check<Value: UniqueList>() throws(ArgumentError) where Element == Checked<Value> {
    for item in self { try item.check() }
    var seen = Set<Value.Element>()
    for value in values() where !seen.insert(value).inserted {
      throw ArgumentError("\(Value.option) names \(value) twice; name each once")
    }
  }
}

/// A list option whose values must differ (a repeat would run one twice).
protocol UniqueList: ArgumentValue, Sequence where Element: Hashable {
  /// The option, for errors (`--lock`).
  static var option: String { get }
}

/// Policy specs: `lru,slru:segments=4,random:seed=2`; a piece with `=` but
/// no `:` continues the previous policy's parameters; `all` is every catalog entry.
struct PolicyList: ArgumentValue, Sequence {
  var specs: [PolicySpec]
  init(parsing text: String) throws(ArgumentError) {
    do throws(PolicyError) { specs = try PolicySpec.list(text) } catch { throw ArgumentError(error.description) }
  }
  func makeIterator() -> IndexingIterator<[PolicySpec]> { specs.makeIterator() }
}

extension [Checked<PolicyList>] {
  /// The policies named, or `fallback` when none was; an error if one is named twice.
  func specs(or fallback: [PolicySpec] = []) throws(ArgumentError) -> [PolicySpec] {
    try check()
    let specs: [PolicySpec] = isEmpty ? fallback : values()
    if let twice = specs.repeatNamed { throw ArgumentError("--policy names \(twice); name each once") }
    return specs
  }
  /// Whether `all` was among the names (filters then drop what a command cannot run).
  var namesAll: Bool { contains { $0.text.split(separator: ",").contains { $0.lowercased() == "all" } } }
}

/// `--policy` (or `--policies`), as every command that runs policies by
/// name takes it.
struct PolicyOptions: ParsableArguments {
  @Option(
    name: [.customLong("policy"), .customLong("policies")],
    help: ArgumentHelp(
      "Policies, comma-separated or repeated: \(PolicyCatalog.names.joined(separator: " ")), with parameters as name:key=value (e.g. slru:segments=4, random:seed=42); all for every one the command can run (mrc and stress default to lru).",
      valueName: "policies"))
  var policies: [Checked<PolicyList>] = []
}

/// `--size` (or `--sizes`): cache sizes in the one size grammar, as replay
/// and mrc take them.
struct SizeOptions: ParsableArguments {
  @Option(
    name: [.customLong("size"), .customLong("sizes")],
    help: ArgumentHelp(
      "Cache sizes, comma-separated or repeated: objects in count mode, bytes in byte mode (k, m, g, t are powers of 1024: 16m = 16777216); shares of the footprint (1%, or 0.01 as libCacheSim writes it); ranges A..B:logN (N sizes log-spaced from A to B); auto (libCacheSim's 0.1%, 0.3%, 1%, 3%, 10%, 20%, 40%, 80%).",
      valueName: "sizes"))
  var sizes: [Checked<SizeList>] = []
}

/// `--size-mode`, as every command with a cache size takes it.
struct SizeModeOption: ParsableArguments {
  @Option(help: declared(.sizeMode))
  var sizeMode: SizeMode = .count
}

/// A command that takes some of the shared groups reads them by these names.
protocol TakesPolicies { var policyOptions: PolicyOptions { get } }
protocol TakesSizes { var sizeOptions: SizeOptions { get } }
protocol TakesSizeMode { var sizeModeOption: SizeModeOption { get } }

extension TakesPolicies {
  var policies: [Checked<PolicyList>] { policyOptions.policies }
}

extension TakesSizes {
  var sizes: [Checked<SizeList>] { sizeOptions.sizes }
}

extension TakesSizeMode {
  var sizeMode: SizeMode { sizeModeOption.sizeMode }
}

/// Admission policies: `none,bloom-filter,prob:p=0.25,seed=2,size:max=64k`.
struct AdmissionList: ArgumentValue, Sequence {
  var specs: [AdmissionSpec]
  init(parsing text: String) throws(ArgumentError) {
    do throws(AdmissionError) { specs = try AdmissionSpec.list(text) } catch { throw ArgumentError(error.description) }
  }
  func makeIterator() -> IndexingIterator<[AdmissionSpec]> { specs.makeIterator() }
}

extension [Checked<AdmissionList>] {
  /// The admission policies named, `none` when none was, as the run
  /// description's one check takes them with `sizeMode` and `policies`
  /// (``RunDescription/check(spelling:)``).
  func specs(sizeMode: SizeMode, policies: [PolicySpec]) throws(ArgumentError) -> [AdmissionSpec] {
    try check()
    var run = RunDescription()
    (run.policies, run.sizeMode, run.admissions) = (policies, sizeMode, isEmpty ? [.none] : values())
    do throws(RunError) { try run.check() } catch { throw ArgumentError(error.description) }
    return run.admissions
  }
}

/// A replay setting's help as its declaration gives it
/// (``RunDescription/settings``), with what this command says around it.
func declared(_ setting: Setting, _ prefix: String = "", suffix: String = "") -> ArgumentHelp {
  guard let declaration = RunDescription.declaration(of: setting) else {
    preconditionFailure("\(setting.name) is not a declared replay setting")
  }
  return ArgumentHelp(prefix + declaration.help + suffix)
}

/// `--admission`, as replay, mrc and stress take it.
struct AdmissionOptions: ParsableArguments {
  /// What every command's `--admission` says: each admission policy there is.
  static var help: String { RunDescription.declaration(of: .admission)!.help }

  @Option(name: .customLong("admission"), help: declared(.admission))
  var admissions: [Checked<AdmissionList>] = []

  var isEmpty: Bool { admissions.isEmpty }

  /// The admission policies named (`none` when none was), checked against `sizeMode` and `policies`.
  func specs(sizeMode: SizeMode, policies: [PolicySpec]) throws(ArgumentError) -> [AdmissionSpec] {
    try admissions.specs(sizeMode: sizeMode, policies: policies)
  }
}

/// Cache sizes in the one size grammar (``CacheSize``): `5000`, `64m`,
/// `1%`, `0.01`, `A..B:logN`, `auto`; comma-separated.
struct SizeList: UniqueList {
  static var option: String { "--size" }
  var sizes: [CacheSize]
  init(parsing text: String) throws(ArgumentError) {
    sizes = []
    for item in try listItems([text], option: "size") {
      let listed: [CacheSize]
      do throws(SizeError) { listed = try CacheSize.list(item) } catch {
        throw ArgumentError("size '\(text)': \(error.message)")
      }
      // A range's log steps may round onto one size (kept once); sizes
      // named apart must differ (`1%,0.01` is one size twice).
      if listed.count == 1 && sizes.contains(listed[0]) {
        throw ArgumentError("size '\(text)' names \(listed[0]) twice; name each once")
      }
      for size in listed where !sizes.contains(size) { sizes.append(size) }
    }
  }
  func makeIterator() -> IndexingIterator<[CacheSize]> { sizes.makeIterator() }
}

extension [Checked<SizeList>] {
  /// Every size named, each once, in the order given.
  var sizes: [CacheSize] {
    var all: [CacheSize] = []
    for size in values() where !all.contains(size) { all.append(size) }
    return all
  }
}

/// A positive size in bytes or objects: `5000`, `64k`, `16m`, `1g` (powers of 1024).
struct AbsoluteSize: ArgumentValue {
  var value: Int64
  init(parsing text: String) throws(ArgumentError) {
    switch CacheSize.parseAbsolute(text) {
    case .size(let value) where value > 0: self.value = value
    case .size: throw ArgumentError("size '\(text)' is zero; a cache needs a positive size")
    case .tooLarge: throw ArgumentError("size '\(text)' is past the largest size, 2⁶³ - 1 (8 EiB)")
    case .notANumber: throw ArgumentError("size '\(text)' is not a number; write e.g. 5000, 64k, 16m or 1g")
    }
  }
}

extension Checked where Value == AbsoluteSize {
  var bytes: Int64 { value.value }
}

/// One item of a comma-separated list option: how it parses, and the option's name for errors.
protocol ListItem: Sendable {
  static var option: String { get }
  init(item: String) throws(ArgumentError)
}

/// A list option's value: comma-separated items, each parsed as `Item`.
struct ListOf<Item: ListItem & Hashable>: UniqueList {
  static var option: String { Item.option }
  var items: [Item]
  init(parsing text: String) throws(ArgumentError) {
    items = try listItems([text], option: Item.option).map { item throws(ArgumentError) in try Item(item: item) }
  }
  func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }
}

/// Lock strategies, by `LockStrategy.names`.
extension LockStrategy: ListItem {
  static var option: String { "--lock" }
  init(item: String) throws(ArgumentError) {
    do throws(CacheError) { self = try LockStrategy(item) } catch { throw ArgumentError(error.description) }
  }
}

/// A thread count from 1 to 256.
/// What a list of whole numbers in a range is, for ``Count``.
protocol CountKind {
  static var rule: CountRule { get }
}

/// An option of whole numbers: its name, their range, what they count
/// (plural, "thread counts") and an example list.
struct CountRule {
  var option: String
  var range: ClosedRange<Int>
  var noun: String
  var example: String
}

/// A whole number in `Kind`'s range, as a list option takes it.
struct Count<Kind: CountKind>: ListItem, Hashable, CustomStringConvertible {
  static var option: String { Kind.rule.option }
  var count: Int
  init(item: String) throws(ArgumentError) {
    let rule = Kind.rule
    guard let n = Int(item), rule.range.contains(n) else {
      throw ArgumentError(
        "\(rule.option) '\(item)': give \(rule.noun) from \(rule.range.lowerBound) to \(rule.range.upperBound), e.g. \(rule.example)"
      )
    }
    count = n
  }
  var description: String { String(count) }
}

enum Threads: CountKind {
  static let rule = CountRule(option: "--threads", range: 1...256, noun: "thread counts", example: "1,2,4,8")
}
typealias ThreadCount = Count<Threads>

typealias LockList = ListOf<LockStrategy>
typealias ThreadCounts = ListOf<ThreadCount>

extension Array {
  /// The thread counts of a repeated `--threads`, in order.
  func counts() -> [Int] where Element == Checked<ThreadCounts> { values().map(\.count) }
}

/// `sizes` for `source`: shares resolved against its footprint, each size once, in the order given.
func resolveSizes(_ sizes: [CacheSize], for source: TraceSource, sizeMode: SizeMode) throws -> [Int64] {
  try failing { () throws(TraceError) in try CacheSize.resolve(sizes, for: source, sizeMode: sizeMode) }
}

/// The comma-separated items of a list option given once or repeated:
/// every item runs, and an empty list or an empty item is an error.
func listItems(_ values: [String], option: String) throws(ArgumentError) -> [String] {
  var items: [String] = []
  for value in values {
    for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
      let item = String(piece).trimmingCharacters(in: " ")
      guard !item.isEmpty else {
        throw ArgumentError("\(option) '\(value)' has an empty item; give a comma-separated list such as 1,2,4")
      }
      items.append(item)
    }
  }
  guard !items.isEmpty else { throw ArgumentError("\(option) is empty; give at least one value") }
  return items
}

extension String {
  func trimmingCharacters(in set: Character) -> String {
    var s = Substring(self)
    while s.first == set { s.removeFirst() }
    while s.last == set { s.removeLast() }
    return String(s)
  }
}

extension SizeMode: ExpressibleByArgument {}
extension CSVOptions.Header: ExpressibleByArgument {}

/// `--json PATH` and `--csv PATH`, `-` for standard output.
struct OutputOptions: ParsableArguments {
  @Option(help: "Write the results as JSON to PATH; - for standard output.")
  var json: String?

  @Option(help: "Write the results as CSV to PATH; - for standard output.")
  var csv: String?

  /// Both paths can be written (checked before any work).
  func validate() throws {
    if let json { try OutputCheck.file(json, option: "--json") }
    if let csv { try OutputCheck.file(csv, option: "--csv") }
    try OutputCheck.distinct([("--csv", csv), ("--json", json)])
  }

  /// Prints `table` for people unless a result goes to standard output
  /// (or `otherOutputs` names one that does), then writes the JSON and CSV asked for.
  func emit(
    table: @autoclosure () -> String, json jsonText: @autoclosure () -> String,
    csv csvText: @autoclosure () -> String, otherOutputs: [String?] = []
  ) throws {
    if json != "-" && csv != "-" && !otherOutputs.contains("-") { print(table(), terminator: "") }
    if json != nil { try write(jsonText(), to: json) }
    if csv != nil { try write(csvText(), to: csv) }
  }
}

/// How to read the traces: format and the CSV column mapping.
struct TraceOptions: ParsableArguments {
  @Option(
    help:
      "Trace format: \(TraceFormat.allNames.joined(separator: ", ")) (case-insensitive; default: from the file name; evlab formats lists them)."
  )
  var format: String?

  @Option(help: "CSV: 1-based column of the object id (default: a header named id/key/lbn/obj_id, else 1).")
  var keyColumn: Int?

  @Option(help: "CSV: 1-based column of the object size in bytes (default: a header named size/obj_size).")
  var sizeColumn: Int?

  @Option(help: "CSV: 1-based column of the timestamp (default: a header named time/timestamp).")
  var timeColumn: Int?

  @Option(
    help:
      "CSV: 1-based column of the operations, get, set, delete and their kin (default: a header named op/operation whose first value is one)."
  )
  var opColumn: Int?

  @Option(help: "CSV: 1-based column of the TTLs in seconds, 0 for none (default: a header named ttl).")
  var ttlColumn: Int?

  @Option(help: "CSV: whether the first line is a header: auto, yes or no.")
  var header: CSVOptions.Header = .auto

  @Option(help: "CSV: the field delimiter, one character (default: read off the first lines, one of , tab ; |).")
  var delimiter: String?

  @Flag(
    help:
      "Number ids 1, 2, 3, ... in order of first appearance, as libCacheSim does for ids it reads as strings; only id-hashing policies (W-TinyLFU's sketch) can tell the difference."
  )
  var renumberIds = false

  @Flag(
    help:
      "Pass over malformed lines (and a cut-off last binary record), count them and report them on standard error, instead of stopping at the first."
  )
  var skipBadLines = false

  /// These options as a comparison's flags carry them to each trace.
  var reading: CompareConfig.Choices.Reading {
    var reading = CompareConfig.Choices.Reading()
    (reading.format, reading.keyColumn, reading.sizeColumn) = (format, keyColumn, sizeColumn)
    (reading.timeColumn, reading.delimiter) = (timeColumn, delimiter)
    reading.header = header == .auto ? nil : header.rawValue
    (reading.renumberIDs, reading.skipBadLines) = (renumberIds, skipBadLines)
    return reading
  }

  func validate() throws {
    if let format {
      do throws(TraceError) { _ = try TraceFormat(name: format) } catch { throw ArgumentError(error.description) }
    }
    if let delimiter, delimiter.utf8.count != 1 {
      throw ArgumentError("--delimiter '\(delimiter)' must be exactly one character (use $'\\t' for tab)")
    }
  }

  var csv: CSVOptions {
    CSVOptions(
      delimiter: delimiter?.utf8.first, header: header, keyColumn: keyColumn, sizeColumn: sizeColumn,
      timeColumn: timeColumn, opColumn: opColumn, ttlColumn: ttlColumn)
  }

  /// The source for `path`, with the format given or inferred.
  func source(_ path: String, copies: Int = 1) throws(TraceError) -> TraceSource {
    let source = try TraceSource(
      checking: path, formatName: format, csv: csv, copies: copies, skipBadRecords: skipBadLines,
      renumberIDs: renumberIds)
    // The CSV options read CSV alone: on another format they would be dropped without a word.
    let given = [
      ("--key-column", keyColumn != nil), ("--size-column", sizeColumn != nil), ("--time-column", timeColumn != nil),
      ("--op-column", opColumn != nil), ("--ttl-column", ttlColumn != nil), ("--header", header != .auto),
      ("--delimiter", delimiter != nil),
    ].filter(\.1).map(\.0)
    if source.format != .csv, let first = given.first {
      throw .invalidOption(
        "\(first) reads CSV traces, but \(path) is read as \(source.format); leave \(given.joined(separator: ", ")) "
          + "out, or pass --format csv if it is CSV")
    }
    return source
  }
}

/// The source for `path` read as `options` say, `copies` times tiled.
func traceSource(_ path: String, _ options: TraceOptions, copies: Int = 1) throws -> TraceSource {
  try failing { () throws(TraceError) in try options.source(path, copies: copies) }
}

/// Reports what `--skip-bad-lines` passed over in `path`, if anything.
func warnSkipped(_ skipped: SkippedRecords, path: String) {
  if let warning = skipped.warning(path: path) { printError(warning) }
  if let note = skipped.zeroSizeNote(path: path) { printError(note) }
}

/// Runs `body`, turning its typed error into the tool's one-line error.
func failing<T, E: Error & CustomStringConvertible>(_ body: () throws(E) -> T) throws -> T {
  do throws(E) { return try body() } catch { throw fail(error) }
}

/// How a comparison's figures look: `compare` and `merge` take these over
/// the configuration's `[figures]`, `[labels]` and `[colors]` tables.
struct FigureOptions: ParsableArguments {
  @Option(help: "The figure files' width: column (3.3 in), page (7 in; the default) or inches (3.5).")
  var figureWidth: String?

  @Option(help: "The figure files' text size in points, 6 to 24 (default 8 below 5 in wide, else 9).")
  var fontSize: Double?

  @Flag(name: .customLong("no-titles"), help: "Leave titles out of the figure files (a caption replaces them).")
  var noTitles = false

  @Option(
    name: .customLong("label"),
    help:
      "NAME=TEXT: what figures and report.html call a policy (by its label: s3fifo, slru:segments=4) or a trace (by its name); repeatable."
  )
  var labels: [String] = []

  @Option(
    name: [.customLong("color"), .customLong("colour")],
    help: "POLICY=#RRGGBB: a policy's colour in every chart; repeatable.")
  var colors: [String] = []

  @Option(
    name: .customLong("marker"),
    help:
      "POLICY=SHAPE: a policy's marker in every chart (circle, square, triangle, diamond, triangle-down, pentagon, star, hexagon, triangle-left, triangle-right, cross, plus); repeatable."
  )
  var markers: [String] = []

  @Option(
    name: .customLong("styles"),
    help:
      "An earlier run's styles.json: its policies keep their colours and markers here (under --color and --marker)."
  )
  var stylesFile: String?

  /// The options given, as spelled on the command line.
  var given: [String] {
    [
      figureWidth.map { _ in "--figure-width" }, fontSize.map { _ in "--font-size" }, noTitles ? "--no-titles" : nil,
      labels.isEmpty ? nil : "--label", colors.isEmpty ? nil : "--color", markers.isEmpty ? nil : "--marker",
      stylesFile.map { _ in "--styles" },
    ].compactMap { $0 }
  }

  /// `settings` with these options applied, checked against the sweep's
  /// policy labels and trace names.
  func apply(to settings: FigureSettings, policies: [String], traces: [String]) throws -> FigureSettings {
    var settings = settings
    if let figureWidth {
      guard let width = FigureSettings.Width(parsing: figureWidth) else {
        throw ArgumentError("--figure-width '\(figureWidth)': use column, page or inches from 1.5 to 20 (3.5)")
      }
      settings.width = width
    }
    if let fontSize {
      guard FigureSettings.fontRange.contains(fontSize) else {
        throw ArgumentError("--font-size \(fontSize): give 6 to 24 points")
      }
      settings.fontSize = fontSize
    }
    if noTitles { settings.titles = false }
    func pairs(_ values: [String], _ option: String, _ example: String) throws(ArgumentError) -> [(String, String)] {
      var named: [String: String] = [:]
      return try values.map { (value: String) throws(ArgumentError) -> (String, String) in
        guard let equals = value.firstIndex(of: "="), equals != value.startIndex else {
          throw ArgumentError("\(option) '\(value)': write NAME=VALUE, e.g. \(option) \(example)")
        }
        let (name, text) = (String(value[..<equals]), String(value[value.index(after: equals)...]))
        // The later would replace the earlier without a word.
        if let earlier = named.updateValue(text, forKey: name) {
          throw ArgumentError("\(option) names \(name) twice (\(earlier) and \(text)); give each once")
        }
        return (name, text)
      }
    }
    for (name, text) in try pairs(labels, "--label", "s3fifo=S3-FIFO") { settings.labels[name] = text }
    for (name, text) in try pairs(colors, "--color", "s3fifo=#0072B2") {
      guard let color = FigureSettings.color(parsing: text) else {
        throw ArgumentError("--color \(name)=\(text): give a colour as #RRGGBB or #RGB")
      }
      settings.colors[name] = color
    }
    for (name, shape) in try pairs(markers, "--marker", "s3fifo=diamond") {
      guard FigureSettings.markerShapes.contains(shape) else {
        throw ArgumentError(
          "--marker \(name)=\(shape): give one of \(FigureSettings.markerShapes.joined(separator: ", "))")
      }
      settings.markers[name] = shape
    }
    if let stylesFile { settings.stylesFile = stylesFile }
    try failing { () throws(ConfigError) in
      try settings.check(policies: policies, traces: traces, file: "the command line")
      try settings.applyStylesFile(policies: policies)
    }
    return settings
  }
}
