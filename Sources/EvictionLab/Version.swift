import EvictionRun
import Foundation

/// EvictionLab's version; the git commit its sources were built from
/// (recorded at build time); and, for an `evlab` built by another package through
/// ``EvictionLab/main(extraPolicies:extraFormats:caller:)`` (a plug-in
/// binary), that package's name and commit, so an output names both.
enum EvlabVersion {
  static let number = "0.3.0"

  static var description: String {
    var text = commit.map { "\(number) (commit \($0))" } ?? number
    if let plugin { text += "; plug-in package \(plugin.name)" + (plugin.commit.map { " (commit \($0))" } ?? "") }
    return text
  }

  /// evlab's own commit, as the BuildCommit plug-in found it when this
  /// binary was built (for a package that depends on EvictionLab, SwiftPM's
  /// checkout of it): a binary kept across a commit still names its own.
  static let commit: String? = buildCommit

  /// The `main.swift` that called ``EvictionLab/main(extraPolicies:extraFormats:caller:)``
  /// (set once, before any command runs).
  nonisolated(unsafe) static var caller: String? = nil

  /// The package around ``caller`` when it is not evlab's own: its folder's
  /// name and the commit of the checkout around it.
  static let plugin: (name: String, commit: String?)? = {
    guard let caller,
      let callerRoot = packageRoot(around: URL(fileURLWithPath: caller).deletingLastPathComponent()),
      let ownRoot = packageRoot(around: URL(fileURLWithPath: #filePath).deletingLastPathComponent()),
      callerRoot.standardized.path != ownRoot.standardized.path
    else { return nil }
    return (callerRoot.lastPathComponent, head(around: callerRoot)?.commit)
  }()

  /// The uncommitted changes (git's short status lines) to `Sources/` and
  /// `Package.swift` in the git work tree `root`: what a build of it holds
  /// beyond its commit. Nil when that cannot be told (no git, not a
  /// checkout).
  static func uncommittedSources(in root: URL) -> [String]? {
    // ChildProcess hands on standard error only: git's list goes there.
    let exit = try? ChildProcess.run(
      "/bin/sh", ["-c", "exec git -C \"$0\" status --porcelain -- Sources Package.swift 1>&2", root.path])
    guard let exit, exit.status == 0 else { return nil }
    return exit.errors.split(separator: "\n").map(String.init)
  }

  /// ``uncommittedSources(in:)`` of the checkout this evlab was built from.
  static var uncommittedOwnSources: [String]? {
    head(around: URL(fileURLWithPath: #filePath).deletingLastPathComponent()).flatMap {
      uncommittedSources(in: $0.root)
    }
  }

  /// The nearest folder at or above `dir` that holds a `Package.swift`.
  static func packageRoot(around dir: URL) -> URL? {
    var dir = dir
    for _ in 0..<12 {
      if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
      let up = dir.deletingLastPathComponent()
      if up.path == dir.path { return nil }
      dir = up
    }
    return nil
  }

  /// The commit checked out in the git work tree at or above `dir`.
  static func head(around dir: URL) -> (root: URL, commit: String?)? {
    var dir = dir
    for _ in 0..<12 {
      let git = dir.appendingPathComponent(".git")
      if let head = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8) {
        let line = head.trimmingCharacters(in: .whitespacesAndNewlines)
        guard line.hasPrefix("ref: ") else { return (dir, String(line.prefix(12))) }
        let ref = String(line.dropFirst(5))
        if let hash = try? String(contentsOf: git.appendingPathComponent(ref), encoding: .utf8) {
          return (dir, String(hash.trimmingCharacters(in: .whitespacesAndNewlines).prefix(12)))
        }
        let packed = (try? String(contentsOf: git.appendingPathComponent("packed-refs"), encoding: .utf8)) ?? ""
        for entry in packed.split(separator: "\n") where entry.hasSuffix(" " + ref) {
          return (dir, String(entry.prefix(12)))
        }
        return (dir, nil)
      }
      let up = dir.deletingLastPathComponent()
      if up.path == dir.path { return nil }
      dir = up
    }
    return nil
  }
}
