/// The layout of one fixed-size binary record.
protocol RecordLayout {
  static var format: TraceFormat { get }
  static var recordSize: Int { get }
  /// Decodes the record at `p` (unaligned, little-endian).
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord
}

/// libCacheSim's oracleGeneral: packed `<IQIq`: time, id, size, next access
/// (1-based request index of the key's next request, -1 or INT64_MAX for never).
enum OracleGeneralLayout: RecordLayout {
  static var format: TraceFormat { .oracleGeneral }
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

/// vscsi version 1 (32 bytes): u32 sn, u32 len, u32 nSG, u16 cmd, u16 ver, u64 lbn, u64 ts (µs).
enum VSCSIv1Layout: RecordLayout {
  static var format: TraceFormat { .vscsi }
  static var recordSize: Int { 32 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(
      key: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
      size: Int64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
      time: Int64(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) / 1_000_000))
  }
}

/// vscsi version 2 (40 bytes): u16 cmd, u16 ver, u32 sn, u32 len, u32 nSG, u64 lbn, u64 ts (µs), u64 rt.
enum VSCSIv2Layout: RecordLayout {
  static var format: TraceFormat { .vscsi }
  static var recordSize: Int { 40 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(
      key: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
      size: Int64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))),
      time: Int64(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) / 1_000_000))
  }
}

/// cache2k: one big-endian int32 key per access (key-only: size 1).
enum Cache2kLayout: RecordLayout {
  static var format: TraceFormat { .cache2k }
  static var recordSize: Int { 4 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(key: UInt64(UInt32(bigEndian: p.loadUnaligned(as: UInt32.self))))
  }
}

/// Corda and Scarab: one big-endian int64 key per access (key-only: size 1).
enum BigEndianInt64Layout: RecordLayout {
  static var format: TraceFormat { .corda }
  static var recordSize: Int { 8 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(key: UInt64(bigEndian: p.loadUnaligned(as: UInt64.self)))
  }
}

/// CloudPhysics as the LIRS2 repository ships it: one little-endian uint32
/// block number per access (Caffeine reads big-endian; either way each block
/// keeps its identity).
enum CloudPhysicsLayout: RecordLayout {
  static var format: TraceFormat { .cloudPhysics }
  static var recordSize: Int { 4 }
  @inline(__always)
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
    TraceRecord(key: UInt64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))))
  }
}

/// Reads fixed-size binary records; records of size 0 are skipped, as in libCacheSim.
final class FixedRecordReader: TraceReader {
  /// The layouts this reader decodes; a closed set, so each gets its own
  /// specialised decoding loop (a generic class would decode through a
  /// witness table, one indirect call per record).
  enum Layout {
    case oracleGeneral, vscsiV1, vscsiV2, cache2k, corda, scarab, cloudPhysics
  }

  let path: String
  let input: BufferedInput
  let layout: Layout
  private(set) var skippedZeroSize = 0
  /// The 1-based number of the first zero-size record.
  private(set) var firstZeroSizeRecord: Int? = nil
  /// Whether a cut-off last record is counted in `skipped` instead of thrown.
  let skipBad: Bool
  private(set) var badRecords = SkippedRecords()
  var skipped: SkippedRecords {
    badRecords.addingZeroSize(skippedZeroSize, first: firstZeroSizeRecord.map { "record \($0)" })
  }
  var format: TraceFormat {
    switch layout {
    case .oracleGeneral: .oracleGeneral
    case .vscsiV1, .vscsiV2: .vscsi
    case .cache2k: .cache2k
    case .corda: .corda
    case .scarab: .scarab
    case .cloudPhysics: .cloudPhysics
    }
  }

  init(_ input: BufferedInput, path: String, layout: Layout, skipBad: Bool = false) {
    self.path = path
    self.input = input
    self.layout = layout
    self.skipBad = skipBad
  }

  convenience init(_ source: ByteSource, path: String, layout: Layout, skipBad: Bool = false) {
    self.init(BufferedInput(source), path: path, layout: layout, skipBad: skipBad)
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    switch layout {
    case .oracleGeneral: return try read(OracleGeneralLayout.self, into: buffer)
    case .vscsiV1: return try read(VSCSIv1Layout.self, into: buffer)
    case .vscsiV2: return try read(VSCSIv2Layout.self, into: buffer)
    case .cache2k: return try read(Cache2kLayout.self, into: buffer)
    case .corda, .scarab: return try read(BigEndianInt64Layout.self, into: buffer)
    case .cloudPhysics: return try read(CloudPhysicsLayout.self, into: buffer)
    }
  }

  @inline(__always)
  private func read<L: RecordLayout>(_: L.Type, into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError)
    -> Int
  {
    var filled = 0
    let size = L.recordSize
    while filled < buffer.count {
      if input.available < size {
        if try !input.refill() || input.available < size {
          if input.available > 0 {
            let error = TraceError.truncatedRecord(
              file: path, offset: input.consumed, recordSize: size, remaining: input.available)
            guard skipBad else { throw error }
            badRecords.note(error)
            input.advance(input.available)
          }
          return filled
        }
      }
      let base = UnsafeRawPointer(input.storage.baseAddress! + input.start)
      let whole = min(input.available / size, buffer.count - filled)
      var skipped = 0
      for i in 0..<whole {
        let record = L.decode(base + i * size)
        buffer[filled] = record
        // Branch-free skip of zero-size records: the slot is overwritten next.
        let keep = record.size != 0 ? 1 : 0
        filled += keep
        skipped += 1 - keep
      }
      skippedZeroSize += skipped
      if skipped > 0 && firstZeroSizeRecord == nil,
        let i = (0..<whole).first(where: { L.decode(base + $0 * size).size == 0 })
      {
        firstZeroSizeRecord = Int(input.consumed) / size + i + 1
      }
      input.advance(whole * size)
    }
    return filled
  }
}

/// Opens a vscsi trace, telling version 1 from 2 by the version field of the
/// first record (`ver >> 8`), as libCacheSim does.
func openVSCSI(_ source: ByteSource, path: String, skipBad: Bool = false) throws(TraceError) -> TraceReader {
  let input = BufferedInput(source)
  _ = try input.refill()
  guard input.available >= 32 else {
    if input.available == 0 { throw .emptyTrace(path: path) }
    throw .truncatedRecord(file: path, offset: 0, recordSize: 32, remaining: input.available)
  }
  let p = UnsafeRawPointer(input.storage.baseAddress!)
  let v1 = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 14, as: UInt16.self)) >> 8
  let v2 = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2, as: UInt16.self)) >> 8
  if v1 == 1 { return FixedRecordReader(input, path: path, layout: .vscsiV1, skipBad: skipBad) }
  if v2 == 2 { return FixedRecordReader(input, path: path, layout: .vscsiV2, skipBad: skipBad) }
  throw .notOfFormat(file: path, format: "vscsi", reason: "the first record has no version 1 or 2 marker")
}
