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
  /// The operations' names as bytes, with what each reads as.
  static let operationBytes: [([UInt8], TraceRecord.Operation)] = operations.map {
    (Array($0.utf8), TraceRecord.Operation(name: $0)!)
  }

  /// The operation `field` names (ASCII case ignored), without making a string.
  @inline(__always)
  static func operation(_ field: UnsafeRawBufferPointer) -> TraceRecord.Operation? {
    for (name, op) in operationBytes where name.count == field.count {
      var same = true
      for i in 0..<name.count where field[i] | 0x20 != name[i] {
        same = false
        break
      }
      if same { return op }
    }
    return nil
  }

  struct Parser: LineParser {
    var fields: [UnsafeRawBufferPointer] = []

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      try line.splitCommas(into: &fields, layout: "timestamp,key,key_size,value_size,client,op,ttl", count: 7)
      guard let op = TwitterFormat.operation(fields[5]) else {
        let name = TraceLine.text(fields[5]).lowercased()
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
