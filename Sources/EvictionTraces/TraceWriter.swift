import CCompression
import EvictionRun

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes records as a trace file: oracleGeneral, lcs (version 3, which
/// carries operations and TTLs), csv (`time,key,size`) or txt (one key per
/// line), zstd-compressed when the path ends in `.zst`. Data goes
/// to a temporary file renamed into place by ``finish()``, so a reader never
/// sees half a trace.
public final class TraceWriter {
  public let path: String
  public let format: TraceFormat
  let temporaryPath: String
  let fd: Int32
  var pending: [UInt8] = []
  let compressor: OpaquePointer?
  var finished = false
  /// The partial file's entry in ``ScratchPaths``, so an interrupted run removes it.
  let scratchToken: Int?
  /// Whether the output is a device or pipe written in place (no `.partial`, no rename).
  let writesInPlace: Bool
  /// Requests written so far (to name one that does not fit the format).
  var written: Int64 = 0
  /// Whether txt output may drop sizes and times (else a request that has
  /// either is an error: the file would not be the trace it came from).
  public var keysOnly = false
  /// Runs right after the file is renamed into place, under the same
  /// folder lock (``FolderLock``): what must be published with it.
  public var companion: (() -> Void)?

  public init(path: String, format: TraceFormat) throws(TraceError) {
    guard Self.formats.contains(format) else {
      throw .invalidOption(
        "writing \(format.rawValue) is not supported; write \(Self.formats.map(\.rawValue).joined(separator: ", "))")
    }
    try Self.checkName(path)
    // Through a link: its target is written (renamed over), never the link
    // itself, as every other output is.
    var link = stat()
    var path = path
    if lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK {
      guard let resolved = realpath(path, nil) else {
        throw .unwritable(path: path, reason: "it is a link to nothing; remove it or choose another path")
      }
      path = String(cString: resolved)
      free(resolved)
    }
    self.path = path
    self.format = format
    // A device or a pipe (/dev/null, a FIFO) is written into directly: the
    // rename that makes a file's write atomic would replace the device itself.
    var info = stat()
    let isSpecial = stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG && (info.st_mode & S_IFMT) != S_IFDIR
    if isSpecial {
      temporaryPath = path
      fd = open(path, O_WRONLY | O_CLOEXEC)
      guard fd >= 0 else { throw .unwritable(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
    } else {
      // A name of this write's own: a user's NAME.partial is never touched.
      switch PartialFile.create(beside: path) {
      case .success(let created): (temporaryPath, fd) = created
      case .failure(let error): throw .unwritable(path: path, reason: "cannot create: \(error)")
      }
    }
    writesInPlace = isSpecial
    scratchToken = isSpecial ? nil : ScratchPaths.shared.register(temporaryPath)
    if path.lowercased().hasSuffix(".zst") {
      compressor = ZSTD_createCCtx()
      ZSTD_CCtx_setParameter(compressor, ZSTD_c_compressionLevel, 19)
      // A content checksum, as the zstd tool writes by default: a reader
      // then finds damage to the compressed bytes instead of decoding it.
      ZSTD_CCtx_setParameter(compressor, ZSTD_c_checksumFlag, 1)
    } else {
      compressor = nil
    }
    if format == .csv { pending.append(contentsOf: Array("time,key,size\n".utf8)) }
    if format == .lcs { writeLCSHeader() }
  }

  /// Refuses an output name that promises a compression evlab does not
  /// write (`.gz`, `.xz`: the file would be plain under a compressed name).
  public static func checkName(_ path: String) throws(TraceError) {
    if let (suffix, _) = Compression.suffixes.first(where: { path.lowercased().hasSuffix($0.0) }), suffix != ".zst" {
      throw .invalidOption(
        "\(path): evlab compresses what it writes with zstd only; name the output .zst, or leave \(suffix) off")
    }
  }

  /// The formats a trace can be written in.
  public static let formats: [TraceFormat] = [.oracleGeneral, .lcs, .csv, .txt]

  /// lcs's 8 KiB header: magic, version 3, statistics left 0 (libCacheSim
  /// counts the requests itself when the header does not say), magic.
  private func writeLCSHeader() {
    appendLittleEndian(LCSFormat.magic)
    appendLittleEndian(UInt64(3))
    appendLittleEndian(Int64(1))  // the statistics' version
    pending.append(contentsOf: repeatElement(0, count: LCSFormat.headerSize - 32))
    appendLittleEndian(LCSFormat.magic)
  }

  deinit {
    if !finished {
      close(fd)
      if !writesInPlace { unlink(temporaryPath) }
    }
    if let scratchToken { ScratchPaths.shared.unregister(scratchToken) }
    if let compressor { ZSTD_freeCCtx(compressor) }
  }

  /// Appends `records`. A value the format cannot hold (oracleGeneral's
  /// times and sizes are unsigned 32-bit; txt holds keys only, so a size
  /// other than 1 or a time other than 0 unless ``keysOnly``; only lcs holds
  /// operations and TTLs) is an error naming the request, and the file is
  /// not written.
  public func write(_ records: some Sequence<TraceRecord>) throws(TraceError) {
    for r in records {
      written += 1
      if format != .lcs && (r.op != .get || r.ttl != 0) && !(format == .txt && keysOnly) {
        throw .invalidOption(
          "\(path): request \(written) is a \(r.op) with ttl \(r.ttl), which \(format.rawValue) cannot hold (only gets without ttl); nothing was written: write lcs, which holds both"
        )
      }
      switch format {
      case .lcs:
        for (field, value) in [("time", r.time)] where value < 0 || value > Int64(UInt32.max) {
          throw .valueOutOfRange(
            path: path, request: written, field: field, value: value, format: "lcs",
            holds: "\(field)s of 0 to \(UInt32.max)")
        }
        appendLittleEndian(UInt32(truncatingIfNeeded: r.time))
        appendLittleEndian(r.key)
        appendLittleEndian(r.size)
        appendLittleEndian(UInt32(Self.libCacheSimCode[Int(r.op.rawValue)]))  // op, tenant 0
        appendLittleEndian(r.ttl)
        appendLittleEndian(r.nextAccess == TraceRecord.never ? Int64(-1) : r.nextAccess)
      case .oracleGeneral:
        for (field, value) in [("time", r.time), ("size", r.size)] where value < 0 || value > Int64(UInt32.max) {
          throw .valueOutOfRange(
            path: path, request: written, field: field, value: value, format: "oracleGeneral",
            holds: "\(field)s of 0 to \(UInt32.max)")
        }
        appendLittleEndian(UInt32(truncatingIfNeeded: r.time))
        appendLittleEndian(r.key)
        appendLittleEndian(UInt32(truncatingIfNeeded: r.size))
        appendLittleEndian(r.nextAccess == TraceRecord.never ? Int64(-1) : r.nextAccess)
      case .csv:
        pending.append(contentsOf: Array("\(r.time),\(r.key),\(r.size)\n".utf8))
      case .txt:
        if !keysOnly {
          for (field, value, none) in [("size", r.size, Int64(1)), ("time", r.time, 0)] where value != none {
            throw .valueOutOfRange(
              path: path, request: written, field: field, value: value, format: "txt", holds: "keys only")
          }
        }
        pending.append(contentsOf: Array("\(r.key)\n".utf8))
      default:
        preconditionFailure("rejected in init")
      }
      if pending.count >= 1 << 20 { try flush(end: false) }
    }
  }

  /// Flushes, closes and renames the file into place.
  public func finish() throws(TraceError) {
    try flush(end: true)
    // A device or pipe has nothing to sync (fsync fails with EINVAL there).
    guard writesInPlace || fsync(fd) == 0, close(fd) == 0 else {
      throw .unwritable(path: path, reason: "cannot finish writing: \(String(cString: strerror(errno)))")
    }
    finished = true
    if writesInPlace { return }
    // Renamed, and its companion (the provenance) written, under the
    // folder's lock: two runs writing one path leave one run's pair.
    let folder = path.parentPath
    try FolderLock.holding(folder) { () throws(TraceError) in
      guard rename(temporaryPath, path) == 0 else {
        throw .unwritable(path: path, reason: "cannot rename into place: \(String(cString: strerror(errno)))")
      }
      companion?()
    }
  }

  /// libCacheSim's code for each operation (get 1, set 3, delete 9).
  static let libCacheSimCode: [UInt8] = [1, 3, 9]

  private func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { pending.append(contentsOf: $0) }
  }

  private func flush(end: Bool) throws(TraceError) {
    var bytes = pending
    pending.removeAll(keepingCapacity: true)
    if let compressor {
      var compressed = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
      var failure: String?
      bytes.withUnsafeBytes { source in
        var input = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
        var out: [UInt8] = []
        var done = false
        while !done {
          compressed.withUnsafeMutableBytes { dst in
            var output = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
            let remaining = ZSTD_compressStream2(compressor, &output, &input, end ? ZSTD_e_end : ZSTD_e_continue)
            if ZSTD_isError(remaining) != 0 {
              failure = String(cString: ZSTD_getErrorName(remaining))
              done = true
              return
            }
            out.append(contentsOf: dst.prefix(output.pos))
            done = end ? remaining == 0 : input.pos == input.size
          }
        }
        bytes = out
      }
      if let failure {
        throw .invalidOption(
          "\(path): cannot compress (zstd: \(failure))"
            + (failure.lowercased().contains("memory")
              ? "; not enough memory for zstd: free some, or write the file without .zst" : ""))
      }
    }
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw .unwritable(path: path, reason: "cannot write: \(String(cString: strerror(errno)))")
      }
      offset += n
    }
  }
}

