import EvictionRun
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where every command's JSON and CSV goes: a file (parent folders made,
/// written atomically), a device or pipe (written into, never replaced), or
/// standard output (`-`). JSON carries its provenance as its first key; a
/// CSV file gets it beside it, as `NAME.provenance.json`.
public enum OutputFile {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Writes `text` to `path`; returns what to tell the user (`wrote PATH`), nil for standard output.
  @discardableResult
  public static func write(_ text: String, to path: String, provenance: Provenance) throws(Failure) -> String? {
    let isJSON = text.first == "{"
    let content = isJSON ? provenance.stamped(text) : text
    if path == "-" || path == "/dev/stdout" {
      print(content, terminator: "")
      return nil
    }
    do {
      var url = URL(fileURLWithPath: path)
      var link = stat()
      if lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK {
        // Through a link: write its target, never rename over the link
        // itself, and put the provenance beside the target.
        guard let resolved = realpath(path, nil) else {
          throw Failure(description: "cannot write \(path): it is a link to nothing; remove it or choose another path")
        }
        url = URL(fileURLWithPath: String(cString: resolved))
        free(resolved)
      }
      let path = url.path
      var info = stat()
      if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
        // A device or a pipe (/dev/null, a FIFO): an atomic write would
        // rename a new file over it and replace /dev/null itself.
        guard let handle = FileHandle(forWritingAtPath: path) else {
          throw Failure(description: "cannot write \(path): it is not a file and cannot be opened")
        }
        try handle.write(contentsOf: Data(content.utf8))
        try handle.close()
        return nil
      }
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      // The file and its provenance are published together: another run
      // writing the same path waits, so the pair is one run's.
      try FolderLock.holding(url.deletingLastPathComponent().path) { () throws -> Void in
        try content.write(to: url, atomically: true, encoding: .utf8)
        if !isJSON {
          try provenance.file.write(
            to: URL(fileURLWithPath: path + ".provenance.json"), atomically: true, encoding: .utf8)
        }
      }
      return "wrote \(path)"
    } catch let failure as Failure {
      throw failure
    } catch {
      let full = (error as NSError).code == NSFileWriteOutOfSpaceError
      throw Failure(
        description: full
          ? "cannot write \(path): the disk is full; free space or write the results elsewhere"
          : "cannot write \(path): \(error.localizedDescription); check that the folder is writable")
    }
  }

  /// `value` as JSON, snake_case keys, sorted, one trailing newline.
  public static func json<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    return String(decoding: try! encoder.encode(value), as: UTF8.self) + "\n"
  }
}
