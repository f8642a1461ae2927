import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionDisk

/// Repair says exactly what it lost, and leaves every value it keeps verifiable.
@Suite struct RepairAccountsTests {
  /// A damaged manifest whose tables still read: repair rebuilds it from the
  /// value files and puts back every inline value that verifies, losing none.
  @Test func aDamagedManifestGivesBackItsInlineValues() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: 100)
    for i in 0..<5 { try store.setValue(bytes(500 + i, seed: i), forKey: "file \(i)") }
    for i in 0..<300 { try store.setValue(bytes(20 + i % 50, seed: i), forKey: "inline \(i)") }
    store.close()
    try? FileManager.default.removeItem(atPath: dir + "/manifest.sqlite-wal")
    // Garble the access-time index's root page: the integrity check fails, the tables still read.
    let (root, pageSize) = try {
      let db = try SQLiteDatabase(path: dir + "/manifest.sqlite", readOnly: true)
      defer { db.close() }
      let root = try db.with("SELECT rootpage FROM sqlite_master WHERE name = 'entries_last_access'") {
        (s) throws(DiskError) in
        _ = try s.step()
        return s.int64(0)
      }
      let size = try db.with("PRAGMA page_size") { (s) throws(DiskError) in
        _ = try s.step()
        return s.int64(0)
      }
      return (root, size)
    }()
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: dir + "/manifest.sqlite"))
    try handle.seek(toOffset: UInt64((root - 1) * pageSize + 8))
    try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(pageSize) - 8))
    try handle.close()
    let report = try DiskStore.check(directory: dir)
    #expect(report.manifestProblem != nil && !report.isConsistent, "\(report.summary)")
    // SQLite's findings, however many, are one line in the summary and all in the detail.
    #expect(report.manifestProblem?.contains("\n") == false && !report.summary.contains("*** in database"))
    #expect(report.manifestDetail.allSatisfy { !$0.contains("\n") })
    if report.manifestDetail.count > 1 {
      #expect(report.manifestProblem?.contains(" problems, the first: ") == true, "\(report.manifestDetail)")
    }
    // Here the check finds two problems, then stops on the damage: where it stopped is the detail's last line.
    if let last = report.manifestDetail.last, last.hasPrefix("the check stopped: ") {
      #expect(last.contains("SQLite error 11"))
      #expect(report.manifestProblem?.contains("; then the check itself stopped on the damage") == true)
    }
    let repaired = try DiskStore.check(directory: dir, repair: true)
    #expect(repaired.actions.contains { $0.contains("rebuilt the manifest from 5 verified value files") })
    #expect(repaired.actions.contains("restored 300 inline values from the old manifest (checksums verified)"))
    #expect(repaired.lostKeys.isEmpty, "\(repaired.lostKeys)")
    #expect(try DiskStore.check(directory: dir).isConsistent)
    let reopened = try DiskStore(directory: dir, inlineThreshold: 100)
    defer { reopened.close() }
    // Put back as they were: inline (no new files), in their old order of reads.
    #expect(FileLayer.list(fd: reopened.folder.data).filter(ValueFileName.isValid).count == 5)
    let order = try reopened.entriesByAccessTime().map(\.key).filter { $0.hasPrefix("inline ") }
    #expect(order == (0..<300).map { "inline \($0)" })
    for i in [0, 149, 299] { #expect(try reopened.value(forKey: "inline \(i)") == bytes(20 + i % 50, seed: i)) }
    #expect(try reopened.value(forKey: "file 4") == bytes(504, seed: 4))
  }

  /// Values migrated from layout 1 carry no checksum: repair computes them,
  /// and the next check verifies every value.
  @Test func repairGivesMigratedValuesTheirChecksums() throws {
    let dir = try scratchStore()
    try DiskStore(directory: dir).close()
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: dir + "/manifest.sqlite" + suffix)
    }
    try ManifestLayoutTests.writeVersionOneManifest(
      dir,
      rows: """
        INSERT INTO manifest VALUES ('a', NULL, 3, x'010203', 10, 30, NULL);
        INSERT INTO manifest VALUES ('b', NULL, 2, x'0405', 10, 30, NULL);
        """)
    try DiskStore(directory: dir).close()  // migrates to layout 3
    #expect(try DiskStore.check(directory: dir).unverifiedValues == ["a", "b"])
    let repaired = try DiskStore.check(directory: dir, repair: true)
    #expect(repaired.actions.contains { $0.hasPrefix("computed checksums for 2 inline values") }, "\(repaired.actions)")
    #expect(repaired.lostKeys.isEmpty)
    let after = try DiskStore.check(directory: dir)
    #expect(after.isConsistent && after.unverifiedValues.isEmpty && after.summary.hasSuffix("every value verified"))
    let store = try DiskStore(directory: dir)
    defer { store.close() }
    #expect(try store.value(forKey: "a") == [1, 2, 3] && store.value(forKey: "b") == [4, 5])
  }
}
