import CCompression

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A stream of bytes: a file, or a file seen through a decompressor.
public protocol ByteSource: AnyObject {
  /// Reads up to `buffer.count` bytes; returns 0 only at the end of the stream.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int
}

/// Compression codecs recognised by their magic bytes.
public enum Compression: String, Sendable, CaseIterable {
  case none, gzip, xz, zstd

  /// The file-name suffixes that mark each codec.
  static let suffixes: [(String, Compression)] = [(".gz", .gzip), (".xz", .xz), (".zst", .zstd)]

  static func detect(_ head: [UInt8]) -> Compression {
    if head.starts(with: [0x1F, 0x8B]) { return .gzip }
    if head.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
    if head.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
    return .none
  }
}

/// Opens `path`, recognising compression by magic bytes (whatever the name says).
public func openByteSource(_ path: String) throws(TraceError) -> ByteSource {
  try decompressing(FileSource(path: path), path: path)
}

/// A source that can start over (to look at its first bytes).
protocol RewindableSource: ByteSource {
  func rewind() throws(TraceError)
}

/// `source` itself, or seen through the decompressor its magic bytes name.
func decompressing(_ source: some RewindableSource, path: String) throws(TraceError) -> ByteSource {
  let peek = UnsafeMutableRawBufferPointer.allocate(byteCount: 6, alignment: 8)
  defer { peek.deallocate() }
  let n = try source.read(into: peek)
  let head = Array(peek.prefix(n))
  try source.rewind()
  let detected = Compression.detect(head)
  // A name that promises compression over bytes that are not compressed is
  // a damaged file (or a misnamed one): read as plain, it would give other
  // requests with exit 0.
  if detected == .none, let named = Compression.suffixes.first(where: { path.lowercased().hasSuffix($0.0) }) {
    throw .corruptCompressedStream(
      file: path, codec: named.1.rawValue,
      reason:
        "the name ends in \(named.0) but the file does not start as a \(named.1.rawValue) stream does; it is damaged, or not compressed (then rename it without \(named.0))"
    )
  }
  switch detected {
  case .none: return source
  case .gzip: return try GzipSource(source, path: path)
  case .xz: return try XzSource(source, path: path)
  case .zstd: return try ZstdSource(source, path: path)
  }
}

/// Bytes already in memory (a fuzzer's input, a trace embedded in a test).
public final class MemorySource: RewindableSource {
  let bytes: [UInt8]
  var position = 0

  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  func rewind() throws(TraceError) { position = 0 }

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int {
    let n = min(buffer.count, bytes.count - position)
    if n > 0 {
      bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
    }
    position += n
    return n
  }
}

/// Plain file input through read(2).
public final class FileSource: RewindableSource {
  let fd: Int32
  let path: String

