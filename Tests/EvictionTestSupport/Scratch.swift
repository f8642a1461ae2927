import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Scratch folders for tests, all under one folder per test process
/// (`$TMPDIR/evlab-tests-<pid>`), which is removed when the process exits:
/// a test run leaves nothing behind, whichever tests fail.
public enum Scratch {
  /// The test process's own scratch root.
  public static let root: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("evlab-tests-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
    return path
  }()

  /// A new, empty folder under ``root``.
  public static func directory(_ prefix: String = "scratch") throws -> URL {
    let url = URL(fileURLWithPath: root).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// A path under ``root`` that does not exist yet (for code that must create it).
  public static func path(_ prefix: String = "scratch", suffix: String = "") -> String {
    _ = root
    return root + "/\(prefix)-\(UUID().uuidString)\(suffix)"
  }
}

/// Every name, type, mode, link target and content hash under `path`
/// (links not followed), one line each, sorted: two digests are equal
/// exactly when nothing in the tree changed. `excluding` names top-level
/// entries to leave out (the store under attack, say).
public func treeDigest(_ path: String, excluding: Set<String> = []) -> [String] {
  var lines: [String] = []
  func visit(_ relative: String) {
    let full = relative.isEmpty ? path : path + "/" + relative
    var info = stat()
    guard lstat(full, &info) == 0 else {
      lines.append("\(relative) missing")
      return
    }
    let mode = String(info.st_mode & 0o7777, radix: 8)
    switch info.st_mode & S_IFMT {
    case S_IFDIR:
      lines.append("\(relative)/ dir \(mode)")
      let names = ((try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []).sorted()
      for name in names where !(relative.isEmpty && excluding.contains(name)) {
        visit(relative.isEmpty ? name : relative + "/" + name)
      }
    case S_IFLNK:
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?"
      lines.append("\(relative) link -> \(target)")
    default:
      let bytes = (try? Data(contentsOf: URL(fileURLWithPath: full))) ?? Data()
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      lines.append("\(relative) file \(mode) \(bytes.count) \(String(hash, radix: 16))")
    }
  }
  visit("")
  return lines
}
