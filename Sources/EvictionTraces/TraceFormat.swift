/// The trace formats EvictionLab reads, by libCacheSim's names (case-insensitive).
public enum TraceFormat: String, Sendable, CaseIterable {
  /// Plain text, one key per line; `#` and `*` lines are skipped.
  case txt
  /// Delimited text with a column mapping (``CSVOptions``).
  case csv
  /// libCacheSim's binary format: packed little-endian 24-byte records
  /// (u32 time, u64 id, u32 size, i64 next access).
  case oracleGeneral
  /// VMware vscsi block traces (version 1: 32-byte records, version 2: 40).
  case vscsi
  /// The ARC paper's traces: `start count ignored request-number` per line,
  /// expanding to `count` consecutive 512-byte blocks.
  case arc
  /// The LIRS paper's traces: one decimal block number per line, `*` lines skipped.
  case lirs
  /// cache2k's traces: one big-endian int32 key per access.
  case cache2k
  /// R3 Corda's traces: one big-endian int64 key per access.
  case corda
  /// Scarab Research's traces: one big-endian int64 key per access.
  case scarab
  /// CloudPhysics block traces as the LIRS2 repository ships them: one
  /// little-endian uint32 block number per access.
  case cloudPhysics = "cloud-physics"
  /// Program address traces (UCSD CSE240A): `l|s 0xADDR n` per line.
  case address
  /// AdaptSize / LRB (webcachesim) request logs: `time id size` per line; the
  /// key is the (id, size) pair, as Caffeine reads it.
  case adaptSize = "adapt-size"
  /// Twitter's cache traces: `timestamp,key,key_size,value_size,client,op,ttl`;
  /// gets only, weighing key size + value size.
  case twitter
  /// MSR Cambridge block traces: `timestamp,host,disk,type,offset,size,latency`;
  /// reads only, each expanding into the 4 KiB blocks it touches.
  case msr

  /// Every name `--format` accepts.
  public static var allNames: [String] { allCases.map(\.rawValue) }

