/// The layout of one fixed-size binary record: what a binary format's file
/// defines, and ``TraceInput/readingRecords(of:)`` reads.
public protocol RecordLayout {
  /// Bytes per record.
  static var recordSize: Int { get }
  /// Decodes the record at `p` (unaligned).
  static func decode(_ p: UnsafeRawPointer) -> TraceRecord
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
  /// Whether a cut-off last record is counted in `skipped` instead of thrown.
  let skipBad: Bool
  private(set) var badRecords = SkippedRecords()
  var skipped: SkippedRecords {
    badRecords.addingZeroSize(skippedZeroSize, first: firstZeroSizeRecord.map { "record \($0)" })
  }
  /// The layout's loop.
  private let decodeBatch: (FixedRecordReader, UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int

  init<Layout: RecordLayout>(_ buffered: BufferedInput, input: TraceInput, layout: Layout.Type) {
    path = input.path
    format = input.format
    self.input = buffered
    skipBad = input.skipBadRecords
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
