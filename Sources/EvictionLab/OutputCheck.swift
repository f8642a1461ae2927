import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Checks, before any work starts, that an output can be written where the
/// user asked: so a sweep never runs for an hour to fail at its last step.
enum OutputCheck {
  /// A file to write (`-`, standard output, always can be): not a folder,
  /// writable if it exists, and in a folder that exists or can be made.
  static func file(_ path: String, option: String) throws {
    guard path != "-" else { return }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
      guard !isFolder.boolValue else {
        throw ArgumentError("\(option) \(path) is a folder; name a file in it, e.g. \(path)/results.csv")
      }
      guard access(path, W_OK) == 0 else {
        throw ArgumentError("\(option) \(path) is not writable; check its permissions or choose another path")
      }
      return
    }
    try creatable((path as NSString).deletingLastPathComponent, for: path, option: option)
  }

  /// A folder to write into: a folder (not a file) that is writable, or one
  /// that can be made.
  static func folder(_ path: String, option: String) throws {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
      guard isFolder.boolValue else {
        throw ArgumentError("\(option) \(path) is a file, not a folder; choose a folder for the outputs")
      }
      guard access(path, W_OK | X_OK) == 0 else {
        throw ArgumentError("\(option) \(path) is not writable; check its permissions or choose another folder")
      }
      return
    }
    try creatable(path, for: path, option: option)
  }

  /// `folder` exists and is writable, or its nearest existing ancestor is a
  /// writable folder (so the missing ones can be made).
  static func creatable(_ folder: String, for path: String, option: String) throws {
    var current = folder.isEmpty ? "." : folder
    var isFolder: ObjCBool = false
    while !FileManager.default.fileExists(atPath: current, isDirectory: &isFolder) {
      let parent = (current as NSString).deletingLastPathComponent
      current = parent.isEmpty ? "." : parent
    }
    guard isFolder.boolValue else {
      throw ArgumentError("\(option) \(path): \(current) is a file, so no folder can be made there")
    }
    guard access(current, W_OK | X_OK) == 0 else {
      throw ArgumentError("\(option) \(path): cannot write in \(current); check its permissions or choose another path")
    }
  }
}
