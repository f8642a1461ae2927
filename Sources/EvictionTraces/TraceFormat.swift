import Synchronization

/// A trace format, known by the name `--format` takes and rows carry
/// (libCacheSim's names where it has one: `oracleGeneral`, `vscsi`, `txt`).
///
/// A format is defined once, in its own file, by a ``TraceFormatDefinition``
/// (its names, its file suffixes and its reader), and enters the list in one
/// line: ``TraceFormats/builtin`` for the formats that ship here,
/// ``TraceFormats/register(_:)`` for one from another package. Nothing else
/// names it: parsing, inference from file names, `evlab formats`, help texts
/// and error messages all read the list.
public struct TraceFormat: Hashable, Sendable, CustomStringConvertible {
  /// The format's name as its definition spells it.
  public let rawValue: String

  /// The format a definition describes.
  public init(_ definition: any TraceFormatDefinition.Type) { rawValue = definition.name }

  /// The format called `name` or one of its aliases (case-insensitive).
  public init(name: String) throws(TraceError) {
    guard let definition = TraceFormats.definition(named: name) else { throw .unknownFormat(name) }
    self.init(definition)
  }

  public var description: String { rawValue }

  /// What defines this format.
  public var definition: any TraceFormatDefinition.Type { TraceFormats.definition(named: rawValue)! }

  /// Whether the format carries object sizes.
  public var carriesSizes: Bool { definition.carriesSizes }

  /// Whether records carry each request's next access.
  public var carriesNextAccess: Bool { definition.carriesNextAccess }

  /// Whether the format carries what a hit and a miss cost (`--penalty trace`).
  public var carriesPenalties: Bool { definition.carriesPenalties }

  /// Every format, built-in then registered.
  public static var all: [TraceFormat] { TraceFormats.definitions.map { TraceFormat($0) } }

  /// Every name `--format` accepts (aliases left out).
  public static var allNames: [String] { TraceFormats.definitions.map { $0.name } }

  /// The format a file name implies, looking through a compression suffix
  /// and `.bin`: `x.oracleGeneral.bin`, `x.oracleGeneral.zst`, `x.csv.gz`,
  /// `x.vscsi`, `x.txt`, `P1.lis` (each definition's ``TraceFormatDefinition/fileSuffixes``).
  public static func infer(fromPath path: String) -> TraceFormat? {
    var name = Substring(path.split(separator: "/").last ?? Substring(path)).lowercased()
    for (suffix, _) in Compression.suffixes where name.hasSuffix(suffix) {
      name.removeLast(suffix.count)
    }
    if name.hasSuffix(".bin") { name.removeLast(4) }
    for definition in TraceFormats.definitions
    where definition.fileSuffixes.contains(where: { name.hasSuffix($0.lowercased()) }) {
      return TraceFormat(definition)
    }
    return nil
  }

  /// A trace file's name without its folder and the suffixes that say its
  /// compression and format (`zipf-scan.oracleGeneral.zst` is `zipf-scan`,
  /// `P12.lis.zst` is `P12`): what a reader calls the trace.
  public static func stem(of path: String) -> String {
    var name = Substring(path.split(separator: "/").last ?? Substring(path))
    /// Removes the first of `suffixes` that `name` ends with (never the whole name).
    func dropFirst(of suffixes: [String]) {
      let lower = name.lowercased()
      if let suffix = suffixes.first(where: { name.count > $0.count && lower.hasSuffix($0.lowercased()) }) {
        name.removeLast(suffix.count)
      }
    }
    dropFirst(of: Compression.suffixes.map(\.0))
    dropFirst(of: [".bin"])
    dropFirst(of: [".trace"] + TraceFormats.definitions.flatMap { $0.fileSuffixes })
    return String(name)
  }

  /// The format of a file in a collection laid out as Caffeine's simulator
  /// lays its traces out (`<format>/<file>`): from the file's name, else from
  /// its folder's (`cloud_physics` and `adapt_size` read as `cloud-physics`
  /// and `adapt-size`).
  public static func infer(fromPathOrFolder path: String) -> TraceFormat? {
    if let format = infer(fromPath: path) { return format }
    let parts = path.split(separator: "/")
    guard parts.count >= 2 else { return nil }
    let folder = parts[parts.count - 2].replacingOccurrences(of: "_", with: "-")
    return try? TraceFormat(name: folder)
  }
}

