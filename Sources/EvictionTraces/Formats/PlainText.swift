import EvictionRun

/// Plain text (`txt`): one key per line (a decimal integer or any string
/// without blanks, see ``TextKey``); lines starting `#` or `*` are skipped.
/// Every request has size 1.
enum PlainTextFormat: TraceFormatDefinition {
  static let name = "txt"
  static let summary = "one key per line (decimal or any word); # and * lines skipped"
  static let carriesSizes = false
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: KeyPerLine()) }
}

/// The LIRS paper's traces (Jiang and Zhang, SIGMETRICS'02): one decimal
/// block number per line, `*` lines (checkpoints) skipped: `txt`'s lines
/// under the name Caffeine's simulator gives them.
enum LIRSFormat: TraceFormatDefinition {
  static let name = "lirs"
  static let summary = "the LIRS paper's traces: one block number per line, * lines skipped"
  static let carriesSizes = false
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: BlockPerLine()) }
}

/// One decimal block number per line (an unsigned 64-bit integer): a word
/// or a delimited line is another format's, and refused as such.
struct BlockPerLine: LineParser {
  @inline(__always)
  func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
    let bytes = line.bytes
    if bytes[0] == UInt8(ascii: "*") { return .skip }
    guard let block = TextKey.decimal(bytes) else {
      let digits = !bytes.contains { $0 &- 48 >= 10 }
      throw line.malformed(
        digits
          ? "the block number does not fit in 64 bits"
          : "expected one decimal block number per line (keys that are words: \(Setting.format) txt; delimited lines: \(Setting.format) csv)"
      )
    }
    return .record(TraceRecord(key: block))
  }
}

/// One key per line.
struct KeyPerLine: LineParser {
  @inline(__always)
  func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
    let bytes = line.bytes
    if bytes[0] == UInt8(ascii: "*") { return .skip }
    if bytes.contains(where: { $0 == 32 || $0 == 9 }) {
      throw line.malformed(
        "expected one key per line, found several fields (for delimited traces use \(Setting.format) csv)")
    }
    return .record(TraceRecord(key: TextKey.id(bytes)))
  }
}

extension TraceFormat {
  public static let txt = TraceFormat(PlainTextFormat.self)
  public static let lirs = TraceFormat(LIRSFormat.self)
}