/// Fills in every record's `nextAccess` (the 1-based index of the key's next
/// request, or never) with one backward pass, as libCacheSim's traceConv does.
/// The table of keys seen grows with the distinct keys; a growth that would
/// not fit in memory (``MemoryBudget``) is an error naming `path`.
public func fillNextAccess(_ records: inout [TraceRecord], of path: String = "the trace") throws(TraceError) {
  var seen: [UInt64: Int64] = [:]
  for i in stride(from: records.count - 1, through: 0, by: -1) {
    let key = records[i].key
    if seen.count == seen.capacity && seen.capacity >= TraceRecord.checkedGrowth / 32 {
      // A native dictionary of 16-byte elements: 16 bytes a slot at most 3/4 full, plus a bit.
      try MemoryBudget.check(
        Int64(seen.capacity) * 2 * 24, for: "finding the next request of each of \(path)'s objects",
        wayOut: TraceRecord.wholeTraceWayOut)
    }
    records[i].nextAccess = seen[key] ?? TraceRecord.never
    seen[key] = Int64(i + 1)
  }
}

extension TraceRecord {
  /// Growth of a trace held in memory from which ``MemoryBudget`` is asked: 16 MiB.
  public static let checkedGrowth = 16 << 20
  /// What to do when a trace held whole does not fit in memory.
  public static let wholeTraceWayOut =
    "offline policies (belady) and conversions hold every request in memory (\(MemoryLayout<TraceRecord>.stride) bytes each): convert the "
    + "trace to oracleGeneral or lcs once where more memory is free (belady streams them), or use a shorter trace"
}

