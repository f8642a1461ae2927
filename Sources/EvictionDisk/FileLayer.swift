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

  /// Writes `parts` to a new file at `path` (created exclusively), all or an error.
  func write(_ path: String, _ parts: [[UInt8]]) throws(DiskError) {
    if let failure = failure(.write, path) { throw failure }
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Self.error(path, "create") }
    defer { Glibc.close(fd) }
    for part in parts {
      var offset = 0
      while offset < part.count {
        let n = part.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 {
          if errno == EINTR { continue }
          let error = Self.error(path, "write")
          unlink(path)
          throw error
        }
        offset += n
      }
    }
  }

  func rename(_ from: String, _ to: String) throws(DiskError) {
    if let failure = failure(.rename, to) { throw failure }
    if Glibc.rename(from, to) != 0 { throw Self.error(to, "rename") }
  }

  /// Removes a file; a missing one is fine.
  func remove(_ path: String) throws(DiskError) {
    if let failure = failure(.remove, path) { throw failure }
    if unlink(path) != 0 && errno != ENOENT { throw Self.error(path, "remove") }
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

  /// Creates `path` as a folder if missing; an existing file there is an error.
  static func ensureDirectory(_ path: String) throws(DiskError) {
    var info = stat()
    if stat(path, &info) == 0 {
      guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .notADirectory(path: path) }
      guard access(path, R_OK | W_OK | X_OK) == 0 else { throw .permissionDenied(path: path) }
      return
    }
    if mkdir(path, 0o755) != 0 && errno != EEXIST { throw error(path, "create folder") }
  }

  /// Removes a folder and everything under it.
  static func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      for name in list(path) { removeTree(path + "/" + name) }
      rmdir(path)
    } else {
      unlink(path)
    }
  }
}

/// The checksum in version 2 value file headers: four FNV-1a-style lanes
/// (multiply, then xor-shift) over 32-byte blocks, so the multiplies do not
/// wait on each other (a single lane spent a fifth of a 1 MiB write here),
/// then the tail and a final avalanche.
func checksum(_ bytes: [UInt8]) -> UInt64 {
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
    var a = basis, b = basis ^ 0x9e37_79b9_7f4a_7c15, c = basis ^ 0xbf58_476d_1ce4_e5b9, d = basis ^ 0x94d0_49bb_1331_11eb
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
