import EvictionRun

/// How to read a delimited text trace. Columns are 1-based.
public struct CSVOptions: Sendable, Equatable {
  public enum Header: String, Sendable { case auto, yes, no }
  /// The field delimiter; nil reads it off the first lines.
  public var delimiter: UInt8? = nil
  public var header: Header = .auto
  public var keyColumn: Int? = nil
  public var sizeColumn: Int? = nil
  public var timeColumn: Int? = nil
  /// The column of operations and of TTLs (seconds), when no header names
  /// them: given, they are read on every line, and a value that is no
  /// operation is an error.
  public var opColumn: Int? = nil
  public var ttlColumn: Int? = nil

  public init(
    delimiter: UInt8? = nil, header: Header = .auto,
    keyColumn: Int? = nil, sizeColumn: Int? = nil, timeColumn: Int? = nil, opColumn: Int? = nil,
    ttlColumn: Int? = nil
  ) {
    self.delimiter = delimiter
    self.header = header
    self.keyColumn = keyColumn
    self.sizeColumn = sizeColumn
    self.timeColumn = timeColumn
    self.opColumn = opColumn
    self.ttlColumn = ttlColumn
  }

  /// Header names recognised when columns are not given.
  /// (Compared without case, `_`, `-` or blanks: `Object_ID` is `objectid`.)
  static let keyNames: Set<String> = [
    "key", "id", "objid", "objectid", "obj", "object", "objectkey", "lbn", "lba", "block", "blockid", "page", "address",
    "item",
  ]
  static let sizeNames: Set<String> = ["size", "objsize", "objectsize", "bytes", "len", "length", "valuesize"]
  static let timeNames: Set<String> = ["time", "timestamp", "ts", "clocktime", "realtime"]
  /// A header column of operations (get, set, delete and the names that
  /// read as them, ``TraceRecord/Operation/init(name:)``) and one of TTLs
  /// in seconds: read when a header names them (operations only when the
  /// first line's value is one).
  static let opNames: Set<String> = ["op", "operation", "opcode", "optype", "command"]
  static let ttlNames: Set<String> = ["ttl", "timetolive", "ttlseconds"]
}

/// Delimited text (`csv`): a header line or none, and a column mapping for
/// the key, the size and the time (``CSVOptions``; what they leave open is
/// read off the first lines).
enum CSVFormat: TraceFormatDefinition {
  static let name = "csv"
  static let summary = "delimited text with a header or not; key, size and time columns by name or number"
  static let carriesSizes = true
  static func reader(_ input: TraceInput) throws(TraceError) -> TraceReader {
    try CSVTraceReader(
      input.source, path: input.path, options: input.csv, skipBad: input.skipBadRecords,
      keepWrites: input.keepsZeroSizeWrites)
  }
}

extension TraceFormat {
  public static let csv = TraceFormat(CSVFormat.self)
}

/// Delimited text with a header or not, and a column mapping for key, size
/// and time. What the options leave open is read off the first two lines:
/// the delimiter (the one of `,` tab `;` `|` that splits both lines into
/// the same number of fields, most fields first) and, with `header: .auto`,
/// whether the first line is a header (it names a known column, or a column
/// that holds numbers on the second line holds text on the first).
final class CSVTraceReader: TraceReader {
  let lines: LineSplitter
  var path: String { lines.path }
  var format: TraceFormat { .csv }
  private(set) var skippedZeroSize = 0
  private(set) var firstZeroSizeLine: Int? = nil
  private(set) var zeroSizeWrites = SkippedRecords.ZeroSizeWrites()
  /// ``TraceInput/keepsZeroSizeWrites``.
  let keepWrites: Bool
  var options: CSVOptions
  var delimiter = UInt8(ascii: ",")
  /// 0-based columns once resolved.
  var keyColumn = 0
  var sizeColumn: Int? = nil
  var timeColumn: Int? = nil
  var opColumn: Int? = nil
  var ttlColumn: Int? = nil
  /// The first content line, held until the second tells what it is.
  var heldLine: (bytes: [UInt8], number: Int)? = nil
  var resolved = false
  /// What the first line was taken for, and its fields' names if a header.
  var headerNames: [String]? = nil
  var ended = false
  /// A record decoded when the buffer was full, handed out first next time.
  var carried: TraceRecord? = nil
  var parts: [UnsafeRawBufferPointer] = []

  /// Object sizes above this are refused (``TraceLine/sizeLimit``).
  static let sizeLimit = TraceLine.sizeLimit
  static let candidates: [UInt8] = [UInt8(ascii: ","), 9, UInt8(ascii: ";"), UInt8(ascii: "|")]

