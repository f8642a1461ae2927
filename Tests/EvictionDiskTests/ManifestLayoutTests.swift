import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionDisk

/// The manifest's layout: metadata and inline bytes in separate tables, the
/// `manifest` view with YYKVStorage's columns, and stores of the first layout.
@Suite struct ManifestLayoutTests {
  /// A value file as version 1 wrote it (one-lane checksum).
  /// A manifest of the first layout in `dir`: one `manifest` table holding
  /// the inline bytes in each row, filled by `rows` (INSERT statements).
  static func writeVersionOneManifest(_ dir: String, rows: String) throws {
    let db = try SQLiteDatabase(path: dir + "/manifest.sqlite")
    defer { db.close() }
    try db.execute(
      """
      PRAGMA journal_mode = WAL;
      CREATE TABLE manifest (key TEXT PRIMARY KEY NOT NULL, filename TEXT, size INTEGER NOT NULL, inline_data BLOB,
        modification_time INTEGER NOT NULL, last_access_time INTEGER NOT NULL, extended_data BLOB);
      CREATE INDEX manifest_last_access ON manifest(last_access_time);
      """ + rows)
  }

  static func versionOneFile(key: String, value: [UInt8]) -> [UInt8] {
    var out = Array("EVLD".utf8) + [1]
    withUnsafeBytes(of: UInt32(key.utf8.count).littleEndian) { out.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt64(value.count).littleEndian) { out.append(contentsOf: $0) }
    withUnsafeBytes(of: checksumVersion1(value).littleEndian) { out.append(contentsOf: $0) }
    return out + Array(key.utf8) + value
  }

