/// A streaming trace reader. Memory use is constant whatever the trace length.
public protocol TraceReader: AnyObject {
  var path: String { get }
  var format: TraceFormat { get }
  /// Fills `buffer` from the front with the next records; returns how many.
  /// Returns 0 only at the end of the trace.
  func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int
  /// Records skipped because their size was 0 (as libCacheSim's readers do).
  var skippedZeroSize: Int { get }
  /// Malformed lines or records passed over (only when opened with
  /// `skipBadRecords`; otherwise the first one is thrown).
  var skipped: SkippedRecords { get }
}

extension TraceReader {
  /// Reads every remaining record into memory (for offline pre-passes and
  /// benchmarks; replay itself streams).
  public func readAll() throws(TraceError) -> [TraceRecord] {
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 1 << 12)
    defer { buffer.deallocate() }
    var records: [TraceRecord] = []
    while true {
      let n = try read(into: buffer)
      if n == 0 { return records }
      try records.appendChecked(buffer.prefix(n), reading: path)
    }
  }
}

/// Records already in memory, handed out like a trace file's.
public final class MemoryTraceReader: TraceReader {
  public let path: String
  public let format: TraceFormat
  public var skippedZeroSize: Int { 0 }
  public var skipped: SkippedRecords { SkippedRecords() }
  let records: [TraceRecord]
  var position = 0

  public init(_ records: [TraceRecord], path: String, format: TraceFormat) {
    self.records = records
    self.path = path
    self.format = format
  }

  public func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    let n = min(buffer.count, records.count - position)
    for i in 0..<n { buffer[i] = records[position + i] }
    position += n
    return n
  }
}

/// Numbers a trace's ids 1, 2, 3, … in the order they are first seen, as
/// libCacheSim does for ids it reads as strings (GLib's `g_quark_from_string`).
/// Hit and miss counts of most policies do not depend on id values; those
/// that hash ids (W-TinyLFU's frequency sketch) do, so matching libCacheSim
/// figures measured that way needs the same numbering. Memory grows with the
/// number of distinct objects.
public final class RenumberingTraceReader: TraceReader {
  let base: TraceReader
  var ids: [UInt64: UInt64] = [:]
  public var path: String { base.path }
  public var format: TraceFormat { base.format }
  public var skippedZeroSize: Int { base.skippedZeroSize }
  public var skipped: SkippedRecords { base.skipped }

  public init(_ base: TraceReader) { self.base = base }

  public func read(into buffer: UnsafeMutableBufferPointer<TraceRecord>) throws(TraceError) -> Int {
    let n = try base.read(into: buffer)
    for i in 0..<n {
      let key = buffer[i].key
      if let id = ids[key] {
        buffer[i].key = id
      } else {
        let id = UInt64(ids.count + 1)
        ids[key] = id
        buffer[i].key = id
      }
    }
    return n
  }
}
