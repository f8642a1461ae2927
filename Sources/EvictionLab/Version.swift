import Foundation

/// EvictionLab's version, and the git commit it was built from when the
/// executable sits in a checkout's `.build` (read from `.git` directly: no
/// `git` needed).
enum EvlabVersion {
  static let number = "0.3.0"

  static var description: String { commit.map { "\(number) (commit \($0))" } ?? number }

  /// The commit of the checkout around the running executable, or nil.
  static let commit: String? = {
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var dir = URL(fileURLWithPath: executable).deletingLastPathComponent()
    for _ in 0..<8 {
      let git = dir.appendingPathComponent(".git")
      if let head = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8) {
        let line = head.trimmingCharacters(in: .whitespacesAndNewlines)
        guard line.hasPrefix("ref: ") else { return String(line.prefix(12)) }
        let ref = String(line.dropFirst(5))
        if let hash = try? String(contentsOf: git.appendingPathComponent(ref), encoding: .utf8) {
          return String(hash.trimmingCharacters(in: .whitespacesAndNewlines).prefix(12))
        }
        let packed = (try? String(contentsOf: git.appendingPathComponent("packed-refs"), encoding: .utf8)) ?? ""
        for entry in packed.split(separator: "\n") where entry.hasSuffix(" " + ref) {
          return String(entry.prefix(12))
        }
        return nil
      }
      dir = dir.deletingLastPathComponent()
    }
    return nil
  }()
}
