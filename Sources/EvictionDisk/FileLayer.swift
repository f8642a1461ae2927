#if canImport(Glibc)
  import Glibc
#endif

/// Every file operation of the disk tier goes through here, so tests can
/// inject a failure (a full disk, say) at one named operation.
struct FileLayer {
  enum Operation: String, Sendable { case write, rename, remove }

  /// Returns an errno to fail `operation` on `path` with, or nil to proceed.
  var fault: (@Sendable (Operation, String) -> Int32?)? = nil

  func failure(_ operation: Operation, _ path: String) -> DiskError? {
    guard let code = fault?(operation, path) else { return nil }
    return .io(path: path, operation: operation.rawValue, errno: code, reason: String(cString: strerror(code)))
  }

  static func error(_ path: String, _ operation: String) -> DiskError {
    let code = errno
    if code == EACCES || code == EPERM { return .permissionDenied(path: path) }
    return .io(path: path, operation: operation, errno: code, reason: String(cString: strerror(code)))
  }

  /// Writes `parts` to a new file `name` in the folder `directory` (created
  /// exclusively, never through a link), all or an error. `path` names it in
  /// messages and to the fault hook. `durable`: flushed to the disk
  /// before it returns (a file that replaces another by a rename).
  func write(_ directory: Int32, _ name: String, path: String, _ parts: [[UInt8]], durable: Bool = false)
    throws(DiskError)
  {
    if let failure = failure(.write, path) { throw failure }
    let fd = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Self.error(path, "create") }
    defer { Glibc.close(fd) }
    for part in parts {
      var offset = 0
      while offset < part.count {
        let n = part.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 {
          if errno == EINTR { continue }
          let error = Self.error(path, "write")
          unlinkat(directory, name, 0)
          throw error
        }
        offset += n
      }
    }
    if durable && fsync(fd) != 0 {
      let error = Self.error(path, "flush")
      unlinkat(directory, name, 0)
      throw error
    }
  }

  /// Renames `from` to `to`, both in the folder `directory`.
  func rename(_ directory: Int32, _ from: String, _ to: String, path: String) throws(DiskError) {
    if let failure = failure(.rename, path) { throw failure }
    if renameat(directory, from, directory, to) != 0 { throw Self.error(path, "rename") }
  }

  /// Removes the file `name` from the folder `directory` (a link is removed,
  /// never followed); a missing one is fine.
  func remove(_ directory: Int32, _ name: String, path: String) throws(DiskError) {
    if let failure = failure(.remove, path) { throw failure }
    if unlinkat(directory, name, 0) != 0 && errno != ENOENT { throw Self.error(path, "remove") }
  }

  static func read(_ path: String) throws(DiskError) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw error(path, "open")
    }
    defer { Glibc.close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw error(path, "stat") }
    return try readArray(fd, count: Int(info.st_size), at: 0, path: path)
  }

  /// A file whose size `stat` does not tell (`/proc`), read until it ends.
  static func readToEnd(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { Glibc.close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return n == 0 ? out : nil }
      out.append(contentsOf: chunk[0..<n])
    }
  }

  /// Up to `count` bytes from `offset` (fewer where the file ends).
  static func readArray(_ fd: Int32, count: Int, at offset: Int, path: String) throws(DiskError) -> [UInt8] {
    var failure: DiskError? = nil
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      do throws(DiskError) {
        initialized = try readFully(fd, into: UnsafeMutableRawBufferPointer(buffer), at: offset, path: path)
      } catch {
        failure = error
        initialized = 0
      }
    }
    if let failure { throw failure }
    return bytes
  }

  /// Reads into `buffer` from `offset` until it is full or the file ends;
  /// returns the bytes read.
  static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String)
    throws(DiskError) -> Int
  {
    var done = 0
    while done < buffer.count {
      let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
      if n < 0 {
        if errno == EINTR { continue }
        throw error(path, "read")
      }
      if n == 0 { break }
      done += n
    }
    return done
  }

  static func size(_ path: String) -> Int64? {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : nil
  }

  static func list(_ directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    return entries(dir)
  }

  /// The names in the open folder `fd` (read through a duplicate, so `fd` stays open).
  static func list(fd: Int32) -> [String] {
    let copy = dup(fd)
    guard copy >= 0 else { return [] }
    guard let dir = fdopendir(copy) else {
      Glibc.close(copy)
      return []
    }
    rewinddir(dir)
    return entries(dir)
  }

  /// Reads and closes `dir`.
  private static func entries(_ dir: OpaquePointer) -> [String] {
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  static func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }
}

