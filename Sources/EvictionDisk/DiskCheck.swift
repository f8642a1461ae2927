#if canImport(Glibc)
  import Glibc
#endif

/// What `evlab disk check` found in a store and, with repair, what it did.
public struct DiskCheckReport: Sendable, Equatable {
  public var rows = 0
  public var valueFiles = 0
  /// Keys whose row names a file that is missing or of the wrong length.
  public var missingFiles: [String] = []
  public var wrongSizeFiles: [String] = []
  /// Keys whose inline value's length differs from the row's size.
  public var wrongSizeRows: [String] = []
  /// Files in `data/` no row names (temporary files included).
  public var orphanFiles: [String] = []
  /// SQLite's own verdict (`PRAGMA quick_check`), or why the manifest cannot be read.
  public var manifestProblem: String? = nil
  /// With repair: what was done, and the keys whose values could not be saved.
  public var actions: [String] = []
  public var lostKeys: [String] = []

  /// Whether the store was consistent when checked (before any repair).
  public var isConsistent: Bool {
    missingFiles.isEmpty && wrongSizeFiles.isEmpty && wrongSizeRows.isEmpty && orphanFiles.isEmpty
      && manifestProblem == nil
  }

  public var summary: String {
    var lines = ["\(rows) rows, \(valueFiles) value files"]
    if let manifestProblem { lines.append("manifest: \(manifestProblem)") }
    if !missingFiles.isEmpty { lines.append("\(missingFiles.count) rows name a missing file: \(Self.list(missingFiles))") }
    if !wrongSizeFiles.isEmpty { lines.append("\(wrongSizeFiles.count) rows name a file of the wrong length: \(Self.list(wrongSizeFiles))") }
    if !wrongSizeRows.isEmpty { lines.append("\(wrongSizeRows.count) inline values of the wrong length: \(Self.list(wrongSizeRows))") }
    if !orphanFiles.isEmpty { lines.append("\(orphanFiles.count) files no row names: \(Self.list(orphanFiles))") }
    lines += actions
    if !lostKeys.isEmpty { lines.append("lost \(lostKeys.count) values: \(Self.list(lostKeys))") }
    return lines.joined(separator: "\n")
  }

  static func list(_ items: [String]) -> String {
    items.prefix(5).joined(separator: ", ") + (items.count > 5 ? ", …" : "")
  }
}

extension DiskStore {
  /// Verifies the store in `directory`: SQLite's quick check, every row's
  /// file present with the right length, inline lengths, no orphan files.
  /// With `repair`: a manifest SQLite cannot read is moved aside
  /// (`manifest.sqlite.corrupt-<time>`) and rebuilt from the value files
  /// whose header and checksum verify; rows without their file are dropped;
  /// orphan files are removed (or, when a new manifest was built, adopted).
  public static func check(directory: String, repair: Bool = false) throws(DiskError) -> DiskCheckReport {
    var report = DiskCheckReport()
    try FileLayer.ensureDirectory(directory)
    let manifest = directory + "/manifest.sqlite"
    let data = directory + "/data"
    let dataFiles = Set(FileLayer.list(data))
    report.valueFiles = dataFiles.filter { !$0.hasPrefix(".tmp-") }.count

    // The manifest itself.
    var rows: [(key: String, filename: String?, size: Int64, inlineLength: Int64?)] = []
    do {
      guard FileLayer.size(manifest) != nil || dataFiles.isEmpty else {
        throw DiskError.manifest(path: manifest, reason: "missing while data files exist", code: 0)
      }
      let db = try SQLiteDatabase(path: manifest)
      defer { db.close() }
      let verdict = try db.with("PRAGMA quick_check") { (s) throws(DiskError) in try s.step() ? s.text(0) ?? "" : "" }
      guard verdict == "ok" else { throw DiskError.manifest(path: manifest, reason: verdict, code: 11) }
      try DiskStore.prepareSchema(db)
      rows = try db.with("SELECT key, filename, size, length(inline_data) FROM manifest ORDER BY key") {
        (s) throws(DiskError) in
        var out: [(String, String?, Int64, Int64?)] = []
        while try s.step() { out.append((s.text(0) ?? "", s.text(1), s.int64(2), s.isNull(3) ? nil : s.int64(3))) }
        return out
      }
    } catch {
      report.manifestProblem = "cannot be read (\(error))"
      if repair { try rebuildManifest(directory: directory, report: &report) }
      return report
    }
    report.rows = rows.count

    var referenced = Set<String>()
    var badKeys: [String] = []
    for row in rows {
      if let name = row.filename {
        referenced.insert(name)
        let expected = DataFileHeader.fileLength(keyLength: row.key.utf8.count, valueLength: row.size)
        guard let length = FileLayer.size(data + "/" + name) else {
          report.missingFiles.append(row.key)
          badKeys.append(row.key)
          continue
        }
        if length != expected {
          report.wrongSizeFiles.append(row.key)
          badKeys.append(row.key)
        }
      } else if (row.inlineLength ?? 0) != row.size {
        report.wrongSizeRows.append(row.key)
        badKeys.append(row.key)
      }
    }
    report.orphanFiles = dataFiles.subtracting(referenced).sorted()
    guard repair, !report.isConsistent else { return report }

    let store = try DiskStore(directory: directory)  // sweeps orphans when alone
    defer { store.close() }
    for key in badKeys { try store.removeValue(forKey: key) }
    if !badKeys.isEmpty {
      report.actions.append("removed \(badKeys.count) rows whose value was missing or damaged")
      report.lostKeys += badKeys
    }
    try store.sweepOrphans()
    if !report.orphanFiles.isEmpty { report.actions.append("removed \(report.orphanFiles.count) orphan files") }
    return report
  }

