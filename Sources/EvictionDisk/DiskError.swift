import EvictionRun

/// What can go wrong in the disk tier. Each message names the path and says
/// what to do.
public enum DiskError: Error, Equatable, CustomStringConvertible {
  /// A key was empty (or a coder made it so): the store needs a name for each value.
  case emptyKey
  /// A file where the store's folder, or a folder above it, should be.
  case notADirectory(path: String)
  /// The store's folder cannot be read and written by this user.
  case permissionDenied(path: String)
  /// A system call failed (`errno` and its text); 28 is a full disk.
  case io(path: String, operation: String, errno: Int32, reason: String)
  /// SQLite reported an error on the manifest.
  case manifest(path: String, reason: String, code: Int32)
  /// A file of the store is damaged; repair the store.
  case corruptFile(path: String, reason: String)
  /// The store was used after ``DiskStore/close()``.
  case closed
  /// The policy is unknown, or cannot drive a live cache (offline, or trims on a timer).
  case invalidPolicy(String)
  /// A path that names no folder (empty).
  case invalidPath(String)
  /// The folder holds no EvictionLab store (or none any more).
  case notAStore(path: String, reason: String)
  /// A link or a non-folder where the store keeps its own folders or files.
  case unsafePath(path: String, reason: String)
  /// Another process holds the store's lock (`processes` when known).
  case inUse(path: String, processes: [Int32], exclusive: Bool)
  /// The manifest was laid out by a newer EvictionLab.
  case newerLayout(path: String, version: Int64, supported: Int64)
  /// A stored value failed verification; its entry was dropped.
  case corruptValue(key: String, path: String, reason: String)
  /// A cache limit out of its range (a count or cost below 1, an age of zero).
  case invalidLimit(String)
  /// A value heavier than the cache's whole cost limit: no eviction could make room for it.
  case valueTooLarge(key: String, bytes: Int, limit: Int)
  /// The cache's coder could not encode a key or a value.
  case encoding(String)
  /// A snapshot file could not go into this cache (it holds entries, say);
  /// the file is sound.
  case restoreRefused(path: String, reason: String)
  /// A file that is not a snapshot this cache can read: damaged, of another
  /// format, written for other key or value types, or not a regular file.
  case corruptSnapshot(path: String, reason: String)

  /// The error in words, with what to do.
  public var description: String {
    switch self {
    case .emptyKey:
      return "a key must not be empty"
    case .notADirectory(let path):
      return "\(path) is a file, not a folder; give the store a folder of its own"
    case .permissionDenied(let path):
      return "\(path): permission denied; the store needs to read and write its folder"
    case .io(let path, let operation, let code, let reason):
      let hint = code == 28 ? " (the disk is full: free space or lower the cache's limits)" : ""
      return "\(path): \(operation) failed: \(reason)\(hint)"
    case .manifest(let path, let reason, let code):
      return "\(path): SQLite error \(code): \(reason)"
    case .corruptFile(let path, let reason):
      return "\(path): \(reason); repair the store (\(Setting.repairStore))"
    case .closed:
      return "the store is closed"
    case .invalidPolicy(let message), .invalidPath(let message), .invalidLimit(let message):
      return message
    case .notAStore(let path, let reason):
      return "\(path) is not an EvictionLab store (\(reason)); nothing was written. Name the store's own folder"
    case .unsafePath(let path, let reason):
      return "\(path) \(reason)"
    case .inUse(let path, let processes, let exclusive):
      let who =
        processes.isEmpty
        ? "another process"
        : (processes.count == 1 ? "process " : "processes ") + processes.map(String.init).joined(separator: ", ")
      return exclusive
        ? "\(path) is in use by \(who); close it first, or wait for it (\(Setting.wait) SECONDS)"
        : "\(path) is being repaired or swept by \(who); try again when it is done"
    case .newerLayout(let path, let version, let supported):
      return
        "\(path) was written by a newer EvictionLab (layout \(version); this one reads up to \(supported)): upgrade EvictionLab; nothing was changed"
    case .corruptValue(let key, let path, let reason):
      return "\(path): the value of key '\(key)' \(reason); the entry was dropped"
    case .valueTooLarge(let key, let bytes, let limit):
      return
        "the value of key '\(key)' is \(bytes) bytes, more than the cache's whole cost limit of \(limit) bytes; nothing was written. Raise costLimit, or keep such values elsewhere"
    case .encoding(let message):
      return "\(message); nothing was written"
    case .restoreRefused(let path, let reason):
      return "\(path): cannot restore this snapshot here: \(reason)"
    case .corruptSnapshot(let path, let reason):
      return "\(path) is not a snapshot this cache can read: \(reason); write it again (writeSnapshot(to:)), "
        + "or remove it to start empty"
    }
  }
}
