/// CloudPhysics block traces as the LIRS2 repository ships them: one
/// little-endian uint32 block number per access (Caffeine reads big-endian;
/// either way each block keeps its identity).
enum CloudPhysicsFormat: TraceFormatDefinition, RecordLayout {
  static let name = "cloud-physics"
  static let summary = "CloudPhysics block traces (LIRS2): one little-endian uint32 block number per access"
  static let carriesSizes = false

  static func reader(_ input: TraceInput) -> TraceReader { input.readingRecords(of: Self.self) }

  static var recordSize: Int { 4 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(key: UInt64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))))
  }
}

extension TraceFormat {
  public static let cloudPhysics = TraceFormat(CloudPhysicsFormat.self)
}
