import EvictionRun

/// What can go wrong reading a trace. Every message names the file and, where
/// it applies, the line or byte offset, and says what to do.
public enum TraceError: Error, Equatable, CustomStringConvertible {
  case fileNotFound(path: String)
  case unreadable(path: String, reason: String)
  /// A trace being written cannot be (a missing folder, a full disk, a folder in the way).
  case unwritable(path: String, reason: String)
  case unknownFormat(String)
  case cannotInferFormat(path: String)
  case malformedLine(file: String, line: Int, reason: String)
  case truncatedRecord(file: String, offset: Int64, recordSize: Int, remaining: Int)
  /// A binary record (1-based) holds a value its format does not allow.
  case malformedRecord(file: String, record: Int64, reason: String)
  case notOfFormat(file: String, format: String, reason: String)
  case corruptCompressedStream(file: String, codec: String, reason: String)
  case emptyTrace(path: String)
  case invalidOption(String)
  /// The trace does not hold what its catalog says it holds.
  case catalogMismatch(path: String, reason: String)
  /// A request's field holds a value the output format cannot store.
  case valueOutOfRange(path: String, request: Int64, field: String, value: Int64, format: String, holds: String)
  /// Work that would need more memory than the process may use (``MemoryBudget``).
  case notEnoughMemory(what: String, needed: Int64, available: Int64, limit: String, wayOut: String)
  /// A thread the run needs could not start (`what`: "a read-ahead thread").
  case threadNotStarted(what: String, reason: String)

  public var description: String {
    switch self {
    case .fileNotFound(let path):
      return "\(path): no such file; check the path (traces are looked up relative to the current directory)"
    case .unreadable(let path, let reason):
      return "\(path): cannot read (\(reason)); check the file's permissions"
    case .unwritable(let path, let reason):
      let wayOut =
        reason.contains("No space")
        ? "free some space or write elsewhere"
        : "check that its folder exists and is writable and that no folder has its name"
      return "\(path): cannot write the trace (\(reason)); \(wayOut)"
    case .unknownFormat(let name):
      return "unknown trace format '\(name)'; known formats: \(TraceFormat.allNames.joined(separator: ", "))"
    case .cannotInferFormat(let path):
      return
        "\(path): cannot tell the trace format from the file name; pass \(Setting.format) (\(TraceFormat.allNames.joined(separator: ", ")))"
    case .malformedLine(let file, let line, let reason):
      return "\(file):\(line): \(reason); fix or remove that line"
    case .truncatedRecord(let file, let offset, let size, let remaining):
      return
        "\(file): truncated record at byte offset \(offset): records are \(size) bytes but only \(remaining) remain; the file is cut short or not in this format"
    case .malformedRecord(let file, let record, let reason):
      return "\(file): record \(record): \(reason); the file is damaged or not in this format"
    case .notOfFormat(let file, let format, let reason):
      return "\(file): not a \(format) trace (\(reason)); pass the right \(Setting.format)"
    case .corruptCompressedStream(let file, let codec, let reason):
      return "\(file): corrupt \(codec) stream (\(reason)); the file is damaged or incomplete, fetch it again"
    case .emptyTrace(let path):
      return "\(path): the trace holds no requests; check that it is the file you meant"
    case .invalidOption(let message):
      return message
    case .catalogMismatch(let path, let reason):
      return
        "\(path): \(reason), but its catalog says otherwise; the file changed since the catalog was written: check it, then rewrite the catalog (\(Setting.writeCatalog))"
    case .valueOutOfRange(let path, let request, let field, let value, let format, let holds):
      return
        "\(path): request \(request) has \(field) \(value), which \(format) cannot hold (\(holds)); nothing was written: write csv, whose fields are 64-bit"
        + (format == "txt" ? ", or pass \(Setting.keysOnly) to keep the keys alone" : "")
    case .notEnoughMemory(let what, let needed, let available, let limit, let wayOut):
      return
        MemoryBudget.shortageText(
          what: what, needed: needed, spare: MemoryBudget.margin(for: needed), available: available, limit: limit,
          wayOut: wayOut)
    case .threadNotStarted(let what, let reason):
      return
        "\(what) could not start: \(reason); run fewer at once (\(Setting("jobs")) 1), or raise the process's limits on threads and memory (ulimit -u, ulimit -v)"
    }
  }
}

