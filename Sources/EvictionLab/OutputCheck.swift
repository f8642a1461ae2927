import EvictionTraces
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
    // Standard output, whatever it is (a pipe's /dev/stdout names no file).
    guard path != "-" && path != "/dev/stdout" else { return }
    guard !path.isEmpty else {
      throw ArgumentError("\(option) is an empty path; name a file, or - for standard output")
    }
    // A CSV or a trace gets NAME.provenance.json beside it (and a trace is
    // written as NAME.XXXXXX.partial first): its name must leave room.
    // (JSON carries its provenance inside: an option named for JSON writes
    // it; any other may write CSV under any name, `x.json` included.)
    try nameFits(path, option: option, companion: option.hasSuffix("json") ? "" : ".provenance.json")
    var link = stat()
    if lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK, realpath(path, nil) == nil {
      throw ArgumentError("\(option) \(path) is a link to nothing; remove it or choose another path")
    }
    var kind = stat()
    if stat(path, &kind) == 0, [S_IFIFO, S_IFSOCK].contains(kind.st_mode & S_IFMT) {
      // Opening a FIFO to write waits for a reader that may never come.
      throw ArgumentError(
        "\(option) \(path) is a \(kind.st_mode & S_IFMT == S_IFIFO ? "FIFO" : "socket"); name a regular file, or - for standard output"
      )
    }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
      guard !isFolder.boolValue else {
        let example = option.hasSuffix("json") ? "results.json" : "results.csv"
        throw ArgumentError("\(option) \(path) is a folder; name a file in it, e.g. \(path)/\(example)")
      }
      guard access(path, W_OK) == 0 else {
        throw ArgumentError("\(option) \(path) is not writable; check its permissions or choose another path")
      }
      return
    }
    try creatable(path.parentPath, for: path, option: option)
  }

  /// A trace to write (`generate -o`, `convert -o`): as ``file(_:option:)``,
  /// and a file already there is replaced only if an evlab run wrote it
  /// (the `PATH.provenance.json` beside it names evlab), so a mistyped
  /// output never replaces a recorded trace.
  static func trace(_ path: String, option: String) throws {
    try file(path, option: option)
    guard let target = regularFile(path) else { return }
    let sidecar = FileManager.default.contents(atPath: target + ".provenance.json").flatMap {
      try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
    }
    guard (sidecar?["provenance"] as? [String: Any])?["tool"] as? String == "evlab" else {
      throw ArgumentError(
        "\(option) \(path) exists, and no evlab run wrote it (there is no \((target as NSString).lastPathComponent).provenance.json beside it naming evlab): it may be a recorded trace. Name a new file, or remove it first"
      )
    }
  }

  /// The file `path` names, links resolved, if it is a regular file (not
  /// `-`, a device or a pipe, and not missing).
  static func regularFile(_ path: String) -> String? {
    var kind = stat()
    guard path != "-", stat(path, &kind) == 0, kind.st_mode & S_IFMT == S_IFREG else { return nil }
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
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

  /// A report's folder (`compare -o`, `merge -o`): as ``folder(_:option:)``,
  /// and none of the files a report writes is a folder there, and its
  /// `figures` is a real, writable folder if it exists (not a link out).
  static func reportFolder(_ path: String, option: String, files: [String]) throws {
    var link = stat()
    if lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK, realpath(path, nil) == nil {
      throw ArgumentError("\(option) \(path) is a link to nothing; remove it or choose another folder")
    }
    try folder(path, option: option)
    let manager = FileManager.default
    for name in files {
      var isFolder: ObjCBool = false
      let file = (path as NSString).appendingPathComponent(name)
      if manager.fileExists(atPath: file, isDirectory: &isFolder) && isFolder.boolValue {
        throw ArgumentError("\(option) \(path): \(file) is a folder where the report writes a file; move it away")
      }
    }
    let figures = (path as NSString).appendingPathComponent("figures")
    if (try? manager.destinationOfSymbolicLink(atPath: figures)) != nil {
      throw ArgumentError(
        "\(option) \(path): \(figures) is a symbolic link; figures are written only into a real folder: remove the link"
      )
    }
    var isFolder: ObjCBool = false
    if manager.fileExists(atPath: figures, isDirectory: &isFolder) {
      guard isFolder.boolValue, access(figures, W_OK | X_OK) == 0 else {
        throw ArgumentError(
          "\(option) \(path): \(figures) is not a writable folder, and the figures go there; move it away")
      }
    }
    // A report replaces only what an earlier report wrote, as its provenance says.
    let held =
      files.filter { manager.fileExists(atPath: (path as NSString).appendingPathComponent($0)) }
      + (figureFiles(in: path).isEmpty ? [] : ["figures/"])
    if let first = held.first, !holdsEvlabReport(path) {
      throw ArgumentError(
        "\(option) \(path) holds \(first), and no provenance.json there says an evlab run wrote it (a report stopped half-way has none): a report replaces only a whole report's files; choose a new folder, or remove that one"
      )
    }
  }

  /// The files in `folder`'s `figures/`, as paths (none when it has none).
  static func figureFiles(in folder: String) -> [String] {
    let figures = (folder as NSString).appendingPathComponent("figures")
    return ((try? FileManager.default.contentsOfDirectory(atPath: figures)) ?? []).sorted().map {
      (figures as NSString).appendingPathComponent($0)
    }
  }

  /// Whether `folder` holds a `provenance.json` that evlab wrote.
  static func holdsEvlabReport(_ folder: String) -> Bool {
    let file = (folder as NSString).appendingPathComponent("provenance.json")
    var info = stat()
    guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size < 64 << 20,
      let data = FileManager.default.contents(atPath: file),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let provenance = object["provenance"] as? [String: Any]
    else { return false }
    return provenance["tool"] as? String == "evlab"
  }

  /// Refuses two outputs of one run at one path (one would overwrite the
  /// other), a CSV's provenance sidecar included. `-` and devices
  /// (`/dev/null`) may repeat: they are written into, not replaced.
  static func distinct(_ outputs: [(option: String, path: String?)]) throws {
    var seen: [String: String] = [:]
    if outputs.filter({ $0.path == "-" || $0.path == "/dev/stdout" }).count > 1 {
      let names = outputs.map(\.option)
      let listed = names.dropLast().joined(separator: ", ") + " and " + names.last!
      throw ArgumentError("only one of \(listed) can go to standard output (-)")
    }
    for (option, path) in outputs {
      guard let path, path != "-" else { continue }
      var info = stat()
      if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG && (info.st_mode & S_IFMT) != S_IFDIR {
        continue
      }
      let canonical = resolved(path)
      for name in [canonical, canonical + ".provenance.json"] {
        if let other = seen[name] {
          throw ArgumentError("\(option) \(path) and \(other) would write the same file; give each its own path")
        }
      }
      seen[canonical] = option
      if option == "--csv" { seen[canonical + ".provenance.json"] = "\(option)'s provenance" }
    }
  }

  /// Refuses an output that is one of the run's inputs, by the file's
  /// identity (device and inode, through links, other spellings of the
  /// path and hard links): `replay t.csv --csv t.csv` overwrote its own
  /// trace, and `--regret` then read its output back as the trace. A
  /// provenance sidecar counts as an output too.
  /// Refuses a trace named twice, by the file's identity (another spelling,
  /// a link): it would give the same rows twice, as if two traces agreed.
  static func distinctTraces(_ traces: [String]) throws {
    var seen: [(dev: UInt, ino: UInt, path: String)] = []
    for trace in traces {
      var info = stat()
      guard stat(trace, &info) == 0 else { continue }
      if let first = seen.first(where: { $0.dev == UInt(info.st_dev) && $0.ino == UInt(info.st_ino) }) {
        throw ArgumentError(
          "\(trace) and \(first.path) are the same file; name each trace once")
      }
      seen.append((UInt(info.st_dev), UInt(info.st_ino), trace))
    }
  }

  /// `others` are inputs that are no trace, each with what it is ("the
  /// --baseline file").
  static func notAnInput(
    _ outputs: [(option: String, path: String?)], inputs: [String], others: [(what: String, path: String?)] = []
  ) throws {
    var identities: [(dev: UInt, ino: UInt, path: String, what: String)] = []
    let named = inputs.map { ("the input trace", Optional($0)) } + others
    for case (let what, let input?) in named {
      var info = stat()
      if stat(input, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
        identities.append((UInt(info.st_dev), UInt(info.st_ino), input, what))
      }
    }
    guard !identities.isEmpty else { return }
    for (option, path) in outputs {
      guard let path, path != "-" else { continue }
      // What an option not named for JSON writes gets a provenance sidecar
      // beside it, and beside its link's target, whatever the name's extension.
      var candidates = [path]
      if !option.hasSuffix("json") {
        candidates += [path + ".provenance.json", resolved(path) + ".provenance.json"]
      }
      for candidate in candidates {
        var info = stat()
        guard stat(candidate, &info) == 0 else { continue }
        if let input = identities.first(where: { $0.dev == UInt(info.st_dev) && $0.ino == UInt(info.st_ino) }) {
          throw ArgumentError(
            "\(option) \(path) would overwrite \(input.what) \(input.path); write the output to another path")
        }
      }
    }
  }

  /// `path` with every link resolved (the file's, when it exists, else its
  /// folder's), so two names of one file are seen as one.
  static func resolved(_ path: String) -> String {
    if let real = realpath(path, nil) {
      defer { free(real) }
      return String(cString: real)
    }
    let url = URL(fileURLWithPath: path).standardizedFileURL
    let folder = url.deletingLastPathComponent().path
    guard let real = realpath(folder, nil) else { return url.path }
    defer { free(real) }
    return (String(cString: real) as NSString).appendingPathComponent(url.lastPathComponent)
  }

  /// `folder` exists and is writable, or its nearest existing ancestor is a
  /// writable folder (so the missing ones can be made).
  static func creatable(_ folder: String, for path: String, option: String) throws {
    try nameFits(path, option: option)
    var current = folder.isEmpty ? "." : folder
    var isFolder: ObjCBool = false
    while !FileManager.default.fileExists(atPath: current, isDirectory: &isFolder) {
      let parent = current.parentPath
      current = parent.isEmpty ? "." : parent
    }
    guard isFolder.boolValue else {
      throw ArgumentError("\(option) \(path): \(current) is a file, so no folder can be made there")
    }
    guard access(current, W_OK | X_OK) == 0 else {
      throw ArgumentError("\(option) \(path): cannot write in \(current); check its permissions or choose another path")
    }
  }

  /// Refuses a path the file system cannot hold: a name past 255 bytes
  /// (NAME_MAX) or a path past 4,095 (PATH_MAX), found before any work
  /// rather than when the output is written.
  /// With a `companion` suffix, the last name must hold it too.
  static func nameFits(_ path: String, option: String, companion: String = "") throws {
    let names = path.split(separator: "/")
    if let name = names.first(where: { $0.utf8.count > 255 }) {
      throw ArgumentError(
        "\(option): the name '\(name.prefix(24))…' is \(name.utf8.count) bytes, and file names hold at most 255; choose a shorter one"
      )
    }
    if let name = names.last, name.utf8.count + companion.utf8.count > 255 {
      throw ArgumentError(
        "\(option): the name '\(name.prefix(24))…' is \(name.utf8.count) bytes; evlab writes \(name.prefix(8))…\(companion) beside it, and file names hold at most 255, so keep it to \(255 - companion.utf8.count); choose a shorter one"
      )
    }
    guard path.utf8.count < 4096 else {
      throw ArgumentError(
        "\(option): the path is \(path.utf8.count) bytes, and paths hold at most 4095; choose a shorter one")
    }
  }
}
