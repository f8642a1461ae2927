/// libCacheSim's binary format: packed little-endian 24-byte records `<IQIq`
/// (u32 time, u64 id, u32 size, i64 next access: the 1-based index of the
/// key's next request, -1 or INT64_MAX for never).
enum OracleGeneralFormat: TraceFormatDefinition, RecordLayout {
  static let name = "oracleGeneral"
  static let summary = "libCacheSim's binary records: u32 time, u64 id, u32 size, i64 next access"
  static let carriesSizes = true
  static let carriesNextAccess = true

  static func reader(_ input: TraceInput) -> TraceReader { input.readingRecords(of: Self.self) }

  static var recordSize: Int { 24 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    let next = Int64(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: Int64.self))
    return TraceRecord(
      key: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
      size: Int64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 12, as: UInt32.self))),
      time: Int64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))),
      nextAccess: next < 0 ? TraceRecord.never : next)
  }
}

extension TraceFormat {
  public static let oracleGeneral = TraceFormat(OracleGeneralFormat.self)
}
