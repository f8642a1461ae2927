#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Splits a byte stream into lines (LF or CRLF; the last line may lack its LF).
/// A NUL byte anywhere ends the read: text traces hold none, so the file is
/// binary (read with the wrong `--format`), and parsing on would turn its
/// bytes into keys and numbers.
final class LineSplitter {
  let input: BufferedInput
  let path: String
  /// The format being read, for the error a NUL byte raises.
  let format: String
  /// The stream offset up to which bytes were checked for NUL.
  private var checkedTo: Int64 = 0
  private(set) var lineNumber = 0
  /// Whether a malformed line is counted in `skipped` and passed over
  /// instead of ending the read.
  let skipBad: Bool
  private(set) var skipped = SkippedRecords()

  init(_ source: ByteSource, path: String, format: String, skipBad: Bool = false) {
    input = BufferedInput(source)
    self.path = path
    self.format = format
    self.skipBad = skipBad
  }

  /// Refuses the buffered bytes not yet checked if one is NUL (one `memchr`
  /// per buffer, not per line).
  @inline(__always)
  private func refuseBinaryData() throws(TraceError) {
    let end = input.consumed + Int64(input.available)
    guard checkedTo < end else { return }
    let base = UnsafeRawPointer(input.storage.baseAddress!)
    let from = input.start + Int(checkedTo - input.consumed)
    if let nul = memchr(base + from, 0, input.end - from) {
      let offset = input.consumed + Int64(base.distance(to: UnsafeRawPointer(nul)) - input.start)
      throw .notOfFormat(
        file: path, format: format, reason: "binary data: a NUL byte at byte \(offset) of the text")
    }
    checkedTo = end
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
      try refuseBinaryData()
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
          try refuseBinaryData()
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

/// What one line of a line-based format holds: nothing to replay (a
/// comment, an operation the format skips), one request, or a run of
/// consecutive blocks (a block-trace line that covers several).
public enum ParsedLine {
  case skip
  /// One request; a size of 0 is skipped and counted, as libCacheSim does.
  case record(TraceRecord)
  /// `count` requests for keys `first`, `first + 1`, … each of `size` bytes at `time`.
  case blocks(first: UInt64, count: UInt64, size: Int64, time: Int64)
  /// The same request `count` times in a row (CacheBench's `op_count`).
  case repeated(TraceRecord, count: UInt64)
}

/// One line of a trace, trimmed of blanks at both ends, never empty and
/// never a `#` comment, with what a parser needs to say what is wrong with it.
public struct TraceLine {
  /// The line's bytes, valid only during the parse.
  public let bytes: UnsafeRawBufferPointer
  unowned(unsafe) let splitter: LineSplitter

  /// The 1-based line number.
  public var number: Int { splitter.lineNumber }

  /// The error for this line: `file:line: reason; fix or remove that line`.
  public func malformed(_ reason: String) -> TraceError {
    .malformedLine(file: splitter.path, line: splitter.lineNumber, reason: reason)
  }

  /// Splits the line at commas into `fields`, which must be as many as
  /// `layout` names (`timestamp,key,size`); else the line is malformed,
  /// and the message names the layout.
  @inline(__always)
  public func splitCommas(into fields: inout [UnsafeRawBufferPointer], layout: StaticString, count: Int)
    throws(TraceError)
  {
    splitOn(UInt8(ascii: ","), bytes, into: &fields)
    guard fields.count == count else {
      throw malformed("expected \(count) comma-separated fields '\(layout)', found \(fields.count)")
    }
  }

  /// The start of a field for a message (at most 64 bytes).
  public static func text(_ field: UnsafeRawBufferPointer) -> String {
    String(decoding: field.prefix(64), as: UTF8.self)
  }

  /// A timestamp: a decimal that fits the signed 64-bit clock of a record.
  public func clock(_ field: UnsafeRawBufferPointer, _ name: String) throws(TraceError) -> Int64 {
    guard let value = TextKey.decimal(field), let time = Int64(exactly: value) else {
      throw malformed("\(name) '\(Self.text(field))' is not a number below 2⁶³")
    }
    return time
  }

  /// An object size, refused above the limit every reader keeps (1 TiB:
  /// byte totals of billions of requests must fit a 64-bit counter).
  public func objectSize(_ size: UInt64) throws(TraceError) -> Int64 {
    guard size <= TraceLine.sizeLimit else {
      throw malformed("size \(size) is above 1 TiB, the largest object size EvictionLab replays")
    }
    return Int64(size)
  }

  /// The largest object size a reader accepts.
  public static let sizeLimit: UInt64 = 1 << 40
}

/// Parses the lines of one line-based format (``TraceInput/readingLines(with:)``).
public protocol LineParser {
  /// One line's requests. Empty lines and `#` comments never reach it.
  mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine
}

extension TraceInput {
  /// A reader of a line-based format (LF or CRLF, compressed or not), each
  /// line handed to `parser`; under ``skipBadRecords`` a line it refuses
  /// is counted and passed over.
  public func readingLines<Parser: LineParser>(with parser: Parser) -> TraceReader {
    LineRecordReader(self, parser: parser)
  }
}

/// The line loop every line-based format shares. As ``FixedRecordReader``,
/// it makes its parsing loop where the parser's type is known and keeps it
/// as a closure: one indirect call per batch, not per line.
final class LineRecordReader: TraceReader {
  let lines: LineSplitter
  let format: TraceFormat
  var path: String { lines.path }
  private(set) var skippedZeroSize = 0
  private(set) var firstZeroSizeLine: Int? = nil
  private(set) var zeroSizeWrites = SkippedRecords.ZeroSizeWrites()
  /// ``TraceInput/keepsZeroSizeWrites``.
  let keepWrites: Bool
  var ended = false
  /// The requests of a line not yet handed out: `next`, then `next` with
  /// its key moved by `step` (1 for blocks, 0 for a repeated request), …
  var pending = (next: TraceRecord(key: 0), remaining: UInt64(0), step: UInt64(0))
  private let parseBatch: (LineRecordReader, UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int

  var skipped: SkippedRecords {
    lines.skipped.addingZeroSize(
      skippedZeroSize, first: firstZeroSizeLine.map { "line \($0)" }, writes: zeroSizeWrites)
  }

  init<Parser: LineParser>(_ input: TraceInput, parser: Parser) {
    lines = LineSplitter(input.source, path: input.path, format: input.format.rawValue, skipBad: input.skipBadRecords)
    format = input.format
    keepWrites = input.keepsZeroSizeWrites
    // The parser is moved out of the closure's box for each batch and back
    // after it: working on the box itself costs a dynamic exclusivity
    // check per access (several per line).
    var held: Parser? = parser
    parseBatch = { (reader, buffer) throws(TraceError) in
      var parser = held.take()!
      defer { held = parser }
      return try reader.fill(buffer, with: &parser)
    }
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    try parseBatch(self, buffer)
  }

  @inline(__always)
  private func fill<Parser: LineParser>(
    _ buffer: UnsafeMutableBufferPointer<TraceRecord>, with parser: inout Parser
  ) throws(TraceError) -> Int {
    var filled = 0
    func drain() {
      guard pending.remaining > 0 else { return }
      // Locals, and the reader's field read and written once per batch.
      var (record, remaining, step) = pending
      let count = Int(min(remaining, UInt64(buffer.count - filled)))
      for i in filled..<filled + count {
        buffer[i] = record
        record.key &+= step
      }
      filled += count
      remaining -= UInt64(count)
      pending = (record, remaining, step)
    }
    drain()
    if ended || filled == buffer.count { return filled }
    let lines = self.lines
    let more = try lines.forEachLine { (raw) throws(TraceError) -> Bool in
      let line = trimmed(raw)
      if line.isEmpty || line[0] == UInt8(ascii: "#") { return true }
      let parsed = try parser.parse(TraceLine(bytes: line, splitter: lines))
      // One line of millions of requests is damage or another format, not
      // a workload: replaying it would run for minutes in silence. Blocks
      // past the last key would wrap around to key 0.
      switch parsed {
      case .blocks(let first, let count, _, _) where count > 0 && first > UInt64.max - (count - 1):
        throw TraceLine(bytes: line, splitter: lines).malformed(
          "blocks \(first) and on, \(count) of them, run past the largest key (2^64 - 1); the line is damaged")
      case .blocks(_, let count, _, _), .repeated(_, let count):
        guard count <= mostRequestsFromOneLine else {
          throw TraceLine(bytes: line, splitter: lines).malformed(
            "one line asks for \(count) requests, more than 2^20 (\(mostRequestsFromOneLine)); the line is damaged, "
              + "or the file is of another format (--format)")
        }
      case .skip, .record: break
      }
      switch parsed {
      case .skip: break
      case .record(let record):
        if record.isSkippedAsZeroSize(keepingWrites: keepWrites) {
          if firstZeroSizeLine == nil { firstZeroSizeLine = lines.lineNumber }
          skippedZeroSize += 1
          zeroSizeWrites.count(record)
        } else {
          buffer[filled] = record
          filled += 1
        }
      case .blocks(let first, let count, let size, let time):
        pending = (TraceRecord(key: first, size: size, time: time), count, 1)
        drain()
      case .repeated(let record, let count):
        if record.isSkippedAsZeroSize(keepingWrites: keepWrites) {
          if firstZeroSizeLine == nil { firstZeroSizeLine = lines.lineNumber }
          skippedZeroSize += Int(clamping: count)
          zeroSizeWrites.count(record, times: Int(clamping: count))
        } else {
          pending = (record, count, 0)
          drain()
        }
      }
      return filled < buffer.count
    }
    if !more { ended = true }
    return filled
  }
}

/// The most requests one line of a trace may expand into (a count of
/// blocks or of repeats): 2^20, 512 MiB of 512-byte blocks in one request,
/// far past any recorded one.
let mostRequestsFromOneLine: UInt64 = 1 << 20

/// Splits on runs of spaces and tabs.
@inline(__always)
public func splitOnBlanks(_ line: UnsafeRawBufferPointer, into out: inout [UnsafeRawBufferPointer]) {
  out.removeAll(keepingCapacity: true)
  var i = 0
  while i < line.count {
    while i < line.count && (line[i] == 32 || line[i] == 9) { i += 1 }
    let start = i
    while i < line.count && line[i] != 32 && line[i] != 9 { i += 1 }
    if i > start { out.append(UnsafeRawBufferPointer(rebasing: line[start..<i])) }
  }
}

/// Splits on every `separator` (empty fields kept).
@inline(__always)
public func splitOn(_ separator: UInt8, _ line: UnsafeRawBufferPointer, into out: inout [UnsafeRawBufferPointer]) {
  out.removeAll(keepingCapacity: true)
  var start = 0
  for i in 0..<line.count where line[i] == separator {
    out.append(UnsafeRawBufferPointer(rebasing: line[start..<i]))
    start = i + 1
  }
  out.append(UnsafeRawBufferPointer(rebasing: line[start..<line.count]))
}
