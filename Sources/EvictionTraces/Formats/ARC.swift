/// The ARC paper's traces (Megiddo and Modha, FAST'03; "arc" in Caffeine's
/// simulator): lines `start count ignored request-number`, each expanding to
/// `count` requests for blocks start … start+count−1 of 512 bytes. Files end
/// `.lis` as the paper's do.
enum ARCFormat: TraceFormatDefinition {
  static let name = "arc"
  static let fileSuffixes = [".arc", ".lis"]
  static let summary = "the ARC paper's traces: 'start count ignored request-number', count 512-byte blocks"
  static let carriesSizes = true
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser()) }

  static let blockSize: Int64 = 512

  struct Parser: LineParser {
    var fields: [UnsafeRawBufferPointer] = []

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      splitOnBlanks(line.bytes, into: &fields)
      guard fields.count >= 2, let start = TextKey.decimal(fields[0]), let count = TextKey.decimal(fields[1]) else {
        throw line.malformed("expected 'start count ignored request-number' with decimal start and count")
      }
      return .blocks(first: start, count: count, size: ARCFormat.blockSize, time: 0)
    }
  }
}

extension TraceFormat {
  public static let arc = TraceFormat(ARCFormat.self)
}