  /// The format called `name` (case-insensitive).
  public init(name: String) throws(TraceError) {
    if name.lowercased() == "lrb" {
      self = .adaptSize
      return
    }
    guard let format = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
      throw .unknownFormat(name)
    }
    self = format
  }

  /// The format a file name implies, looking through a compression suffix:
  /// `x.oracleGeneral.bin`, `x.oracleGeneral.zst`, `x.csv.gz`, `x.vscsi`, `x.txt`.
  public static func infer(fromPath path: String) -> TraceFormat? {
    var name = Substring(path.split(separator: "/").last ?? Substring(path)).lowercased()
    for (suffix, _) in Compression.suffixes where name.hasSuffix(suffix) {
      name.removeLast(suffix.count)
    }
    if name.hasSuffix(".bin") { name.removeLast(4) }
    if name.hasSuffix(".lis") { return .arc }  // the ARC traces' own suffix
    for format in allCases where name.hasSuffix("." + format.rawValue.lowercased()) {
      return format
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
    dropFirst(of: [".lis", ".trace"] + allCases.map { "." + $0.rawValue })
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

  /// Whether the format carries object sizes.
  public var carriesSizes: Bool {
    switch self {
    case .txt, .lirs, .cache2k, .corda, .scarab, .cloudPhysics, .address: false
    default: true
    }
  }
}

/// How to read a delimited text trace. Columns are 1-based.
public struct CSVOptions: Sendable, Equatable {
  public enum Header: String, Sendable { case auto, yes, no }
  /// The field delimiter; nil reads it off the first lines.
  public var delimiter: UInt8? = nil
  public var header: Header = .auto
  public var keyColumn: Int? = nil
  public var sizeColumn: Int? = nil
  public var timeColumn: Int? = nil

  public init(
    delimiter: UInt8? = nil, header: Header = .auto,
    keyColumn: Int? = nil, sizeColumn: Int? = nil, timeColumn: Int? = nil
  ) {
    self.delimiter = delimiter
    self.header = header
    self.keyColumn = keyColumn
    self.sizeColumn = sizeColumn
    self.timeColumn = timeColumn
  }

  /// Header names recognised when columns are not given.
  /// (Compared without case, `_`, `-` or blanks: `Object_ID` is `objectid`.)
  static let keyNames: Set<String> = [
    "key", "id", "objid", "objectid", "obj", "object", "objectkey", "lbn", "lba", "block", "blockid", "page", "address",
    "item",
  ]
  static let sizeNames: Set<String> = ["size", "objsize", "objectsize", "bytes", "len", "length", "valuesize"]
  static let timeNames: Set<String> = ["time", "timestamp", "ts", "clocktime", "realtime"]
}

/// Opens a trace for streaming. `format` nil infers it from the file name.
/// With `skipBadRecords`, malformed lines (and a cut-off last binary record)
/// are counted in the reader's ``TraceReader/skipped`` instead of ending the
/// read; errors of the stream itself (a corrupt compressed stream, a wrong
/// format) still do.
public func openTrace(
  _ path: String, format: TraceFormat? = nil, csv: CSVOptions = CSVOptions(), skipBadRecords: Bool = false
) throws(TraceError) -> TraceReader {
  guard let format = format ?? TraceFormat.infer(fromPath: path) else {
    // Check existence first: a missing file is the likelier mistake.
    _ = try FileSource(path: path)
    throw .cannotInferFormat(path: path)
  }
  return try makeReader(openByteSource(path), path: path, format: format, csv: csv, skipBadRecords: skipBadRecords)
}

/// Reads a trace held in memory (compressed or not) as if it were the file
/// `name`: what a fuzzer or an embedding program hands over.
public func openTrace(
  contents: [UInt8], name: String, format: TraceFormat, csv: CSVOptions = CSVOptions(), skipBadRecords: Bool = false
) throws(TraceError) -> TraceReader {
  try makeReader(
    decompressing(MemorySource(contents), path: name), path: name, format: format, csv: csv,
    skipBadRecords: skipBadRecords)
}

func makeReader(
  _ source: ByteSource, path: String, format: TraceFormat, csv: CSVOptions, skipBadRecords: Bool
) throws(TraceError) -> TraceReader {
  let skip = skipBadRecords
  switch format {
  case .txt, .lirs: return TextTraceReader(source, path: path, format: format, skipBad: skip)
  case .cache2k: return FixedRecordReader(source, path: path, layout: .cache2k, skipBad: skip)
  case .corda, .scarab:
    return FixedRecordReader(source, path: path, layout: format == .corda ? .corda : .scarab, skipBad: skip)
  case .cloudPhysics: return FixedRecordReader(source, path: path, layout: .cloudPhysics, skipBad: skip)
  case .address, .adaptSize, .twitter, .msr: return LineFormatReader(source, path: path, format: format, skipBad: skip)
  case .csv: return try CSVTraceReader(source, path: path, options: csv, skipBad: skip)
  case .oracleGeneral: return FixedRecordReader(source, path: path, layout: .oracleGeneral, skipBad: skip)
  case .vscsi: return try openVSCSI(source, path: path, skipBad: skip)
  case .arc: return ARCTraceReader(source, path: path, skipBad: skip)
  }
}

/// A streaming trace reader. Memory use is constant whatever the trace length.
public protocol TraceReader: AnyObject {
  var path: String { get }
  var format: TraceFormat { get }
  /// Fills `buffer` from the front with the next records; returns how many.
  /// Returns 0 only at the end of the trace.
  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int
  /// Records skipped because their size was 0 (as libCacheSim's readers do).
  var skippedZeroSize: Int { get }
  /// Malformed lines or records passed over (only when opened with
  /// `skipBadRecords`; otherwise the first one is thrown).
  var skipped: SkippedRecords { get }
}

extension TraceReader {
  /// Reads every remaining record into memory (for offline pre-passes and
  /// benchmarks; replay itself streams).
  public func readAll() throws(TraceError) -> [TraceRecord] {
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 1 << 12)
    defer { buffer.deallocate() }
    var records: [TraceRecord] = []
    while true {
      let n = try read(into: buffer)
      if n == 0 { return records }
      try records.appendChecked(buffer.prefix(n), reading: path)
    }
  }
}

/// Records already in memory, handed out like a trace file's.
public final class MemoryTraceReader: TraceReader {
  public let path: String
  public let format: TraceFormat
  public var skippedZeroSize: Int { 0 }
  public var skipped: SkippedRecords { SkippedRecords() }
  let records: [TraceRecord]
  var position = 0

  public init(_ records: [TraceRecord], path: String, format: TraceFormat) {
    self.records = records
    self.path = path
    self.format = format
  }

  public func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    let n = min(buffer.count, records.count - position)
    for i in 0..<n { buffer[i] = records[position + i] }
    position += n
    return n
  }
}

/// Numbers a trace's ids 1, 2, 3, … in the order they are first seen, as
/// libCacheSim does for ids it reads as strings (GLib's `g_quark_from_string`).
/// Hit and miss counts of most policies do not depend on id values; those
/// that hash ids (W-TinyLFU's frequency sketch) do, so matching libCacheSim
/// figures measured that way needs the same numbering. Memory grows with the
/// number of distinct objects.
public final class RenumberingTraceReader: TraceReader {
  let base: TraceReader
  var ids: [UInt64: UInt64] = [:]
  public var path: String { base.path }
  public var format: TraceFormat { base.format }
  public var skippedZeroSize: Int { base.skippedZeroSize }
  public var skipped: SkippedRecords { base.skipped }

  public init(_ base: TraceReader) { self.base = base }

  public func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    let n = try base.read(into: buffer)
    for i in 0..<n {
      let key = buffer[i].key
      if let id = ids[key] {
        buffer[i].key = id
      } else {
        let id = UInt64(ids.count + 1)
        ids[key] = id
        buffer[i].key = id
      }
    }
    return n
  }
}
