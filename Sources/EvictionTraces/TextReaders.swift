#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Splits a byte stream into lines (LF or CRLF; the last line may lack its LF).
final class LineSplitter {
  let input: BufferedInput
  let path: String
  private(set) var lineNumber = 0
  /// Whether a malformed line is counted in `skipped` and passed over
  /// instead of ending the read.
  let skipBad: Bool
  private(set) var skipped = SkippedRecords()

  init(_ source: ByteSource, path: String, skipBad: Bool = false) {
    input = BufferedInput(source)
    self.path = path
    self.skipBad = skipBad
  }

  /// Runs `body` on one line; under `skipBad` a malformed line is counted
  /// and reading goes on.
  @inline(__always)
  private func handle(
    _ line: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(TraceError) -> Bool
  ) throws(TraceError) -> Bool {
    var line = line
    // A UTF-8 byte-order mark is not part of the first key.
    if lineNumber == 1 && line.count >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
      line = UnsafeRawBufferPointer(rebasing: line[3...])
    }
    do {
      return try body(line)
    } catch {
      guard skipBad, SkippedRecords.isSkippable(error) else { throw error }
      skipped.note(error)
      return true
    }
  }

  /// Calls `body` with each next line until `body` returns false or the
  /// stream ends. Returns false at the end of the stream.
  @inline(__always)
  func forEachLine(_ body: (UnsafeRawBufferPointer) throws(TraceError) -> Bool) throws(TraceError) -> Bool {
    while true {
      let base = UnsafeRawPointer(input.storage.baseAddress!)
      var scan = input.start
      while scan < input.end {
        guard let newline = memchr(base + scan, 10, input.end - scan) else { break }
        let at = base.distance(to: UnsafeRawPointer(newline))
        var lineEnd = at
        if lineEnd > input.start && base.load(fromByteOffset: lineEnd - 1, as: UInt8.self) == 13 { lineEnd -= 1 }
        lineNumber += 1
        let line = UnsafeRawBufferPointer(start: base + input.start, count: lineEnd - input.start)
        input.advance(at + 1 - input.start)
        scan = input.start
        if try !handle(line, body) { return true }
      }
      if input.start == 0 && input.end == input.storage.count {
        throw .malformedLine(file: path, line: lineNumber + 1, reason: "line longer than \(input.storage.count) bytes")
      }
      let hadPartial = input.available > 0
      if try !input.refill() {
        if hadPartial || input.available > 0 {
          // The last line has no newline.
          lineNumber += 1
          let line = UnsafeRawBufferPointer(
            start: UnsafeRawPointer(input.storage.baseAddress!) + input.start, count: input.available)
          input.advance(input.available)
          _ = try handle(line, body)
        }
        return false
      }
    }
  }
}

/// `body` over the bytes of `bytes`, keeping its typed error.
func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(TraceError) -> T) throws(TraceError) -> T {
  var result: Result<T, TraceError>? = nil
  bytes.withUnsafeBytes { raw in
    do throws(TraceError) { result = .success(try body(raw)) } catch { result = .failure(error) }
  }
  return try result!.get()
}

@inline(__always)
func trimmed(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
  var lo = 0
  var hi = line.count
  while lo < hi && (line[lo] == 32 || line[lo] == 9) { lo += 1 }
  while hi > lo && (line[hi - 1] == 32 || line[hi - 1] == 9 || line[hi - 1] == 13) { hi -= 1 }
  return UnsafeRawBufferPointer(rebasing: line[lo..<hi])
}

/// Plain text: one key per line (decimal integer or any string without
/// blanks, see ``TextKey``); empty lines and lines starting `#` or `*` (LIRS
/// checkpoint markers) are skipped. Every request has size 1.
final class TextTraceReader: TraceReader {
  let lines: LineSplitter
  var path: String { lines.path }
  /// `txt` or `lirs` (the same lines).
  let format: TraceFormat
  var skippedZeroSize: Int { 0 }
  var skipped: SkippedRecords { lines.skipped }
  var ended = false

  init(_ source: ByteSource, path: String, format: TraceFormat = .txt, skipBad: Bool = false) {
    lines = LineSplitter(source, path: path, skipBad: skipBad)
    self.format = format
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    if ended { return 0 }
    var filled = 0
    let lines = self.lines
    let more = try lines.forEachLine { (raw) throws(TraceError) -> Bool in
      let line = trimmed(raw)
      if line.isEmpty || line[0] == UInt8(ascii: "#") || line[0] == UInt8(ascii: "*") { return true }
      if line.contains(where: { $0 == 32 || $0 == 9 }) {
        throw .malformedLine(
          file: lines.path, line: lines.lineNumber,
          reason: "expected one key per line, found several fields (for delimited traces use \(Setting.format) csv)")
      }
      buffer[filled] = TraceRecord(key: TextKey.id(line))
      filled += 1
      return filled < buffer.count
    }
    if !more { ended = true }
    return filled
  }
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
  var options: CSVOptions
  var delimiter = UInt8(ascii: ",")
  /// 0-based columns once resolved.
  var keyColumn = 0
  var sizeColumn: Int? = nil
  var timeColumn: Int? = nil
  /// The first content line, held until the second tells what it is.
  var heldLine: (bytes: [UInt8], number: Int)? = nil
  var resolved = false
  /// What the first line was taken for, and its fields' names if a header.
  var headerNames: [String]? = nil
  var ended = false
  /// A record decoded when the buffer was full, handed out first next time.
  var carried: TraceRecord? = nil
  var parts: [UnsafeRawBufferPointer] = []

