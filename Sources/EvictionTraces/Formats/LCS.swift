/// libCacheSim's own binary format, `lcs` (libCacheSim's
/// `traceReader/customizedReader/lcs.h`): an 8 KiB header (start magic,
/// version, trace statistics, end magic), then packed little-endian records
/// whose layout the version chooses:
///
/// | version | bytes | fields |
/// | --- | --- | --- |
/// | 1 | 24 | u32 time, u64 id, u32 size, i64 next access (oracleGeneral's) |
/// | 2 | 28 | as 1, with u8 op and 24-bit tenant before next access |
/// | 3 | 36 | u32 time, u64 id, i64 size, u8 op, 24-bit tenant, u32 ttl, i64 next access |
/// | 4–8 | 40–100 | version 3's, then 1, 2, 4, 8 or 16 u32 features |
///
/// Operations are libCacheSim's codes (``TraceRecord/Operation/init(libCacheSimCode:)``;
/// a record with another code is malformed);
/// tenants and features are read past.
enum LCSFormat: TraceFormatDefinition {
  static let name = "lcs"
  static let summary = "libCacheSim's lcs: an 8 KiB header, then records of version 1-8 (op from 2, ttl from 3)"
  static let carriesSizes = true
  static let carriesNextAccess = true

  static let headerSize = 8192
  static let magic: UInt64 = 0x1234_5678_9abc_def0

  static func reader(_ input: TraceInput) throws(TraceError) -> TraceReader {
    let buffered = BufferedInput(input.source)
    while buffered.available < headerSize, try buffered.refill() {}
    guard buffered.available >= headerSize else {
      if buffered.available == 0 { throw .emptyTrace(path: input.path) }
      throw .notOfFormat(
        file: input.path, format: name, reason: "\(buffered.available) bytes, shorter than the 8 KiB header")
    }
    let p = UnsafeRawPointer(buffered.storage.baseAddress! + buffered.start)
    let start = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
    let end = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: headerSize - 8, as: UInt64.self))
    guard start == magic, end == magic else {
      throw .notOfFormat(file: input.path, format: name, reason: "the header's magic numbers are wrong")
    }
    let version = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    buffered.advance(headerSize)
    switch version {
    case 1: return FixedRecordReader(buffered, input: input, layout: OracleGeneralFormat.self)
    case 2: return FixedRecordReader(buffered, input: input, layout: Version2.self)
    case 3: return FixedRecordReader(buffered, input: input, layout: Version3<Bytes36>.self)
    case 4: return FixedRecordReader(buffered, input: input, layout: Version3<Bytes40>.self)
    case 5: return FixedRecordReader(buffered, input: input, layout: Version3<Bytes44>.self)
    case 6: return FixedRecordReader(buffered, input: input, layout: Version3<Bytes52>.self)
    case 7: return FixedRecordReader(buffered, input: input, layout: Version3<Bytes68>.self)
    case 8: return FixedRecordReader(buffered, input: input, layout: Version3<Bytes100>.self)
    default:
      throw .notOfFormat(file: input.path, format: name, reason: "version \(version); lcs defines versions 1 to 8")
    }
  }

  /// A next-access field: -1 and INT64_MAX both mean never.
  @inline(__always)
  static func nextAccess(_ p: UnsafeRawPointer, at offset: Int) -> Int64 {
    let next = Int64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    return next < 0 ? TraceRecord.never : next
  }

  /// An op byte: libCacheSim's code (an unknown one never gets this far:
  /// ``operationFlaw(_:at:)`` refuses it first).
  @inline(__always)
  static func operation(_ p: UnsafeRawPointer, at offset: Int) -> TraceRecord.Operation {
    TraceRecord.Operation(libCacheSimCode: p.load(fromByteOffset: offset, as: UInt8.self)) ?? .get
  }

  /// Why the op byte at `offset` is refused: a code libCacheSim does not
  /// define (15, its `OP_INVALID`, and above). Read as a get, as libCacheSim
  /// reads it, it would count a write or delete as a request without a word.
  @inline(__always)
  static func operationFlaw(_ p: UnsafeRawPointer, at offset: Int) -> String? {
    let code = p.load(fromByteOffset: offset, as: UInt8.self)
    guard TraceRecord.Operation(libCacheSimCode: code) == nil else { return nil }
    return "operation code \(code) is not one of libCacheSim's (0 to 14: get, set, delete and their kin)"
  }

  enum Version2: RecordLayout {
    static var recordSize: Int { 28 }
    static var recordsNeedChecking: Bool { true }
    static func flaw(_ p: UnsafeRawPointer) -> String? { LCSFormat.operationFlaw(p, at: 16) }
    @inline(__always)
    static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
      TraceRecord(
        key: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
        size: Int64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 12, as: UInt32.self))),
        time: Int64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))),
        nextAccess: LCSFormat.nextAccess(p, at: 20), op: LCSFormat.operation(p, at: 16))
    }
  }

  /// Version 3's fields, in records of `Size.bytes` (versions 4 to 8 add features after them).
  enum Version3<Size: RecordBytes>: RecordLayout {
    static var recordSize: Int { Size.bytes }
    static var sizesNeedChecking: Bool { true }
    static var recordsNeedChecking: Bool { true }
    static func flaw(_ p: UnsafeRawPointer) -> String? { LCSFormat.operationFlaw(p, at: 20) }
    @inline(__always)
    static func decode(_ p: UnsafeRawPointer) -> TraceRecord {
      TraceRecord(
        key: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
        size: Int64(littleEndian: p.loadUnaligned(fromByteOffset: 12, as: Int64.self)),
        time: Int64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))),
        nextAccess: LCSFormat.nextAccess(p, at: 28),
        ttl: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 24, as: UInt32.self)),
        op: LCSFormat.operation(p, at: 20))
    }
  }
}

/// A record length, as a type (so each lcs version's loop is its own).
protocol RecordBytes { static var bytes: Int { get } }
enum Bytes36: RecordBytes { static var bytes: Int { 36 } }
enum Bytes40: RecordBytes { static var bytes: Int { 40 } }
enum Bytes44: RecordBytes { static var bytes: Int { 44 } }
enum Bytes52: RecordBytes { static var bytes: Int { 52 } }
enum Bytes68: RecordBytes { static var bytes: Int { 68 } }
enum Bytes100: RecordBytes { static var bytes: Int { 100 } }

extension TraceFormat {
  public static let lcs = TraceFormat(LCSFormat.self)
}
