/// Twitter's cache traces (Yang et al., OSDI'20):
/// `timestamp,key,key_size,value_size,client,op,ttl`. Every operation is a
/// record, with its operation (memcached's names, read as get, set or
/// delete) and TTL, weighing key size + value size; an unknown operation is
/// an error. Under libCacheSim's semantics each is a request; `--semantics
/// kv` reads them as operations.
enum TwitterFormat: TraceFormatDefinition {
  static let name = "twitter"
  static let summary =
    "Twitter's cache traces: 'timestamp,key,key_size,value_size,client,op,ttl', every operation and TTL; key + value size"
  static let carriesSizes = true
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser()) }

  static let operations: Set<String> = [
    "get", "gets", "set", "add", "replace", "cas", "append", "prepend", "delete", "incr", "decr",
  ]

  struct Parser: LineParser {
    var fields: [UnsafeRawBufferPointer] = []

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      splitOn(UInt8(ascii: ","), line.bytes, into: &fields)
      guard fields.count == 7 else {
        throw line.malformed(
          "expected 7 comma-separated fields 'timestamp,key,key_size,value_size,client,op,ttl', found \(fields.count)")
      }
      let name = TraceLine.text(fields[5]).lowercased()
      guard TwitterFormat.operations.contains(name), let op = TraceRecord.Operation(name: name) else {
        throw line.malformed(
          "unknown operation '\(name)': expected one of \(TwitterFormat.operations.sorted().joined(separator: ", "))")
      }
      let time = try line.clock(fields[0], "timestamp")
      guard let keySize = TextKey.decimal(fields[2]), let valueSize = TextKey.decimal(fields[3]) else {
        throw line.malformed("key_size and value_size must be numbers")
      }
      let (total, overflow) = keySize.addingReportingOverflow(valueSize)
      let size = try line.objectSize(overflow ? .max : total)
      guard let ttl = TextKey.decimal(fields[6]).flatMap(UInt32.init(exactly:)) else {
        throw line.malformed("ttl '\(TraceLine.text(fields[6]))' is not a whole number of seconds below 2³²")
      }
      return .record(TraceRecord(key: TextKey.id(fields[1]), size: size, time: time, ttl: ttl, op: op))
    }
  }
}

extension TraceFormat {
  public static let twitter = TraceFormat(TwitterFormat.self)
}
