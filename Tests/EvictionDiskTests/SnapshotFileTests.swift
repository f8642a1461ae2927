import EvictionCache
import EvictionCore
import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionDisk

/// Snapshot files: written whole through a rename, read back checked, and
/// a warm restart from one makes the same next decisions.
@Suite struct SnapshotFileTests {
  struct Thumbnail: Codable, Equatable, Sendable {
    var width: Int
    var pixels: [UInt8]
    var score: Double
  }

  /// A skewed stream of keys, the same for every run.
  static func keys(seed: UInt64, count: Int) -> [Int] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      let u = Double.random(in: 0..<1, using: &generator)
      return Int(u * u * 2_000)
    }
  }

  static func serve(_ cache: MemoryCache<String, Thumbnail>, _ keys: ArraySlice<Int>) -> [Bool] {
    keys.map { key in
      if cache.value(forKey: "t\(key)") != nil { return true }
      let thumbnail = Thumbnail(width: key, pixels: Array(repeating: UInt8(key % 251), count: key % 90), score: 0.5)
      cache.setValue(thumbnail, forKey: "t\(key)", cost: 10 + key % 90)
      return false
    }
  }

  static func make(_ policy: CachePolicy, lock: LockStrategy = .mutex) throws -> MemoryCache<String, Thumbnail> {
    try MemoryCache<String, Thumbnail>(policy: policy, costLimit: 8_000, ageLimit: .seconds(3_600), lock: lock)
  }

  @Test(arguments: [CachePolicy.wtinylfu(), .s3fifo(), .arc, .lru, .sieve], [LockStrategy.mutex, .buffered])
  func aWarmRestartFromAFileMakesTheSameNextDecisions(policy: CachePolicy, lock: LockStrategy) throws {
    let folder = try Scratch.directory("snapshot")
    let path = folder.appendingPathComponent("thumbnails.snapshot").path
    let keys = Self.keys(seed: 4, count: 20_000)
    let running = try Self.make(policy, lock: lock)
    _ = Self.serve(running, keys[..<10_000])
    let written = try running.writeSnapshot(to: path)
    #expect(written.entries == running.count && written.shardsWithPolicyState == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["thumbnails.snapshot"])

    let restarted = try Self.make(policy, lock: lock)
    let summary = try #require(try restarted.restoreSnapshot(from: path))
    #expect(summary.exact, "\(summary.reason ?? "")")
    #expect(restarted.count == running.count)
    #expect(Self.serve(restarted, keys[10_000...]) == Self.serve(running, keys[10_000...]), "\(policy)")
    restarted.checkInvariants()
  }

  @Test func aCacheThatHoldsEntriesIsRefusedAndKeepsThem() throws {
    let path = Scratch.path("held", suffix: ".snapshot")
    let source = try Self.make(.lru)
    _ = Self.serve(source, Self.keys(seed: 5, count: 200)[...])
    try source.writeSnapshot(to: path)
    #expect {
      try source.restoreSnapshot(from: path)
    } throws: { error in
      guard case .restoreRefused(let named, _) = error as? DiskError else { return false }
      return named == path
    }
    #expect(source.count > 0)
  }

  @Test func aFirstStartFindsNoFileAndChangesNothing() throws {
    let cache = try Self.make(.lru)
    #expect(try cache.restoreSnapshot(from: Scratch.path("none", suffix: ".snapshot")) == nil)
    #expect(cache.count == 0)
  }

  @Test func aDamagedOrForeignFileIsRefusedAndTheCacheStaysEmpty() throws {
    let folder = try Scratch.directory("snapshot")
    let path = folder.appendingPathComponent("c.snapshot").path
    let cache = try Self.make(.s3fifo())
    _ = Self.serve(cache, Self.keys(seed: 2, count: 3_000)[...])
    let summary = try cache.writeSnapshot(to: path)
    let good = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(good.count == summary.bytes)

    var damaged: [Data] = []
    for position in [0, 9, 40, good.count / 3, good.count / 2, good.count - 20, good.count - 1] {
      var copy = good
      copy[position] ^= 0x5A
      damaged.append(copy)
    }
    damaged.append(good.prefix(good.count / 2))
    damaged.append(Data("policy,size,hits\nlru,100,5\n".utf8))
    damaged.append(Data())
    for bytes in damaged {
      try bytes.write(to: URL(fileURLWithPath: path))
      let target = try Self.make(.s3fifo())
      #expect {
        try target.restoreSnapshot(from: path)
      } throws: { error in
        guard case .corruptSnapshot(let named, _) = error as? DiskError else { return false }
        return named == path
      }
      #expect(target.count == 0)
    }

    // Written for String keys, read for Int keys.
    try good.write(to: URL(fileURLWithPath: path))
    let other = try MemoryCache<Int, Thumbnail>(policy: .s3fifo(), costLimit: 8_000)
    #expect {
      try other.restoreSnapshot(from: path)
    } throws: { error in
      "\(error)".contains("String") && "\(error)".contains("Int")
    }
  }

  @Test func aSnapshotReplacesWholeAndRefusesWhatIsNotAFile() throws {
    let folder = try Scratch.directory("snapshot")
    let cache = try Self.make(.lru)
    _ = Self.serve(cache, Self.keys(seed: 3, count: 500)[...])
    #expect(throws: DiskError.self) { try cache.writeSnapshot(to: folder.path) }
    #expect {
      try cache.writeSnapshot(to: folder.path + "/missing/c.snapshot")
    } throws: { error in
      "\(error)".contains("does not exist")
    }
    // A FIFO is refused at once, not waited on.
    let fifo = folder.appendingPathComponent("fifo.snapshot").path
    #expect(mkfifo(fifo, 0o644) == 0)
    #expect {
      try Self.make(.lru).restoreSnapshot(from: fifo)
    } throws: { error in
      guard case .corruptSnapshot = error as? DiskError else { return false }
      return true
    }
    #expect(throws: DiskError.self) { try cache.writeSnapshot(to: "") }
    // A link at the path is replaced; what it pointed at is untouched.
    let target = folder.appendingPathComponent("elsewhere.txt").path
    try "keep me".write(toFile: target, atomically: false, encoding: .utf8)
    let link = folder.appendingPathComponent("c.snapshot").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    try cache.writeSnapshot(to: link)
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == nil)
    let restored = try Self.make(.lru)
    #expect(try restored.restoreSnapshot(from: link)?.restored == cache.count)
  }

  @Test func aValueThatCannotBeEncodedWritesNothing() throws {
    let folder = try Scratch.directory("snapshot")
    let path = folder.appendingPathComponent("c.snapshot").path
    let cache = try Self.make(.lru)
    cache.setValue(Thumbnail(width: 1, pixels: [], score: .nan), forKey: "bad", cost: 10)
    #expect {
      try cache.writeSnapshot(to: path)
    } throws: { error in
      guard case .encoding = error as? DiskError else { return false }
      return true
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }

  /// The restart in another process: `disk-helper snapshot` serves a
  /// stream, saves, and serves on; this process restores its file (its
  /// strings hash with another seed) and must hit exactly where it did.
  @Test(arguments: ["lru", "s3fifo", "wtinylfu", "arc", "sieve", "2q", "lfu", "slru", "clock", "fifo"])
  func aRestartInAnotherProcessHitsWhereTheSavedCacheDid(policy: String) throws {
    let path = Scratch.path("restart", suffix: ".snapshot")
    let run = try runProgram(builtExecutable("disk-helper"), ["snapshot", path, policy])
    #expect(run.status == 0, "\(run.stderr)")
    let expected = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let cache = try MemoryCache<String, [UInt8]>(policy: CachePolicy(policy), costLimit: 6_000)
    let summary = try #require(try cache.restoreSnapshot(from: path))
    #expect(summary.exact, "\(summary.reason ?? "")")
    var hits = "hits "
    for i in 8_000..<16_000 {
      var x = UInt64(i) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      x ^= x >> 33
      let u = Double(x % 1_000_000) / 1_000_000
      let key = Int(u * u * 1_500)
      if cache.value(forKey: "k\(key)") != nil {
        hits += "1"
      } else {
        hits += "0"
        cache.setValue(Array("k\(key)".utf8), forKey: "k\(key)", cost: 5 + key % 60)
      }
    }
    #expect(hits == expected)
    #expect(hits.filter { $0 == "1" }.count > 1_000)
  }
}
