import EvictionRun

#if canImport(Glibc)
  import Glibc
#endif

/// What `evlab disk check` found in a store and, with repair, what it did.
public struct DiskCheckReport: Sendable, Equatable {
  /// Rows in the manifest.
  public var rows = 0
  /// Value files in `data/` that rows name.
  public var valueFiles = 0
  /// Whether values were read and verified against their checksums (not
  /// with `quick`, which compares lengths only).
  public var verifiedValues = false
  /// Inline values that carry no checksum (written before layout 3, and
  /// migrated): only their lengths could be compared, so they are not
  /// counted as verified.
  public var unverifiedValues: [String] = []
  /// Keys whose row names a file that is missing or of the wrong length.
  public var missingFiles: [String] = []
  /// Keys whose value file is of another length than the row says.
  public var wrongSizeFiles: [String] = []
  /// Keys whose inline value's length differs from the row's size.
  public var wrongSizeRows: [String] = []
  /// Values that fail verification: `key (file): reason`.
  public var corruptValues: [String] = []
  /// Keys whose row names a file this store never writes (a path, say):
  /// corruption; the name is never opened, renamed or deleted.
  public var invalidNames: [String] = []
  /// Files of this store's in `data/` that no row names (temporary files included).
  public var orphanFiles: [String] = []
  /// Files in `data/` this store did not write: reported and left where they are.
  public var foreignFiles: [String] = []
  /// SQLite's own verdict, or why the manifest cannot be read (one line).
  public var manifestProblem: String? = nil
  /// Whether the manifest's rows could not be read at all, so no row and
  /// no value was checked (``rows`` is then 0 for want of reading, not
  /// because the store is empty).
  public var rowsUnread = false
  /// Every finding of SQLite's integrity check, one a line (`--verbose`).
  public var manifestDetail: [String] = []
  /// With repair: what was done, one line each.
  public var actions: [String] = []
  /// With repair: the keys whose values could not be saved.
  public var lostKeys: [String] = []
  /// With repair: values lost that cannot be counted (inline values of a
  /// manifest that cannot be read), said in words.
  public var lostUncounted: String? = nil

  /// Whether the store was consistent when checked (before any repair).
  /// Foreign files do not make a store inconsistent: they are not its own.
  public var isConsistent: Bool {
    missingFiles.isEmpty && wrongSizeFiles.isEmpty && wrongSizeRows.isEmpty && corruptValues.isEmpty
      && invalidNames.isEmpty && orphanFiles.isEmpty && manifestProblem == nil
  }

  /// The report in lines, as `evlab disk check` prints it.
  public var summary: String {
    var lines = [
      rowsUnread
        ? "no rows could be read, so no value was checked; \(valueFiles) value files in data/"
        : "\(rows) rows, \(valueFiles) value files"
          + (!verifiedValues
            ? ", lengths compared (\(Setting.quick))"
            : unverifiedValues.isEmpty
              ? ", every value verified"
              : ", every value verified but \(unverifiedValues.count) inline "
                + (unverifiedValues.count == 1 ? "value that carries" : "values that carry")
                + " no checksum (written before layout 3; lengths compared): \(Self.list(unverifiedValues))")
    ]
    if let manifestProblem { lines.append("manifest: \(manifestProblem)") }
    if !missingFiles.isEmpty {
      lines.append("\(missingFiles.count) rows name a missing file: \(Self.list(missingFiles))")
    }
    if !wrongSizeFiles.isEmpty {
      lines.append("\(wrongSizeFiles.count) rows name a file of the wrong length: \(Self.list(wrongSizeFiles))")
    }
    if !wrongSizeRows.isEmpty {
      lines.append("\(wrongSizeRows.count) inline values of the wrong length: \(Self.list(wrongSizeRows))")
    }
    if !corruptValues.isEmpty {
      lines.append("\(corruptValues.count) values fail verification: \(Self.list(corruptValues))")
    }
    if !invalidNames.isEmpty {
      lines.append(
        "\(invalidNames.count) rows name a file this store never writes (left untouched): \(Self.list(invalidNames))")
    }
    if !orphanFiles.isEmpty { lines.append("\(orphanFiles.count) files no row names: \(Self.list(orphanFiles))") }
    if !foreignFiles.isEmpty {
      lines.append(
        "\(foreignFiles.count) files in data/ were not written by EvictionLab and are left alone: \(Self.list(foreignFiles))"
      )
    }
    lines += actions
    if !lostKeys.isEmpty { lines.append("lost \(lostKeys.count) values: \(Self.list(lostKeys))") }
    if let lostUncounted { lines.append("lost \(lostUncounted)") }
    return lines.joined(separator: "\n")
  }

