import CSQLite
import EvictionRun

#if canImport(Glibc)
  import Glibc
#endif

/// A key-value store on disk in the spirit of YYKVStorage: a SQLite manifest
/// (`manifest.sqlite`, WAL) and a `data/` folder. Values up to
/// `inlineThreshold` bytes live in the manifest; larger ones in a file of
/// their own. Not thread-safe: one owner at a time (a cache puts a lock on top).
///
/// The manifest keeps each entry's metadata (`entries`) apart from its inline
/// bytes (`inline_values`), and the `manifest` view joins them back into
/// YYKVStorage's columns (key, filename, size, inline_data,
/// modification_time, last_access_time, extended_data). SQLite rewrites a
/// whole row, blob included, to change one column, so with the bytes in the
/// row every batched access-time update re-read and re-wrote the values just
/// read: `evlab disk-bench` measured SQLite-only reads 2 to 4 times slower
/// that way (1 KiB to 256 KiB values).
///
/// What it guarantees, where YYKVStorage's users were bitten:
/// - it touches nothing outside its folder: files are reached by name under
///   the folder's descriptors (`StoreFolder`), a file name read from the
///   manifest is used only if it has the form the store generates, and
///   `data/` or `trash/` that are links are refused; a folder that is not
///   empty and not a store is refused too;
/// - a row never points to a missing or partial file: a value file is written
///   under a temporary name and renamed, and only then is the row written;
///   each write of a key gets a new file name, so a replaced value's file is
///   never overwritten in place (it is deleted after the row moved on);
/// - a killed process leaves at most orphan files, which the next owner
///   sweeps when it opens the store;
/// - every value file carries a header (key, length, checksum), inline
///   values a checksum column, and every read verifies it: a damaged value
///   is dropped and reported (``DiskError/corruptValue(key:path:reason:)``),
///   never returned; a lost manifest can be rebuilt from the files
///   (``DiskStore/check(directory:repair:quick:waitSeconds:)``);
/// - statements are reset right after use, reads batch their access-time
///   updates, `SQLITE_BUSY` waits (busy timeout) and never wipes anything;
/// - deleting everything moves `data/` into `trash/`, emptied in the background.
public final class DiskStore {
  /// YYKVStorage's threshold, measured on an iPhone 6 in 2015 (YYCache's
  /// documentation): 20 KiB.
  public static let defaultInlineThreshold = 20 * 1024
  /// Keeps every value in SQLite.
  public static let sqliteOnly = Int.max
  /// Keeps every non-empty value in a file.
  public static let filesOnly = 0

  /// One manifest row.
  public struct Entry: Sendable, Equatable {
    /// The value's key.
    public var key: String
    /// The value's length in bytes.
    public var size: Int64
    /// When the value was written: nanoseconds since the Unix epoch.
    public var modificationTime: Int64
    /// When the value was last read or written: nanoseconds since the Unix epoch.
    public var lastAccessTime: Int64
    /// Whether the value lives in the manifest (else in a file of its own).
    public var isInline: Bool
  }

  /// The store's folder.
  public let directory: String
  /// Values up to this many bytes live in the manifest; larger ones in files.
  public let inlineThreshold: Int
  let folder: StoreFolder
  let database: SQLiteDatabase
  var files = FileLayer()
  /// Access times of reads not yet written (flushed in batches).
  var pendingAccess: [String: Int64] = [:]
  static let accessBatch = 256

  var manifestPath: String { folder.manifestPath }
  var dataPath: String { folder.dataPath }
  var trashPath: String { folder.trashPath }

