import EvictionCore
import EvictionTraces
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

  public init(
    path: String, format: TraceFormat, csv: CSVOptions = CSVOptions(), copies: Int = 1, skipBadRecords: Bool = false
  ) {
    self.path = path
    self.format = format
    self.csv = csv
    self.copies = copies
    self.skipBadRecords = skipBadRecords
  }

  /// Opens the trace for one pass.
  public func open() throws(TraceError) -> TraceReader {
    let reader = try openTrace(path, format: format, csv: csv, skipBadRecords: skipBadRecords)
    return renumberIDs ? RenumberingTraceReader(reader) : reader
  }

  /// The id offset between copies: the largest id + 1, found by one pass,
  /// so copy k's ids fill an interval of their own and no two copies share
  /// an object, whatever ids the trace uses (a fixed offset such as 2⁴⁰
  /// collided with `generate mix`, whose components use it). 0 for one copy.
  public func tileStride() throws(TraceError) -> UInt64 {
    guard copies > 1 else { return 0 }
    let reader = try open()
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 4096)
    defer { buffer.deallocate() }
    var largest: UInt64 = 0
    while true {
      let n = try reader.read(into: buffer)
      if n == 0 { break }
      for record in buffer[..<n] { largest = max(largest, record.key) }
    }
    let (stride, over) = largest.addingReportingOverflow(1)
    guard !over, !stride.multipliedReportingOverflow(by: UInt64(copies - 1)).overflow else {
      throw .invalidOption(
        "\(path): its ids span too much of the 64-bit range to tile \(copies) copies without sharing objects; use fewer copies (--repeat) or renumber the trace (evlab convert)"
      )
    }
    return stride
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
  }
}

/// Counters a replay advances as it goes, for a progress display on another thread.
public final class ReplayProgress: Sendable {
  public let requests = Atomic<Int>(0)
  public let cellsDone = Atomic<Int>(0)
  public init() {}
}

/// Replays traces through policies, exactly, one thread per cell.
public enum TraceReplay {
  /// Requests are read in batches of this many records.
  @usableFromInline static let batch = 1 << 10

  /// Replays `trace` through a fresh `policy` of `cacheSize`.
  public static func run(
    _ trace: TraceSource, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode,
    progress: ReplayProgress? = nil
  ) throws(TraceError) -> ReplayResult {
    try checkMinimumCapacity(policy, cacheSize)
    let clock = ContinuousClock()
    let start = clock.now
    var visitor = ReplayVisitor(
      trace: trace, sizeMode: sizeMode, needsNextAccess: policy.descriptor.isOffline,
      progress: progress)
    let counts = try policy.withPolicy(capacity: cacheSize, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
      .get()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return ReplayResult(
      trace: trace.name, format: trace.format.rawValue, policy: policy.description, cacheSize: cacheSize,
      sizeMode: sizeMode, requests: counts.requests, hits: counts.hits, misses: counts.misses,
      missRatio: ratio(counts.misses, counts.requests), bytesRequested: counts.bytesRequested,
      bytesMissed: counts.bytesMissed, byteMissRatio: ratio(counts.bytesMissed, counts.bytesRequested),
      seconds: seconds, requestsPerSecond: seconds > 0 ? Double(counts.requests) / seconds : 0,
      skipped: counts.skipped, skippedZeroSize: counts.skipped.zeroSize, maxOccupancy: counts.maxOccupancy,
      exceedsCapacity: counts.maxOccupancy > cacheSize)
  }

  /// Replays every request of `trace` through `policy`, serving each with
  /// ``ReplacementPolicy/access(_:)``. The engine behind ``run``; public so
  /// tests and embedders can drive a policy they built themselves.
  ///
  /// With `needsNextAccess`, a trace whose format carries no next-access
  /// times (all but oracleGeneral) is read into memory once and given them
  /// by a backward pass, so offline policies can run on it.
  @inlinable
  public static func replay<Policy: ReplacementPolicy & ~Copyable>(
    _ trace: TraceSource, through policy: inout Policy, sizeMode: SizeMode, needsNextAccess: Bool = false,
    progress: ReplayProgress? = nil, observe: (TraceRecord, Bool) -> Void = { _, _ in }
  ) throws(TraceError) -> ReplayCounts where Policy.Key == UInt64 {
    var counts = ReplayCounts()
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: batch)
    defer { buffer.deallocate() }
    let countMode = sizeMode == .count
    var time: Int64 = 0
    let preloaded = needsNextAccess && trace.format != .oracleGeneral ? try recordsWithNextAccess(trace) : nil
    if let preloaded { counts.skipped = preloaded.skipped }
    let stride = try trace.tileStride()
    for copy in 0..<trace.copies {
      let reader: TraceReader
      if let preloaded {
        reader = MemoryTraceReader(preloaded.records, path: trace.path, format: trace.format)
      } else {
        reader = try trace.open()
      }
      let offset = UInt64(copy) &* stride
      // Next-access times count requests from the start of the whole tiled stream.
      let timeOffset = time
      while true {
        let n = try reader.read(into: buffer)
        if n == 0 { break }
        for i in 0..<n {
          let record = buffer[i]
          time &+= 1
          let request = Request(
            key: record.key &+ offset, weight: countMode ? 1 : record.size, time: time,
            nextAccess: record.nextAccess == TraceRecord.never
              ? Request<UInt64>.never : record.nextAccess &+ timeOffset,
            timestamp: record.time)
          let hit = policy.access(request)
          counts.hits &+= hit ? 1 : 0
          counts.bytesMissed &+= hit ? 0 : record.size
          counts.bytesRequested &+= record.size
          // Capacity honesty: the most the policy ever held (objects in count
          // mode, bytes in byte mode). Only an admission adds, and only a miss admits.
          if !hit { counts.maxOccupancy = max(counts.maxOccupancy, policy.usedWeight) }
          observe(record, hit)
        }
        counts.requests &+= Int64(n)
        // Sizes are at most 2^40 (the readers refuse more), so a batch cannot wrap a total twice.
        if counts.bytesRequested < 0 {
          throw .invalidOption("\(trace.path): the bytes requested exceed 2^63; replay a shorter trace")
        }
        progress?.requests.add(n, ordering: .relaxed)
      }
      // Copies read the same file: count its bad lines once.
      if copy == 0 && preloaded == nil { counts.skipped = reader.skipped }
    }
    if counts.requests == 0 { throw .emptyTrace(path: trace.path) }
    return counts
  }

