#if canImport(Glibc)
  import Glibc
#endif

/// A store's folder, opened once: its root, `data/` and `trash/` as file
/// descriptors, and its lock. Everything the store creates, reads, renames
/// or deletes is reached by a plain name under one of these descriptors
/// (`openat`, `renameat`, `unlinkat`), never by a path joined from what a
/// manifest or the file system holds, and `data/` and `trash/` are opened
/// with `O_NOFOLLOW`: a symbolic link there is refused, not followed. So no
/// manifest row and no planted link can make the store touch anything
/// outside its root.
///
/// The lock (`flock` on `lock`): an owner using the store holds it shared;
/// the first owner to open a store it finds unused holds it exclusive while
/// it sweeps what a killed owner left; a repair holds it exclusive
/// throughout; a check holds it shared.
final class StoreFolder {
  /// What a folder holds, judged before anything is written to it.
  enum Kind: Equatable {
    case missing
    /// A file, not a folder.
    case notAFolder
    /// A folder this user may not read or enter (one it may not write can
    /// still be checked; opening it as a store says so).
    case unreadable
    /// Empty, or only what a store being created has made so far.
    case empty
    /// `manifest.sqlite` and `lock`.
    case store
    /// A lock this library wrote, value files, but no manifest: a store
    /// whose manifest was lost (repair rebuilds it).
    case storeWithoutManifest
    /// Anything else: not ours to touch.
    case foreign
  }

  enum Lock { case shared, exclusive }

  static let manifestName = "manifest.sqlite"
  static let lockName = "lock"
  /// Written into a new store's lock file, so a store whose manifest was
  /// lost can still be told from any folder that has a file named `lock`.
  static let lockMarker: [UInt8] = Array("EvictionLab disk store\n".utf8)

  let path: String
  let root: Int32
  private(set) var data: Int32
  let trash: Int32
  let lock: Int32
  private(set) var lockState: Lock?

  /// Paths for messages only (never opened by these names); made once, as
  /// every operation may name them.
  let dataPath: String
  let trashPath: String
  let manifestPath: String

  /// Opens the folder at `path`; with `create`, makes it (one level) and
  /// `data/`, `trash/` and `lock` where missing; with `createFolders` only
  /// `data/` and `trash/` (a repair). Takes no lock yet.
  init(path: String, create: Bool, createFolders: Bool = false, readOnly: Bool = false) throws(DiskError) {
    guard !path.isEmpty else { throw .invalidPath("the store's folder is an empty path; name a folder") }
    self.path = path
    dataPath = path + "/data"
    trashPath = path + "/trash"
    manifestPath = path + "/" + Self.manifestName
    if create { try Self.makeFolder(path) }
    let rootFD = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard rootFD >= 0 else {
      if errno == ENOTDIR { throw .notADirectory(path: path) }
      if errno == ENOENT { throw .notAStore(path: path, reason: "no such folder") }
      throw FileLayer.error(path, "open")
    }
    guard faccessat(rootFD, ".", readOnly ? R_OK | X_OK : R_OK | W_OK | X_OK, 0) == 0 else {
      Glibc.close(rootFD)
      throw .permissionDenied(path: path)
    }
    var opened: [Int32] = [rootFD]
    do throws(DiskError) {
      let dataFD = try Self.openSubfolder(rootFD, "data", path: path, create: create || createFolders)
      opened.append(dataFD)
      let trashFD = try Self.openSubfolder(rootFD, "trash", path: path, create: create || createFolders)
      opened.append(trashFD)
      try Self.refuseLink(rootFD, Self.lockName, path: path)
      // A shared lock needs only read access (flock); a check takes no more.
      let lockFD = openat(
        rootFD, Self.lockName, (readOnly ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0o644)
      guard lockFD >= 0 else { throw FileLayer.error(path + "/" + Self.lockName, "open") }
      opened.append(lockFD)
      var info = stat()
      if create && fstat(lockFD, &info) == 0 && info.st_size == 0 {
        _ = Self.lockMarker.withUnsafeBytes { pwrite(lockFD, $0.baseAddress, $0.count, 0) }
      }
      for name in [Self.manifestName, Self.manifestName + "-wal", Self.manifestName + "-shm"] {
        try Self.refuseLink(rootFD, name, path: path)
      }
      root = rootFD
      data = dataFD
      trash = trashFD
      lock = lockFD
    } catch {
      for fd in opened { Glibc.close(fd) }
      throw error
    }
  }

  deinit {
    for fd in [lock, trash, data, root] { Glibc.close(fd) }
  }

  /// Makes the folder at `path` and the folders above it that are missing
  /// (`mkdir -p`); a file where a folder should be is named in the error.
  static func makeFolder(_ path: String) throws(DiskError) {
    if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
    switch errno {
    case ENOENT:
      // `missing/..` would make `missing` and name the folder above it,
      // which was judged (not a store, not empty) before it was reachable.
      if path.split(separator: "/").contains("..") {
        throw .invalidPath(
          "\(path): a folder on the way is missing and the path goes back up ('..'); name the store's folder without '..'"
        )
      }
      var parent = path
      while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
      guard let slash = parent.lastIndex(of: "/") else { throw FileLayer.error(path, "create folder") }
      parent = String(parent[..<slash])
      guard !parent.isEmpty else { throw FileLayer.error(path, "create folder") }
      try makeFolder(parent)
      if mkdir(path, 0o755) != 0 && errno != EEXIST { throw FileLayer.error(path, "create folder") }
    case ENOTDIR:
      // The first folder above it that exists and is not a folder.
      for end in path.indices where path[end] == "/" && end != path.startIndex {
        let prefix = String(path[..<end])
        var info = stat()
        if stat(prefix, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR { throw .notADirectory(path: prefix) }
      }
      throw .notADirectory(path: path)
    default:
      throw FileLayer.error(path, "create folder")
    }
  }

  /// Opens `name` under `parent` as a folder, never through a link.
  static func openSubfolder(_ parent: Int32, _ name: String, path: String, create: Bool) throws(DiskError) -> Int32 {
    var info = stat()
    if fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
      guard (info.st_mode & S_IFMT) == S_IFDIR else {
        throw .unsafePath(
          path: path + "/" + name,
          reason: (info.st_mode & S_IFMT) == S_IFLNK
            ? "is a symbolic link; the store never follows links out of its folder: remove the link"
            : "is not a folder; the store needs it as a folder of its own: move it away")
      }
    } else if errno == ENOENT && create {
      if mkdirat(parent, name, 0o755) != 0 && errno != EEXIST {
        throw FileLayer.error(path + "/" + name, "create folder")
      }
    } else if errno == ENOENT {
      throw .notAStore(path: path, reason: "it has no \(name)/ folder")
    } else {
      throw FileLayer.error(path + "/" + name, "stat")
    }
    let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ELOOP || errno == ENOTDIR {
        throw .unsafePath(path: path + "/" + name, reason: "is not a folder (or became a link); remove it")
      }
      throw FileLayer.error(path + "/" + name, "open")
    }
    return fd
  }