  /// Opens the store in `directory`, or creates one there when the folder is
  /// missing or empty. A folder that holds anything else is refused, and so
  /// are `data/` or `trash/` that are links. When no other process has the
  /// store open, what a killed owner left (temporary and orphan value files,
  /// the trash) is swept first.
  public convenience init(directory: String, inlineThreshold: Int = DiskStore.defaultInlineThreshold) throws(DiskError)
  {
    guard !directory.isEmpty else { throw .invalidPath("the store's folder is an empty path; name a folder") }
    let kind = StoreFolder.kind(of: directory)
    if let error = StoreFolder.unusable(kind, directory) { throw error }
    switch kind {
    case .missing, .empty, .store, .notAFolder, .unreadable:
      break
    case .storeWithoutManifest:
      throw .manifest(
        path: directory + "/" + StoreFolder.manifestName,
        reason: "missing while value files exist; rebuild it (\(Setting.repairStore) \(directory))", code: 0)
    case .foreign:
      throw .notAStore(
        path: directory,
        reason: "it is not empty and has no manifest.sqlite and lock; give the store a folder of its own")
    }
    let folder = try StoreFolder(path: directory, create: true)
    let alone = folder.tryAcquire(.exclusive)
    if !alone { try folder.acquire(.shared, waitingUpTo: 60) }
    try self.init(folder: folder, inlineThreshold: inlineThreshold)
    if alone {
      // Alone with the store: sweep what a killed owner left behind.
      try sweepOrphans()
      StoreFolder.emptyTrash(folder.trash)
      try folder.downgrade()
    }
  }

  /// A store over `folder`, whose lock the caller holds.
  init(folder: StoreFolder, inlineThreshold: Int) throws(DiskError) {
    self.folder = folder
    self.directory = folder.path
    self.inlineThreshold = max(0, inlineThreshold)
    database = try SQLiteDatabase(path: folder.manifestPath)
    try Self.prepareSchema(database)
  }

  deinit { close() }

  /// The manifest's layout version (`PRAGMA user_version`). Version 1 was
  /// one `manifest` table with the inline bytes in each row; version 2 split
  /// them into `entries` and `inline_values`; version 3 adds each inline
  /// value's checksum (NULL for values written by an earlier version).
  static let schemaVersion: Int64 = 3

  static let schema = """
    CREATE TABLE entries (
      id INTEGER PRIMARY KEY,
      key TEXT NOT NULL UNIQUE,
      filename TEXT,
      size INTEGER NOT NULL,
      modification_time INTEGER NOT NULL,
      last_access_time INTEGER NOT NULL,
      extended_data BLOB);
    CREATE INDEX entries_last_access ON entries(last_access_time);
    CREATE TABLE inline_values (id INTEGER PRIMARY KEY, data BLOB NOT NULL, checksum INTEGER);
    CREATE TRIGGER entries_delete AFTER DELETE ON entries BEGIN
      DELETE FROM inline_values WHERE id = old.id;
    END;
    CREATE VIEW manifest AS
      SELECT e.key, e.filename, e.size, v.data AS inline_data, e.modification_time,
        e.last_access_time, e.extended_data
      FROM entries e LEFT JOIN inline_values v ON v.id = e.id;
    PRAGMA user_version = 3;
    """

  static func prepareSchema(_ db: SQLiteDatabase) throws(DiskError) {
    try db.execute("PRAGMA journal_mode = WAL")
    try db.execute("PRAGMA synchronous = NORMAL")
    // Debian builds SQLite with secure_delete on: every freed page is zeroed
    // and written, which made deleting a 64 KiB inline value cost 6 times
    // more than unlinking its file. FAST still zeroes what it can without
    // extra writes; a removed file's blocks are not zeroed either.
    try db.execute("PRAGMA secure_delete = FAST")
    func version() throws(DiskError) -> Int64 { try layoutVersion(db) }
    if try version() == schemaVersion { return }
    try db.transaction { () throws(DiskError) in
      // Another process may have laid it out while this one waited for the lock.
      let found = try version()
      guard found < schemaVersion else { return }
      if found == 2 {
        try db.execute("ALTER TABLE inline_values ADD COLUMN checksum INTEGER; PRAGMA user_version = 3;")
        return
      }
      let hasVersion1 = try db.with("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'manifest'") {
        (s) throws(DiskError) in try s.step()
      }
      if hasVersion1 { try db.execute("ALTER TABLE manifest RENAME TO manifest_v1") }
      try db.execute(schema)
      if hasVersion1 {
        try db.execute(
          """
          INSERT INTO entries (id, key, filename, size, modification_time, last_access_time, extended_data)
            SELECT rowid, key, filename, size, modification_time, last_access_time, extended_data FROM manifest_v1;
          INSERT INTO inline_values (id, data)
            SELECT rowid, coalesce(inline_data, x'') FROM manifest_v1 WHERE filename IS NULL;
          DROP TABLE manifest_v1;
          """)
      }
    }
  }

