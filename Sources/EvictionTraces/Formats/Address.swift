/// Program address traces (UCSD CSE240A, in Caffeine's simulator): lines
/// `l|s 0xADDR n` (load or store, hexadecimal address, gap); key = the
/// address, size 1. Any other operation is an error.
enum AddressFormat: TraceFormatDefinition {
  static let name = "address"
  static let summary = "program address traces: 'l|s 0xADDR n' per line"
  static let carriesSizes = false
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser()) }

  struct Parser: LineParser {
    var fields: [UnsafeRawBufferPointer] = []

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      splitOnBlanks(line.bytes, into: &fields)
      guard fields.count >= 2 else { throw line.malformed("expected 'l|s 0xADDR n'") }
      guard fields[0].count == 1, fields[0][0] == UInt8(ascii: "l") || fields[0][0] == UInt8(ascii: "s") else {
        throw line.malformed("unknown operation '\(TraceLine.text(fields[0]))': expected l (load) or s (store)")
      }
      guard let address = Self.hexadecimal(fields[1]) else {
        throw line.malformed("address '\(TraceLine.text(fields[1]))' is not 0x followed by hex digits")
      }
      return .record(TraceRecord(key: address))
    }

    /// `0x`-prefixed hexadecimal, at most 16 digits.
    static func hexadecimal(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
      guard bytes.count > 2, bytes.count <= 18, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x")
      else {
        return nil
      }
      var value: UInt64 = 0
      for byte in bytes.dropFirst(2) {
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
        default: return nil
        }
        value = value << 4 | UInt64(digit)
      }
      return value
    }
  }
}

extension TraceFormat {
  public static let address = TraceFormat(AddressFormat.self)
}
