import CSQLite

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
/// - a row never points to a missing or partial file: a value file is written
///   under a temporary name and renamed, and only then is the row written;
///   each write of a key gets a new file name, so a replaced value's file is
///   never overwritten in place (it is deleted after the row moved on);
/// - a killed process leaves at most orphan files, which the next owner
///   sweeps when it opens the store;
/// - every value file carries a header (key, length, checksum), so a lost
///   manifest can be rebuilt from the files (``DiskStore/check(directory:repair:)``);
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
    public var key: String
    public var size: Int64
    /// Nanoseconds since the Unix epoch.
    public var modificationTime: Int64
    public var lastAccessTime: Int64
    public var isInline: Bool
  }

  public let directory: String
  public let inlineThreshold: Int
  let database: SQLiteDatabase
  var files = FileLayer()
  let lockFD: Int32
  /// Access times of reads not yet written (flushed in batches).
  var pendingAccess: [String: Int64] = [:]
  static let accessBatch = 256

  var manifestPath: String { directory + "/manifest.sqlite" }
  var dataPath: String { directory + "/data" }
  var trashPath: String { directory + "/trash" }

  /// Opens (or creates) the store in `directory`. When no other process has
  /// it open, orphan and temporary files are swept and the trash emptied.
  public convenience init(directory: String, inlineThreshold: Int = DiskStore.defaultInlineThreshold) throws(DiskError) {
    try self.init(directory: directory, inlineThreshold: inlineThreshold, sweep: true)
  }

  init(directory: String, inlineThreshold: Int, sweep: Bool) throws(DiskError) {
    self.directory = directory
    self.inlineThreshold = max(0, inlineThreshold)
    try FileLayer.ensureDirectory(directory)
    try FileLayer.ensureDirectory(directory + "/data")
    try FileLayer.ensureDirectory(directory + "/trash")
    let fd = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw FileLayer.error(directory + "/lock", "open") }
    lockFD = fd
    do {
      database = try SQLiteDatabase(path: directory + "/manifest.sqlite")
      try Self.prepareSchema(database)
    } catch {
      Glibc.close(fd)
      throw error
    }
    // Alone with the store: sweep what a killed owner left behind.
    if sweep && flock(fd, LOCK_EX | LOCK_NB) == 0 {
      defer { flock(fd, LOCK_SH) }
      try sweepOrphans()
      emptyTrash(inBackground: false)
    } else {
      flock(fd, LOCK_SH)
    }
  }

  deinit { close() }

  /// The manifest's layout version (`PRAGMA user_version`). Version 1 was
  /// one `manifest` table with the inline bytes in each row.
  static let schemaVersion: Int64 = 2

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
    CREATE TABLE inline_values (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
    CREATE TRIGGER entries_delete AFTER DELETE ON entries BEGIN
      DELETE FROM inline_values WHERE id = old.id;
    END;
    CREATE VIEW manifest AS
      SELECT e.key, e.filename, e.size, v.data AS inline_data, e.modification_time,
        e.last_access_time, e.extended_data
      FROM entries e LEFT JOIN inline_values v ON v.id = e.id;
    PRAGMA user_version = 2;
    """

  static func prepareSchema(_ db: SQLiteDatabase) throws(DiskError) {
    try db.execute("PRAGMA journal_mode = WAL")
    try db.execute("PRAGMA synchronous = NORMAL")
    // Debian builds SQLite with secure_delete on: every freed page is zeroed
    // and written, which made deleting a 64 KiB inline value cost 6 times
    // more than unlinking its file. FAST still zeroes what it can without
    // extra writes; a removed file's blocks are not zeroed either.
    try db.execute("PRAGMA secure_delete = FAST")
    func version() throws(DiskError) -> Int64 {
      let version = try db.with("PRAGMA user_version") { (s) throws(DiskError) in try s.step() ? s.int64(0) : 0 }
      guard version <= schemaVersion else {
        throw .manifest(
          path: db.path,
          reason: "layout version \(version) is newer than this EvictionLab reads (\(schemaVersion)); update EvictionLab",
          code: 0)
      }
      return version
    }
    if try version() == schemaVersion { return }
    try db.transaction { () throws(DiskError) in
      // Another process may have laid it out while this one waited for the lock.
      guard try version() < schemaVersion else { return }
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

  /// Writes pending access times and closes the manifest.
  public func close() {
    guard database.handle != nil else { return }
    try? flushAccessTimes()
    database.close()
    Glibc.close(lockFD)
  }

  static func now() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  // MARK: Values

  /// Stores `value` under `key` (replacing any earlier value).
  public func set(_ value: [UInt8], forKey key: String, extendedData: [UInt8]? = nil) throws(DiskError) {
    guard !key.isEmpty else { throw .emptyKey }
    guard database.handle != nil else { throw .closed }
    let time = Self.now()
    var filename: String? = nil
    if value.count > inlineThreshold || (inlineThreshold == Self.filesOnly && !value.isEmpty) {
      let name = Self.fileName(forKey: key)
      let temporary = dataPath + "/.tmp-" + name
      try files.write(temporary, [DataFileHeader.encode(key: key, value: value), value])
      do { try files.rename(temporary, dataPath + "/" + name) } catch {
        try? files.remove(temporary)
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
          try database.run("INSERT OR REPLACE INTO inline_values (id, data) VALUES (?, ?)") { s in
            s.bind(1, id)
            s.bind(2, value)
          }
        } else if old != nil {  // it may have been inline before
          try database.run("DELETE FROM inline_values WHERE id = ?") { $0.bind(1, id) }
        }
        return old?.filename
      }
    } catch {
      // The row did not move: the new file is an orphan; remove it now.
      if let filename { try? files.remove(dataPath + "/" + filename) }
      throw error
    }
    pendingAccess[key] = nil
    if let previous, previous != filename { try? files.remove(dataPath + "/" + previous) }
  }

  /// The value stored under `key`, or nil. A hit's access time is recorded
  /// (written in batches).
  public func value(forKey key: String) throws(DiskError) -> [UInt8]? {
    guard !key.isEmpty else { throw .emptyKey }
    guard database.handle != nil else { throw .closed }
    let row: (filename: String?, size: Int64, inline: [UInt8]?)? = try database.with(
      "SELECT e.filename, e.size, v.data FROM entries e LEFT JOIN inline_values v ON v.id = e.id WHERE e.key = ?",
      bind: { $0.bind(1, key) }
    ) { (s) throws(DiskError) in
      try s.step() ? (s.text(0), s.int64(1), s.blob(2)) : nil
    }
    guard let row else { return nil }
    let value: [UInt8]
    if let name = row.filename {
      let path = dataPath + "/" + name
      guard let bytes = try DataFileHeader.readValue(path, key: key) else {
        throw .corruptFile(path: path, reason: "the manifest lists this file for key '\(key)' but it is missing")
      }
      value = bytes
    } else {
      value = row.inline ?? []
    }
    guard Int64(value.count) == row.size else {
      throw .corruptFile(path: manifestPath, reason: "key '\(key)' holds \(value.count) bytes, its row says \(row.size)")
    }
    pendingAccess[key] = Self.now()
    if pendingAccess.count >= Self.accessBatch { try flushAccessTimes() }
    return value
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
    if let name = removed.filename { try? files.remove(dataPath + "/" + name) }
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
    let bin = trashPath + "/data-\(Self.now())"
    try files.rename(dataPath, bin)
    try FileLayer.ensureDirectory(dataPath)
    emptyTrash(inBackground: true)
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

  /// Removes temporary files and files no row names.
  func sweepOrphans() throws(DiskError) {
    let referenced = try referencedFiles()
    for name in FileLayer.list(dataPath) where !referenced.contains(name) {
      try? files.remove(dataPath + "/" + name)
    }
  }

  func referencedFiles() throws(DiskError) -> Set<String> {
    try database.with("SELECT filename FROM entries WHERE filename IS NOT NULL") { (s) throws(DiskError) in
      var names = Set<String>()
      while try s.step() { if let name = s.text(0) { names.insert(name) } }
      return names
    }
  }

  func emptyTrash(inBackground: Bool) {
    let trash = trashPath
    let work = {
      for name in FileLayer.list(trash) { FileLayer.removeTree(trash + "/" + name) }
    }
    if inBackground {
      var thread = pthread_t()
      let box = Unmanaged.passRetained(TrashJob(work)).toOpaque()
      pthread_create(&thread, nil, { raw in
        Unmanaged<TrashJob>.fromOpaque(raw!).takeRetainedValue().work()
        return nil
      }, box)
      pthread_detach(thread)
    } else {
      work()
    }
  }

  final class TrashJob {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
  }
}

/// The header of every value file: magic `EVLD`, a version byte, key length
/// (u32), value length (u64), the value's checksum (u64), then the key; the
/// value follows. Little-endian. Reads verify the magic, key and length; the
/// checksum is verified when a manifest is rebuilt from files. Version 2
/// (written now) uses ``checksum(_:)``; version 1 files, with
/// ``checksumVersion1(_:)``, are still read.
enum DataFileHeader {
  static let magic: [UInt8] = Array("EVLD".utf8)
  static let version: UInt8 = 2
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
    guard raw.count >= fixedLength, raw.prefix(4).elementsEqual(magic), raw[4] == 1 || raw[4] == 2 else { return nil }
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
      let sum = header.version == 1 ? checksumVersion1(value) : checksum(value)
      guard sum == header.checksum else { return nil }
    }
    return (String(decoding: bytes[fixedLength..<fixedLength + header.keyLength], as: UTF8.self), value)
  }

  /// The value in the file at `path`, which must hold `key`: the header is
  /// read and checked first, then the value straight into its array (one
  /// copy, where reading the whole file and slicing it took two). Nil when
  /// the file is missing.
  static func readValue(_ path: String, key: String) throws(DiskError) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw FileLayer.error(path, "open")
    }
    defer { Glibc.close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw FileLayer.error(path, "stat") }
    let keyBytes = key.utf8
    let headerLength = fixedLength + keyBytes.count
    let header = try FileLayer.readArray(fd, count: headerLength, at: 0, path: path)
    let damaged = DiskError.corruptFile(path: path, reason: "the value file is damaged (bad header or length)")
    guard let fields = header.withUnsafeBytes({ fields($0) }) else { throw damaged }
    guard fields.keyLength == keyBytes.count, header[fixedLength...].elementsEqual(keyBytes) else {
      let stored = try FileLayer.readArray(fd, count: min(fields.keyLength, 1024), at: fixedLength, path: path)
      throw .corruptFile(path: path, reason: "the value file holds key '\(String(decoding: stored, as: UTF8.self))', not '\(key)'")
    }
    guard Int64(headerLength) + Int64(clamping: fields.valueLength) == Int64(info.st_size) else { throw damaged }
    let count = Int(fields.valueLength)
    let value = try FileLayer.readArray(fd, count: count, at: headerLength, path: path)
    guard value.count == count else {
      throw .corruptFile(path: path, reason: "the value file ends early (\(value.count) of \(count) bytes)")
    }
    return value
  }

  static func fileLength(keyLength: Int, valueLength: Int64) -> Int64 {
    Int64(fixedLength + keyLength) + valueLength
  }
}