  /// The manifest's layout version; a newer one than this code reads is an
  /// error (``DiskError/newerLayout(path:version:supported:)``), so nothing
  /// ever migrates, repairs or writes a store it does not understand.
  static func layoutVersion(_ db: SQLiteDatabase) throws(DiskError) -> Int64 {
    let version = try db.with("PRAGMA user_version") { (s) throws(DiskError) in try s.step() ? s.int64(0) : 0 }
    guard version <= schemaVersion else {
      throw .newerLayout(path: db.path, version: version, supported: schemaVersion)
    }
    return version
  }

  /// Writes pending access times, closes the manifest and lets go of the lock.
  public func close() {
    guard database.handle != nil else { return }
    try? flushAccessTimes()
    database.close()
    folder.release()
  }

  static func now() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  // MARK: Values

  /// Stores `value` under `key` (replacing any earlier value).
  public func setValue(_ value: [UInt8], forKey key: String, extendedData: [UInt8]? = nil) throws(DiskError) {
    guard !key.isEmpty else { throw .emptyKey }
    guard database.handle != nil else { throw .closed }
    let time = Self.now()
    var filename: String? = nil
    if value.count > inlineThreshold || (inlineThreshold == Self.filesOnly && !value.isEmpty) {
      let name = Self.fileName(forKey: key)
      let temporary = ".tmp-" + name
      try files.write(
        folder.data, temporary, path: dataPath + "/" + temporary,
        [DataFileHeader.encode(key: key, value: value), value])
      do { try files.rename(folder.data, temporary, name, path: dataPath + "/" + name) } catch {
        try? files.remove(folder.data, temporary, path: dataPath + "/" + temporary)
        throw error
      }
      filename = name
    }
    let previous: String?
    do {
      previous = try database.transaction { () throws(DiskError) in
        let old: (id: Int64, filename: String?)? = try database.with(
          "SELECT id, filename FROM entries WHERE key = ?", bind: { $0.bind(1, key) }
        ) { (s) throws(DiskError) in try s.step() ? (s.int64(0), s.text(1)) : nil }
        func bindRow(_ s: SQLiteDatabase.Statement) {
          if let filename { s.bind(1, filename) } else { s.bindNull(1) }
          s.bind(2, Int64(value.count))
          s.bind(3, time)
          s.bind(4, time)
          s.bind(5, extendedData)
        }
        let id: Int64
        if let old {
          try database.run(
            "UPDATE entries SET filename = ?, size = ?, modification_time = ?, last_access_time = ?, extended_data = ? WHERE id = ?"
          ) { s in
            bindRow(s)
            s.bind(6, old.id)
          }
          id = old.id
        } else {
          try database.run(
            "INSERT INTO entries (filename, size, modification_time, last_access_time, extended_data, key) VALUES (?, ?, ?, ?, ?, ?)"
          ) { s in
            bindRow(s)
            s.bind(6, key)
          }
          id = database.lastInsertedRowID
        }
        if filename == nil {
          try database.run("INSERT OR REPLACE INTO inline_values (id, data, checksum) VALUES (?, ?, ?)") { s in
            s.bind(1, id)
            s.bind(2, value)
            s.bind(3, Int64(bitPattern: checksum(value)))
          }
        } else if old != nil {  // it may have been inline before
          try database.run("DELETE FROM inline_values WHERE id = ?") { $0.bind(1, id) }
        }
        return old?.filename
      }
    } catch {
      // The row did not move: the new file is an orphan; remove it now.
      removeValueFile(filename)
      throw error
    }
    pendingAccess[key] = nil
    if previous != filename { removeValueFile(previous) }
  }