  var skipped: SkippedRecords {
    lines.skipped.addingZeroSize(
      skippedZeroSize, first: firstZeroSizeLine.map { "line \($0)" }, writes: zeroSizeWrites)
  }

  init(_ source: ByteSource, path: String, options: CSVOptions, skipBad: Bool = false, keepWrites: Bool = false)
    throws(TraceError)
  {
    lines = LineSplitter(source, path: path, format: "csv", skipBad: skipBad)
    self.keepWrites = keepWrites
    self.options = options
    let columns = [
      ("key", options.keyColumn), ("size", options.sizeColumn), ("time", options.timeColumn),
      ("op", options.opColumn), ("ttl", options.ttlColumn),
    ]
    for (name, column) in columns {
      if let c = column, c < 1 {
        throw .invalidOption("--\(name)-column \(c): columns are numbered from 1")
      }
    }
    parts.reserveCapacity(16)
  }

  /// Splits a line into fields at `delimiter`.
  @inline(__always)
  static func fields(_ line: UnsafeRawBufferPointer, _ delimiter: UInt8, into out: inout [UnsafeRawBufferPointer]) {
    out.removeAll(keepingCapacity: true)
    var fieldStart = 0
    for i in 0..<line.count where line[i] == delimiter {
      out.append(trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart..<i])))
      fieldStart = i + 1
    }
    out.append(trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart..<line.count])))
  }

  static func count(_ byte: UInt8, in line: UnsafeRawBufferPointer) -> Int {
    line.reduce(0) { $0 + ($1 == byte ? 1 : 0) }
  }

  /// The delimiter that splits `first` (and `second`, if any) into the most
  /// fields, the same number in both; `,` when none splits anything.
  static func sniffDelimiter(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer?) -> UInt8 {
    var best = UInt8(ascii: ",")
    var bestCount = 0
    for candidate in candidates {
      let n = count(candidate, in: first)
      if n > bestCount && (second.map { count(candidate, in: $0) == n } ?? true) {
        best = candidate
        bestCount = n
      }
    }
    return best
  }

  /// A column name as the header matcher compares it: lower case, without `_`, `-` or blanks.
  static func normalized(_ name: String) -> String {
    String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
  }

  static func isNumber(_ field: UnsafeRawBufferPointer) -> Bool {
    !field.isEmpty && Double(String(decoding: field, as: UTF8.self)) != nil
  }

  /// Settles the delimiter, whether `first` is a header and the columns.
  func resolve(first: UnsafeRawBufferPointer, second: UnsafeRawBufferPointer?) throws(TraceError) -> Bool {
    delimiter = options.delimiter ?? Self.sniffDelimiter(first, second)
    let sniffed = Self.sniffDelimiter(first, second)
    if let given = options.delimiter, Self.count(given, in: first) == 0, Self.count(sniffed, in: first) > 0 {
      // Every line would be one field, a whole line taken for a key.
      let name = sniffed == 9 ? "$'\\t'" : "'\(Character(UnicodeScalar(sniffed)))'"
      throw .malformedLine(
        file: lines.path, line: lines.lineNumber,
        reason:
          "no '\(Character(UnicodeScalar(given)))' on this line, but its fields are split by \(name): use \(Setting.delimiter) \(name) (or leave \(Setting.delimiter) out)"
      )
    }
    var head: [UnsafeRawBufferPointer] = []
    Self.fields(first, delimiter, into: &head)
    var next: [UnsafeRawBufferPointer] = []
    if let second { Self.fields(second, delimiter, into: &next) }
    let names = head.map { Self.normalized(String(decoding: $0, as: UTF8.self)) }
    let knownName = names.contains {
      CSVOptions.keyNames.contains($0) || CSVOptions.sizeNames.contains($0) || CSVOptions.timeNames.contains($0)
    }
    let textOverNumbers = zip(head, next).contains { !Self.isNumber($0) && Self.isNumber($1) }
    let isHeader: Bool
    switch options.header {
    case .yes: isHeader = true
    case .no: isHeader = false
    case .auto: isHeader = knownName || textOverNumbers
    }
    func named(_ set: Set<String>) -> Int? { isHeader ? names.firstIndex(where: set.contains) : nil }
    if isHeader { headerNames = head.map { String(decoding: $0, as: UTF8.self) } }
    keyColumn = options.keyColumn.map { $0 - 1 } ?? named(CSVOptions.keyNames) ?? 0
    sizeColumn = options.sizeColumn.map { $0 - 1 } ?? named(CSVOptions.sizeNames)
    timeColumn = options.timeColumn.map { $0 - 1 } ?? named(CSVOptions.timeNames)
    // A column named like operations holds them only if its first value is
    // one (block traces name SCSI opcodes `op`: cloudPhysicsIO's `2a`).
    opColumn =
      options.opColumn.map { $0 - 1 }
      ?? named(CSVOptions.opNames).flatMap { c in
        c < next.count && TraceRecord.Operation(name: String(decoding: next[c], as: UTF8.self)) != nil ? c : nil
      }
    ttlColumn = options.ttlColumn.map { $0 - 1 } ?? named(CSVOptions.ttlNames)
    resolved = true
    return isHeader
  }

  /// The record of one content line, or nil for a zero-size request (counted).
  func record(_ line: UnsafeRawBufferPointer, number: Int) throws(TraceError) -> TraceRecord? {
    Self.fields(line, delimiter, into: &parts)
    let needed = max(keyColumn, sizeColumn ?? 0, timeColumn ?? 0, opColumn ?? 0, ttlColumn ?? 0) + 1
    guard parts.count >= needed else {
      var fix = "check \(Setting.keyColumn), \(Setting.sizeColumn) and \(Setting.timeColumn)"
      if let other = Self.candidates.first(where: { $0 != delimiter && Self.count($0, in: line) + 1 >= needed }) {
        fix =
          other == 9
          ? "its fields are split by tabs: add \(Setting.delimiter) $'\\t'"
          : "its fields are split by '\(Character(UnicodeScalar(other)))': add \(Setting.delimiter) '\(Character(UnicodeScalar(other)))'"
      }
      throw .malformedLine(
        file: lines.path, line: number, reason: "\(parts.count) fields, but column \(needed) is read; \(fix)")
    }
    let keyField = parts[keyColumn]
    guard !keyField.isEmpty else {
      throw .malformedLine(file: lines.path, line: number, reason: "empty key in column \(keyColumn + 1)")
    }
    var record = TraceRecord(key: TextKey.id(keyField))
    if let c = sizeColumn {
      guard let size = TextKey.decimal(parts[c]) else {
        let text = String(decoding: parts[c], as: UTF8.self)
        let hint = number <= 2 && options.header != .yes ? " (a header line? add \(Setting.header) yes)" : ""
        throw .malformedLine(
          file: lines.path, line: number,
          reason: "size '\(text)' in column \(c + 1) is not a non-negative integer\(hint)")
      }
      guard size <= Self.sizeLimit else {
        throw .malformedLine(
          file: lines.path, line: number,
          reason: "size \(size) in column \(c + 1) is above 1 TiB, the largest object size EvictionLab replays")
      }
      record.size = Int64(size)
    }
    if let c = timeColumn {
      let text = String(decoding: parts[c], as: UTF8.self)
      // Whole seconds: a fraction is dropped (1.9 is second 1), as the
      // windows and intervals count seconds.
      let parsed = Int64(text) ?? Double(text).flatMap { $0.isFinite ? Int64(exactly: $0.rounded(.down)) : nil }
      guard let time = parsed else {
        let reason =
          Double(text).map { _ in "time '\(text)' in column \(c + 1) is not a whole number of seconds below 2⁶³" }
          ?? "time '\(text)' in column \(c + 1) is not a number"
        throw .malformedLine(file: lines.path, line: number, reason: reason)
      }
      record.time = time
    }
    if let c = opColumn {
      guard let op = TraceRecord.Operation(name: String(decoding: parts[c], as: UTF8.self)) else {
        throw .malformedLine(
          file: lines.path, line: number,
          reason:
            "operation '\(String(decoding: parts[c].prefix(64), as: UTF8.self))' in column \(c + 1) is not one EvictionLab reads (get, set, delete and their kin: docs/traces.md)"
        )
      }
      record.op = op
    }
    if let c = ttlColumn {
      guard let ttl = TextKey.decimal(parts[c]).flatMap(UInt32.init(exactly:)) else {
        throw .malformedLine(
          file: lines.path, line: number,
          reason:
            "ttl '\(String(decoding: parts[c].prefix(64), as: UTF8.self))' in column \(c + 1) is not a whole number of seconds below 2³²"
        )
      }
      record.ttl = ttl
    }
    if record.isSkippedAsZeroSize(keepingWrites: keepWrites) {
      if firstZeroSizeLine == nil { firstZeroSizeLine = number }
      skippedZeroSize += 1
      zeroSizeWrites.count(record)
      return nil
    }
    return record
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    var filled = 0
    if let carried {
      buffer[0] = carried
      self.carried = nil
      filled = 1
    }
    if ended { return filled }
    func emit(_ record: TraceRecord?) {
      guard let record else { return }
      if filled < buffer.count {
        buffer[filled] = record
        filled += 1
      } else {
        carried = record
      }
    }
    let lines = self.lines
    let more = try lines.forEachLine { (raw) throws(TraceError) -> Bool in
      let line = trimmed(raw)
      if line.isEmpty || line[0] == UInt8(ascii: "#") { return true }
      if !resolved {
        guard let held = heldLine else {
          heldLine = (Array(line), lines.lineNumber)
          return true
        }
        heldLine = nil
        let firstIsHeader = try withBytes(held.bytes) { (first) throws(TraceError) in
          try resolve(first: first, second: line)
        }
        if !firstIsHeader {
          emit(try withBytes(held.bytes) { (first) throws(TraceError) in try record(first, number: held.number) })
        }
      }
      emit(try record(line, number: lines.lineNumber))
      return filled < buffer.count && carried == nil
    }
    if !more {
      // A trace of one line: it settles alone.
      if let held = heldLine {
        heldLine = nil
        let isHeader = try withBytes(held.bytes) { (first) throws(TraceError) in try resolve(first: first, second: nil)
        }
        if !isHeader {
          emit(try withBytes(held.bytes) { (first) throws(TraceError) in try record(first, number: held.number) })
        }
      }
      ended = true
    }
    return filled
  }
}