  /// Refuses a symbolic link where the store keeps one of its own files.
  static func refuseLink(_ parent: Int32, _ name: String, path: String) throws(DiskError) {
    var info = stat()
    guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
    let type = info.st_mode & S_IFMT
    if type == S_IFLNK {
      throw .unsafePath(path: path + "/" + name, reason: "is a symbolic link; the store never follows links: remove it")
    }
    if type != S_IFREG {
      throw .unsafePath(path: path + "/" + name, reason: "is not a regular file; move it away")
    }
  }

  // MARK: What a folder is

  /// The error for a folder that cannot be a store at all, or nil.
  static func unusable(_ kind: Kind, _ path: String) -> DiskError? {
    switch kind {
    case .notAFolder: return .notADirectory(path: path)
    case .unreadable: return .permissionDenied(path: path)
    default: return nil
    }
  }

  /// Judges the folder at `path` without writing anything.
  static func kind(of path: String) -> Kind {
    guard !path.isEmpty else { return .missing }
    var info = stat()
    guard stat(path, &info) == 0 else { return errno == EACCES ? .unreadable : .missing }
    guard (info.st_mode & S_IFMT) == S_IFDIR else { return .notAFolder }
    guard access(path, R_OK | X_OK) == 0 else { return .unreadable }
    let entries = FileLayer.list(path)
    let present = Set(entries)
    let hasManifest = present.contains(manifestName)
    let hasLock = present.contains(lockName)
    if hasManifest && hasLock { return .store }
    let ours: Set<String> = [lockName, "data", "trash", manifestName, manifestName + "-wal", manifestName + "-shm"]
    let dataEntries = FileLayer.list(path + "/data")
    let trashEntries = FileLayer.list(path + "/trash")
    if present.isSubset(of: ours) && dataEntries.isEmpty && trashEntries.isEmpty && !hasManifest { return .empty }
    if hasLock && !hasManifest && lockHasMarker(path + "/" + lockName) { return .storeWithoutManifest }
    return .foreign
  }

  static func lockHasMarker(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { Glibc.close(fd) }
    guard let head = try? FileLayer.readArray(fd, count: lockMarker.count, at: 0, path: path) else { return false }
    return head == lockMarker
  }

  // MARK: The lock

  /// Takes the lock, waiting up to `seconds` for the holders that stand in
  /// the way; then fails naming them.
  func acquire(_ mode: Lock, waitingUpTo seconds: Double) throws(DiskError) {
    if tryAcquire(mode) { return }
    let deadline = FileLayer.monotonicSeconds() + max(0, seconds)
    while FileLayer.monotonicSeconds() < deadline {
      usleep(20_000)
      if tryAcquire(mode) { return }
    }
    throw .inUse(path: path, processes: holders(), exclusive: mode == .exclusive)
  }