  /// A value kept in the manifest, with the times and extended data of its row.
  struct InlineRow {
    var key: String
    var value: [UInt8]
    var modificationTime: Int64
    var lastAccessTime: Int64
    var extendedData: [UInt8]?
  }

  /// Puts `rows` back in the manifest as they were (inline, with their own
  /// times, so the order of reads survives), in one transaction; a key that
  /// has a row already keeps it. Returns how many rows went in.
  func restoreInline(_ rows: [InlineRow]) throws(DiskError) -> Int {
    guard database.handle != nil else { throw .closed }
    var restored = 0
    try database.transaction { () throws(DiskError) in
      for row in rows {
        try database.run(
          """
          INSERT INTO entries (key, filename, size, modification_time, last_access_time, extended_data)
          VALUES (?, NULL, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING
          """
        ) { s in
          s.bind(1, row.key)
          s.bind(2, Int64(row.value.count))
          s.bind(3, row.modificationTime)
          s.bind(4, row.lastAccessTime)
          s.bind(5, row.extendedData)
        }
        guard database.changes > 0 else { continue }
        let id = database.lastInsertedRowID
        try database.run("INSERT INTO inline_values (id, data, checksum) VALUES (?, ?, ?)") { s in
          s.bind(1, id)
          s.bind(2, row.value)
          s.bind(3, Int64(bitPattern: checksum(row.value)))
        }
        restored += 1
      }
    }
    return restored
  }

  /// Computes the checksum of every inline value that has none (written
  /// before layout 3) and whose length matches its row; returns how many.
  /// What those values held before cannot be verified; from now on, every
  /// read and check verifies them.
  func checksumUncheckedInlineValues() throws(DiskError) -> Int {
    let unchecked: [(id: Int64, data: [UInt8])] = try database.with(
      "SELECT v.id, v.data FROM inline_values v JOIN entries e ON e.id = v.id WHERE v.checksum IS NULL AND length(v.data) = e.size"
    ) { (s) throws(DiskError) in
      var rows: [(Int64, [UInt8])] = []
      while try s.step() { rows.append((s.int64(0), s.blob(1) ?? [])) }
      return rows
    }
    try database.transaction { () throws(DiskError) in
      for (id, data) in unchecked {
        try database.run("UPDATE inline_values SET checksum = ? WHERE id = ?") { s in
          s.bind(1, Int64(bitPattern: checksum(data)))
          s.bind(2, id)
        }
      }
    }
    return unchecked.count
  }

  /// Removes a value file named by the manifest, if the name is one this
  /// store generates (any other is corruption, reported by `check`; it is
  /// never used as a path).
  func removeValueFile(_ name: String?) {
    guard let name, ValueFileName.isValid(name) else { return }
    try? files.remove(folder.data, name, path: dataPath + "/" + name)
  }