/// How a trace format enters EvictionLab: its names, the file suffixes that
/// imply it, and how to read a file of it. A format's file holds its
/// definition beside its reader; ``TraceFormats/builtin`` lists it, or a
/// depending package registers it (``TraceFormats/register(_:)``).
///
/// ```swift
/// enum KeyPerLine: TraceFormatDefinition {
///   static let name = "keys"
///   static let summary = "one decimal key per line"
///   static let carriesSizes = false
///   static func reader(_ input: TraceInput) throws(TraceError) -> TraceReader {
///     input.readingLines(with: KeyParser())
///   }
/// }
/// ```
/// docs/traces.md's "Adding a trace format" walks through one.
public protocol TraceFormatDefinition {
  /// The name `--format` takes, rows carry and `evlab formats` lists.
  static var name: String { get }
  /// Other names `--format` takes (case-insensitive). Default: none.
  static var aliases: [String] { get }
  /// File-name endings that imply the format, after a compression suffix
  /// and `.bin` are removed (compared without case). Default: `.` + name.
  static var fileSuffixes: [String] { get }
  /// Whether records carry object sizes (otherwise every request weighs 1).
  static var carriesSizes: Bool { get }
  /// Whether records carry each request's next access (libCacheSim's
  /// binary formats), so offline policies need no pre-pass. Default: false.
  static var carriesNextAccess: Bool { get }
  /// Whether the format carries what a hit and a miss of each request
  /// cost, for `--penalty trace`: true for a format that implements
  /// ``penaltyReader(_:)``. Default: false.
  static var carriesPenalties: Bool { get }
  /// A second reader of `input` whose records carry each request's hit and
  /// miss penalties, packed in the key (``TracePenalty``), one per record
  /// the format's ``reader(_:)`` gives, in the same order; nil (the
  /// default) for a format without penalties.
  static func penaltyReader(_ input: TraceInput) throws(TraceError) -> TraceReader?
  /// One line for the format list: what a record looks like.
  static var summary: String { get }
  /// A reader of `input`'s records.
  static func reader(_ input: TraceInput) throws(TraceError) -> TraceReader
}

extension TraceFormatDefinition {
  public static var aliases: [String] { [] }
  public static var fileSuffixes: [String] { ["." + name] }
  public static var carriesNextAccess: Bool { false }
  public static var carriesPenalties: Bool { false }
  public static func penaltyReader(_ input: TraceInput) throws(TraceError) -> TraceReader? { nil }
}

/// What a format's reader reads: the bytes (already decompressed), the
/// file's name for messages, and the options of the open.
public struct TraceInput {
  /// The trace's bytes, decompressed.
  public let source: ByteSource
  /// The file the bytes come from, for messages.
  public let path: String
  /// The format being read (one definition may read several, as `txt` and `lirs`).
  public let format: TraceFormat
  /// How delimited text is read (`csv`'s options).
  public let csv: CSVOptions
  /// Whether a malformed line or record is counted and passed over
  /// (``TraceReader/skipped``) instead of ending the read.
  public let skipBadRecords: Bool
  /// Whether sets and deletes of zero bytes are kept, for key-value
  /// semantics to apply (a delete's size is no part of it); zero-size
  /// gets, and every zero-size record otherwise, are skipped as
  /// libCacheSim skips them. Readers honour it through
  /// ``TraceRecord/isSkippedAsZeroSize(keepingWrites:)``.
  public let keepsZeroSizeWrites: Bool
}

/// The formats EvictionLab reads: the built-in ones, then any a depending
/// package registered.
public enum TraceFormats {
  /// The built-in formats, one line each, in the order lists show them.
  /// (Immutable metatypes of caseless enums: safe to share, though Swift cannot prove it.)
  nonisolated(unsafe) static let builtin: [any TraceFormatDefinition.Type] = [
    PlainTextFormat.self,
    CSVFormat.self,
    OracleGeneralFormat.self,
    VSCSIFormat.self,
    ARCFormat.self,
    LIRSFormat.self,
    Cache2kFormat.self,
    CordaFormat.self,
    ScarabFormat.self,
    CloudPhysicsFormat.self,
    AddressFormat.self,
    AddressPenaltiesFormat.self,
    AdaptSizeFormat.self,
    TwitterFormat.self,
    MSRFormat.self,
    LCSFormat.self,
    CacheLibFormat.self,
  ]