  /// Takes the lock if nobody stands in the way.
  func tryAcquire(_ mode: Lock) -> Bool {
    guard flock(lock, (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else { return false }
    lockState = mode
    return true
  }

  /// From exclusive to shared. `flock` converts by releasing first, so
  /// another process may take the lock in between; it then sweeps as the
  /// first owner, before this one writes anything.
  func downgrade() throws(DiskError) {
    guard lockState == .exclusive else { return }
    try acquire(.shared, waitingUpTo: 60)
  }

  func release() {
    flock(lock, LOCK_UN)
    lockState = nil
  }

  /// Whether this user may write the store's folder (a check of one it may
  /// not reads the manifest as it is on disk).
  var isWritable: Bool { faccessat(root, ".", W_OK, 0) == 0 }

  /// The processes (other than this one) holding a lock on this store's
  /// lock file, from `/proc/locks` (Linux); empty where it cannot tell.
  func holders() -> [Int32] {
    var info = stat()
    guard fstat(lock, &info) == 0, let text = FileLayer.readToEnd("/proc/locks") else { return [] }
    // glibc's major() and minor() of a dev_t, printed as the kernel prints them ("%02x:%02x:%lu").
    let dev = UInt64(info.st_dev)
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff)
    let minor = (dev & 0xff) | ((dev >> 12) & ~0xff)
    let device = "\(String(major, radix: 16).leftPadded(2)):\(String(minor, radix: 16).leftPadded(2)):\(info.st_ino)"
    var pids: [Int32] = []
    for line in String(decoding: text, as: UTF8.self).split(separator: "\n") where !line.contains("->") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
      guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]), fields[5] == device else { continue }
      if pid != getpid() && !pids.contains(pid) { pids.append(pid) }
    }
    return pids.sorted()
  }

  // MARK: Names under data/ and trash/

  /// Replaces `data/` with a new, empty folder; the old one moves into
  /// `trash/` under `name`.
  func replaceData(trashingAs name: String) throws(DiskError) {
    if renameat(root, "data", trash, name) != 0 { throw FileLayer.error(dataPath, "move to trash") }
    Glibc.close(data)
    data = try Self.openSubfolder(root, "data", path: path, create: true)
  }

  /// Moves the manifest and its WAL files aside (a repair keeping the
  /// unreadable original for whoever wants to look at it); returns the new name.
  func moveManifestAside(suffix: String) throws(DiskError) -> String {
    let aside = Self.manifestName + ".corrupt-" + suffix
    for extra in ["", "-wal", "-shm"] {
      var info = stat()
      guard fstatat(root, Self.manifestName + extra, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
      if renameat(root, Self.manifestName + extra, root, aside + extra) != 0 {
        throw FileLayer.error(path + "/" + Self.manifestName + extra, "move aside")
      }
    }
    return path + "/" + aside
  }

  /// Empties `trash/`: what the store put there (old `data/` folders and
  /// discarded value files). Within them only value files are deleted; a
  /// file the store did not write stays where it is, and so does its folder.
  static func emptyTrash(_ trash: Int32) {
    for name in FileLayer.list(fd: trash) {
      if name.hasPrefix("data-") {
        let fd = openat(trash, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { continue }
        for inner in FileLayer.list(fd: fd) where ValueFileName.isOurs(inner) {
          var info = stat()
          if fstatat(fd, inner, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) != S_IFDIR {
            unlinkat(fd, inner, 0)
          }
        }
        Glibc.close(fd)
        unlinkat(trash, name, AT_REMOVEDIR)  // fails, leaving it, when something foreign is inside
      } else if ValueFileName.isOurs(name) {
        var info = stat()
        if fstatat(trash, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) != S_IFDIR {
          unlinkat(trash, name, 0)
        }
      }
    }
  }
}

/// The names of value files: 32 hex digits of the key's hash, a dash, 16 of
/// a random generation; temporary files add `.tmp-` in front. A name read
/// from a manifest is used only when it has this form, so it can never
/// lead out of `data/`.
enum ValueFileName {
  static func isValid(_ name: String) -> Bool {
    let bytes = name.utf8
    guard bytes.count == 49 else { return false }
    for (i, byte) in bytes.enumerated() {
      if i == 32 {
        guard byte == UInt8(ascii: "-") else { return false }
      } else {
        guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
      }
    }
    return true
  }

  static func isTemporary(_ name: String) -> Bool {
    name.hasPrefix(".tmp-") && isValid(String(name.dropFirst(5)))
  }

  static func isOurs(_ name: String) -> Bool { isValid(name) || isTemporary(name) }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
