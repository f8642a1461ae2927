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
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 {
        if errno == EINTR { continue }
        throw error(path, "read")
      }
      if n == 0 { break }
      offset += n
    }
    return offset == bytes.count ? bytes : Array(bytes.prefix(offset))
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

/// FNV-1a over bytes from `basis`: file names (two bases, 128 bits) and the
/// checksum in each data file's header.
func fnv1a(_ bytes: some Sequence<UInt8>, basis: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
  var hash = basis
  for byte in bytes {
    hash ^= UInt64(byte)
    hash = hash &* 0x100_0000_01b3
  }
  return hash
}
