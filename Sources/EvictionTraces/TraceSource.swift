import EvictionRun
import Synchronization

/// A trace to replay: where it is and how to read it.
public struct TraceSource: Sendable, Hashable {
  public var path: String
  public var format: TraceFormat
  public var csv: CSVOptions
  /// Replays the trace this many times in a row, copy k with k·(largest id
  /// + 1) added to every id, so the copies share no object (see
  /// ``tileStride()``).
  public var copies: Int
  /// Whether malformed lines are counted and passed over (`--skip-bad-lines`)
  /// instead of stopping the run.
  public var skipBadRecords: Bool
  /// Whether ids are numbered 1, 2, 3, … by first appearance
  /// (``RenumberingTraceReader``, `--renumber-ids`).
  public var renumberIDs = false
  /// Whether ``forEachBatch`` reads the trace on a thread of its own, ahead
  /// of the records it hands on (``ReadAhead``): worth it when a core would
  /// otherwise idle, as when a single replay runs. The records, batches'
  /// tiles, errors and counts are the same either way.
  public var readAhead = false
  /// Whether sets and deletes of zero bytes are read, not skipped
  /// (``TraceInput/keepsZeroSizeWrites``): key-value semantics set it.
  public var keepsZeroSizeWrites = false

  public init(
    path: String, format: TraceFormat, csv: CSVOptions = CSVOptions(), copies: Int = 1, skipBadRecords: Bool = false
  ) {
    self.path = path
    self.format = format
    self.csv = csv
    self.copies = copies
    self.skipBadRecords = skipBadRecords
  }

  /// The source for the file at `path` in the format named (any of
  /// ``TraceFormat/init(name:)``'s names), or, with none, the one its name
  /// gives; fails at once on a missing or unreadable file, before any work starts.
  public init(
    checking path: String, formatName: String?, csv: CSVOptions = CSVOptions(), copies: Int = 1,
    skipBadRecords: Bool = false, renumberIDs: Bool = false
  ) throws(TraceError) {
    _ = try FileSource(path: path)
    let format: TraceFormat
    if let formatName {
      format = try TraceFormat(name: formatName)
    } else if let inferred = TraceFormat.infer(fromPath: path) {
      format = inferred
    } else {
      throw .cannotInferFormat(path: path)
    }
    self.init(path: path, format: format, csv: csv, copies: copies, skipBadRecords: skipBadRecords)
    self.renumberIDs = renumberIDs
  }

  /// Opens the trace for one pass.
  public func open() throws(TraceError) -> TraceReader {
    let reader = try openTrace(
      path, format: format, csv: csv, skipBadRecords: skipBadRecords, keepsZeroSizeWrites: keepsZeroSizeWrites)
    return renumberIDs ? RenumberingTraceReader(reader) : reader
  }

  /// The id offset between copies: the largest id + 1, found by one pass,
  /// so copy k's ids fill an interval of their own and no two copies share
  /// an object, whatever ids the trace uses (a fixed offset such as 2⁴⁰
  /// collided with `generate mix`, whose components use it). 0 for one copy.
  public func tileStride() throws(TraceError) -> UInt64 { try tiling().stride }

  /// ``tileStride()`` and the requests of one copy, from one pass (none for
  /// a single copy, which needs neither).
  public func tiling() throws(TraceError) -> (stride: UInt64, length: Int64) {
    guard copies > 1 else { return (0, .max) }
    let reader = try open()
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 4096)
    defer { buffer.deallocate() }
    var largest: UInt64 = 0
    var length: Int64 = 0
    while true {
      let n = try reader.read(into: buffer)
      if n == 0 { break }
      length += Int64(n)
      for record in buffer[..<n] { largest = max(largest, record.key) }
    }
    // The last copy's largest id, largest + stride · (copies - 1), must fit.
    let (stride, over) = largest.addingReportingOverflow(1)
    let (span, spanOver) = stride.multipliedReportingOverflow(by: UInt64(copies - 1))
    guard !over, !spanOver, !largest.addingReportingOverflow(span).overflow else {
      throw .invalidOption(
        "\(path): its ids span too much of the 64-bit range to tile \(copies) copies without sharing objects; use fewer copies (\(Setting.repeatTrace)) or renumber the trace (\(Setting.convert))"
      )
    }
    return (stride, length)
  }

  /// The file name, for reports.
  public var name: String { String(path.split(separator: "/").last ?? Substring(path)) }
}

extension CSVOptions: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(delimiter)
    hasher.combine(header.rawValue)
    hasher.combine(keyColumn)
    hasher.combine(sizeColumn)
    hasher.combine(timeColumn)
    hasher.combine(opColumn)
    hasher.combine(ttlColumn)
  }
}

/// Counters a run advances as it goes, read by a progress display on
/// another thread. `expectedRequests` is the whole run's work in requests
/// (0 while unknown): the estimate of the time left is drawn from it.
public final class ReplayProgress: Sendable {
  public let requests = Atomic<Int>(0)
  public let cellsDone = Atomic<Int>(0)
  public let expectedRequests = Atomic<Int>(0)
  public init(expectedRequests: Int = 0) {
    self.expectedRequests.store(expectedRequests, ordering: .relaxed)
  }
}

