/// cache2k's traces: one big-endian int32 key per access (key-only: size 1).
enum Cache2kFormat: TraceFormatDefinition, RecordLayout {
  static let name = "cache2k"
  static let summary = "cache2k's traces: one big-endian int32 key per access"
  static let carriesSizes = false

  static func reader(_ input: TraceInput) -> TraceReader { input.readingRecords(of: Self.self) }

  static var recordSize: Int { 4 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(key: UInt64(UInt32(bigEndian: p.loadUnaligned(as: UInt32.self))))
  }
}

extension TraceFormat {
  public static let cache2k = TraceFormat(Cache2kFormat.self)
}
