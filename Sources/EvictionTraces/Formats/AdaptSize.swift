/// AdaptSize's and LRB's (webcachesim) request logs: lines `time id size`.
/// The key mixes id and size: the same id at another size is another
/// object, as Caffeine's simulator reads these logs. Also called `lrb`.
enum AdaptSizeFormat: TraceFormatDefinition {
  static let name = "adapt-size"
  static let aliases = ["lrb"]
  static let summary = "AdaptSize / LRB (webcachesim) logs: 'time id size' per line; the key is the (id, size) pair"
  static let carriesSizes = true
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser()) }

  struct Parser: LineParser {
    var fields: [UnsafeRawBufferPointer] = []

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      splitOnBlanks(line.bytes, into: &fields)
      guard fields.count >= 3 else { throw line.malformed("expected 'time id size'") }
      let time = try line.clock(fields[0], "time")
      guard let id = TextKey.decimal(fields[1]) else {
        throw line.malformed("id '\(TraceLine.text(fields[1]))' is not a number")
      }
      guard let size = TextKey.decimal(fields[2]) else {
        throw line.malformed("size '\(TraceLine.text(fields[2]))' is not a number")
      }
      return .record(TraceRecord(key: Self.mix(id, size), size: try line.objectSize(size), time: time))
    }

    /// A key for the (id, size) pair (SplitMix64's finaliser over both).
    static func mix(_ id: UInt64, _ size: UInt64) -> UInt64 {
      var x = id ^ (size &* 0x9E37_79B9_7F4A_7C15)
      x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
      x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
      return x ^ (x >> 31)
    }
  }
}

extension TraceFormat {
  public static let adaptSize = TraceFormat(AdaptSizeFormat.self)
}