  /// The value stored under `key`, or nil. The value is verified against
  /// its checksum (and its file against its header); one that fails is
  /// dropped from the store and reported as
  /// ``DiskError/corruptValue(key:path:reason:)``, never returned. A hit's
  /// access time is recorded (written in batches).
  public func value(forKey key: String) throws(DiskError) -> [UInt8]? {
    guard !key.isEmpty else { throw .emptyKey }
    guard database.handle != nil else { throw .closed }
    let row: (filename: String?, size: Int64, inline: [UInt8]?, checksum: UInt64?)? = try database.with(
      "SELECT e.filename, e.size, v.data, v.checksum FROM entries e LEFT JOIN inline_values v ON v.id = e.id WHERE e.key = ?",
      bind: { $0.bind(1, key) }
    ) { (s) throws(DiskError) in
      try s.step() ? (s.text(0), s.int64(1), s.blob(2), s.isNull(3) ? nil : UInt64(bitPattern: s.int64(3))) : nil
    }
    guard let row else { return nil }
    let value: [UInt8]
    if let name = row.filename {
      guard ValueFileName.isValid(name) else {
        try drop(key: key, filename: nil)
        throw .corruptValue(
          key: key, path: manifestPath, reason: "is listed under '\(name)', a file name this store never writes")
      }
      let location = dataPath + "/" + name
      switch try DataFileHeader.readValue(folder.data, name, path: location, key: key) {
      case .value(let bytes):
        value = bytes
      case .missing:
        try drop(key: key, filename: name)
        throw .corruptValue(key: key, path: location, reason: "is missing (the manifest lists this file)")
      case .damaged(let reason):
        try drop(key: key, filename: name)
        throw .corruptValue(key: key, path: location, reason: reason)
      }
    } else {
      value = row.inline ?? []
      if let sum = row.checksum, sum != checksum(value) {
        try drop(key: key, filename: nil)
        throw .corruptValue(key: key, path: manifestPath, reason: "fails its checksum (inline)")
      }
    }
    guard Int64(value.count) == row.size else {
      try drop(key: key, filename: row.filename)
      let location = row.filename.map { dataPath + "/" + $0 } ?? manifestPath
      throw .corruptValue(key: key, path: location, reason: "holds \(value.count) bytes where its row says \(row.size)")
    }
    pendingAccess[key] = Self.now()
    if pendingAccess.count >= Self.accessBatch { try flushAccessTimes() }
    return value
  }

  /// Removes the row of a value that failed verification, and its file,
  /// unless another row names that file too (a corrupt manifest pointing
  /// two keys at one file): that row's value may be intact.
  func drop(key: String, filename: String?) throws(DiskError) {
    try database.run("DELETE FROM entries WHERE key = ?") { $0.bind(1, key) }
    pendingAccess[key] = nil
    guard let filename else { return }
    let shared = try database.with("SELECT 1 FROM entries WHERE filename = ?", bind: { $0.bind(1, filename) }) {
      (s) throws(DiskError) in try s.step()
    }
    if !shared { removeValueFile(filename) }
  }

  /// The earlier spelling of ``setValue(_:forKey:extendedData:)``.
  @available(*, deprecated, renamed: "setValue(_:forKey:extendedData:)")
  public func set(_ value: [UInt8], forKey key: String, extendedData: [UInt8]? = nil) throws(DiskError) {
    try setValue(value, forKey: key, extendedData: extendedData)
  }

  /// Whether `key` is stored (not an access).
  public func contains(_ key: String) throws(DiskError) -> Bool {
    try database.with("SELECT 1 FROM entries WHERE key = ?", bind: { $0.bind(1, key) }) { (s) throws(DiskError) in
      try s.step()
    }
  }

  /// Removes `key`; returns whether it was there.
  @discardableResult
  public func removeValue(forKey key: String) throws(DiskError) -> Bool {
    // One statement: the row, its inline value (trigger) and the name of its file.
    let removed: (found: Bool, filename: String?) = try database.with(
      "DELETE FROM entries WHERE key = ? RETURNING filename", bind: { $0.bind(1, key) }
    ) { (s) throws(DiskError) in
      let found = try s.step()
      return (found, found ? s.text(0) : nil)
    }
    pendingAccess[key] = nil
    removeValueFile(removed.filename)
    return removed.found
  }

  /// Removes every value: the rows first (one transaction), then `data/` is
  /// moved into `trash/` and emptied in the background.
  public func removeAll() throws(DiskError) {
    try database.transaction { () throws(DiskError) in
      try database.run("DELETE FROM inline_values")
      try database.run("DELETE FROM entries")
    }
    pendingAccess.removeAll()
    try folder.replaceData(trashingAs: "data-\(Self.now())-\(UInt32.random(in: 0...UInt32.max))")
    emptyTrashInBackground()
  }

