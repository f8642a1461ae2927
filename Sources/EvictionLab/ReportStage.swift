import EvictionRun
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A report written whole before any of it is published: a hidden folder
/// `.partial-report.XXXXXX` inside the output folder (so every move is a
/// rename within one file system), removed by Ctrl-C like any scratch path.
/// ``publish()`` moves its files into the output folder with interruption
/// held off, `provenance.json` removed first and put back last: Ctrl-C
/// leaves the earlier report or the new one, never rows of one beside the
/// report of the other.
struct ReportStage {
  /// The staging folder.
  let path: String
  /// The output folder.
  let directory: String
  private let token: Int

  init(in directory: String) throws {
    var template = Array((directory as NSString).appendingPathComponent(".partial-report.XXXXXX").utf8CString)
    // Made and registered with Ctrl-C held off: a signal between the two
    // would leave a folder no cleanup knows of.
    let staged: (path: String, token: Int)? = Interruption.holdingOff {
      guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
      let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      return (path, ScratchPaths.shared.register(path))
    }
    guard let staged else {
      throw fail("cannot make a folder in \(directory) to write the report into: \(String(cString: strerror(errno)))")
    }
    path = staged.path
    self.directory = directory
    token = staged.token
  }

  /// Removes what is left of the stage (all of it, unless published).
  func remove() {
    try? FileManager.default.removeItem(atPath: path)
    ScratchPaths.shared.unregister(token)
  }

  /// Moves every file of the stage into the output folder, and the files of
  /// its `figures/` into the output folder's `figures/` (the user's own
  /// figures there are kept).
  func publish() throws {
    let manager = FileManager.default
    let provenance = "provenance.json"
    try preflight()
    try Interruption.holdingOff { () throws -> Void in
      unlink((directory as NSString).appendingPathComponent(provenance))
      for name in try manager.contentsOfDirectory(atPath: path).sorted() where name != provenance {
        let from = (path as NSString).appendingPathComponent(name)
        let to = (directory as NSString).appendingPathComponent(name)
        var info = stat()
        if lstat(from, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
          try Self.makeFolder(to)
          for figure in try manager.contentsOfDirectory(atPath: from) {
            try Self.move(
              (from as NSString).appendingPathComponent(figure), (to as NSString).appendingPathComponent(figure))
          }
        } else {
          try Self.move(from, to)
        }
      }
      let staged = (path as NSString).appendingPathComponent(provenance)
      if manager.fileExists(atPath: staged) {
        try Self.move(staged, (directory as NSString).appendingPathComponent(provenance))
      }
    }
  }

  /// Refuses, before anything is moved, a destination a file cannot be
  /// renamed onto (a folder where a file goes, a file or link where the
  /// figures' folder goes): a move that failed half-way would leave half a
  /// report.
  func preflight() throws {
    let manager = FileManager.default
    for name in try manager.contentsOfDirectory(atPath: path) {
      let from = (path as NSString).appendingPathComponent(name)
      let to = (directory as NSString).appendingPathComponent(name)
      var staged = stat()
      var there = stat()
      guard lstat(from, &staged) == 0, lstat(to, &there) == 0 else { continue }
      if staged.st_mode & S_IFMT == S_IFDIR {
        guard there.st_mode & S_IFMT == S_IFDIR else {
          throw fail("\(to) is not a real folder (a link or a file), and the figures go there; move it away")
        }
        for figure in try manager.contentsOfDirectory(atPath: from) {
          let target = (to as NSString).appendingPathComponent(figure)
          var held = stat()
          if lstat(target, &held) == 0, held.st_mode & S_IFMT == S_IFDIR {
            throw fail("\(target) is a folder where the report writes a file; move it away")
          }
        }
      } else if there.st_mode & S_IFMT == S_IFDIR {
        throw fail("\(to) is a folder where the report writes a file; move it away")
      }
    }
  }

  /// A real folder at `path`, made if missing; never a link.
  static func makeFolder(_ path: String) throws {
    var info = stat()
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw fail("\(path) is not a real folder (a link or a file), and the figures go there; move it away")
      }
    } else if mkdir(path, 0o777) != 0 {
      throw fail("cannot make \(path): \(String(cString: strerror(errno)))")
    }
  }

  static func move(_ from: String, _ to: String) throws {
    guard rename(from, to) == 0 else {
      throw fail("cannot move \(from) to \(to): \(String(cString: strerror(errno)))")
    }
  }
}