/// The checksum of version 3 value file headers and of inline values: a
/// Fletcher sum (Fletcher, 1982) over eight interleaved lanes of 64-bit
/// words, in two orders (each lane's running sum, and the sum of those), so
/// it needs no multiplies and SSE2 adds sixteen bytes an instruction. Then
/// the tail, the length and a multiply-xorshift avalanche mix the lanes.
///
/// Why not the version 2 checksum: that one multiplies every word and runs
/// at about 8 GB/s here, which made a verified 1 MiB read twice as slow as
/// an unverified one; this one runs at about 57 GB/s (`evlab disk-bench`
/// figures in the README). What it gives up: like every Fletcher sum, it
/// misses an error that cancels in both orders of one lane (the top bit of
/// two words flipped, at positions of equal parity); a random or zeroed
/// region, a flipped bit, or words or blocks swapped are caught.
struct ValueChecksum {
  var a = SIMD8<UInt64>()
  var b = SIMD8<UInt64>()
  var length = 0

  /// Adds `raw`; every part but the last must be a multiple of 64 bytes.
  @inline(__always)
  mutating func update(_ raw: UnsafeRawBufferPointer) {
    let blocks = raw.count / 64
    for i in 0..<blocks {
      a &+= raw.loadUnaligned(fromByteOffset: i * 64, as: SIMD8<UInt64>.self)
      b &+= a
    }
    var tail: UInt64 = 0x9e37_79b9_7f4a_7c15
    for i in (blocks * 64)..<raw.count { tail = (tail ^ UInt64(raw[i])) &* 0x100_0000_01b3 }
    if blocks * 64 < raw.count { a[0] &+= tail }
    length += raw.count
  }

  func finish() -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(length)
    for lane in 0..<8 {
      hash = (hash ^ a[lane]) &* 0xff51_afd7_ed55_8ccd
      hash ^= hash >> 29
      hash = (hash ^ b[lane]) &* 0xc4ce_b9fe_1a85_ec53
      hash ^= hash >> 32
    }
    return hash
  }
}

/// ``ValueChecksum`` of `bytes` in one go.
func checksum(_ bytes: [UInt8]) -> UInt64 {
  var sum = ValueChecksum()
  bytes.withUnsafeBytes { sum.update($0) }
  return sum.finish()
}

/// The checksum of version 2 value file headers: four FNV-1a-style lanes
/// (multiply, then xor-shift) over 32-byte blocks, then the tail and an
/// avalanche. Still read; no longer written.
func checksumVersion2(_ bytes: [UInt8]) -> UInt64 {
  bytes.withUnsafeBytes { raw in
    let prime: UInt64 = 0x100_0000_01b3
    @inline(__always) func mix(_ h: inout UInt64, _ word: UInt64) {
      h = (h ^ word) &* prime
      h ^= h >> 29
    }
    @inline(__always) func word(_ offset: Int) -> UInt64 {
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    let basis: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(raw.count)
    var a = basis
    var b = basis ^ 0x9e37_79b9_7f4a_7c15
    var c = basis ^ 0xbf58_476d_1ce4_e5b9
    var d = basis ^ 0x94d0_49bb_1331_11eb
    let blocks = raw.count / 32
    for i in 0..<blocks {
      let base = i * 32
      mix(&a, word(base))
      mix(&b, word(base + 8))
      mix(&c, word(base + 16))
      mix(&d, word(base + 24))
    }
    var hash = a ^ (b << 17 | b >> 47) ^ (c << 31 | c >> 33) ^ (d << 47 | d >> 17)
    var offset = blocks * 32
    while offset + 8 <= raw.count {
      mix(&hash, word(offset))
      offset += 8
    }
    for i in offset..<raw.count { hash = (hash ^ UInt64(raw[i])) &* prime }
    hash ^= hash >> 33
    hash = hash &* 0xff51_afd7_ed55_8ccd
    return hash ^ (hash >> 33)
  }
}

/// The checksum of version 1 value file headers (one lane of 8-byte words).
func checksumVersion1(_ bytes: [UInt8]) -> UInt64 {
  bytes.withUnsafeBytes { raw in
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(raw.count)
    let words = raw.count / 8
    for i in 0..<words {
      hash = (hash ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))) &* 0x100_0000_01b3
      hash ^= hash >> 29
    }
    for i in (words * 8)..<raw.count { hash = (hash ^ UInt64(raw[i])) &* 0x100_0000_01b3 }
    hash ^= hash >> 33
    hash = hash &* 0xff51_afd7_ed55_8ccd
    return hash ^ (hash >> 33)
  }
}

/// FNV-1a over bytes from `basis`: value file names (two bases, 128 bits).
func fnv1a(_ bytes: some Sequence<UInt8>, basis: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
  var hash = basis
  for byte in bytes {
    hash ^= UInt64(byte)
    hash = hash &* 0x100_0000_01b3
  }
  return hash
}
