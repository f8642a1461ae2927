/// CacheLib's key-value replay traces, as CacheBench's `KVReplayGenerator`
/// reads them: comma-separated `key,op,size,op_count,key_size,ttl`, or the
/// columns a header row names (`key`, `op` and `size` required; `op_count`,
/// `key_size`, `ttl` and `op_time` read; others, such as `cache_hits`,
/// passed over). GET and GET_LEASE read as gets, SET and SET_LEASE as sets,
/// DELETE as deletes (any case); another operation is an error, as it is a
/// parse error to CacheBench. A record weighs its value size plus its key
/// size (`key_size`, else the key's length), as a CacheLib item holds both;
/// `op_count` repeats it (at least 1); `ttl` is in seconds; `op_time` is in
/// milliseconds, CacheBench's default `timestampFactor` of 1000, and read
/// as whole seconds. Without `op_time` every record is at time 0, so TTLs
/// never run out.
enum CacheLibFormat: TraceFormatDefinition {
  static let name = "cachelib"
  static let aliases = ["kvreplay"]
  static let fileSuffixes: [String] = []
  static let summary =
    "CacheLib's KV replay traces: 'key,op,size,op_count,key_size,ttl' or a header naming them (op_time in ms); key + value size"
  static let carriesSizes = true
  static func reader(_ input: TraceInput) -> TraceReader { input.readingLines(with: Parser()) }

  /// Where each field is in a line.
  struct Columns {
    var key = 0, op = 1, size = 2
    var opCount: Int? = 3, keySize: Int? = 4, ttl: Int? = 5, opTime: Int? = nil
    /// The fields a line must have: the required ones.
    var required: Int { max(key, op, size) + 1 }

    /// The column names CacheBench knows.
    static let known: Set<String> = ["key", "op", "size", "op_count", "key_size", "ttl", "op_time", "cache_hits"]

    /// The columns a header row names, or nil if `fields` is not a header
    /// (it names none of CacheBench's columns). Names are compared without
    /// case or surrounding blanks.
    init?(header fields: [UnsafeRawBufferPointer], line: TraceLine) throws(TraceError) {
      let names = fields.map { TraceLine.text(trimmed($0)).lowercased() }
      guard names.contains(where: Self.known.contains) else { return nil }
      for name in Set(names) where names.filter({ $0 == name }).count > 1 {
        throw line.malformed("the header names '\(name)' twice")
      }
      func column(_ name: String) throws(TraceError) -> Int {
        guard let index = names.firstIndex(of: name) else {
          throw line.malformed("the header names no '\(name)' column (CacheBench needs key, op and size)")
        }
        return index
      }
      let (key, op, size) = (try column("key"), try column("op"), try column("size"))
      (self.key, self.op, self.size) = (key, op, size)
      opCount = names.firstIndex(of: "op_count")
      keySize = names.firstIndex(of: "key_size")
      ttl = names.firstIndex(of: "ttl")
      opTime = names.firstIndex(of: "op_time")
    }

    init() {}
  }

  static let operations: [(name: [UInt8], op: TraceRecord.Operation)] = [
    (Array("get".utf8), .get), (Array("get_lease".utf8), .get), (Array("set".utf8), .set),
    (Array("set_lease".utf8), .set), (Array("delete".utf8), .delete),
  ]

  /// The operation `field` names (ASCII case ignored).
  @inline(__always)
  static func operation(_ field: UnsafeRawBufferPointer) -> TraceRecord.Operation? {
    for (name, op) in operations where name.count == field.count {
      if name.indices.allSatisfy({ i in
        let byte = field[i]
        return (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == name[i]
      }) {
        return op
      }
    }
    return nil
  }

  struct Parser: LineParser {
    var fields: [UnsafeRawBufferPointer] = []
    /// Set by the first line: a header's columns, or the default order.
    var columns: Columns? = nil

    /// The optional field at `index`, nil when the line is too short or the field empty.
    func field(_ index: Int?) -> UnsafeRawBufferPointer? {
      guard let index, index < fields.count, !fields[index].isEmpty else { return nil }
      return fields[index]
    }

    /// A whole number in an optional field.
    func number(_ index: Int?, _ name: String, in line: TraceLine) throws(TraceError) -> UInt64? {
      guard let field = field(index) else { return nil }
      guard let value = TextKey.decimal(field) else {
        throw line.malformed("\(name) '\(TraceLine.text(field))' is not a whole number")
      }
      return value
    }

    mutating func parse(_ line: TraceLine) throws(TraceError) -> ParsedLine {
      splitOn(UInt8(ascii: ","), line.bytes, into: &fields)
      if columns == nil {
        if let header = try Columns(header: fields, line: line) {
          columns = header
          return .skip
        }
        columns = Columns()
      }
      let columns = columns!
      guard fields.count >= columns.required else {
        throw line.malformed(
          "expected at least \(columns.required) comma-separated fields (key, op and size), found \(fields.count)")
      }
      let key = fields[columns.key]
      guard !key.isEmpty else { throw line.malformed("the key is empty") }
      guard let op = CacheLibFormat.operation(fields[columns.op]) else {
        throw line.malformed(
          "unknown operation '\(TraceLine.text(fields[columns.op]))': expected GET, GET_LEASE, SET, SET_LEASE or DELETE"
        )
      }
      guard let valueSize = try number(columns.size, "size", in: line) else {
        throw line.malformed("the size is empty")
      }
      let keySize = try number(columns.keySize, "key_size", in: line) ?? UInt64(key.count)
      let (total, overflow) = valueSize.addingReportingOverflow(keySize)
      guard !overflow && total <= TraceLine.sizeLimit else {
        throw line.malformed(
          "size \(valueSize) + key size \(keySize) is above 1 TiB, the largest object size EvictionLab replays")
      }
      let size = Int64(total)
      let repeats = try number(columns.opCount, "op_count", in: line) ?? 1
      guard repeats >= 1 && repeats <= UInt64(UInt32.max) else {
        throw line.malformed("op_count \(repeats) is not from 1 to \(UInt32.max) (CacheBench refuses 0)")
      }
      let ttlValue = try number(columns.ttl, "ttl", in: line) ?? 0
      guard let ttl = UInt32(exactly: ttlValue) else {
        throw line.malformed("ttl \(ttlValue) is not a whole number of seconds below 2³²")
      }
      var time: Int64 = 0
      if let field = field(columns.opTime) { time = try line.clock(field, "op_time") / 1000 }
      let record = TraceRecord(key: TextKey.id(key), size: size, time: time, ttl: ttl, op: op)
      return repeats == 1 ? .record(record) : .repeated(record, count: repeats)
    }
  }
}

extension TraceFormat {
  public static let cachelib = TraceFormat(CacheLibFormat.self)
}