  /// Refuses a capacity at which `policy` caches nothing (every request
  /// would miss, and the row would look like a result).
  public static func checkMinimumCapacity(_ policy: PolicySpec, _ cacheSize: Int64) throws(TraceError) {
    let minimum = policy.minimumCapacity
    guard cacheSize >= minimum else {
      throw .invalidOption(
        "\(policy) caches nothing at a size of \(cacheSize); it needs at least \(minimum)\(policy.minimumCapacityHint)")
    }
  }

  /// Replays every cell, `parallelism` at a time, and returns the results in
  /// the order of `cells`. The first error stops the remaining cells.
  public static func runAll(
    _ cells: [ReplayCell], parallelism: Int, progress: ReplayProgress? = nil
  ) throws(TraceError) -> [ReplayResult] {
    let results = Mutex<[ReplayResult?]>(Array(repeating: nil, count: cells.count))
    let failure = Mutex<TraceError?>(nil)
    let next = Atomic<Int>(0)
    let workers = max(1, min(parallelism, cells.count))
    let threads = (0..<workers).map { _ in
      WorkerThread {
        while failure.withLock({ $0 == nil }) {
          let i = next.add(1, ordering: .relaxed).oldValue
          if i >= cells.count { return }
          let cell = cells[i]
          do throws(TraceError) {
            let result = try run(
              cell.trace, policy: cell.policy, cacheSize: cell.cacheSize, sizeMode: cell.sizeMode,
              progress: progress)
            results.withLock { $0[i] = result }
            progress?.cellsDone.add(1, ordering: .relaxed)
          } catch {
            failure.withLock { if $0 == nil { $0 = error } }
          }
        }
      }
    }
    for thread in threads { thread.join() }
    if let error = failure.withLock({ $0 }) { throw error }
    return results.withLock { $0.map { $0! } }
  }

  static func ratio(_ a: Int64, _ b: Int64) -> Double { b == 0 ? 0 : Double(a) / Double(b) }

  /// One copy of `trace` in memory with next-access times filled in.
  @usableFromInline
  static func recordsWithNextAccess(_ trace: TraceSource) throws(TraceError) -> (
    records: [TraceRecord], skipped: SkippedRecords
  ) {
    let reader = try trace.open()
    var records = try reader.readAll()
    fillNextAccess(&records)
    return (records, reader.skipped)
  }
}

/// One (trace, policy, size) cell of a replay sweep.
public struct ReplayCell: Sendable, Hashable {
  public var trace: TraceSource
  public var policy: PolicySpec
  public var cacheSize: Int64
  public var sizeMode: SizeMode

  public init(trace: TraceSource, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode) {
    self.trace = trace
    self.policy = policy
    self.cacheSize = cacheSize
    self.sizeMode = sizeMode
  }
}

/// Drives a policy the catalog built through ``TraceReplay/replay``.
struct ReplayVisitor: PolicyVisitor {
  typealias Key = UInt64
  let trace: TraceSource
  let sizeMode: SizeMode
  let needsNextAccess: Bool
  let progress: ReplayProgress?

  mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Result<
    ReplayCounts, TraceError
  > where Policy.Key == UInt64 {
    var policy = policy
    do throws(TraceError) {
      return .success(
        try TraceReplay.replay(
          trace, through: &policy, sizeMode: sizeMode, needsNextAccess: needsNextAccess, progress: progress))
    } catch {
      return .failure(error)
    }
  }
}
