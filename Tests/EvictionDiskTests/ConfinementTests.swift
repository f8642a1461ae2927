import EvictionCore
import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionDisk

/// The store attacked as a hostile user would: a manifest that names paths
/// outside, links planted where the store keeps its folders, folders that
/// are not stores, a newer layout, damaged values. Each test builds a small
/// world (the store beside a victim folder), attacks, and asserts that no
/// byte outside the store changed.
@Suite struct ConfinementTests {
  /// `world/store` (a store with inline and file values) beside
  /// `world/victim` (files a user cares about).
  struct World {
    let root: String
    var store: String { root + "/store" }
    var victim: String { root + "/victim" }
    /// The tree around the store, the store itself left out.
    var outside: [String] { treeDigest(root, excluding: ["store"]) }

    init(values: Int = 6) throws {
      root = try Scratch.directory("confine").path
      try FileManager.default.createDirectory(atPath: root + "/victim/sub", withIntermediateDirectories: true)
      try Data("important".utf8).write(to: URL(fileURLWithPath: root + "/victim/important.txt"))
      try Data("nested".utf8).write(to: URL(fileURLWithPath: root + "/victim/sub/x"))
      let store = try DiskStore(directory: root + "/store", inlineThreshold: 100)
      for i in 0..<values {
        try store.setValue(bytes(i % 2 == 0 ? 50 + i : 500 + i, seed: i), forKey: "k\(i)")
      }
      store.close()
    }

    /// Sets column `filename` of `key`'s row to `name`, as any SQLite client could.
    func pointRow(_ key: String, at name: String) throws {
      let db = try SQLiteDatabase(path: store + "/manifest.sqlite")
      defer { db.close() }
      try db.run("UPDATE entries SET filename = ? WHERE key = ?") { s in
        s.bind(1, name)
        s.bind(2, key)
      }
    }

    func fileName(of key: String) throws -> String {
      let store = try DiskStore(directory: self.store, inlineThreshold: 100)
      defer { store.close() }
      return try #require(try store.filename(ofKey: key))
    }
  }

  /// Opening, checking and repairing `store` each fail with an error `matches` accepts.
  func expectOpenCheckAndRepairRefuse(_ store: String, _ matches: @escaping (DiskError) -> Bool) {
    let attempts: [() throws -> Void] = [
      { _ = try DiskStore(directory: store) }, { _ = try DiskStore.check(directory: store) },
      { _ = try DiskStore.check(directory: store, repair: true) },
    ]
    for attempt in attempts {
      #expect { try attempt() } throws: { error in (error as? DiskError).map(matches) ?? false }
    }
  }

  // MARK: 1. A manifest row naming a path outside the store

