import EvictionRun
import EvictionSim
import EvictionTraces
import Foundation

/// A collection of traces written down once: every trace under some folders
/// with its format, dataset, request and object counts and checksum, as
/// `evlab catalog` writes it and `evlab compare --collection` reads it (a
/// TOML file of `[[traces]]` tables, the configuration's own syntax).
public struct TraceCatalog: Sendable {
  public struct Entry: Sendable, Equatable {
    /// As written in the catalog: relative to the catalog's folder.
    public var path: String
    public var name: String
    public var format: TraceFormat
    public var dataset: String
    public var requests: Int64
    public var objects: Int
    public var checksum: String
    /// A fingerprint of the request stream (keys, sizes and times in
    /// order: ``StreamDigest``), to tell the same trace in two formats apart
    /// from two traces (in byte mode, other sizes make another trace).
    var streamHash: UInt64
  }

  /// A file passed over, and why.
  public struct Skipped: Sendable, Equatable {
    public var path: String
    public var reason: String
  }

  public var entries: [Entry] = []
  public var skipped: [Skipped] = []

  /// The trace files under `roots` (folders, walked in name order, or files)
  /// measured. The format comes from the file's name or its folder's
  /// (``TraceFormat/infer(fromPathOrFolder:)``); the dataset is the folder's
  /// name. Documentation (README, LICENSE, REFERENCE files), files of no
  /// known format and files holding the same requests as one already listed
  /// (a trace shipped in several formats) are skipped, with the reason.
  /// `relativeTo` is the folder the catalog will live in; `progress` hears
  /// each file before it is read.
  public static func scan(
    _ roots: [String], relativeTo base: String, progress: (String) -> Void = { _ in }
  ) throws(TraceError) -> TraceCatalog {
    var catalog = TraceCatalog()
    var files: [String] = []
    for root in roots {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
        throw .fileNotFound(path: root)
      }
      if !isDirectory.boolValue {
        files.append(root)
        continue
      }
      let found = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
      for relative in found {
        let path = (root as NSString).appendingPathComponent(relative)
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &folder), !folder.boolValue else { continue }
        // A FIFO, device or socket is no trace (reading one may never end).
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
          catalog.skipped.append(Skipped(path: relativePath(path, from: base), reason: "not a regular file"))
          continue
        }
        files.append(path)
      }
    }
    var names: Set<String> = []
    for path in files {
      let fileName = (path as NSString).lastPathComponent
      if ["README", "LICENSE", "REFERENCE"].contains(where: { fileName.uppercased().hasPrefix($0) }) { continue }
      if CompareConfig.isRunOutput(path) {
        catalog.skipped.append(Skipped(path: relativePath(path, from: base), reason: "an output of an evlab run"))
        continue
      }
      guard let format = TraceFormat.infer(fromPathOrFolder: path) else {
        catalog.skipped.append(
          Skipped(path: relativePath(path, from: base), reason: "neither its name nor its folder names a trace format"))
        continue
      }
      progress(path)
      var entry = try measure(path, format: format)
      entry.path = relativePath(path, from: base)
      if let twin = catalog.entries.first(where: { $0.streamHash == entry.streamHash && $0.requests == entry.requests })
      {
        catalog.skipped.append(
          Skipped(path: relativePath(path, from: base), reason: "the same requests as \(twin.path)"))
        continue
      }
      let folder = (path.parentPath as NSString).lastPathComponent
      entry.dataset = folder
      var name = fileName
      if names.contains(name) { name = "\(folder)-\(fileName)" }
      names.insert(name)
      entry.name = name
      catalog.entries.append(entry)
    }
    return catalog
  }

  /// One pass over the trace: requests, distinct objects, the stream's
  /// fingerprint and the file's checksum.
  static func measure(_ path: String, format: TraceFormat) throws(TraceError) -> Entry {
    let source = TraceSource(path: path, format: format)
    var keys: Set<UInt64> = []
    var requests: Int64 = 0
    var digest = StreamDigest()
    _ = try source.forEachBatch { records, tile in
      for record in records {
        let key = record.key &+ tile.idOffset
        keys.insert(key)
        requests += 1
        digest.add(key: key, size: record.size, time: record.time)
      }
    }
    if requests == 0 { throw .emptyTrace(path: path) }
    return Entry(
      path: path, name: (path as NSString).lastPathComponent, format: format, dataset: "", requests: requests,
      objects: keys.count, checksum: try FileChecksum.crc32(path: path), streamHash: digest.state)
  }

  /// `path` as seen from the folder `base` (both made absolute first).
  static func relativePath(_ path: String, from base: String) -> String {
    func components(_ p: String) -> [String] {
      let absolute = p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p
      var out: [String] = []
      for part in absolute.split(separator: "/") {
        switch part {
        case ".": continue
        case "..": _ = out.popLast()
        default: out.append(String(part))
        }
      }
      return out
    }
    let target = components(path)
    let from = components(base)
    var common = 0
    while common < min(target.count, from.count) && target[common] == from[common] { common += 1 }
    return (Array(repeating: "..", count: from.count - common) + target[common...]).joined(separator: "/")
  }

  /// The header `evlab catalog` writes: what the file is, the tool and
  /// command that made it (no date, so that a catalog rewritten from the
  /// same traces is the same file), and what its figures mean.
  public func header(tool: String, command: String) -> [String] {
    [
      "Trace catalog for \(Setting.collectionRun): \(entries.count) traces.",
      "Written by \(tool): \(command)",
      "requests and objects are counted as evlab reads the trace; checksum is CRC-32 of the file as stored.",
      "Both are checked when a comparison reads the trace.",
    ]
  }

  /// The catalog as TOML: a header saying how it was made, then one
  /// `[[traces]]` table per trace and a comment per file passed over.
  public func toml(header: [String]) -> String {
    var text = header.map { "# \($0)\n" }.joined()
    text += "\nname = \"collection\"\n"
    for entry in entries {
      text += "\n[[traces]]\n"
      text += "path = \(quoted(entry.path))\nname = \(quoted(entry.name))\nformat = \"\(entry.format.rawValue)\"\n"
      text += "dataset = \(quoted(entry.dataset))\nrequests = \(entry.requests)\nobjects = \(entry.objects)\n"
      text += "checksum = \"\(entry.checksum)\"\n"
    }
    if !skipped.isEmpty {
      text += "\n# Passed over:\n"
      for item in skipped { text += "#   \(item.path): \(item.reason)\n" }
    }
    return text
  }

  func quoted(_ s: String) -> String {
    "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }
}