/// Where a batch of records sits in the (possibly tiled) request stream.
public struct TraceTile: Sendable {
  /// Added to every id of this copy, so copies share no object.
  public var idOffset: UInt64
  /// Requests before this copy: next-access times count from the start of
  /// the whole stream.
  public var requestOffset: Int64
  /// A copy's requests when the trace is tiled (`Int64.max` when not): a
  /// next access at or past it (an oracleGeneral sample cut from a longer
  /// trace points there) never comes, as no copy shares an object.
  public var copyLength: Int64

  @inlinable public init(idOffset: UInt64, requestOffset: Int64, copyLength: Int64 = .max) {
    self.idOffset = idOffset
    self.requestOffset = requestOffset
    self.copyLength = copyLength
  }
}

extension TraceSource {
  /// Records per batch of the request pipeline.
  public static let batchSize = 1 << 10

  /// The request pipeline: every replay, curve, statistics pass and load
  /// reads its trace through here. Streams every copy in turn to `body` in
  /// batches, with the copy's ``TraceTile``; counts requests into
  /// `progress`; stops after `limit` requests if given. With
  /// `withNextAccess`, a trace whose format carries no next-access times
  /// (all but oracleGeneral and lcs) is read into memory once and given them by a
  /// backward pass, so offline policies can run on it. The per-record loop
  /// stays in the caller, where it is optimised with the caller's state.
  ///
  /// Returns the malformed lines skipped (of one copy: copies read the same file).
  @inlinable @inline(__always) @discardableResult
  public func forEachBatch(
    withNextAccess: Bool = false, limit: Int64? = nil, progress: ReplayProgress? = nil,
    _ body: (Slice<UnsafeMutableBufferPointer<TraceRecord>>, TraceTile) throws(TraceError) -> Void
  ) throws(TraceError) -> SkippedRecords {
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: Self.batchSize)
    defer { buffer.deallocate() }
    var skipped = SkippedRecords()
    var preloaded: [TraceRecord]? = nil
    if withNextAccess && !format.carriesNextAccess {
      let reader = try open()
      var records = try reader.readAll()
      try fillNextAccess(&records, of: path)
      preloaded = records
      skipped = reader.skipped
    }
    if readAhead && preloaded == nil {
      let reading = ReadAhead(self, withNextAccess: withNextAccess, limit: limit)
      do throws(TraceError) {
        while let (records, tile) = try reading.next() {
          var start = 0
          while start < records.count {
            let end = min(start &+ Self.batchSize, records.count)
            try body(records[start..<end], tile)
            progress?.requests.add(end &- start, ordering: .relaxed)
            start = end
          }
          reading.release()
        }
      } catch {
        _ = reading.stop()
        throw error
      }
      return reading.stop()
    }
    let (stride, length) = try tiling()
    // Next-access fields the trace brings are checked on the first copy
    // (the others are the same file), before a policy acts on them.
    var fields = withNextAccess && preloaded == nil ? NextAccessCheck(path: path) : nil
    var dropped = 0
    var seen: Int64 = 0
    for copy in 0..<copies {
      let reader: TraceReader =
        if let preloaded { MemoryTraceReader(preloaded, path: path, format: format) } else { try open() }
      let tile = TraceTile(idOffset: UInt64(copy) &* stride, requestOffset: seen, copyLength: length)
      while true {
        var n = try reader.read(into: buffer)
        if let limit { n = Int(min(Int64(n), limit - seen)) }
        if n <= 0 { break }
        if fields != nil {
          let before = Int64(dropped)
          dropped = reader.skipped.count &+ reader.skipped.zeroSize
          try fields!.check(buffer[..<n], droppedBefore: before, droppedAfter: Int64(dropped))
        }
        try body(buffer[..<n], tile)
        seen &+= Int64(n)
        progress?.requests.add(n, ordering: .relaxed)
      }
      if copy == 0 && preloaded == nil { skipped = reader.skipped }
      if let checked = fields {
        // Claims left open are only wrong where the whole trace was read.
        if limit.map({ seen < $0 }) ?? true { try checked.finish() }
        fields = nil
      }
      if let limit, seen >= limit { break }
    }
    return skipped
  }

  /// Whether ``estimatedRequests()`` is free (an uncompressed oracleGeneral
  /// file: its length says) rather than a pass over the trace.
  public var countIsCheap: Bool {
    format == .oracleGeneral && !Compression.suffixes.contains { path.lowercased().hasSuffix($0.0) }
  }

  /// About how many requests a pass over every copy yields, for progress
  /// estimates: from the file's length for an uncompressed oracleGeneral
  /// file (24 bytes a record; zero-size records, which are skipped, count),
  /// else by reading it once.
  public func estimatedRequests() throws(TraceError) -> Int64 {
    if countIsCheap, let file = try? FileSource(path: path), file.length > 0 {
      return file.length / 24 * Int64(copies)
    }
    var single = self
    single.copies = 1
    var one: Int64 = 0
    try single.forEachBatch { records, _ throws(TraceError) in one &+= Int64(records.count) }
    return one * Int64(copies)
  }
}
