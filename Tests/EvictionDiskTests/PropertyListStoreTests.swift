import EvictionTestSupport
import Foundation
import Synchronization
import Testing

@testable import EvictionDisk

@Suite struct PropertyListStoreTests {
  func plistPath() throws -> String { try Scratch.directory("plist").path + "/cache.plist" }

  @Test(arguments: PropertyListStore.Design.allCases)
  func everyChangeIsInTheFileAndSurvivesReopening(design: PropertyListStore.Design) throws {
    let path = try plistPath()
    let store = try PropertyListStore(path: path, design: design)
    for key in 0..<20 { try store.setValue(bytes(10 + key, seed: key), forKey: "k\(key)") }
    #expect(try store.removeValue(forKey: "k3"))
    #expect(try !store.removeValue(forKey: "absent"))
    try store.flush()
    #expect(store.statistics.rewrites == 21)
    let onDisk = try PropertyListStore.read(path: path)
    #expect(onDisk.count == 19 && onDisk["k3"] == nil && onDisk["k7"] == Data(bytes(17, seed: 7)))
    let reopened = try PropertyListStore(path: path, design: design)
    #expect(reopened.count == 19 && reopened.value(forKey: "k19") == bytes(29, seed: 19))
    // No temporary file is left beside it.
    let folder = (path as NSString).deletingLastPathComponent
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["cache.plist"])
  }

  /// The article's race, made to happen: a writer snapshots, another writes
  /// and renames, then the first renames its stale snapshot over the file.
  /// The file stays whole and loses the second writer's update.
  @Test func atomicRewritesAloneLoseAnUpdate() throws {
    let path = try plistPath()
    let store = try PropertyListStore(path: path, design: .atomic)
    let holdFirst = DispatchSemaphore(value: 0)
    let secondDone = DispatchSemaphore(value: 0)
    let calls = Atomic<Int>(0)
    store.afterSnapshot = {
      // The first writer waits here until the second has written.
      if calls.add(1, ordering: .relaxed).newValue == 1 { holdFirst.wait() }
    }
    let first = Thread { try? store.setValue([1], forKey: "first") }
    first.start()
    while calls.load(ordering: .relaxed) < 1 { usleep(100) }
    let second = Thread {
      try? store.setValue([2], forKey: "second")
      secondDone.signal()
    }
    second.start()
    secondDone.wait()
    #expect(try PropertyListStore.read(path: path).keys.sorted() == ["first", "second"])
    holdFirst.signal()
    while !first.isFinished { usleep(100) }
    let onDisk = try PropertyListStore.read(path: path)
    #expect(onDisk.keys.sorted() == ["first"], "the stale snapshot won")
    #expect(store.count == 2, "memory has both")
    #expect(store.statistics.staleRenames == 1 && store.statistics.changesRolledBack == 1)
  }

  /// The fix: a serial write queue, each rewrite of the dictionary as it is then.
  @Test func aSerialWriteQueueLosesNothingUnderConcurrentWriters() throws {
    let path = try plistPath()
    let store = try PropertyListStore(path: path, design: .serial)
    DispatchQueue.concurrentPerform(iterations: 8) { w in
      for k in 0..<25 { try? store.setValue([UInt8(w), UInt8(k)], forKey: "w\(w)-k\(k)") }
    }
    try store.flush()
    #expect(try PropertyListStore.read(path: path).count == 200)
    #expect(store.statistics.staleRenames == 0)
  }

  @Test func aFileThatIsNotAPropertyListIsAClearError() throws {
    let path = try plistPath()
    try Data("not a plist".utf8).write(to: URL(fileURLWithPath: path))
    #expect {
      _ = try PropertyListStore(path: path, design: .serial)
    } throws: { error in
      guard case DiskError.corruptFile(let where_, _) = error else { return false }
      return where_ == path
    }
    #expect(throws: DiskError.self) { _ = try PropertyListStore(path: path + "-missing-folder/x/y", design: .atomic) }
    #expect(throws: DiskError.self) { _ = try PropertyListStore(path: "", design: .atomic) }
  }
}
