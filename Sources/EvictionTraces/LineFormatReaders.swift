/// Line-based formats of the literature, one parser each, sharing the line
/// loop and the expansion of one line into several requests (MSR):
///
/// - `address`: `l|s 0xADDR n` (load or store, hexadecimal address, gap);
///   key = the address, size 1. Any other operation is an error.
/// - `adapt-size` / `lrb`: `time id size`; the key mixes id and size (the
///   same id at another size is another object, as Caffeine reads it).
/// - `twitter`: `timestamp,key,key_size,value_size,client,op,ttl`; gets
///   (`get`, `gets`) only, weighing key size + value size; the other
///   memcached operations are skipped; an unknown one is an error.
/// - `msr`: `timestamp,host,disk,type,offset,size,latency` (timestamps in
///   Windows ticks of 100 ns); reads only, each expanding into the 4 KiB
///   blocks it touches (key = disk · 2⁴⁸ + block); writes are skipped.
final class LineFormatReader: TraceReader {
  static let blockSize: Int64 = 4096
  /// MSR blocks per disk: the block number takes the key's low 48 bits.
  static let blockLimit: UInt64 = 1 << 48

  let lines: LineSplitter
  let format: TraceFormat
  var path: String { lines.path }
  private(set) var skippedZeroSize = 0
  private(set) var firstZeroSizeLine: Int? = nil
  /// Requests of other operations than the format replays (sets, writes).
  private(set) var skippedOperations = 0
  var ended = false
  var fields: [UnsafeRawBufferPointer] = []
  /// The blocks of an MSR line not yet handed out.
  var pending = (next: UInt64(0), remaining: UInt64(0), time: Int64(0))

  var skipped: SkippedRecords {
    lines.skipped.addingZeroSize(skippedZeroSize, first: firstZeroSizeLine.map { "line \($0)" })
  }

  init(_ source: ByteSource, path: String, format: TraceFormat, skipBad: Bool = false) {
    lines = LineSplitter(source, path: path, skipBad: skipBad)
    self.format = format
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    var filled = 0
    func drain() {
      while pending.remaining > 0 && filled < buffer.count {
        buffer[filled] = TraceRecord(key: pending.next, size: Self.blockSize, time: pending.time)
        filled += 1
        pending.next &+= 1
        pending.remaining -= 1
      }
    }
    drain()
    if ended || filled == buffer.count { return filled }
    let lines = self.lines
    let more = try lines.forEachLine { (raw) throws(TraceError) -> Bool in
      let line = trimmed(raw)
      if line.isEmpty || line[0] == UInt8(ascii: "#") { return true }
      if let record = try parse(line) {
        if record.size == 0 {
          if firstZeroSizeLine == nil { firstZeroSizeLine = lines.lineNumber }
          skippedZeroSize += 1
        } else {
          buffer[filled] = record
          filled += 1
        }
      }
      drain()
      return filled < buffer.count
    }
    if !more { ended = true }
    return filled
  }

