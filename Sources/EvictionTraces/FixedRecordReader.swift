/// The layout of one fixed-size binary record: what a binary format's file
/// defines, and ``TraceInput/readingRecords(of:)`` reads.
public protocol RecordLayout {
  /// Bytes per record.
  static var recordSize: Int { get }
  /// Decodes the record at `p` (unaligned).
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord
  /// Whether decoded sizes can fall outside 0 … ``TraceLine/sizeLimit``
  /// (a signed or 64-bit size field) and must be checked. Default: false.
  static var sizesNeedChecking: Bool { get }
  /// Whether a record can hold a value its format does not define (an
  /// unknown operation code) that ``flaw(_:)`` must look for. Default: false.
  static var recordsNeedChecking: Bool { get }
  /// What is wrong with the record at `p`, or nil. Default: nil.
  static func flaw(_ p: UnsafeRawPointer) -> String?
}

extension RecordLayout {
  public static var sizesNeedChecking: Bool { false }
  public static var recordsNeedChecking: Bool { false }
  public static func flaw(_ p: UnsafeRawPointer) -> String? { nil }
}

extension TraceInput {
  /// A reader of `layout`'s records; records of size 0 are skipped, as
  /// libCacheSim skips them, and counted.
  public func readingRecords<Layout: RecordLayout>(of layout: Layout.Type) -> TraceReader {
    FixedRecordReader(BufferedInput(source), input: self, layout: layout)
  }
}

/// Reads fixed-size binary records. Each layout gets its own decoding loop:
/// the loop is made where the layout's type is known (a generic
/// initializer, specialised at its call) and kept as a closure, so decoding
/// costs no indirect call per record, only one per batch.
final class FixedRecordReader: TraceReader {
  let path: String
  let format: TraceFormat
  let input: BufferedInput
  private(set) var skippedZeroSize = 0
  /// The 1-based number of the first zero-size record.
  private(set) var firstZeroSizeRecord: Int? = nil
  private(set) var zeroSizeWrites = SkippedRecords.ZeroSizeWrites()
  /// Whether a cut-off last record is counted in `skipped` instead of thrown.
  let skipBad: Bool
  /// ``TraceInput/keepsZeroSizeWrites``.
  let keepWrites: Bool
  private(set) var badRecords = SkippedRecords()
  var skipped: SkippedRecords {
    badRecords.addingZeroSize(
      skippedZeroSize, first: firstZeroSizeRecord.map { "record \($0)" }, writes: zeroSizeWrites)
  }
  /// The layout's loop.
  /// The bytes before the first record (a header).
  let origin: Int64
  private let decodeBatch: (FixedRecordReader, UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int

  init<Layout: RecordLayout>(_ buffered: BufferedInput, input: TraceInput, layout: Layout.Type) {
    path = input.path
    format = input.format
    self.input = buffered
    skipBad = input.skipBadRecords
    keepWrites = input.keepsZeroSizeWrites
    origin = buffered.consumed
    decodeBatch = { (reader, buffer) throws(TraceError) in try reader.read(Layout.self, into: buffer) }
  }

  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    try decodeBatch(self, buffer)
  }

  @inline(__always)
  private func read<L: RecordLayout>(_: L.Type, into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError)
    -> Int
  {
    var filled = 0
    let size = L.recordSize
    if !checkedForText { try refuseText() }
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
        if L.sizesNeedChecking && UInt64(bitPattern: record.size) > TraceLine.sizeLimit {
          let error = TraceError.malformedRecord(
            file: path, record: recordNumber(i, size), reason: "size \(record.size) is outside 0 … 1 TiB")
          guard skipBad else { throw error }
          badRecords.note(error)
          continue
        }
        if L.recordsNeedChecking, let reason = L.flaw(base + i * size) {
          let error = TraceError.malformedRecord(file: path, record: recordNumber(i, size), reason: reason)
          guard skipBad else { throw error }
          badRecords.note(error)
          continue
        }
        buffer[filled] = record
        // Branch-free skip of zero-size records: the slot is overwritten next.
        let keep = record.isSkippedAsZeroSize(keepingWrites: keepWrites) ? 0 : 1
        filled += keep
        skipped += 1 - keep
      }
      skippedZeroSize += skipped
      if skipped > 0 {
        // Looked at again only where a batch skipped some: where the first
        // was, and which were sets or deletes.
        for i in 0..<whole {
          let record = L.decode(base + i * size)
          guard record.isSkippedAsZeroSize(keepingWrites: keepWrites) else { continue }
          if firstZeroSizeRecord == nil { firstZeroSizeRecord = Int(recordNumber(i, size)) }
          zeroSizeWrites.count(record)
        }
      }
      input.advance(whole * size)
    }
    return filled
  }

  /// Whether the first records were looked at for text.
  private var checkedForText = false

  /// Refuses a file whose first bytes are lines of text (a CSV named
  /// `.oracleGeneral`): read as records they make numbers of letters. Real
  /// records hold zero bytes (the high bytes of ids and sizes) well before
  /// 256 bytes are read.
  private func refuseText() throws(TraceError) {
    checkedForText = true
    while input.available < 256, try input.refill() {}
    let head = UnsafeRawBufferPointer(rebasing: input.storage[input.start..<input.start + min(input.available, 256)])
    guard head.count >= 2, head.contains(10),
      head.allSatisfy({ (32...126).contains($0) || $0 == 9 || $0 == 10 || $0 == 13 })
    else { return }
    let line = String(decoding: head.prefix { $0 != 10 && $0 != 13 }.prefix(40), as: UTF8.self)
    throw .notOfFormat(
      file: path, format: format.rawValue, reason: "its first bytes are lines of text (\"\(line)\"), not binary records"
    )
  }

  /// The 1-based number of the record `i` records into the buffered bytes.
  private func recordNumber(_ i: Int, _ size: Int) -> Int64 {
    (input.consumed - origin) / Int64(size) + Int64(i) + 1
  }
}
