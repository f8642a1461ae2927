/// VMware vscsi block traces, in two versions told apart by the version
/// field of the first record (`ver >> 8`), as libCacheSim tells them.
enum VSCSIFormat: TraceFormatDefinition {
  static let name = "vscsi"
  static let summary = "VMware vscsi block traces, version 1 (32-byte records) or 2 (40)"
  static let carriesSizes = true

  static func reader(_ input: TraceInput) throws(TraceError) -> TraceReader {
    let buffered = BufferedInput(input.source)
    _ = try buffered.refill()
    guard buffered.available >= 32 else {
      if buffered.available == 0 { throw .emptyTrace(path: input.path) }
      throw .truncatedRecord(file: input.path, offset: 0, recordSize: 32, remaining: buffered.available)
    }
    let p = UnsafeRawPointer(buffered.storage.baseAddress!)
    if UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 14, as: UInt16.self)) >> 8 == 1 {
      return FixedRecordReader(buffered, input: input, layout: Version1.self)
    }
    if UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2, as: UInt16.self)) >> 8 == 2 {
      return FixedRecordReader(buffered, input: input, layout: Version2.self)
    }
    throw .notOfFormat(file: input.path, format: name, reason: "the first record has no version 1 or 2 marker")
  }

  /// Version 1 (32 bytes): u32 sn, u32 len, u32 nSG, u16 cmd, u16 ver, u64 lbn, u64 ts (µs).
  enum Version1: RecordLayout {
    static var recordSize: Int { 32 }
    @inline(__always)
    static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
      TraceRecord(
        key: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
        size: Int64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
        time: Int64(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) / 1_000_000))
    }
  }

  /// Version 2 (40 bytes): u16 cmd, u16 ver, u32 sn, u32 len, u32 nSG, u64 lbn, u64 ts (µs), u64 rt.
  enum Version2: RecordLayout {
    static var recordSize: Int { 40 }
    @inline(__always)
    static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
      TraceRecord(
        key: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
        size: Int64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))),
        time: Int64(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) / 1_000_000))
    }
  }
}

extension TraceFormat {
  public static let vscsi = TraceFormat(VSCSIFormat.self)
}
