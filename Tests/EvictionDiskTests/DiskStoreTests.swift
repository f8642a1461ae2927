import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionDisk

/// A path for a new store (removed with the test process's scratch root).
func scratchStore() throws -> String { Scratch.path("disk") }

/// The byte cache most tests drive.
typealias ByteDiskCache = DiskCache<String, [UInt8]>

func bytes(_ count: Int, seed: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) } }

func dataFiles(_ directory: String) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: directory + "/data").sorted()
}

@Suite struct DiskStoreTests {
  static let sizes = [0, 1, 100, 4096, 20 * 1024, 20 * 1024 + 1, 100 * 1024, 1 << 20]
  static let modes: [(String, Int)] = [
    ("files", DiskStore.filesOnly), ("sqlite", DiskStore.sqliteOnly), ("mixed", DiskStore.defaultInlineThreshold),
  ]

  @Test(arguments: modes.indices)
  func everySizeRoundTripsAndPersistsAcrossReopen(mode: Int) throws {
    let (name, threshold) = Self.modes[mode]
    let dir = try scratchStore()
    do {
      let store = try DiskStore(directory: dir, inlineThreshold: threshold)
      for (i, size) in Self.sizes.enumerated() {
        try store.setValue(bytes(size, seed: i), forKey: "k\(i)", extendedData: [UInt8(i)])
      }
      for (i, size) in Self.sizes.enumerated() {
        #expect(try store.value(forKey: "k\(i)") == bytes(size, seed: i), "\(name) \(size)")
      }
      let expectedFiles = Self.sizes.filter { threshold == DiskStore.filesOnly ? $0 > 0 : $0 > threshold }.count
      #expect(try dataFiles(dir).count == expectedFiles, "\(name): values above the threshold have a file each")
      #expect(try store.totals() == (Self.sizes.count, Int64(Self.sizes.reduce(0, +))))
      store.close()
    }
    let reopened = try DiskStore(directory: dir, inlineThreshold: threshold)
    for (i, size) in Self.sizes.enumerated() {
      #expect(try reopened.value(forKey: "k\(i)") == bytes(size, seed: i))
      #expect(try reopened.extendedData(forKey: "k\(i)") == [UInt8(i)])
    }
    #expect(try DiskStore.check(directory: dir).isConsistent)
  }