  public init(path: String) throws(TraceError) {
    var info = stat()
    if stat(path, &info) != 0 {
      if errno == ENOENT { throw .fileNotFound(path: path) }
      throw .unreadable(path: path, reason: String(cString: strerror(errno)))
    }
    // Only a regular file (a link is followed) is read: a FIFO would block
    // until something writes to it, a device never ends, and every trace is
    // read more than once.
    let kind: String
    switch info.st_mode & S_IFMT {
    case S_IFREG: kind = ""
    case S_IFDIR:
      throw .invalidOption(
        "\(path): it is a folder, not a trace file; name a trace in it (evlab catalog lists a folder's traces)")
    case S_IFIFO: kind = "a FIFO"
    case S_IFSOCK: kind = "a socket"
    default: kind = "a device"
    }
    guard kind.isEmpty else {
      throw .invalidOption(
        "\(path): it is \(kind), not a trace file (a trace is read more than once); write the trace to a file and "
          + "give that")
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
    self.fd = fd
    self.path = path
  }

  deinit { close(fd) }

  /// The file's length in bytes.
  public var length: Int64 {
    var info = stat()
    return fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
  }

  func rewind() throws(TraceError) {
    if lseek(fd, 0, SEEK_SET) < 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int {
    while true {
      let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw .unreadable(path: path, reason: String(cString: strerror(errno)))
    }
  }
}

/// Compressed input is read through this many bytes at a time.
private let compressedChunk = 1 << 18

/// gzip (and zlib) through zlib; concatenated members are read in turn.
final class GzipSource: ByteSource {
  let input: ByteSource
  let path: String
  var stream = z_stream()
  let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: compressedChunk, alignment: 16)
  var inputEnded = false
  var finished = false

  init(_ input: ByteSource, path: String) throws(TraceError) {
    self.input = input
    self.path = path
    guard ccompression_inflate_init(&stream) == Z_OK else {
      throw .noMemoryToDecompress(path, codec: "gzip")
    }
  }

  deinit {
    inflateEnd(&stream)
    chunk.deallocate()
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int {
    if finished { return 0 }
    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
    stream.avail_out = uInt(buffer.count)
    while stream.avail_out > 0 {
      if stream.avail_in == 0 && !inputEnded {
        let n = try input.read(into: chunk)
        if n == 0 { inputEnded = true }
        stream.next_in = chunk.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_in = uInt(n)
      }
      let status = inflate(&stream, Z_NO_FLUSH)
      if status == Z_STREAM_END {
        if stream.avail_in == 0 {
          // Another member may follow in the next chunk.
          let n = try input.read(into: chunk)
          if n == 0 {
            finished = true
            break
          }
          stream.next_in = chunk.baseAddress!.assumingMemoryBound(to: Bytef.self)
          stream.avail_in = uInt(n)
        }
        inflateReset(&stream)
        continue
      }
      if status == Z_BUF_ERROR && inputEnded {
        throw .corruptCompressedStream(file: path, codec: "gzip", reason: "unexpected end of data")
      }
      if status == Z_MEM_ERROR { throw .noMemoryToDecompress(path, codec: "gzip") }
      if status != Z_OK && status != Z_BUF_ERROR {
        let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
        throw .corruptCompressedStream(file: path, codec: "gzip", reason: message)
      }
    }
    return buffer.count - Int(stream.avail_out)
  }
}

/// xz through liblzma (concatenated streams accepted).
final class XzSource: ByteSource {
  let input: ByteSource
  let path: String
  var stream = ccompression_lzma_stream_init()
  let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: compressedChunk, alignment: 16)
  var inputEnded = false
  var finished = false

  init(_ input: ByteSource, path: String) throws(TraceError) {
    self.input = input
    self.path = path
    let concatenated: UInt32 = 0x08  // LZMA_CONCATENATED: read every stream of the file
    guard lzma_stream_decoder(&stream, UInt64.max, concatenated) == LZMA_OK else {
      throw .noMemoryToDecompress(path, codec: "xz")
    }
  }

  deinit {
    lzma_end(&stream)
    chunk.deallocate()
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int {
    if finished { return 0 }
    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
    stream.avail_out = buffer.count
    while stream.avail_out > 0 {
      if stream.avail_in == 0 && !inputEnded {
        let n = try input.read(into: chunk)
        if n == 0 { inputEnded = true }
        stream.next_in = UnsafePointer(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = n
      }
      let status = lzma_code(&stream, inputEnded ? LZMA_FINISH : LZMA_RUN)
      if status == LZMA_STREAM_END {
        finished = true
        break
      }
      if status == LZMA_MEM_ERROR { throw .noMemoryToDecompress(path, codec: "xz") }
      if status != LZMA_OK {
        let reason = status == LZMA_BUF_ERROR ? "unexpected end of data" : "liblzma error \(status.rawValue)"
        throw .corruptCompressedStream(file: path, codec: "xz", reason: reason)
      }
    }
    return buffer.count - stream.avail_out
  }
}

/// zstd through libzstd (concatenated frames accepted).
final class ZstdSource: ByteSource {
  let input: ByteSource
  let path: String
  let context: OpaquePointer
  let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: compressedChunk, alignment: 16)
  var inBuffer = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
  var inputEnded = false
  /// Whether a frame has started and not been fully decoded and flushed
  /// (libzstd's return value is 0 exactly when a frame is complete).
  var frameOpen = false

  init(_ input: ByteSource, path: String) throws(TraceError) {
    self.input = input
    self.path = path
    guard let context = ZSTD_createDStream() else {
      throw .noMemoryToDecompress(path, codec: "zstd")
    }
    self.context = context
  }

  deinit {
    ZSTD_freeDStream(context)
    chunk.deallocate()
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int {
    var output = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
    while output.pos < output.size {
      if inBuffer.pos == inBuffer.size && !inputEnded {
        let n = try input.read(into: chunk)
        if n == 0 { inputEnded = true }
        inBuffer = ZSTD_inBuffer(src: chunk.baseAddress, size: n, pos: 0)
      }
      if inputEnded && inBuffer.pos == inBuffer.size && !frameOpen {
        break  // every frame decoded and flushed, no input left
      }
      let before = output.pos
      let hint = ZSTD_decompressStream(context, &output, &inBuffer)
      if ZSTD_isError(hint) != 0 {
        if ZSTD_getErrorCode(hint) == ZSTD_error_memory_allocation { throw .noMemoryToDecompress(path, codec: "zstd") }
        throw .corruptCompressedStream(
          file: path, codec: "zstd", reason: String(cString: ZSTD_getErrorName(hint)))
      }
      frameOpen = hint != 0
      if inputEnded && inBuffer.pos == inBuffer.size && output.pos == before {
        // No input left and nothing more came out: either cleanly done or cut short.
        if frameOpen {
          throw .corruptCompressedStream(file: path, codec: "zstd", reason: "unexpected end of data")
        }
        break
      }
    }
    return output.pos
  }
}

extension TraceError {
  /// A decompressor that could not get its memory: not a damaged file (the
  /// advice to fetch it again would be wrong), but a limit to raise.
  static func noMemoryToDecompress(_ path: String, codec: String) -> TraceError {
    let limit = MemoryBudget.headroom().map { " (\(MemoryBudget.describe($0.bytes)) left under \($0.limit))" } ?? ""
    return .unreadable(
      path: path,
      reason:
        "not enough memory to decompress its \(codec) stream\(limit); free memory or raise the limit, or decompress it first"
    )
  }
}
