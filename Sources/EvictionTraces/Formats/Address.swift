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

/// Program address traces with the cost of each request (Caffeine's
/// `address-penalties`, from Himelbrand et al.'s cost-aware work): lines
/// `l|s 0xADDR n hitPenalty missPenalty`, the address trace's three fields
/// and what serving the request costs on a hit and on a miss. Key = the
/// address, size 1; the penalties are read apart, for `--penalty trace`
/// (``penaltyReader(_:)``). A penalty is a finite number of at least 0
/// (decimal, as `100` or `12.5`).
enum AddressPenaltiesFormat: TraceFormatDefinition {
  static let name = "address-penalties"
  static let summary = "address traces with costs: 'l|s 0xADDR n hitPenalty missPenalty' per line"
  static let carriesSizes = false
  static let carriesPenalties = true
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser(packsPenalties: false)) }
  static func penaltyReader(_ input: TraceInput) -> TraceReader? {
    input.readingLines(with: Parser(packsPenalties: true))
  }

  /// Reads a line's record, or (`packsPenalties`) the same line's
  /// penalties packed in the key (``TracePenalty/packed(hit:miss:)``): the
  /// same checks either way, so both readers pass over the same lines.
  struct Parser: LineParser {
    var address = AddressFormat.Parser()
    let packsPenalties: Bool

    init(packsPenalties: Bool) { self.packsPenalties = packsPenalties }

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      guard case .record(var record) = try address.parse(line) else { return .skip }
      let fields = address.fields
      guard fields.count >= 5 else {
        throw line.malformed("expected 'l|s 0xADDR n hitPenalty missPenalty', found \(fields.count) fields")
      }
      let hit = try Self.penalty(fields[3], "hit penalty", line)
      let miss = try Self.penalty(fields[4], "miss penalty", line)
      if packsPenalties { record.key = TracePenalty.packed(hit: hit, miss: miss) }
      return .record(record)
    }

    /// A decimal penalty: finite, at least 0, within a 32-bit float's range.
    static func penalty(_ field: UnsafeRawBufferPointer, _ name: String, _ line: TraceLine) throws(TraceError)
      -> Float
    {
      if let whole = TextKey.decimal(field), whole <= 1 << 24 { return Float(whole) }
      let text = TraceLine.text(field)
      guard field.count < 64, let value = Double(text), value.isFinite, value >= 0,
        value <= Double(Float.greatestFiniteMagnitude)
      else {
        throw line.malformed("\(name) '\(text)' is not a number from 0 to 3.4e38")
      }
      return Float(value)
    }
  }
}

/// A request's hit and miss penalties as a format's penalty reader hands
/// them over (``TraceFormatDefinition/penaltyReader(_:)``): two 32-bit
/// floats packed in a record's key, hit in the high half. Kept apart from
/// ``TraceRecord``, which every replay copies, so that no replay without
/// penalties pays for them: whole numbers to 2^24 are exact, others keep 7
/// significant digits.
public enum TracePenalty {
  @inlinable public static func packed(hit: Float, miss: Float) -> UInt64 {
    UInt64(hit.bitPattern) << 32 | UInt64(miss.bitPattern)
  }
  @inlinable public static func unpacked(_ key: UInt64) -> (hit: Float, miss: Float) {
    (Float(bitPattern: UInt32(truncatingIfNeeded: key >> 32)), Float(bitPattern: UInt32(truncatingIfNeeded: key)))
  }
}

extension TraceFormat {
  public static let addressPenalties = TraceFormat(AddressPenaltiesFormat.self)
}