  /// Definitions registered from outside the package, in registration order.
  static let extra = Mutex<[any TraceFormatDefinition.Type]>([])

  /// Every definition: the built-in ones, then the registered ones.
  public static var definitions: [any TraceFormatDefinition.Type] { builtin + extra.withLock { $0 } }

  /// Adds formats defined outside EvictionLab: from then on they parse,
  /// are inferred from file names and read like the built-in ones. A name,
  /// alias or file suffix that another format already claims is refused.
  public static func register(_ additions: [any TraceFormatDefinition.Type]) throws(TraceError) {
    try extra.withLock { (list: inout [any TraceFormatDefinition.Type]) throws(TraceError) in
      for definition in additions {
        let names = ([definition.name] + definition.aliases).map { $0.lowercased() }
        guard let name = names.first, !name.isEmpty,
          names.allSatisfy({ !$0.isEmpty && !$0.contains(where: { $0 == "," || $0 == "/" || $0.isWhitespace }) })
        else {
          throw .invalidOption(
            "trace format '\(definition.name)': a name is one word without commas, slashes or blanks")
        }
        let others = builtin + list
        if let taken = names.first(where: { name in others.contains { known($0).contains(name) } }) {
          throw .invalidOption(
            "a trace format named '\(taken)' is already known; register yours under another name")
        }
        let suffixes = definition.fileSuffixes.map { $0.lowercased() }
        if let taken = suffixes.first(where: { s in
          others.contains { $0.fileSuffixes.map { $0.lowercased() }.contains(s) }
        }) {
          throw .invalidOption(
            "trace format '\(definition.name)': files ending '\(taken)' already imply another format; choose another suffix"
          )
        }
        list.append(definition)
      }
    }
  }

  /// A definition's names, lower-cased.
  static func known(_ definition: any TraceFormatDefinition.Type) -> [String] {
    ([definition.name] + definition.aliases).map { $0.lowercased() }
  }

  /// The definition called `name` or one of its aliases (case-insensitive).
  public static func definition(named name: String) -> (any TraceFormatDefinition.Type)? {
    if let exact = builtin.first(where: { $0.name == name }) { return exact }
    let lower = name.lowercased()
    return definitions.first { known($0).contains(lower) }
  }
}

/// Opens a trace for streaming. `format` nil infers it from the file name.
/// With `skipBadRecords`, malformed lines (and a cut-off last binary record)
/// are counted in the reader's ``TraceReader/skipped`` instead of ending the
/// read; errors of the stream itself (a corrupt compressed stream, a wrong
/// format) still do.
public func openTrace(
  _ path: String, format: TraceFormat? = nil, csv: CSVOptions = CSVOptions(), skipBadRecords: Bool = false,
  keepsZeroSizeWrites: Bool = false
) throws(TraceError) -> TraceReader {
  guard let format = format ?? TraceFormat.infer(fromPath: path) else {
    // Check existence first: a missing file is the likelier mistake.
    _ = try FileSource(path: path)
    throw .cannotInferFormat(path: path)
  }
  return try format.definition.reader(
    TraceInput(
      source: openByteSource(path), path: path, format: format, csv: csv, skipBadRecords: skipBadRecords,
      keepsZeroSizeWrites: keepsZeroSizeWrites))
}

/// The penalty reader of the trace at `path` (``TraceFormatDefinition/penaltyReader(_:)``),
/// or nil where its format carries no penalties.
public func openPenalties(
  _ path: String, format: TraceFormat, csv: CSVOptions = CSVOptions(), skipBadRecords: Bool = false
) throws(TraceError) -> TraceReader? {
  try format.definition.penaltyReader(
    TraceInput(
      source: openByteSource(path), path: path, format: format, csv: csv, skipBadRecords: skipBadRecords,
      keepsZeroSizeWrites: false))
}

/// Reads a trace held in memory (compressed or not) as if it were the file
/// `name`: what a fuzzer or an embedding program hands over.
public func openTrace(
  contents: [UInt8], name: String, format: TraceFormat, csv: CSVOptions = CSVOptions(), skipBadRecords: Bool = false
) throws(TraceError) -> TraceReader {
  try format.definition.reader(
    TraceInput(
      source: decompressing(MemorySource(contents), path: name), path: name, format: format, csv: csv,
      skipBadRecords: skipBadRecords, keepsZeroSizeWrites: false))
}
