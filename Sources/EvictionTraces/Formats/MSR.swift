/// MSR Cambridge block traces (Narayanan et al., FAST'08):
/// `timestamp,host,disk,type,offset,size,latency`, timestamps in Windows
/// ticks of 100 ns. Reads only, each expanding into the 4 KiB blocks it
/// touches (key = disk · 2⁴⁸ + block); writes are skipped.
enum MSRFormat: TraceFormatDefinition {
  static let name = "msr"
  static let summary = "MSR Cambridge block traces: reads only, each expanding into the 4 KiB blocks it touches"
  static let carriesSizes = true
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser()) }

  static let blockSize: Int64 = 4096
  /// Blocks per disk: the block number takes the key's low 48 bits.
  static let blockLimit: UInt64 = 1 << 48

  struct Parser: LineParser {
    var fields: [UnsafeRawBufferPointer] = []

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      try line.splitCommas(into: &fields, layout: "timestamp,host,disk,type,offset,size,latency", count: 7)
      let type = TraceLine.text(fields[3]).lowercased()
      guard type == "read" || type == "write" else {
        throw line.malformed("unknown operation '\(TraceLine.text(fields[3]))': expected Read or Write")
      }
      guard let ticks = TextKey.decimal(fields[0]) else {
        throw line.malformed("timestamp '\(TraceLine.text(fields[0]))' is not a number")
      }
      guard let disk = TextKey.decimal(fields[2]), disk < 1 << 15 else {
        throw line.malformed("disk '\(TraceLine.text(fields[2]))' is not a small number")
      }
      guard let offset = TextKey.decimal(fields[4]), let size = TextKey.decimal(fields[5]) else {
        throw line.malformed("offset and size must be numbers")
      }
      guard type == "read" else { return .skip }
      // A read of 0 bytes: counted as a zero-size request.
      guard size > 0 else { return .record(TraceRecord(key: 0, size: 0)) }
      _ = try line.objectSize(size)
      let (end, overflow) = offset.addingReportingOverflow(size)
      let blockSize = UInt64(MSRFormat.blockSize)
      guard !overflow, end <= MSRFormat.blockLimit * blockSize else {
        throw line.malformed(
          "offset \(offset) + size \(size) is past 2⁶⁰ bytes, the largest disk the key (disk · 2⁴⁸ + block) holds")
      }
      let first = offset / blockSize
      let last = (end - 1) / blockSize
      return .blocks(
        first: disk << 48 | first, count: last - first + 1, size: MSRFormat.blockSize, time: Int64(ticks / 10_000_000))
    }
  }
}

extension TraceFormat {
  public static let msr = TraceFormat(MSRFormat.self)
}