  @Test(arguments: ["../../victim/important.txt", "ABSOLUTE", "../victim", "data/../../victim/sub/x"])
  func aRowNamingAPathOutsideIsReportedAndNeverTouched(name: String) throws {
    let world = try World()
    let target = name == "ABSOLUTE" ? world.victim + "/important.txt" : name
    try world.pointRow("k1", at: target)
    let before = world.outside

    let report = try DiskStore.check(directory: world.store)
    #expect(!report.isConsistent && report.invalidNames.count == 1 && report.invalidNames[0].hasPrefix("k1"))
    // Read, replace, remove, evict and repair: each would once have used the name.
    let store = try DiskStore(directory: world.store, inlineThreshold: 100)
    #expect {
      try store.value(forKey: "k1")
    } throws: { error in
      guard case .corruptValue(key: "k1", _, _) = error as? DiskError else { return false }
      return true
    }
    try world.pointRow("k3", at: target)
    try store.setValue(bytes(700, seed: 9), forKey: "k3")  // replaces: the old "file" would be removed
    try world.pointRow("k5", at: target)
    #expect(try store.removeValue(forKey: "k5"))
    store.close()
    try world.pointRow("k3", at: target)
    do {
      let cache = try ByteDiskCache(directory: world.store, policy: "lru", countLimit: 1)  // evicts all but one on open
      try cache.setValue([1], forKey: "new")
    }
    try world.pointRow("new", at: target)
    let repaired = try DiskStore.check(directory: world.store, repair: true)
    #expect(repaired.lostKeys == ["new"])
    #expect(try DiskStore.check(directory: world.store).isConsistent)
    #expect(world.outside == before, "nothing outside the store changed")
  }

  @Test func aRowNamingADirectoryInsideDataIsCorruptionNotAPath() throws {
    let world = try World()
    let name = "0123456789abcdef0123456789abcdef-0123456789abcdef"
    try FileManager.default.createDirectory(
      atPath: world.store + "/data/" + name + "/inner", withIntermediateDirectories: true)
    try Data("keep".utf8).write(to: URL(fileURLWithPath: world.store + "/data/" + name + "/inner/f"))
    try world.pointRow("k1", at: name)
    let report = try DiskStore.check(directory: world.store)
    #expect(report.corruptValues.contains { $0.hasPrefix("k1") && $0.contains("not a regular file") })
    let store = try DiskStore(directory: world.store, inlineThreshold: 100)
    #expect(throws: DiskError.self) { try store.value(forKey: "k1") }
    #expect(try store.value(forKey: "k1") == nil, "the damaged entry was dropped")
    store.close()
    _ = try DiskStore.check(directory: world.store, repair: true)
    #expect(
      FileManager.default.fileExists(atPath: world.store + "/data/" + name + "/inner/f"), "a folder is never removed")
  }

  @Test func aValueFileReplacedByALinkToAFileOutsideIsNeverFollowed() throws {
    let world = try World()
    let name = try world.fileName(of: "k1")
    let path = world.store + "/data/" + name
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: world.victim + "/important.txt")
    let before = world.outside
    let report = try DiskStore.check(directory: world.store)
    #expect(report.corruptValues.contains { $0.hasPrefix("k1") && $0.contains("symbolic link") })
    let store = try DiskStore(directory: world.store, inlineThreshold: 100)
    #expect {
      try store.value(forKey: "k1")
    } throws: { error in
      guard case .corruptValue(key: "k1", _, let reason) = error as? DiskError else { return false }
      return reason.contains("symbolic link")
    }
    store.close()
    _ = try DiskStore.check(directory: world.store, repair: true)
    #expect(try DiskStore.check(directory: world.store).isConsistent)
    #expect(world.outside == before)
    #expect(try String(contentsOfFile: world.victim + "/important.txt", encoding: .utf8) == "important")
  }

  // MARK: 2. Links where the store keeps its folders

  @Test(arguments: ["trash", "data"])
  func aLinkedFolderIsRefusedByOpenCheckAndRepair(folder: String) throws {
    let world = try World()
    let real = world.store + "/" + folder
    try FileManager.default.removeItem(atPath: real)
    try FileManager.default.createSymbolicLink(atPath: real, withDestinationPath: world.victim)
    let before = world.outside
    expectOpenCheckAndRepairRefuse(world.store) { error in
      guard case .unsafePath(let path, let reason) = error else { return false }
      return path.hasSuffix("/" + folder) && reason.contains("symbolic link")
    }
    #expect(world.outside == before, "the link's target was not emptied")
  }

  @Test func theTrashIsEmptiedOfTheStoresFilesOnly() throws {
    let world = try World()
    let store = try DiskStore(directory: world.store, inlineThreshold: 10)
    try Data("foreign".utf8).write(to: URL(fileURLWithPath: world.store + "/data/notes.txt"))
    try store.removeAll()  // data/ (notes.txt with it) moves to the trash, emptied in the background
    store.close()
    try DiskStore(directory: world.store).close()  // alone: empties the trash in the foreground
    let trash = try FileManager.default.subpathsOfDirectory(atPath: world.store + "/trash")
    #expect(trash.count == 2 && trash.contains { $0.hasSuffix("/notes.txt") }, "\(trash)")
  }

  // MARK: 3. A folder that is not a store

  @Test func aFolderThatIsNotAStoreIsNeverCheckedRepairedOrOpened() throws {
    let root = try Scratch.directory("project").path
    try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
    for i in 0..<5 { try Data("a,b\n\(i),2\n".utf8).write(to: URL(fileURLWithPath: root + "/data/f\(i).csv")) }
    try Data("not ours".utf8).write(to: URL(fileURLWithPath: root + "/lock"))
    let before = treeDigest(root)
    for repair in [false, true] {
      #expect {
        _ = try DiskStore.check(directory: root, repair: repair)
      } throws: { error in
        guard case .notAStore(let path, _) = error as? DiskError else { return false }
        return path == root && "\(error)".contains("not an EvictionLab store")
      }
    }
    #expect(throws: DiskError.self) { try DiskStore(directory: root) }
    #expect(treeDigest(root) == before, "nothing was written")
  }

  @Test func filesInDataTheStoreDidNotWriteAreReportedAndLeftAlone() throws {
    let world = try World()
    let foreign = [
      "notes.txt",  // not a value file's name
      "0123456789abcdef0123456789abcdef-0123456789abcdef",  // a value file's name, not its header
      ".tmp-0123456789abcdef0123456789abcdef-0123456789abcdef",
    ]
    for name in foreign {
      try Data("user data, not a value".utf8).write(to: URL(fileURLWithPath: world.store + "/data/" + name))
    }
    // And one orphan the store did write: a value file whose row is gone.
    let orphan = try world.fileName(of: "k1")
    let db = try SQLiteDatabase(path: world.store + "/manifest.sqlite")
    try db.run("DELETE FROM entries WHERE key = 'k1'")
    db.close()
    let report = try DiskStore.check(directory: world.store)
    #expect(Set(report.foreignFiles) == Set(foreign) && report.orphanFiles == [orphan])
    #expect(report.summary.contains("were not written by EvictionLab and are left alone"))
    _ = try DiskStore.check(directory: world.store, repair: true)
    try DiskStore(directory: world.store).close()  // the open-time sweep
    let left = Set(try dataFiles(world.store))
    #expect(left.isSuperset(of: foreign) && !left.contains(orphan))
    #expect(try DiskStore.check(directory: world.store).isConsistent, "foreign files do not make a store inconsistent")
  }

  // MARK: 4. Repair is exclusive

  @Test func repairRefusesWhileAnotherOwnerHasTheStoreOpenAndCheckWritesNothing() throws {
    let world = try World()
    let owner = try DiskStore(directory: world.store, inlineThreshold: 100)
    try owner.setValue(bytes(300, seed: 1), forKey: "live")
    // An orphan a repair would sweep, and a check must not.
    try Data(DataFileHeader.encode(key: "x", value: [1]) + [1]).write(
      to: URL(fileURLWithPath: world.store + "/data/" + "00000000000000000000000000000000-0000000000000000"))
    let before = treeDigest(world.store, excluding: ["manifest.sqlite-shm"])
    #expect {
      _ = try DiskStore.check(directory: world.store, repair: true, waitSeconds: 0.2)
    } throws: { error in
      guard case .inUse(_, _, exclusive: true) = error as? DiskError else { return false }
      return "\(error)".contains("in use by")
    }
    let check = try DiskStore.check(directory: world.store)
    #expect(check.orphanFiles.count == 1)
    #expect(treeDigest(world.store, excluding: ["manifest.sqlite-shm"]) == before, "neither wrote anything")
    #expect(try owner.value(forKey: "live") == bytes(300, seed: 1))
    owner.close()
    let repaired = try DiskStore.check(directory: world.store, repair: true)
    #expect(repaired.actions.contains("removed 1 orphan files"))
  }

  // MARK: 5. A newer layout

  @Test func aStoreOfANewerLayoutIsRefusedAndNeverChanged() throws {
    let world = try World()
    let db = try SQLiteDatabase(path: world.store + "/manifest.sqlite")
    try db.execute("PRAGMA user_version = \(DiskStore.schemaVersion + 1)")
    db.close()
    let before = treeDigest(world.store, excluding: ["manifest.sqlite-shm", "manifest.sqlite-wal"])
    expectOpenCheckAndRepairRefuse(world.store) { error in
      guard case .newerLayout(_, DiskStore.schemaVersion + 1, DiskStore.schemaVersion) = error else { return false }
      return "\(error)".contains("upgrade EvictionLab")
    }
    #expect(treeDigest(world.store, excluding: ["manifest.sqlite-shm", "manifest.sqlite-wal"]) == before)
  }

  @Test func aCheckNeverMigratesAnOlderLayout() throws {
    let world = try World()
    let db = try SQLiteDatabase(path: world.store + "/manifest.sqlite")
    try db.execute("ALTER TABLE inline_values DROP COLUMN checksum; PRAGMA user_version = 2")
    db.close()
    #expect(try DiskStore.check(directory: world.store).isConsistent)
    let after = try SQLiteDatabase(path: world.store + "/manifest.sqlite", readOnly: true)
    #expect(try DiskStore.layoutVersion(after) == 2)
    after.close()
    let store = try DiskStore(directory: world.store, inlineThreshold: 100)  // opening does migrate
    #expect(try store.value(forKey: "k0") == bytes(50, seed: 0))
    store.close()
  }

  // MARK: 6. Damaged values

  @Test(arguments: ["flip", "header", "inline"])
  func aDamagedValueIsFoundByCheckAndNeverReturned(damage: String) throws {
    let world = try World()
    let key = damage == "inline" ? "k0" : "k1"
    if damage == "inline" {
      let db = try SQLiteDatabase(path: world.store + "/manifest.sqlite")
      try db.execute(
        "UPDATE inline_values SET data = zeroblob(length(data)) WHERE id = (SELECT id FROM entries WHERE key = 'k0')")
      db.close()
    } else {
      let path = world.store + "/data/" + (try world.fileName(of: key))
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
      if damage == "flip" {
        bytes[bytes.count - 7] ^= 0x10
      } else {
        bytes.replaceSubrange(0..<4, with: Array("JUNK".utf8))
      }
      try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
    let report = try DiskStore.check(directory: world.store)
    #expect(!report.isConsistent && report.corruptValues.count == 1 && report.corruptValues[0].hasPrefix(key))
    let quick = try DiskStore.check(directory: world.store, quick: true)
    #expect(quick.isConsistent, "--quick compares lengths only")
    let store = try DiskStore(directory: world.store, inlineThreshold: 100)
    #expect {
      try store.value(forKey: key)
    } throws: { error in
      guard case .corruptValue(key: key, _, _) = error as? DiskError else { return false }
      return "\(error)".contains("the entry was dropped")
    }
    #expect(try store.value(forKey: key) == nil && store.contains(key) == false)
    store.close()
    #expect(try DiskStore.check(directory: world.store).isConsistent)
  }

  @Test func aRowNamingAnotherKeysFileNeverCostsThatKeyItsValue() throws {
    let world = try World()
    try world.pointRow("k1", at: try world.fileName(of: "k3"))
    let store = try DiskStore(directory: world.store, inlineThreshold: 100)
    #expect(throws: DiskError.self) { try store.value(forKey: "k1") }
    #expect(try store.value(forKey: "k3") == bytes(503, seed: 3), "k3's file was kept")
    store.close()
    try world.pointRow("k5", at: try world.fileName(of: "k3"))
    _ = try DiskStore.check(directory: world.store, repair: true)
    let reopened = try DiskStore(directory: world.store, inlineThreshold: 100)
    #expect(try reopened.value(forKey: "k3") == bytes(503, seed: 3) && reopened.value(forKey: "k5") == nil)
    reopened.close()
  }

  @Test func aDiskCacheCountsADamagedValueAsAMiss() throws {
    let world = try World(values: 0)
    let cache = try ByteDiskCache(directory: world.store, policy: "lru", countLimit: 10, inlineThreshold: 10)
    try cache.setValue(bytes(400, seed: 1), forKey: "a")
    let name = try #require(try cache.core.store.filename(ofKey: "a"))
    let path = world.store + "/data/" + name
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    bytes[bytes.count - 1] ^= 1
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    #expect(try cache.value(forKey: "a") == nil && cache.corruptValuesDropped == 1 && cache.policyCount == 0)
  }

  // MARK: 7. Paths that are no store at all

  @Test func checkingAMissingOrEmptyFolderCreatesNothing() throws {
    let root = try Scratch.directory("missing").path
    let missing = root + "/no/such/dir"
    #expect(throws: DiskError.notAStore(path: missing, reason: "no such folder")) {
      try DiskStore.check(directory: missing)
    }
    #expect(!FileManager.default.fileExists(atPath: root + "/no"))
    try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
    #expect(throws: DiskError.self) { try DiskStore.check(directory: root + "/empty", repair: true) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/empty").isEmpty)
    #expect(throws: DiskError.self) { try DiskStore.check(directory: "") }
    #expect(throws: DiskError.self) { try DiskStore(directory: "") }
  }
}