  /// Object sizes above this are refused (1 TiB): byte totals of billions of
  /// requests must fit a 64-bit counter.
  static let sizeLimit: UInt64 = 1 << 40
  static let candidates: [UInt8] = [UInt8(ascii: ","), 9, UInt8(ascii: ";"), UInt8(ascii: "|")]

  var skipped: SkippedRecords {
    lines.skipped.addingZeroSize(skippedZeroSize, first: firstZeroSizeLine.map { "line \($0)" })
  }

  init(_ source: ByteSource, path: String, options: CSVOptions, skipBad: Bool = false) throws(TraceError) {
    lines = LineSplitter(source, path: path, skipBad: skipBad)
    self.options = options
    for (name, column) in [("key", options.keyColumn), ("size", options.sizeColumn), ("time", options.timeColumn)] {
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
    resolved = true
    return isHeader
  }

  /// The record of one content line, or nil for a zero-size request (counted).
  func record(_ line: UnsafeRawBufferPointer, number: Int) throws(TraceError) -> TraceRecord? {
    Self.fields(line, delimiter, into: &parts)
    let needed = max(keyColumn, sizeColumn ?? 0, timeColumn ?? 0) + 1
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
    if record.size == 0 {
      if firstZeroSizeLine == nil { firstZeroSizeLine = number }
      skippedZeroSize += 1
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

/// The ARC paper's traces (Megiddo and Modha, FAST'03; "arc" in Caffeine's
/// simulator): lines `start count ignored request-number`, each expanding to
/// `count` requests for blocks start … start+count−1 of 512 bytes.
final class ARCTraceReader: TraceReader {
  static let blockSize: Int64 = 512
  let lines: LineSplitter
  var path: String { lines.path }
  var format: TraceFormat { .arc }
  var skippedZeroSize: Int { 0 }
  var skipped: SkippedRecords { lines.skipped }
  var ended = false
  /// A line's blocks not yet handed out.
  var nextBlock: UInt64 = 0
  var remaining: UInt64 = 0
  var fields: [UnsafeRawBufferPointer] = []

  init(_ source: ByteSource, path: String, skipBad: Bool = false) {
    lines = LineSplitter(source, path: path, skipBad: skipBad)
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    var filled = 0
    func drain() {
      while remaining > 0 && filled < buffer.count {
        buffer[filled] = TraceRecord(key: nextBlock, size: Self.blockSize)
        filled += 1
        nextBlock &+= 1
        remaining -= 1
      }
    }
    drain()
    if ended || filled == buffer.count { return filled }
    let lines = self.lines
    let more = try lines.forEachLine { (raw) throws(TraceError) -> Bool in
      let line = trimmed(raw)
      if line.isEmpty || line[0] == UInt8(ascii: "#") { return true }
      splitOnBlanks(line, into: &fields)
      guard fields.count >= 2, let start = TextKey.decimal(fields[0]), let count = TextKey.decimal(fields[1]) else {
        throw .malformedLine(
          file: lines.path, line: lines.lineNumber,
          reason: "expected 'start count ignored request-number' with decimal start and count")
      }
      nextBlock = start
      remaining = count
      drain()
      return filled < buffer.count
    }
    if !more { ended = true }
    return filled
  }
}

/// Splits on runs of spaces and tabs.
@inline(__always)
func splitOnBlanks(_ line: UnsafeRawBufferPointer, into out: inout [UnsafeRawBufferPointer]) {
  out.removeAll(keepingCapacity: true)
  var i = 0
  while i < line.count {
    while i < line.count && (line[i] == 32 || line[i] == 9) { i += 1 }
    let start = i
    while i < line.count && line[i] != 32 && line[i] != 9 { i += 1 }
    if i > start { out.append(UnsafeRawBufferPointer(rebasing: line[start..<i])) }
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
  /// Which of the columns the options gave (the rest were read off the header or defaulted).
  public var given: (key: Bool, size: Bool, time: Bool)

  public static func == (a: CSVMapping, b: CSVMapping) -> Bool {
    (a.delimiter, a.header, a.keyColumn, a.sizeColumn, a.timeColumn) == (
      b.delimiter, b.header, b.keyColumn, b.sizeColumn, b.timeColumn
    ) && a.given == b.given
  }

  /// `key column 2 (obj_id), size column 3 (size), no time column; header line, ',' between fields`.
  public var description: String {
    func column(_ what: String, _ c: Int?) -> String {
      guard let c else { return "no \(what) column" }
      let name = header.flatMap { c <= $0.count ? " (\($0[c - 1]))" : nil } ?? ""
      return "\(what) column \(c)\(name)"
    }
    let between = delimiter == "\t" ? "tabs" : "'\(delimiter)'"
    return [column("key", keyColumn), column("size", sizeColumn), column("time", timeColumn)].joined(separator: ", ")
      + "; \(header == nil ? "no header line" : "a header line"), \(between) between fields"
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
      timeColumn: reader.timeColumn.map { $0 + 1 },
      given: (csv.keyColumn != nil, csv.sizeColumn != nil, csv.timeColumn != nil))
  }
}