extension Array where Element == TraceRecord {
  /// Appends `batch`, first asking ``MemoryBudget`` whether a growth of the
  /// array's storage (by doubling) of ``TraceRecord/checkedGrowth`` or more fits.
  @inlinable
  public mutating func appendChecked(_ batch: some Collection<TraceRecord>, reading path: String) throws(TraceError) {
    if count + batch.count > capacity {
      let grown = Swift.max(capacity * 2, count + batch.count)
      let bytes = grown * MemoryLayout<TraceRecord>.stride
      if bytes >= TraceRecord.checkedGrowth {
        try MemoryBudget.check(
          Int64(bytes), for: "holding \(path) in memory (room for \(grown) requests, \(count) read so far)",
          wayOut: TraceRecord.wholeTraceWayOut)
        reserveCapacity(grown)
      }
    }
    append(contentsOf: batch)
  }
}

extension TraceWriter {
  /// Writes every request of `source` to `path` in `format`, read into memory
  /// first (oracleGeneral and lcs output gain next-access times by a backward
  /// pass); returns the requests written and what the reader passed over.
  public static func convert(
    _ source: TraceSource, to path: String, format: TraceFormat, keysOnly: Bool = false,
    companion: (() -> Void)? = nil
  ) throws(TraceError) -> (requests: Int, skipped: SkippedRecords) {
    var records: [TraceRecord] = []
    let skipped = try source.forEachBatch { batch, _ throws(TraceError) in
      try records.appendChecked(batch, reading: source.path)
    }
    if records.isEmpty { throw .emptyTrace(path: source.path) }
    if format.carriesNextAccess { try fillNextAccess(&records, of: source.path) }
    let writer = try TraceWriter(path: path, format: format)
    writer.keysOnly = keysOnly
    writer.companion = companion
    try writer.write(records)
    try writer.finish()
    return (records.count, skipped)
  }
}