  /// One line's request, or nil when the line is skipped or expands (MSR).
  func parse(_ line: UnsafeRawBufferPointer) throws(TraceError) -> TraceRecord? {
    switch format {
    case .address:
      splitOnBlanks(line, into: &fields)
      guard fields.count >= 2 else { throw bad("expected 'l|s 0xADDR n'") }
      guard fields[0].count == 1, fields[0][0] == UInt8(ascii: "l") || fields[0][0] == UInt8(ascii: "s") else {
        throw bad("unknown operation '\(text(fields[0]))': expected l (load) or s (store)")
      }
      guard let address = hexadecimal(fields[1]) else {
        throw bad("address '\(text(fields[1]))' is not 0x followed by hex digits")
      }
      return TraceRecord(key: address)
    case .adaptSize:
      splitOnBlanks(line, into: &fields)
      guard fields.count >= 3 else { throw bad("expected 'time id size'") }
      let time = try clock(fields[0], "time")
      guard let id = TextKey.decimal(fields[1]) else { throw bad("id '\(text(fields[1]))' is not a number") }
      guard let size = TextKey.decimal(fields[2]) else { throw bad("size '\(text(fields[2]))' is not a number") }
      return TraceRecord(key: mix(id, size), size: try objectSize(size), time: time)
    case .twitter:
      splitOn(UInt8(ascii: ","), line, into: &fields)
      guard fields.count == 7 else {
        throw bad(
          "expected 7 comma-separated fields 'timestamp,key,key_size,value_size,client,op,ttl', found \(fields.count)")
      }
      let op = text(fields[5]).lowercased()
      guard Self.twitterOperations.contains(op) else {
        throw bad(
          "unknown operation '\(op)': expected one of \(Self.twitterOperations.sorted().joined(separator: ", "))")
      }
      let time = try clock(fields[0], "timestamp")
      guard let keySize = TextKey.decimal(fields[2]), let valueSize = TextKey.decimal(fields[3]) else {
        throw bad("key_size and value_size must be numbers")
      }
      let (total, overflow) = keySize.addingReportingOverflow(valueSize)
      let size = try objectSize(overflow ? .max : total)
      guard op == "get" || op == "gets" else {
        skippedOperations += 1
        return nil
      }
      return TraceRecord(key: TextKey.id(fields[1]), size: size, time: time)
    case .msr:
      splitOn(UInt8(ascii: ","), line, into: &fields)
      guard fields.count == 7 else {
        throw bad(
          "expected 7 comma-separated fields 'timestamp,host,disk,type,offset,size,latency', found \(fields.count)")
      }
      let type = text(fields[3]).lowercased()
      guard type == "read" || type == "write" else {
        throw bad("unknown operation '\(text(fields[3]))': expected Read or Write")
      }
      guard let ticks = TextKey.decimal(fields[0]) else { throw bad("timestamp '\(text(fields[0]))' is not a number") }
      guard let disk = TextKey.decimal(fields[2]), disk < 1 << 15 else {
        throw bad("disk '\(text(fields[2]))' is not a small number")
      }
      guard let offset = TextKey.decimal(fields[4]), let size = TextKey.decimal(fields[5]) else {
        throw bad("offset and size must be numbers")
      }
      guard type == "read" else {
        skippedOperations += 1
        return nil
      }
      guard size > 0 else {
        if firstZeroSizeLine == nil { firstZeroSizeLine = lines.lineNumber }
        skippedZeroSize += 1
        return nil
      }
      _ = try objectSize(size)
      let (end, overflow) = offset.addingReportingOverflow(size)
      guard !overflow, end <= Self.blockLimit * UInt64(Self.blockSize) else {
        throw bad(
          "offset \(offset) + size \(size) is past 2⁶⁰ bytes, the largest disk the key (disk · 2⁴⁸ + block) holds")
      }
      let first = offset / UInt64(Self.blockSize)
      let last = (end - 1) / UInt64(Self.blockSize)
      pending = (disk << 48 | first, last - first + 1, Int64(ticks / 10_000_000))
      return nil
    default:
      preconditionFailure("LineFormatReader does not read \(format)")
    }
  }

  static let twitterOperations: Set<String> = [
    "get", "gets", "set", "add", "replace", "cas", "append", "prepend", "delete", "incr", "decr",
  ]

  /// A timestamp: a decimal that fits the signed 64-bit clock of a record.
  func clock(_ field: UnsafeRawBufferPointer, _ name: String) throws(TraceError) -> Int64 {
    guard let value = TextKey.decimal(field), let time = Int64(exactly: value) else {
      throw bad("\(name) '\(text(field))' is not a number below 2⁶³")
    }
    return time
  }

  /// An object size, refused above the limit the CSV reader also keeps.
  func objectSize(_ size: UInt64) throws(TraceError) -> Int64 {
    guard size <= CSVTraceReader.sizeLimit else {
      throw bad("size \(size) is above 1 TiB, the largest object size EvictionLab replays")
    }
    return Int64(size)
  }

  func bad(_ reason: String) -> TraceError { .malformedLine(file: lines.path, line: lines.lineNumber, reason: reason) }

  func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes.prefix(64), as: UTF8.self) }

  /// `0x`-prefixed hexadecimal, at most 16 digits.
  func hexadecimal(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
    guard bytes.count > 2, bytes.count <= 18, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x") else {
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

  /// A key for the (id, size) pair.
  func mix(_ id: UInt64, _ size: UInt64) -> UInt64 {
    var x = id ^ (size &* 0x9E37_79B9_7F4A_7C15)
    x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
    x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
    return x ^ (x >> 31)
  }
}

/// Splits on every `separator` (empty fields kept).
@inline(__always)
func splitOn(_ separator: UInt8, _ line: UnsafeRawBufferPointer, into out: inout [UnsafeRawBufferPointer]) {
  out.removeAll(keepingCapacity: true)
  var start = 0
  for i in 0..<line.count where line[i] == separator {
    out.append(UnsafeRawBufferPointer(rebasing: line[start..<i]))
    start = i + 1
  }
  out.append(UnsafeRawBufferPointer(rebasing: line[start..<line.count]))
}