  /// The number of values and the sum of their sizes.
  public func totals() throws(DiskError) -> (count: Int, bytes: Int64) {
    try database.with("SELECT count(*), coalesce(sum(size), 0) FROM entries") { (s) throws(DiskError) in
      _ = try s.step()
      return (Int(s.int64(0)), s.int64(1))
    }
  }

  /// Rows by last access, oldest first (what an LRU disk cache evicts).
  public func entriesByAccessTime(limit: Int = Int(Int32.max)) throws(DiskError) -> [Entry] {
    try flushAccessTimes()
    return try database.with(
      "SELECT key, size, modification_time, last_access_time, filename IS NULL FROM entries ORDER BY last_access_time, id LIMIT ?",
      bind: { $0.bind(1, Int64(limit)) }
    ) { (s) throws(DiskError) in
      var entries: [Entry] = []
      while try s.step() {
        entries.append(
          Entry(
            key: s.text(0) ?? "", size: s.int64(1), modificationTime: s.int64(2), lastAccessTime: s.int64(3),
            isInline: s.int64(4) != 0))
      }
      return entries
    }
  }

  /// The size in bytes of the value under `key` and when it was written
  /// (nanoseconds since the Unix epoch), or nil.
  public func metadata(forKey key: String) throws(DiskError) -> (size: Int64, modificationTime: Int64)? {
    try database.with("SELECT size, modification_time FROM entries WHERE key = ?", bind: { $0.bind(1, key) }) {
      (s) throws(DiskError) in try s.step() ? (s.int64(0), s.int64(1)) : nil
    }
  }

  /// The extended data stored with `key`.
  public func extendedData(forKey key: String) throws(DiskError) -> [UInt8]? {
    try database.with("SELECT extended_data FROM entries WHERE key = ?", bind: { $0.bind(1, key) }) {
      (s) throws(DiskError) in try s.step() ? s.blob(0) : nil
    }
  }

  /// Writes the batched access times (one transaction).
  public func flushAccessTimes() throws(DiskError) {
    guard !pendingAccess.isEmpty, database.handle != nil else { return }
    try database.transaction { () throws(DiskError) in
      for (key, time) in pendingAccess {
        try database.run("UPDATE entries SET last_access_time = ? WHERE key = ?") { s in
          s.bind(1, time)
          s.bind(2, key)
        }
      }
    }
    pendingAccess.removeAll()
  }

  /// Bytes the write-ahead log holds now (checkpoints keep it bounded).
  public var walBytes: Int64 { FileLayer.size(manifestPath + "-wal") ?? 0 }

  // MARK: Internals

  func filename(ofKey key: String) throws(DiskError) -> String? {
    try database.with("SELECT filename FROM entries WHERE key = ?", bind: { $0.bind(1, key) }) {
      (s) throws(DiskError) in try s.step() ? s.text(0) : nil
    }
  }

  /// 128 bits of the key (two FNV-1a bases) and a random generation, so each
  /// write of a key goes to a new file.
  static func fileName(forKey key: String) -> String {
    let bytes = Array(key.utf8)
    func hex(_ x: UInt64) -> String {
      let digits = String(x, radix: 16)
      return String(repeating: "0", count: 16 - digits.count) + digits
    }
    return hex(fnv1a(bytes)) + hex(fnv1a(bytes, basis: 0x6c62_272e_07bb_0142)) + "-"
      + hex(UInt64.random(in: 0...UInt64.max))
  }

