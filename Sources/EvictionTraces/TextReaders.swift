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
          let line = UnsafeRawBufferPointer(start: UnsafeRawPointer(input.storage.baseAddress!) + input.start, count: input.available)
          input.advance(input.available)
          _ = try handle(line, body)
        }
        return false
      }
    }
  }
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
          reason: "expected one key per line, found several fields (for delimited traces use --format csv)")
      }
      buffer[filled] = TraceRecord(key: TextKey.id(line))
      filled += 1
      return filled < buffer.count
    }
    if !more { ended = true }
    return filled
  }
}

/// Delimited text with a header or not, and a column mapping for key, size and time.
final class CSVTraceReader: TraceReader {
  let lines: LineSplitter
  var path: String { lines.path }
  var format: TraceFormat { .csv }
  private(set) var skippedZeroSize = 0
  var options: CSVOptions
  /// 0-based columns once resolved.
  var keyColumn = 0
  var sizeColumn: Int? = nil
  var timeColumn: Int? = nil
  var started = false
  var ended = false

  var skipped: SkippedRecords { lines.skipped }

  init(_ source: ByteSource, path: String, options: CSVOptions, skipBad: Bool = false) throws(TraceError) {
    lines = LineSplitter(source, path: path, skipBad: skipBad)
    self.options = options
    for (name, column) in [("key", options.keyColumn), ("size", options.sizeColumn), ("time", options.timeColumn)] {
      if let c = column, c < 1 {
        throw .invalidOption("--\(name)-column \(c): columns are numbered from 1")
      }
    }
  }

  /// Splits a line into at most `limit` fields.
  @inline(__always)
  func fields(_ line: UnsafeRawBufferPointer, into out: inout [UnsafeRawBufferPointer]) {
    out.removeAll(keepingCapacity: true)
    var fieldStart = 0
    for i in 0..<line.count where line[i] == options.delimiter {
      out.append(trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart..<i])))
      fieldStart = i + 1
    }
    out.append(trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart..<line.count])))
  }

  /// Resolves the columns from the first line; returns whether it was a header.
  func resolveColumns(_ first: [UnsafeRawBufferPointer]) throws(TraceError) -> Bool {
    let names = first.map { String(decoding: $0, as: UTF8.self).lowercased() }
    let looksLikeHeader = names.contains { CSVOptions.keyNames.contains($0) || CSVOptions.sizeNames.contains($0) }
    let isHeader: Bool
    switch options.header {
    case .yes: isHeader = true
    case .no: isHeader = false
    case .auto: isHeader = looksLikeHeader
    }
    func named(_ set: Set<String>) -> Int? { isHeader ? names.firstIndex(where: set.contains) : nil }
    if let c = options.keyColumn { keyColumn = c - 1 } else if let c = named(CSVOptions.keyNames) { keyColumn = c } else {
      keyColumn = 0
    }
    sizeColumn = options.sizeColumn.map { $0 - 1 } ?? named(CSVOptions.sizeNames)
    timeColumn = options.timeColumn.map { $0 - 1 } ?? named(CSVOptions.timeNames)
    return isHeader
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    if ended { return 0 }
    var filled = 0
    var parts: [UnsafeRawBufferPointer] = []
    parts.reserveCapacity(16)
    let lines = self.lines
    let more = try lines.forEachLine { (raw) throws(TraceError) -> Bool in
      let line = trimmed(raw)
      if line.isEmpty || line[0] == UInt8(ascii: "#") { return true }
      fields(line, into: &parts)
      if !started {
        started = true
        if try resolveColumns(parts) { return true }
      }
      let needed = max(keyColumn, sizeColumn ?? 0, timeColumn ?? 0) + 1
      guard parts.count >= needed else {
        throw .malformedLine(
          file: lines.path, line: lines.lineNumber,
          reason: "\(parts.count) fields, but column \(needed) is read (check --delimiter and the column options)")
      }
      let keyField = parts[keyColumn]
      guard !keyField.isEmpty else {
        throw .malformedLine(file: lines.path, line: lines.lineNumber, reason: "empty key in column \(keyColumn + 1)")
      }
      var record = TraceRecord(key: TextKey.id(keyField))
      if let c = sizeColumn {
        guard let size = TextKey.decimal(parts[c]), size <= UInt64(Int64.max) else {
          throw .malformedLine(
            file: lines.path, line: lines.lineNumber,
            reason: "size '\(String(decoding: parts[c], as: UTF8.self))' in column \(c + 1) is not a non-negative integer")
        }
        record.size = Int64(size)
      }
      if let c = timeColumn {
        let text = String(decoding: parts[c], as: UTF8.self)
        guard let time = Int64(text) ?? Double(text).flatMap({ $0.isFinite ? Int64(exactly: $0.rounded(.down)) : nil }) else {
          throw .malformedLine(
            file: lines.path, line: lines.lineNumber, reason: "time '\(text)' in column \(c + 1) is not a number")
        }
        record.time = time
      }
      if record.size == 0 {
        skippedZeroSize += 1
        return true
      }
      buffer[filled] = record
      filled += 1
      return filled < buffer.count
    }
    if !more { ended = true }
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
