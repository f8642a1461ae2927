import CSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// A SQLite connection for the manifest: WAL, a busy timeout, and prepared
/// statements kept for reuse and **reset right after each use**: a statement
/// left mid-step pins a WAL read snapshot, so checkpoints stall and the WAL
/// grows without bound (a fault of YYKVStorage's users).
final class SQLiteDatabase {
  let path: String
  private(set) var handle: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]

  /// Opens `path` (never through a symbolic link); `readOnly` neither
  /// creates nor writes the database. `immutable` (read-only) reads the file
  /// as it is, without the write-ahead log's shared memory, which a folder
  /// its user cannot write cannot hold: for a store no process can be writing.
  init(
    path: String, readOnly: Bool = false, immutable: Bool = false, busyTimeoutMilliseconds: Int32 = 10_000
  ) throws(DiskError) {
    self.path = path
    var db: OpaquePointer?
    let flags =
      (readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
      | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW | (immutable ? SQLITE_OPEN_URI : 0)
    let name = immutable ? Self.uri(path) + "?immutable=1" : path
    let rc = sqlite3_open_v2(name, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(db)
      throw .manifest(path: path, reason: message, code: rc)
    }
    handle = db
    sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
    sqlite3_extended_result_codes(db, 1)
  }

  deinit { close() }

  /// `path` as a `file:` URI: the characters a URI gives meaning escaped.
  static func uri(_ path: String) -> String {
    var out = "file:"
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x20, 0x7F...:
        out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
      default:
        out.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return out
  }

  func close() {
    for statement in statements.values { sqlite3_finalize(statement) }
    statements.removeAll()
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  var errorMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed" }

  func fail(_ code: Int32, _ what: String) -> DiskError {
    .manifest(path: path, reason: "\(what): \(errorMessage)", code: code)
  }

  /// Runs SQL without results (schema, pragmas, transactions).
  func execute(_ sql: String) throws(DiskError) {
    var error: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &error)
    if rc != SQLITE_OK {
      let message = error.map { String(cString: $0) } ?? errorMessage
      sqlite3_free(error)
      throw .manifest(path: path, reason: "\(sql.prefix(60)): \(message)", code: rc)
    }
  }

  /// The cached statement for `sql`, bound by `bind`, handed to `body`, and
  /// reset and cleared however `body` ends.
  func with<T>(
    _ sql: String, bind: (Statement) -> Void = { _ in }, _ body: (Statement) throws(DiskError) -> T
  ) throws(DiskError) -> T {
    let raw: OpaquePointer
    if let cached = statements[sql] {
      raw = cached
    } else {
      var prepared: OpaquePointer?
      let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
      guard rc == SQLITE_OK, let prepared else { throw fail(rc, "preparing \(sql.prefix(60))") }
      statements[sql] = prepared
      raw = prepared
    }
    let statement = Statement(raw: raw, database: self)
    defer {
      sqlite3_reset(raw)
      sqlite3_clear_bindings(raw)
    }
    bind(statement)
    return try body(statement)
  }

  /// Runs a statement that returns no rows.
  func run(_ sql: String, bind: (Statement) -> Void = { _ in }) throws(DiskError) {
    try with(sql, bind: bind) { (s) throws(DiskError) in try s.stepDone() }
  }

  var changes: Int { Int(sqlite3_changes(handle)) }
  var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`, so it takes
  /// the write lock up front and waits on the busy timeout rather than
  /// failing halfway); rolls back if `body` throws.
  func transaction<T>(_ body: () throws(DiskError) -> T) throws(DiskError) -> T {
    try run("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try run("COMMIT")
      return result
    } catch {
      try? run("ROLLBACK")
      throw error
    }
  }

  struct Statement {
    let raw: OpaquePointer
    let database: SQLiteDatabase

    func bind(_ index: Int32, _ text: String) { sqlite3_bind_text(raw, index, text, -1, csqlite_transient()) }
    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(raw, index, value) }
    func bindNull(_ index: Int32) { sqlite3_bind_null(raw, index) }
    func bind(_ index: Int32, _ bytes: [UInt8]?) {
      guard let bytes else { return bindNull(index) }
      _ = bytes.withUnsafeBytes {
        sqlite3_bind_blob64(
          raw, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), csqlite_transient())
      }
    }

    /// Advances; true when a row is available.
    func step() throws(DiskError) -> Bool {
      let rc = sqlite3_step(raw)
      if rc == SQLITE_ROW { return true }
      if rc == SQLITE_DONE { return false }
      throw database.fail(rc, "running \(String(cString: sqlite3_sql(raw)).prefix(60))")
    }

    func stepDone() throws(DiskError) {
      while try step() {}
    }

    func text(_ column: Int32) -> String? {
      guard let p = sqlite3_column_text(raw, column) else { return nil }
      return String(cString: p)
    }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    func blob(_ column: Int32) -> [UInt8]? {
      if isNull(column) { return nil }
      let count = Int(sqlite3_column_bytes(raw, column))
      guard count > 0, let p = sqlite3_column_blob(raw, column) else { return [] }
      return Array(UnsafeRawBufferPointer(start: p, count: count))
    }
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