  /// Removes temporary files and value files no row names. Only files this
  /// store wrote go: a name of its form and its header (an empty or cut-off
  /// temporary file counts); anything else in `data/` is foreign and stays.
  /// Call it only with the lock held exclusive: another owner's file is an
  /// orphan until its row commits.
  func sweepOrphans() throws(DiskError) {
    let referenced = try referencedFiles()
    for name in FileLayer.list(fd: folder.data) where !referenced.contains(name) {
      guard DataFileHeader.isOurs(folder.data, name) else { continue }
      try? files.remove(folder.data, name, path: dataPath + "/" + name)
    }
  }

  func referencedFiles() throws(DiskError) -> Set<String> {
    try database.with("SELECT filename FROM entries WHERE filename IS NOT NULL") { (s) throws(DiskError) in
      var names = Set<String>()
      while try s.step() { if let name = s.text(0) { names.insert(name) } }
      return names
    }
  }

  /// Empties the trash on a thread of its own, through a descriptor of its own.
  func emptyTrashInBackground() {
    let trash = dup(folder.trash)
    guard trash >= 0 else { return }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(
      TrashJob {
        StoreFolder.emptyTrash(trash)
        Glibc.close(trash)
      }
    ).toOpaque()
    pthread_create(
      &thread, nil,
      { raw in
        Unmanaged<TrashJob>.fromOpaque(raw!).takeRetainedValue().work()
        return nil
      }, box)
    pthread_detach(thread)
  }

  final class TrashJob {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
  }
}

/// The header of every value file: magic `EVLD`, a version byte, key length
/// (u32), value length (u64), the value's checksum (u64), then the key; the
/// value follows. Little-endian. Reads verify the magic, key, length and
/// checksum. Version 2
/// (written now) uses ``checksum(_:)``, a Fletcher sum fast enough to verify
/// every read; versions 2 (``checksumVersion2(_:)``) and 1
/// (``checksumVersion1(_:)``) are still read.
enum DataFileHeader {
  static let magic: [UInt8] = Array("EVLD".utf8)
  static let version: UInt8 = 3
  static let readableVersions: ClosedRange<UInt8> = 1...3
  static let fixedLength = 4 + 1 + 4 + 8 + 8

  struct Fields {
    var version: UInt8
    var keyLength: Int
    var valueLength: UInt64
    var checksum: UInt64
  }

  static func encode(key: String, value: [UInt8]) -> [UInt8] {
    let keyBytes = Array(key.utf8)
    var out = magic
    out.append(version)
    withUnsafeBytes(of: UInt32(keyBytes.count).littleEndian) { out.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt64(value.count).littleEndian) { out.append(contentsOf: $0) }
    withUnsafeBytes(of: checksum(value).littleEndian) { out.append(contentsOf: $0) }
    return out + keyBytes
  }

  /// The fixed fields at the start of `raw`, or nil when they are not a header.
  static func fields(_ raw: UnsafeRawBufferPointer) -> Fields? {
    guard raw.count >= fixedLength, raw.prefix(4).elementsEqual(magic), readableVersions.contains(raw[4]) else {
      return nil
    }
    func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
      T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
    return Fields(
      version: raw[4], keyLength: Int(load(5, UInt32.self)), valueLength: load(9, UInt64.self),
      checksum: load(17, UInt64.self))
  }

  /// The key and value of a whole file, verified (the checksum too with
  /// `verifyChecksum`); nil when it is not an intact value file.
  static func parse(_ bytes: [UInt8], verifyChecksum: Bool = true) -> (key: String, value: [UInt8])? {
    guard let header = bytes.withUnsafeBytes({ fields($0) }),
      fixedLength + header.keyLength <= bytes.count,
      UInt64(bytes.count - fixedLength - header.keyLength) == header.valueLength
    else { return nil }
    let value = Array(bytes[(fixedLength + header.keyLength)...])
    if verifyChecksum {
      guard sum(value, version: header.version) == header.checksum else { return nil }
    }
    return (String(decoding: bytes[fixedLength..<fixedLength + header.keyLength], as: UTF8.self), value)
  }

  /// What reading a value file found.
  enum Read {
    case value([UInt8])
    case missing
    /// Not an intact value file of the expected key; the reason says why.
    case damaged(String)
  }