  /// Moves an unreadable manifest aside and builds a new one from the value
  /// files that verify; files that do not are moved to the trash.
  static func rebuildManifest(directory: String, report: inout DiskCheckReport) throws(DiskError) {
    let manifest = directory + "/manifest.sqlite"
    let aside = manifest + ".corrupt-\(now())"
    for suffix in ["", "-wal", "-shm"] where FileLayer.size(manifest + suffix) != nil {
      if rename(manifest + suffix, aside + suffix) != 0 { throw FileLayer.error(manifest + suffix, "move aside") }
    }
    report.actions.append("moved the unreadable manifest to \(aside)")
    // No sweep: every file is an orphan to a new manifest until adopted.
    let store = try DiskStore(directory: directory, inlineThreshold: DiskStore.filesOnly, sweep: false)
    defer { store.close() }
    var adopted = 0
    var discarded: [String] = []
    for name in FileLayer.list(store.dataPath) {
      let path = store.dataPath + "/" + name
      guard !name.hasPrefix(".tmp-"), let bytes = try? FileLayer.read(path), let (key, value) = DataFileHeader.parse(bytes),
        !key.isEmpty
      else {
        discarded.append(name)
        try? store.files.rename(path, store.trashPath + "/" + name)
        continue
      }
      var info = stat()
      let mtime = stat(path, &info) == 0 ? Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec) : now()
      try store.database.run(
        """
        INSERT INTO entries (key, filename, size, modification_time, last_access_time) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET filename = excluded.filename, size = excluded.size,
          modification_time = excluded.modification_time, last_access_time = excluded.last_access_time
        """
      ) { s in
        s.bind(1, key)
        s.bind(2, name)
        s.bind(3, Int64(value.count))
        s.bind(4, mtime)
        s.bind(5, mtime)
      }
      adopted += 1
    }
    report.rows = adopted
    report.actions.append("rebuilt the manifest from \(adopted) verified value files")
    if !discarded.isEmpty {
      report.actions.append("moved \(discarded.count) unverifiable files to trash/")
      report.lostKeys.append(contentsOf: discarded.map { "file " + $0 })
    }
    report.lostKeys.append("every value kept inline in the old manifest (values up to the inline threshold)")
  }
}

extension DiskStore {
  /// Opens the manifest on a connection of its own, takes the write lock
  /// (`BEGIN IMMEDIATE`), calls `onHeld`, sleeps, and commits: how tests
  /// play a second process that keeps the database busy.
  public static func holdWriteLock(directory: String, milliseconds: Int, onHeld: () -> Void) throws(DiskError) {
    let db = try SQLiteDatabase(path: directory + "/manifest.sqlite")
    defer { db.close() }
    try db.execute("BEGIN IMMEDIATE")
    onHeld()
    usleep(useconds_t(milliseconds * 1000))
    try db.execute("COMMIT")
  }
}