/// How a delimited text trace is read, as its first lines settled it (or
/// the options said): which column holds the key, the size and the time.
public struct CSVMapping: Sendable, Equatable, CustomStringConvertible {
  /// The delimiter's character.
  public var delimiter: Character
  /// The header line's field names, nil when the first line is data.
  public var header: [String]?
  /// 1-based columns.
  public var keyColumn: Int
  public var sizeColumn: Int?
  public var timeColumn: Int?
  /// Columns of operations and TTLs, read when the header names them.
  public var opColumn: Int? = nil
  public var ttlColumn: Int? = nil
  /// Which of the columns the options gave (the rest were read off the header or defaulted).
  public var given: (key: Bool, size: Bool, time: Bool)

  public static func == (a: CSVMapping, b: CSVMapping) -> Bool {
    (a.delimiter, a.header, a.keyColumn, a.sizeColumn, a.timeColumn) == (
      b.delimiter, b.header, b.keyColumn, b.sizeColumn, b.timeColumn
    ) && (a.opColumn, a.ttlColumn) == (b.opColumn, b.ttlColumn) && a.given == b.given
  }

  /// `key column 2 (obj_id), size column 3 (size), no time column; header line, ',' between fields`.
  public var description: String {
    func column(_ what: String, _ c: Int?) -> String {
      guard let c else { return "no \(what) column" }
      let name = header.flatMap { c <= $0.count ? " (\($0[c - 1]))" : nil } ?? ""
      return "\(what) column \(c)\(name)"
    }
    let between = delimiter == "\t" ? "tabs" : "'\(delimiter)'"
    let extra = [("op", opColumn), ("ttl", ttlColumn)].compactMap { $0.1 == nil ? nil : column($0.0, $0.1) }
    return ([column("key", keyColumn), column("size", sizeColumn), column("time", timeColumn)] + extra).joined(
      separator: ", ") + "; \(header == nil ? "no header line" : "a header line"), \(between) between fields"
  }
}

extension TraceSource {
  /// How this CSV trace's columns are read: its first lines are read to
  /// settle what the options leave open. Nil for other formats.
  public func csvMapping() throws(TraceError) -> CSVMapping? {
    guard format == .csv else { return nil }
    let reader = try openTrace(path, format: format, csv: csv, skipBadRecords: skipBadRecords)
    guard let reader = reader as? CSVTraceReader else { return nil }
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 2)
    defer { buffer.deallocate() }
    _ = try reader.read(into: buffer)
    guard reader.resolved else { return nil }
    return CSVMapping(
      delimiter: Character(UnicodeScalar(reader.delimiter)), header: reader.headerNames,
      keyColumn: reader.keyColumn + 1, sizeColumn: reader.sizeColumn.map { $0 + 1 },
      timeColumn: reader.timeColumn.map { $0 + 1 }, opColumn: reader.opColumn.map { $0 + 1 },
      ttlColumn: reader.ttlColumn.map { $0 + 1 },
      given: (csv.keyColumn != nil, csv.sizeColumn != nil, csv.timeColumn != nil))
  }
}