  /// The value in the file `name` of the folder `directory`, which must
  /// hold `key`: the header is read and checked first, then the value
  /// straight into its array (one copy), then its checksum. A link is never
  /// followed. Throws only when the file cannot be read at all (I/O,
  /// permissions).
  static func readValue(_ directory: Int32, _ name: String, path: String, key: String) throws(DiskError) -> Read {
    let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return .missing }
      if errno == ELOOP { return .damaged("is a symbolic link, not a value file") }
      throw FileLayer.error(path, "open")
    }
    defer { Glibc.close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw FileLayer.error(path, "stat") }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return .damaged("is not a regular file") }
    let keyBytes = key.utf8
    let headerLength = fixedLength + keyBytes.count
    let header = try FileLayer.readArray(fd, count: headerLength, at: 0, path: path)
    guard let fields = header.withUnsafeBytes({ fields($0) }) else { return .damaged("has a damaged header") }
    guard fields.keyLength == keyBytes.count, header[fixedLength...].elementsEqual(keyBytes) else {
      let stored = try FileLayer.readArray(fd, count: min(fields.keyLength, 1024), at: fixedLength, path: path)
      return .damaged("is in a file that holds key '\(String(decoding: stored, as: UTF8.self))'")
    }
    guard Int64(headerLength) + Int64(clamping: fields.valueLength) == Int64(info.st_size) else {
      return .damaged(
        "has a file of the wrong length (\(info.st_size) bytes; its header says \(Int64(headerLength) + Int64(clamping: fields.valueLength)))"
      )
    }
    let count = Int(fields.valueLength)
    var sum = ValueChecksum()
    var failure: DiskError? = nil
    var read = 0
    let value = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      // In chunks that stay in the cache, each summed right after it is read
      // (version 3): one pass over memory instead of two.
      let chunk = fields.version == 3 ? 256 * 1024 : max(count, 1)
      let raw = UnsafeMutableRawBufferPointer(buffer)
      while read < count {
        let part = UnsafeMutableRawBufferPointer(rebasing: raw[read..<min(count, read + chunk)])
        let n: Int
        do throws(DiskError) { n = try FileLayer.readFully(fd, into: part, at: headerLength + read, path: path) } catch
        {
          failure = error
          break
        }
        if fields.version == 3 { sum.update(UnsafeRawBufferPointer(rebasing: part[..<n])) }
        read += n
        if n < part.count { break }
      }
      initialized = read
    }
    if let failure { throw failure }
    guard read == count else { return .damaged("ends early (\(read) of \(count) bytes)") }
    let expected = fields.version == 3 ? sum.finish() : Self.sum(value, version: fields.version)
    guard expected == fields.checksum else { return .damaged("fails its checksum") }
    return .value(value)
  }

  /// Whether the file `name` in `directory` is one this store wrote: a
  /// regular file with a value file's name and header, or a temporary file
  /// cut off before its header was complete.
  static func isOurs(_ directory: Int32, _ name: String) -> Bool {
    guard ValueFileName.isOurs(name) else { return false }
    var info = stat()
    guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      return false
    }
    let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { Glibc.close(fd) }
    guard let head = try? FileLayer.readArray(fd, count: fixedLength, at: 0, path: name) else { return false }
    if head.count >= 5 { return head.prefix(4).elementsEqual(magic) && readableVersions.contains(head[4]) }
    return ValueFileName.isTemporary(name) && magic.starts(with: head.prefix(4))
  }

  /// The checksum a header of `version` carries for `value`.
  static func sum(_ value: [UInt8], version: UInt8) -> UInt64 {
    switch version {
    case 1: checksumVersion1(value)
    case 2: checksumVersion2(value)
    default: checksum(value)
    }
  }

  static func fileLength(keyLength: Int, valueLength: Int64) -> Int64 {
    Int64(fixedLength + keyLength) + valueLength
  }
}
