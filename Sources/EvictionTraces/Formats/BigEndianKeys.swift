/// R3 Corda's and Scarab Research's traces: one big-endian int64 key per
/// access (key-only: size 1). Two names for one layout, as Caffeine's
/// simulator has them.
enum BigEndianInt64Layout: RecordLayout {
  static var recordSize: Int { 8 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(key: UInt64(bigEndian: p.loadUnaligned(as: UInt64.self)))
  }
}

enum CordaFormat: TraceFormatDefinition {
  static let name = "corda"
  static let summary = "R3 Corda's traces: one big-endian int64 key per access"
  static let carriesSizes = false
  static func reader(_ input: TraceInput) -> TraceReader { input.readingRecords(of: BigEndianInt64Layout.self) }
}

enum ScarabFormat: TraceFormatDefinition {
  static let name = "scarab"
  static let summary = "Scarab Research's traces: one big-endian int64 key per access"
  static let carriesSizes = false
  static func reader(_ input: TraceInput) -> TraceReader { input.readingRecords(of: BigEndianInt64Layout.self) }
}

extension TraceFormat {
  public static let corda = TraceFormat(CordaFormat.self)
  public static let scarab = TraceFormat(ScarabFormat.self)
}