  static func list(_ items: [String]) -> String {
    items.prefix(5).joined(separator: ", ") + (items.count > 5 ? ", …" : "")
  }
}

extension DiskStore {
  /// One manifest row as a check reads it.
  struct CheckedRow {
    var key: String
    var filename: String?
    var size: Int64
    var inlineLength: Int64?
    /// Whether the inline value matches its stored checksum (nil: not
    /// verified, or no checksum stored).
    var inlineVerified: Bool?
  }

  /// Verifies the store in `directory`: SQLite's integrity check, every
  /// row's value present, of the right length and (unless `quick`) matching
  /// its checksum, and no orphan files. A check holds the store's lock
  /// shared and writes nothing.
  ///
  /// With `repair`, under the lock held exclusive (waiting up to
  /// `waitSeconds` for other owners to close the store, else
  /// ``DiskError/inUse(path:processes:exclusive:)``): rows whose value is
  /// missing or damaged are dropped with their files, orphan files of the
  /// store's removed, and an unreadable or missing manifest moved aside and
  /// rebuilt from the value files that verify. Files the store did not write
  /// are never moved or deleted, names it does not generate are never used,
  /// and a folder that is not a store, or a store of a newer layout, is
  /// refused before anything is written.
  public static func check(
    directory: String, repair: Bool = false, quick: Bool = false, waitSeconds: Double = 0
  ) throws(DiskError) -> DiskCheckReport {
    guard !directory.isEmpty else { throw .invalidPath("the store's folder is an empty path; name a folder") }
    let kind = StoreFolder.kind(of: directory)
    if let error = StoreFolder.unusable(kind, directory) { throw error }
    switch kind {
    case .missing:
      throw .notAStore(path: directory, reason: "no such folder")
    case .empty, .foreign, .notAFolder, .unreadable:
      throw .notAStore(path: directory, reason: "it has no manifest.sqlite and lock")
    case .store, .storeWithoutManifest:
      break
    }
    let folder = try StoreFolder(path: directory, create: false, createFolders: repair, readOnly: !repair)
    // A check waits a while for a sweep or repair to finish; a repair waits only as long as asked.
    try folder.acquire(repair ? .exclusive : .shared, waitingUpTo: repair ? waitSeconds : max(waitSeconds, 30))
    defer { folder.release() }

    // Without write access SQLite reads the manifest file alone: writes still
    // in its write-ahead log would be missed, and the check would be wrong.
    var wal = stat()
    if !repair && !folder.isWritable
      && fstatat(folder.root, StoreFolder.manifestName + "-wal", &wal, AT_SYMLINK_NOFOLLOW) == 0 && wal.st_size > 0
    {
      throw .invalidPath(
        "\(directory): its write-ahead log (manifest.sqlite-wal) holds writes not yet in the manifest, which a user "
          + "who may not write the folder cannot read; check it as a user who may, or once a writer has closed the "
          + "store (closing folds the log in)")
    }
    var report = DiskCheckReport()
    report.verifiedValues = !quick
    let names = FileLayer.list(fd: folder.data)
    report.valueFiles = names.filter(ValueFileName.isValid).count

    let rows: [CheckedRow]
    do {
      rows = try readRows(folder, verifyInline: !quick, integrity: !quick, findings: &report.manifestDetail)
    } catch let error {
      if case .newerLayout = error { throw error }
      if case .permissionDenied = error { throw error }
      report.manifestProblem = "cannot be read (\(error))"
      report.rowsUnread = true
      if repair { try rebuildManifest(folder, report: &report) }
      return report
    }
    report.rows = rows.count

    var referenced = Set<String>()
    var bad: [(key: String, filename: String?)] = []
    for row in rows {
      guard let name = row.filename else {
        if (row.inlineLength ?? 0) != row.size {
          report.wrongSizeRows.append(row.key)
          bad.append((row.key, nil))
        } else if row.inlineVerified == false {
          report.corruptValues.append("\(row.key) (inline): fails its checksum")
          bad.append((row.key, nil))
        } else if !quick && row.inlineVerified == nil && row.size > 0 {
          report.unverifiedValues.append(row.key)
        }
        continue
      }
      guard ValueFileName.isValid(name) else {
        report.invalidNames.append("\(row.key) → '\(name)'")
        bad.append((row.key, nil))
        continue
      }
      referenced.insert(name)
      let path = folder.dataPath + "/" + name
      var info = stat()
      guard fstatat(folder.data, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
        report.missingFiles.append(row.key)
        bad.append((row.key, name))
        continue
      }
      guard (info.st_mode & S_IFMT) == S_IFREG else {
        let what = (info.st_mode & S_IFMT) == S_IFLNK ? "a symbolic link" : "not a regular file"
        report.corruptValues.append("\(row.key) (\(name)): is \(what)")
        bad.append((row.key, name))
        continue
      }
      let expected = DataFileHeader.fileLength(keyLength: row.key.utf8.count, valueLength: row.size)
      if Int64(info.st_size) != expected {
        report.wrongSizeFiles.append(row.key)
        bad.append((row.key, name))
        continue
      }
      if !quick, case .damaged(let reason) = try DataFileHeader.readValue(folder.data, name, path: path, key: row.key) {
        report.corruptValues.append("\(row.key) (\(name)): \(reason)")
        bad.append((row.key, name))
      }
    }
    for name in names where !referenced.contains(name) {
      if DataFileHeader.isOurs(folder.data, name) {
        report.orphanFiles.append(name)
      } else {
        report.foreignFiles.append(name)
      }
    }
    // Other owners may be mid-write (a file renamed in before its row
    // commits, a row gone before its file): look again, a few times on a
    // busy machine, and keep only what is still so.
    var wait: useconds_t = 20_000
    for _ in 0..<5 where !repair && !report.isConsistent && !folder.holders().isEmpty {
      usleep(wait)
      wait *= 2
      try settle(&report, folder: folder)
    }
    guard repair, !report.isConsistent || !report.unverifiedValues.isEmpty else { return report }

    let store = try DiskStore(folder: folder, inlineThreshold: DiskStore.defaultInlineThreshold)
    defer { store.close() }
    for (key, filename) in bad { try store.drop(key: key, filename: filename) }
    if !bad.isEmpty {
      report.actions.append("removed \(bad.count) rows whose value was missing or damaged")
      report.lostKeys += bad.map(\.key)
    }
    try store.sweepOrphans()
    if !report.orphanFiles.isEmpty { report.actions.append("removed \(report.orphanFiles.count) orphan files") }
    let sealed = try store.checksumUncheckedInlineValues()
    if sealed > 0 {
      report.actions.append(
        "computed checksums for \(sealed) inline values written before layout 3 (their lengths match; "
          + "later reads and checks verify them)")
    }
    return report
  }

