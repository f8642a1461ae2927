/// What can go wrong in the disk tier. Each message names the path and says
/// what to do.
public enum DiskError: Error, Equatable, CustomStringConvertible {
  case emptyKey
  case notADirectory(path: String)
  case permissionDenied(path: String)
  case io(path: String, operation: String, errno: Int32, reason: String)
  case manifest(path: String, reason: String, code: Int32)
  case corruptFile(path: String, reason: String)
  case closed
  case invalidPolicy(String)

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
      return "\(path): \(reason); run evlab disk check --repair on the store"
    case .closed:
      return "the store is closed"
    case .invalidPolicy(let message):
      return message
    }
  }
}