  @Test func replacingAndRemovingLeaveNoFileBehind() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: 100)
    try store.setValue(bytes(5000, seed: 1), forKey: "a")
    let first = try dataFiles(dir)
    try store.setValue(bytes(6000, seed: 2), forKey: "a")  // file → new file
    let second = try dataFiles(dir)
    #expect(first.count == 1 && second.count == 1 && first != second, "each write gets a new file; the old one goes")
    try store.setValue(bytes(10, seed: 3), forKey: "a")  // file → inline
    #expect(try dataFiles(dir).isEmpty && store.value(forKey: "a") == bytes(10, seed: 3))
    try store.setValue(bytes(5000, seed: 4), forKey: "b")
    #expect(try store.removeValue(forKey: "b") && !store.removeValue(forKey: "b"))
    #expect(try dataFiles(dir).isEmpty && store.value(forKey: "b") == nil)
    for i in 0..<20 { try store.setValue(bytes(200 + i, seed: i), forKey: "c\(i)") }
    try store.removeAll()
    #expect(try store.totals().count == 0 && dataFiles(dir).isEmpty)
    #expect(try DiskStore.check(directory: dir).isConsistent)
  }

  @Test func readsBatchTheirAccessTimesAndOrderEviction() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir)
    for i in 0..<5 { try store.setValue(bytes(10, seed: i), forKey: "k\(i)") }
    _ = try store.value(forKey: "k0")
    _ = try store.value(forKey: "k2")
    // Not yet written: the batch holds them until it fills, a flush or close.
    #expect(store.pendingAccess.count == 2)
    #expect(try store.entriesByAccessTime().map(\.key) == ["k1", "k3", "k4", "k0", "k2"])
    #expect(store.pendingAccess.isEmpty)
  }

  @Test func badInputIsAClearError() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir)
    #expect(throws: DiskError.emptyKey) { try store.setValue([1], forKey: "") }
    #expect(throws: DiskError.emptyKey) { try store.value(forKey: "") }
    let file = dir + "/not-a-folder"
    #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
    #expect(throws: DiskError.notADirectory(path: file)) { try DiskStore(directory: file) }
    #expect(DiskError.notADirectory(path: file).description.contains("is a file, not a folder"))
    if geteuid() != 0 {  // root reads and writes anywhere
      let locked = dir + "/locked"
      try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
      chmod(locked, 0o500)
      defer { chmod(locked, 0o700) }
      #expect(throws: DiskError.permissionDenied(path: locked)) { try DiskStore(directory: locked) }
    }
  }

  @Test func aFullDiskIsAClearErrorAndTheStoreStaysConsistent() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: 100)
    try store.setValue(bytes(5000, seed: 1), forKey: "a")
    store.files.fault = { operation, _ in operation == .write ? ENOSPC : nil }
    #expect {
      try store.setValue(bytes(9000, seed: 2), forKey: "a")
    } throws: { error in
      guard case .io(_, "write", ENOSPC, _) = error as? DiskError else { return false }
      return "\(error)".contains("the disk is full")
    }
    // A failed rename leaves no temporary file either.
    store.files.fault = { operation, _ in operation == .rename ? EIO : nil }
    #expect(throws: DiskError.self) { try store.setValue(bytes(9000, seed: 3), forKey: "b") }
    store.files.fault = nil
    #expect(try store.value(forKey: "a") == bytes(5000, seed: 1), "the old value survives")
    #expect(try store.value(forKey: "b") == nil)
    #expect(try dataFiles(dir).count == 1)
    store.close()
    #expect(try DiskStore.check(directory: dir).isConsistent)
  }

  @Test func checkFindsAndRepairsMissingFilesAndOrphans() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: 100)
    for i in 0..<6 { try store.setValue(bytes(1000 + i, seed: i), forKey: "k\(i)") }
    try store.setValue(bytes(10, seed: 9), forKey: "small")
    store.close()
    let files = try dataFiles(dir)
    try FileManager.default.removeItem(atPath: dir + "/data/" + files[0])
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dir + "/data/" + files[1]))  // wrong length
    try Data([9]).write(to: URL(fileURLWithPath: dir + "/data/stray"))
    let report = try DiskStore.check(directory: dir)
    #expect(!report.isConsistent && report.rows == 7)
    #expect(report.missingFiles.count == 1 && report.wrongSizeFiles.count == 1 && report.orphanFiles.isEmpty)
    #expect(report.foreignFiles == ["stray"], "a file the store did not write is foreign, not an orphan")
    let repaired = try DiskStore.check(directory: dir, repair: true)
    #expect(repaired.lostKeys.count == 2 && repaired.summary.contains("lost 2 values"))
    #expect(try DiskStore.check(directory: dir).isConsistent)
    #expect(try dataFiles(dir).contains("stray"), "and it stays")
    let reopened = try DiskStore(directory: dir, inlineThreshold: 100)
    #expect(try reopened.totals().count == 5 && reopened.value(forKey: "small") == bytes(10, seed: 9))
  }

  @Test func aCorruptManifestIsMovedAsideAndRebuiltFromTheFiles() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: 100)
    for i in 0..<8 { try store.setValue(bytes(500 + i, seed: i), forKey: "key \(i)") }
    try store.setValue(bytes(5, seed: 1), forKey: "inline")
    store.close()
    try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: dir + "/manifest.sqlite"))
    try? FileManager.default.removeItem(atPath: dir + "/manifest.sqlite-wal")
    let report = try DiskStore.check(directory: dir)
    #expect(report.manifestProblem?.contains("cannot be read") == true && !report.isConsistent)
    // No row was read, so no value was checked: the summary says so, not "every value verified".
    #expect(report.summary.hasPrefix("no rows could be read, so no value was checked; 8 value files in data/"))
    #expect(!report.summary.contains("verified"), "\(report.summary)")
    let repaired = try DiskStore.check(directory: dir, repair: true)
    #expect(repaired.actions.contains { $0.contains("rebuilt the manifest from 8 verified value files") })
    #expect(repaired.lostUncounted?.hasPrefix("every value kept inline in the old manifest") == true)
    #expect(repaired.summary.contains("lost every value kept inline") && !repaired.summary.contains("lost 1 values"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir).contains { $0.hasPrefix("manifest.sqlite.corrupt-") })
    #expect(try DiskStore.check(directory: dir).isConsistent)
    let reopened = try DiskStore(directory: dir, inlineThreshold: 100)
    for i in 0..<8 { #expect(try reopened.value(forKey: "key \(i)") == bytes(500 + i, seed: i)) }
    #expect(try reopened.value(forKey: "inline") == nil)
  }

  /// A damaged page among the inline values costs the values on it, each
  /// named by its key, and no other: repair looks each value up by its rowid
  /// where a scan of the table would stop at the damage (it lost every inline
  /// value after the first bad page, and named none).
  @Test func repairKeepsEveryInlineValueSQLiteCanStillReadByRowID() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir, inlineThreshold: 100)
    func value(_ i: Int) -> [UInt8] { Array("value-\(i)-".utf8) + bytes(50, seed: i) }
    let count = 3000
    for i in 0..<count { try store.setValue(value(i), forKey: "k\(i)") }
    store.close()
    #expect(!FileManager.default.fileExists(atPath: dir + "/manifest.sqlite-wal"), "closing folds the log in")
    // Overwrite the page that holds value 1500 (never the first page, which holds the schema).
    let path = dir + "/manifest.sqlite"
    var file = try Data(contentsOf: URL(fileURLWithPath: path))
    let pageSize = Int(file[16]) << 8 | Int(file[17])
    let offset = try #require(file.firstRange(of: Data("value-1500-".utf8))).lowerBound
    let page = offset / pageSize
    #expect(page > 0)
    file.replaceSubrange(page * pageSize..<(page + 1) * pageSize, with: Data(repeating: 0xA5, count: pageSize))
    try file.write(to: URL(fileURLWithPath: path))

    let repaired = try DiskStore.check(directory: dir, repair: true)
    let lost = repaired.lostKeys
    #expect(lost.contains("k1500 (inline)"), "\(lost.prefix(5))")
    #expect(lost.count > 0 && lost.count < 200, "one page's values, not the rest of the table: \(lost.count)")
    #expect(lost.allSatisfy { $0.hasSuffix(" (inline)") })
    #expect(repaired.lostUncounted == nil, "\(repaired.lostUncounted ?? "")")
    #expect(
      repaired.actions.contains { $0.contains("restored \(count - lost.count) inline values") }, "\(repaired.actions)")
    #expect(try DiskStore.check(directory: dir).isConsistent)
    let reopened = try DiskStore(directory: dir, inlineThreshold: 100)
    let lostKeys = Set(lost.map { String($0.dropLast(" (inline)".count)) })
    for i in 0..<count where !lostKeys.contains("k\(i)") {
      #expect(try reopened.value(forKey: "k\(i)") == value(i))
    }
    #expect(try reopened.value(forKey: "k1500") == nil)
  }

  @Test func theWriteAheadLogStaysBoundedThroughAHundredThousandOperations() throws {
    let dir = try scratchStore()
    let store = try DiskStore(directory: dir)
    var peak: Int64 = 0
    for i in 0..<100_000 {
      let key = "k\(i % 5000)"
      if i % 3 == 0 {
        try store.setValue(bytes(64 + i % 300, seed: i), forKey: key)
      } else {
        _ = try store.value(forKey: key)
      }
      if i % 1000 == 0 { peak = max(peak, store.walBytes) }
    }
    peak = max(peak, store.walBytes)
    #expect(peak < 16 << 20, "WAL peaked at \(peak) bytes")
  }
}