/// What a reader skipped under `skipBadRecords`: malformed lines of a text
/// trace, or the cut-off record at the end of a binary one. The first error
/// is kept so a report can show what was wrong.
public struct SkippedRecords: Sendable, Equatable {
  public private(set) var count = 0
  public private(set) var first: TraceError? = nil
  /// Requests of size 0, skipped as libCacheSim's readers skip them (in
  /// either size mode), and where the first one was (`line 4`, `record 17`).
  public private(set) var zeroSize = 0
  public private(set) var firstZeroSize: String? = nil
  /// The sets and deletes among ``zeroSize`` (key-value semantics keep
  /// and apply them; a count of a trace's operations should say so).
  public private(set) var zeroSizeWrites = ZeroSizeWrites()

  /// Sets and deletes of zero bytes that a reader skipped.
  public struct ZeroSizeWrites: Sendable, Equatable {
    public var sets = 0
    public var deletes = 0
    public init() {}
    /// Counts `record` if it is a set or a delete.
    @inlinable mutating func count(_ record: TraceRecord, times: Int = 1) {
      switch record.op {
      case .get: break
      case .set: sets += times
      case .delete: deletes += times
      }
    }
  }

  public init() {}

  /// These records with `count` zero-size requests, the first at `first`,
  /// and `writes` of them sets or deletes.
  func addingZeroSize(_ count: Int, first: String?, writes: ZeroSizeWrites = .init()) -> SkippedRecords {
    var copy = self
    if copy.zeroSize == 0 { copy.firstZeroSize = first }
    copy.zeroSize += count
    copy.zeroSizeWrites.sets += writes.sets
    copy.zeroSizeWrites.deletes += writes.deletes
    return copy
  }

  mutating func note(_ error: TraceError) {
    if count == 0 { first = error }
    count += 1
  }

  /// Adds another reader's tally (for traces read in several passes or copies).
  public mutating func merge(_ other: SkippedRecords) {
    if count == 0 { first = other.first }
    count += other.count
    if zeroSize == 0 { firstZeroSize = other.firstZeroSize }
    zeroSize += other.zeroSize
    zeroSizeWrites.sets += other.zeroSizeWrites.sets
    zeroSizeWrites.deletes += other.zeroSizeWrites.deletes
  }

  /// Whether an error of this kind can be skipped: a line or a record is bad,
  /// but the stream around it still reads. A corrupt compressed stream, a
  /// missing file or a wrong format cannot be skipped.
  static func isSkippable(_ error: TraceError) -> Bool {
    switch error {
    case .malformedLine, .truncatedRecord, .malformedRecord: true
    default: false
    }
  }

  /// A one-line warning naming the file, the count and the first bad line.
  public func warning(path: String) -> String? {
    guard count > 0, let first else { return nil }
    let noun = count == 1 ? "bad line or record" : "bad lines or records"
    return "warning: \(path): skipped \(count) \(noun) (\(Setting.skipBadLines)); the first: \(first)"
  }

  /// A one-line note of the zero-size requests skipped, if any.
  public func zeroSizeNote(path: String) -> String? {
    guard zeroSize > 0 else { return nil }
    let noun = zeroSize == 1 ? "request" : "requests"
    var writes: [String] = []
    if zeroSizeWrites.sets > 0 { writes.append(zeroSizeWrites.sets == 1 ? "1 set" : "\(zeroSizeWrites.sets) sets") }
    if zeroSizeWrites.deletes > 0 {
      writes.append(zeroSizeWrites.deletes == 1 ? "1 delete" : "\(zeroSizeWrites.deletes) deletes")
    }
    let among =
      writes.isEmpty
      ? "" : " (\(writes.joined(separator: " and ")) among them, which --semantics kv keeps and applies)"
    return
      "note: \(path): skipped \(zeroSize) zero-size \(noun), as libCacheSim does\(among); the first at \(firstZeroSize ?? "?")"
  }
}
