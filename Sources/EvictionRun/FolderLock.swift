import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files that belong together (a CSV and its provenance, a trace and its
/// provenance, a report's files) are published under an exclusive lock on
/// the folder that holds them, so two evlab runs writing the same output
/// leave one run's files, never a mix of both.
///
/// The lock is `flock(2)` on the folder itself: nothing is created beside
/// the outputs, and the kernel drops it when the process ends, however it
/// ends. It binds evlab runs only (it is advisory), which is its purpose.
public enum FolderLock {
  /// Runs `body` holding the lock on `folder` (made first if missing).
  /// When the folder cannot be opened to lock (no read permission),
  /// `body` runs unlocked: publishing must not fail for want of a lock.
  /// Re-entrant: a folder this process already holds is not locked again
  /// (a second `flock` on it would wait for the first, forever). So it
  /// excludes other processes, not other threads of this one: evlab
  /// publishes from one thread.
  public static func holding<T, E: Error>(_ folder: String, _ body: () throws(E) -> T) throws(E) -> T {
    let folder = folder.isEmpty ? "." : folder
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return try body() }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return try body() }
    let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    guard held.insert(identity) else { return try body() }
    defer { held.remove(identity) }
    while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
    defer { flock(fd, LOCK_UN) }
    return try body()
  }

  struct Identity: Hashable {
    var device: UInt64
    var inode: UInt64
  }

  /// The folders this process holds locked, by identity.
  static let held = HeldFolders()

  final class HeldFolders: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var folders: Set<Identity> = []
    init() { pthread_mutex_init(&mutex, nil) }

    /// Adds `folder`; false if this process holds it already.
    func insert(_ folder: Identity) -> Bool {
      pthread_mutex_lock(&mutex)
      defer { pthread_mutex_unlock(&mutex) }
      return folders.insert(folder).inserted
    }

    func remove(_ folder: Identity) {
      pthread_mutex_lock(&mutex)
      defer { pthread_mutex_unlock(&mutex) }
      folders.remove(folder)
    }
  }
}

/// A name for a file being written before it is renamed to `path`: beside
/// it, unique to this write (`NAME.k3x9qz.partial`), created with
/// `O_EXCL` so it never is, nor replaces, a file someone else owns.
public enum PartialFile {
  /// Creates the file (mode 0644 less the umask) and returns its path and
  /// open descriptor, or the error number of the last attempt.
  public static func create(beside path: String) -> Result<(path: String, fd: Int32), Errno> {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    var generator = SystemRandomNumberGenerator()
    var failure: Int32 = EEXIST
    for _ in 0..<64 {
      let tag = String(decoding: (0..<6).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
      let candidate = "\(path).\(tag).partial"
      let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      if fd >= 0 { return .success((candidate, fd)) }
      failure = errno
      guard failure == EEXIST else { break }
    }
    return .failure(Errno(failure))
  }

  /// An error number, with its message.
  public struct Errno: Error, CustomStringConvertible {
    public var code: Int32
    public init(_ code: Int32) { self.code = code }
    public var description: String { String(cString: strerror(code)) }
  }
}