  /// The manifest's rows, read on a read-only connection (so a check never
  /// migrates or writes), in any layout up to this code's.
  /// SQLite's integrity check reports every problem it finds (thousands of
  /// lines for a few damaged pages): the error says how many and the first;
  /// `findings` gets them all.
  static func readRows(
    _ folder: StoreFolder, verifyInline: Bool, integrity: Bool, findings: inout [String]
  ) throws(DiskError) -> [CheckedRow] {
    var info = stat()
    guard fstatat(folder.root, StoreFolder.manifestName, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
      throw DiskError.manifest(
        path: folder.manifestPath, reason: "missing while the store's lock and data/ exist", code: 0)
    }
    // SQLite reports a file it may not open as "unable to open" (14), which a
    // repair would take for damage and rebuild empty: a permission problem is
    // the user's to fix, never repaired.
    for suffix in ["", "-wal", "-shm"] {
      let name = StoreFolder.manifestName + suffix
      let fd = openat(folder.root, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
      if fd >= 0 {
        Glibc.close(fd)
      } else if errno == EACCES || errno == EPERM {
        throw DiskError.permissionDenied(path: folder.path + "/" + name)
      }
    }
    let db = try SQLiteDatabase(path: folder.manifestPath, readOnly: true, immutable: !folder.isWritable)
    defer { db.close() }
    let version = try layoutVersion(db)
    // The check itself may stop on damage it cannot walk past (SQLITE_CORRUPT):
    // what it found before, and where it stopped, are the detail.
    var lines: [String] = []
    do {
      try db.with(integrity ? "PRAGMA integrity_check" : "PRAGMA quick_check") { (s) throws(DiskError) in
        while try s.step() { lines += (s.text(0) ?? "").split(separator: "\n").map(String.init) }
      }
    } catch {
      let found = lines.filter { !$0.hasPrefix("*** in database ") }
      findings = found + ["the check stopped: \(error)"]
      guard let first = found.first else { throw error }
      throw DiskError.manifest(
        path: folder.manifestPath,
        reason: "\(found.count) problems, the first: \(first); then the check itself stopped on the damage", code: 11)
    }
    let verdict = lines.filter { !$0.hasPrefix("*** in database ") }
    guard verdict == ["ok"] else {
      findings = verdict
      let first = verdict.first ?? "no verdict"
      throw DiskError.manifest(
        path: folder.manifestPath,
        // SQLite stops at 100 findings.
        reason: verdict.count == 1
          ? first : "\(verdict.count)\(verdict.count >= 100 ? " or more" : "") problems, the first: \(first)",
        code: 11)
    }
    // Layouts 1 and 2 have no inline checksums; their `manifest` (a table, then a view) has the same columns.
    let sql =
      version == 3
      ? "SELECT e.key, e.filename, e.size, v.data, v.checksum FROM entries e LEFT JOIN inline_values v ON v.id = e.id ORDER BY e.key"
      : "SELECT key, filename, size, inline_data, NULL FROM manifest ORDER BY key"
    return try db.with(sql) { (s) throws(DiskError) in
      var out: [CheckedRow] = []
      while try s.step() {
        let inline = s.blob(3)
        var verified: Bool? = nil
        if verifyInline, let inline, !s.isNull(4) { verified = checksum(inline) == UInt64(bitPattern: s.int64(4)) }
        out.append(
          CheckedRow(
            key: s.text(0) ?? "", filename: s.text(1), size: s.int64(2), inlineLength: inline.map { Int64($0.count) },
            inlineVerified: verified))
      }
      return out
    }
  }

  /// Drops the problems another owner's writes in flight explain: reads the
  /// rows' file names again and keeps an orphan only while no row names it
  /// and it still exists, a missing file only while its row still names it.
  static func settle(_ report: inout DiskCheckReport, folder: StoreFolder) throws(DiskError) {
    var findings: [String] = []
    let now = try readRows(folder, verifyInline: false, integrity: false, findings: &findings)
    let names = Dictionary(now.map { ($0.key, $0.filename) }, uniquingKeysWith: { a, _ in a })
    let referenced = Set(now.compactMap(\.filename))
    report.orphanFiles.removeAll { name in
      var info = stat()
      return referenced.contains(name) || fstatat(folder.data, name, &info, AT_SYMLINK_NOFOLLOW) != 0
    }
    report.missingFiles.removeAll { key in
      guard let entry = names[key], let name = entry else { return true }
      var info = stat()
      return fstatat(folder.data, name, &info, AT_SYMLINK_NOFOLLOW) == 0
    }
  }

  /// Moves an unreadable manifest aside and builds a new one from the value
  /// files that verify. Files with the store's header that fail
  /// verification go to the trash; files without it are left alone.
  static func rebuildManifest(_ folder: StoreFolder, report: inout DiskCheckReport) throws(DiskError) {
    var info = stat()
    let salvage = salvageInlineValues(folder)
    if fstatat(folder.root, StoreFolder.manifestName, &info, AT_SYMLINK_NOFOLLOW) == 0 {
      let aside = try folder.moveManifestAside(suffix: "\(now())")
      report.actions.append("moved the unreadable manifest to \(aside)")
    }
    let store = try DiskStore(folder: folder, inlineThreshold: DiskStore.filesOnly)
    defer { store.close() }
    var adopted = 0
    var discarded: [String] = []
    for name in FileLayer.list(fd: folder.data) {
      guard DataFileHeader.isOurs(folder.data, name) else { continue }  // foreign: reported by the next check
      guard ValueFileName.isValid(name),
        let (key, value) = DataFileHeader.parseFile(folder.data, name, path: folder.dataPath + "/" + name), !key.isEmpty
      else {
        if ValueFileName.isTemporary(name) {
          try? store.files.remove(folder.data, name, path: folder.dataPath + "/" + name)
        } else {
          discarded.append(name)
          if renameat(folder.data, name, folder.trash, name) != 0 {
            try? store.files.remove(folder.data, name, path: name)
          }
        }
        continue
      }
      let mtime =
        fstatat(folder.data, name, &info, AT_SYMLINK_NOFOLLOW) == 0
        ? Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec) : now()
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
    // Two files of one key (a write killed between rename and removal): the
    // row keeps one; the other is an orphan now.
    try store.sweepOrphans()
    report.rows = adopted
    report.actions.append(
      "rebuilt the manifest from \(adopted) verified value files (their rows' modification and access times are "
        + "the files' modification times: the old order of reads is lost)")
    if !discarded.isEmpty {
      report.actions.append("moved \(discarded.count) value files that fail verification to trash/")
      report.lostKeys.append(contentsOf: discarded.map { "file " + $0 })
    }
    // Inline values lived in the manifest: put back every one that verifies
    // and has no newer copy in a file; count the rest as lost, by key.
    let adoptedKeys = try Set(store.entriesByAccessTime().map(\.key))
    let restored = try store.restoreInline(salvage.values.filter { !adoptedKeys.contains($0.key) })
    if restored > 0 {
      report.actions.append("restored \(restored) inline values from the old manifest (checksums verified)")
    }
    report.lostKeys.append(contentsOf: salvage.damaged.map { "\($0) (inline)" })
    switch salvage.readable {
    case .all: break
    case .some(let read) where salvage.unreadableRows > 0:
      report.lostUncounted =
        "the inline values of any of \(salvage.unreadableRows) rows the old manifest cannot read even by rowid "
        + "(it yielded \(read) inline rows around them)"
    case .some(let read):
      report.lostUncounted =
        "any inline values past the damage (the old manifest yielded \(read) inline rows before it failed; "
        + "how many more it held cannot be read)"
    case .none:
      report.lostUncounted =
        "every value kept inline in the old manifest (values up to the inline threshold; it cannot be read to count them)"
    }
    report.rows = try store.totals().count
  }

  /// What an unreadable manifest still yields: the inline values that read
  /// and verify against their checksums, the keys of those that do not, and
  /// how far reading got.
  struct Salvage {
    enum Readable {
      case all
      case some(Int)
      case none
    }
    var values: [DiskStore.InlineRow] = []
    var damaged: [String] = []
    var readable = Readable.none
    /// Rows of the entries table that could not be read even by rowid.
    var unreadableRows = 0
  }

  static func salvageInlineValues(_ folder: StoreFolder) -> Salvage {
    guard let db = try? SQLiteDatabase(path: folder.manifestPath, readOnly: true) else { return Salvage() }
    defer { db.close() }
    guard let version = try? layoutVersion(db) else { return Salvage() }
    return version == 3 ? salvageByRowID(db) : salvageByScan(db)
  }

  /// The rowids looked up one by one past the point where a scan of the
  /// entries stops: a damaged page costs its own rows, not every later one.
  static let probedRowIDs: Int64 = 1 << 22

  /// Layout 3: the inline rows' keys come from `entries`, scanned in rowid
  /// order and, where the scan stops at a damaged page, looked up rowid by
  /// rowid after it; each value is then looked up by its rowid in
  /// `inline_values` and checked against its checksum. A damaged page of
  /// values loses the values on it, each named by its key; a damaged page of
  /// entries loses the rows on it, counted.
  static func salvageByRowID(_ db: SQLiteDatabase) -> Salvage {
    struct Row {
      var id: Int64
      var key: String
      var size: Int64
      var modificationTime: Int64
      var lastAccessTime: Int64
      var extendedData: [UInt8]?
    }
    func row(_ s: SQLiteDatabase.Statement) -> Row {
      Row(
        id: s.int64(0), key: s.text(1) ?? "", size: s.int64(3), modificationTime: s.int64(4),
        lastAccessTime: s.int64(5), extendedData: s.blob(6))
    }
    let columns = "id, key, filename, size, modification_time, last_access_time, extended_data"
    var rows: [Row] = []
    var lastID: Int64 = 0
    var salvage = Salvage()
    do {
      try db.with("SELECT \(columns) FROM entries ORDER BY id") { (s) throws(DiskError) in
        while try s.step() {
          lastID = s.int64(0)
          if s.isNull(2) { rows.append(row(s)) }
        }
      }
      salvage.readable = .all
    } catch {
      // Past the damage, each rowid alone, up to the largest the table's right edge gives.
      let largest = try? db.with("SELECT max(id) FROM entries") { (s) throws(DiskError) in
        try s.step() ? s.int64(0) : 0
      }
      guard let largest else {
        salvage.readable = rows.isEmpty ? .none : .some(rows.count)
        return lookUpValues(of: rows, in: db, into: salvage)
      }
      var unreadable = 0
      var id = lastID + 1
      while id <= min(largest, lastID + probedRowIDs) {
        do {
          try db.with("SELECT \(columns) FROM entries WHERE id = ?", bind: { $0.bind(1, id) }) {
            (s) throws(DiskError) in
            if try s.step(), s.isNull(2) { rows.append(row(s)) }
          }
        } catch {
          unreadable += 1
        }
        id += 1
      }
      salvage.unreadableRows = unreadable + Int(max(0, largest - lastID - probedRowIDs))
      salvage.readable = salvage.unreadableRows == 0 ? .all : .some(rows.count)
    }
    return lookUpValues(of: rows, in: db, into: salvage)

    func lookUpValues(of rows: [Row], in db: SQLiteDatabase, into salvage: Salvage) -> Salvage {
      var salvage = salvage
      for row in rows where !row.key.isEmpty {
        let value = try? db.with("SELECT data, checksum FROM inline_values WHERE id = ?", bind: { $0.bind(1, row.id) })
        {
          (s) throws(DiskError) -> [UInt8]? in
          guard try s.step(), !s.isNull(1) else { return nil }
          let data = s.blob(0) ?? []
          return checksum(data) == UInt64(bitPattern: s.int64(1)) && Int64(data.count) == row.size ? data : nil
        }
        guard let value else {
          salvage.damaged.append(row.key)
          continue
        }
        salvage.values.append(
          DiskStore.InlineRow(
            key: row.key, value: value, modificationTime: row.modificationTime, lastAccessTime: row.lastAccessTime,
            extendedData: row.extendedData))
      }
      return salvage
    }
  }

  /// Layouts before 3: one scan of the manifest table, as far as it reads
  /// (its inline values carry no checksum, so none verifies).
  static func salvageByScan(_ db: SQLiteDatabase) -> Salvage {
    var salvage = Salvage()
    let sql = """
      SELECT key, size, inline_data, NULL, modification_time, last_access_time, extended_data
      FROM manifest WHERE filename IS NULL
      """
    var read = 0
    do {
      try db.with(sql) { (s) throws(DiskError) in
        while try s.step() {
          read += 1
          let key = s.text(0) ?? ""
          let data = s.blob(2) ?? []
          let verified = !s.isNull(3) && checksum(data) == UInt64(bitPattern: s.int64(3))
          if !key.isEmpty && verified && Int64(data.count) == s.int64(1) {
            salvage.values.append(
              DiskStore.InlineRow(
                key: key, value: data, modificationTime: s.int64(4), lastAccessTime: s.int64(5),
                extendedData: s.blob(6)))
          } else if !key.isEmpty {
            salvage.damaged.append(key)
          }
        }
      }
      salvage.readable = .all
    } catch {
      salvage.readable = read > 0 ? .some(read) : .none
    }
    return salvage
  }
}

extension DataFileHeader {
  /// The key and value of the value file `name`, verified (header, length,
  /// checksum); nil when it is not an intact value file.
  static func parseFile(_ directory: Int32, _ name: String, path: String) -> (key: String, value: [UInt8])? {
    let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { Glibc.close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
      let bytes = try? FileLayer.readArray(fd, count: Int(info.st_size), at: 0, path: path)
    else { return nil }
    return parse(bytes)
  }
}

extension DiskStore {
  /// Opens the manifest on a connection of its own, takes the write lock
  /// (`BEGIN IMMEDIATE`), calls `onHeld`, sleeps, and commits: how tests
  /// play a second process that keeps the database busy.
  package static func holdWriteLock(directory: String, milliseconds: Int, onHeld: () -> Void) throws(DiskError) {
    let db = try SQLiteDatabase(path: directory + "/manifest.sqlite")
    defer { db.close() }
    try db.execute("BEGIN IMMEDIATE")
    onHeld()
    usleep(useconds_t(milliseconds * 1000))
    try db.execute("COMMIT")
  }
}