  @Test func theManifestViewShowsYYKVStoragesColumns() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: 100)
    try store.setValue(bytes(50, seed: 1), forKey: "small", extendedData: [9])
    try store.setValue(bytes(500, seed: 2), forKey: "large")
    store.close()
    let db = try SQLiteDatabase(path: dir + "/manifest.sqlite")
    defer { db.close() }
    let rows = try db.with(
      "SELECT key, filename, size, inline_data, modification_time, last_access_time, extended_data FROM manifest ORDER BY key"
    ) { (s) throws(DiskError) in
      var out: [(String, String?, Int64, [UInt8]?, [UInt8]?)] = []
      while try s.step() {
        #expect(s.int64(4) > 1_600_000_000_000_000_000 && s.int64(5) >= s.int64(4), "times are nanoseconds since 1970")
        out.append((s.text(0) ?? "", s.text(1), s.int64(2), s.blob(3), s.blob(6)))
      }
      return out
    }
    #expect(rows.count == 2)
    #expect(rows[0].0 == "large" && rows[0].1 != nil && rows[0].2 == 500 && rows[0].3 == nil)
    #expect(
      rows[1].0 == "small" && rows[1].1 == nil && rows[1].2 == 50 && rows[1].3 == bytes(50, seed: 1) && rows[1].4 == [9]
    )
    // Removing a row takes its inline bytes with it (the trigger), so nothing is left over.
    let reopened = try DiskStore(directory: dir, inlineThreshold: 100)
    #expect(try reopened.removeValue(forKey: "small"))
    #expect(
      try reopened.database.with("SELECT count(*) FROM inline_values") { (s) throws(DiskError) in
        _ = try s.step()
        return s.int64(0)
      } == 0)
  }

  @Test func aVersionOneStoreIsMigratedWithEveryValue() throws {
    let dir = try scratchStore()
    try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
    #expect(FileManager.default.createFile(atPath: dir + "/lock", contents: Data()))  // version 1 left it empty
    let fileValue = bytes(3000, seed: 5)
    let fileName = "0123456789abcdef0123456789abcdef-0000000000000001"
    try Data(Self.versionOneFile(key: "in-a-file", value: fileValue)).write(
      to: URL(fileURLWithPath: dir + "/data/" + fileName))
    try Self.writeVersionOneManifest(
      dir,
      rows: """
        INSERT INTO manifest VALUES ('inline', NULL, 3, x'010203', 10, 30, x'07');
        INSERT INTO manifest VALUES ('empty', NULL, 0, NULL, 10, 10, NULL);
        INSERT INTO manifest VALUES ('in-a-file', '\(fileName)', 3000, NULL, 10, 20, NULL);
        """)
    let store = try DiskStore(directory: dir)
    let entries = try store.entriesByAccessTime()
    #expect(entries.map(\.key) == ["empty", "in-a-file", "inline"], "access times carried over")
    #expect(entries.map(\.size) == [0, 3000, 3] && entries.map(\.isInline) == [true, false, true])
    #expect(try store.value(forKey: "inline") == [1, 2, 3])
    #expect(try store.extendedData(forKey: "inline") == [7])
    #expect(try store.value(forKey: "empty") == [])
    #expect(try store.value(forKey: "in-a-file") == fileValue, "version 1 value files are still read")
    store.close()
    let reopened = try DiskStore(directory: dir)
    #expect(
      try reopened.entriesByAccessTime().map(\.key) == ["inline", "empty", "in-a-file"], "in the order just read")
    let version = try reopened.database.with("PRAGMA user_version") { (s) throws(DiskError) in
      _ = try s.step()
      return s.int64(0)
    }
    #expect(version == DiskStore.schemaVersion)
    reopened.close()
    let report = try DiskStore.check(directory: dir)
    #expect(report.isConsistent)
    // The migrated inline value has no checksum: a check does not call it verified.
    #expect(report.unverifiedValues == ["inline"])
    #expect(!report.summary.contains("every value verified,") && report.summary.contains("1 inline value that carries"))
    let fresh = try scratchStore()
    let store2 = try DiskStore(directory: fresh, inlineThreshold: 100)
    try store2.setValue(bytes(50, seed: 3), forKey: "small")
    store2.close()
    let freshReport = try DiskStore.check(directory: fresh)
    #expect(freshReport.unverifiedValues.isEmpty && freshReport.summary.hasSuffix("every value verified"))
  }

  @Test func aNewerLayoutIsRefusedWithAClearError() throws {
    let dir = try scratchStore()
    try DiskStore(directory: dir).close()
    do {
      let db = try SQLiteDatabase(path: dir + "/manifest.sqlite")
      defer { db.close() }
      try db.execute("PRAGMA user_version = 99")
    }
    #expect {
      try DiskStore(directory: dir)
    } throws: { error in
      "\(error)".contains("newer EvictionLab (layout 99") && "\(error)".contains("upgrade EvictionLab")
    }
  }

  @Test func valueFilesOfEveryVersionVerifyAndDamageIsCaught() throws {
    let value = bytes(1000, seed: 3)
    let one = Self.versionOneFile(key: "k", value: value)
    var two = one
    two[4] = 2
    withUnsafeBytes(of: checksumVersion2(value).littleEndian) { two.replaceSubrange(17..<25, with: $0) }
    let three = DataFileHeader.encode(key: "k", value: value) + value
    #expect(one[4] == 1 && two[4] == 2 && three[4] == 3)
    for file in [one, two, three] { #expect(DataFileHeader.parse(file)?.value == value, "version \(file[4])") }
    #expect(Set([checksum(value), checksumVersion2(value), checksumVersion1(value)]).count == 3)
    for file in [one, two, three] {
      var damaged = file
      damaged[damaged.count - 500] ^= 0x40
      #expect(DataFileHeader.parse(damaged) == nil, "a flipped bit fails the checksum")
    }
    // Version 3 files are read in chunks, each summed as it arrives: the
    // streamed sum equals the whole one, at every chunk boundary and tail.
    let dir = try Scratch.directory("chunks").path
    let folder = open(dir, O_RDONLY | O_DIRECTORY)
    defer { close(folder) }
    for length in [0, 63, 64, 65, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 7, 600_001] {
      let big = bytes(length, seed: length)
      let name = "0123456789abcdef0123456789abcdef-\(String(format: "%016x", length))"
      try Data(DataFileHeader.encode(key: "big", value: big) + big).write(to: URL(fileURLWithPath: dir + "/" + name))
      guard case .value(let read) = try DataFileHeader.readValue(folder, name, path: name, key: "big") else {
        Issue.record("length \(length) did not verify")
        continue
      }
      #expect(read == big, "length \(length)")
    }
    // The lanes cover every byte: each single-byte change, and the tail, moves the sum.
    for length in [0, 7, 31, 32, 33, 100] {
      let base = bytes(length, seed: 1)
      for i in 0..<length {
        var changed = base
        changed[i] &+= 1
        #expect(checksum(changed) != checksum(base), "length \(length), byte \(i)")
      }
    }
  }

  @Test func aDamagedValueFileIsAnErrorNamingItNotAWrongValue() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: DiskStore.filesOnly)
    try store.setValue(bytes(4000, seed: 1), forKey: "cut")
    try store.setValue(bytes(4000, seed: 2), forKey: "swapped")
    try store.setValue(bytes(4000, seed: 3), forKey: "other")
    func path(_ key: String) throws -> String {
      dir + "/data/" + (try store.filename(ofKey: key) ?? "")
    }
    // One file cut short, one replaced by another key's file.
    let cut = try path("cut")
    try Data(try Data(contentsOf: URL(fileURLWithPath: cut)).prefix(1000)).write(to: URL(fileURLWithPath: cut))
    try FileManager.default.removeItem(atPath: try path("swapped"))
    try FileManager.default.copyItem(atPath: try path("other"), toPath: try path("swapped"))
    #expect {
      try store.value(forKey: "cut")
    } throws: { error in
      "\(error)".contains(cut) && "\(error)".contains("wrong length") && "\(error)".contains("the entry was dropped")
    }
    #expect(try store.value(forKey: "cut") == nil, "dropped, never returned")
    #expect {
      try store.value(forKey: "swapped")
    } throws: { error in "\(error)".contains("holds key 'other") }
    #expect(try store.value(forKey: "other") == bytes(4000, seed: 3))
  }
}
