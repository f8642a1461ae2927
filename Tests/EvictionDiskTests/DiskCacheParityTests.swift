import EvictionCache
import EvictionCore
import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionDisk

/// The disk tier on a par with the memory cache (issue #77, defect 6): the
/// same typed policy and limits, any `Codable` key and value, async
/// variants, heavy values cached, refusals that say so.
@Suite struct DiskCacheParityTests {
  struct Photo: Codable, Hashable, Sendable {
    var album: String
    var number: Int
  }

  struct Thumbnail: Codable, Equatable, Sendable {
    var width: Int
    var pixels: [UInt8]
  }

  /// A value heavier than S3-FIFO's small queue (10 % of the limit) or
  /// W-TinyLFU's window (1 %) but within the limit is cached, and the bytes
  /// stored never exceed the limit however many such values arrive.
  @Test(arguments: ["s3fifo", "wtinylfu", "slru", "2q", "lru"])
  func aValueHeavierThanTheFirstSegmentIsCached(policy: String) throws {
    let limit = 1 << 20
    let cache = try ByteDiskCache(directory: try scratchStore(), policy: CachePolicy(policy), costLimit: limit)
    #expect(try cache.setValue(bytes(900_000, seed: 1), forKey: "large") == .stored, "\(policy)")
    #expect(try cache.value(forKey: "large") == bytes(900_000, seed: 1), "\(policy)")
    for i in 0..<12 {
      try cache.setValue(bytes(300_000 + i, seed: i), forKey: "k\(i)")
      #expect(try cache.totals().bytes <= Int64(limit), "\(policy) after \(i)")
      #expect(try cache.contains("k\(i)"), "\(policy): the newest heavy value stays")
    }
    #expect(try DiskStore.check(directory: cache.directory).isConsistent)
    #expect(try cache.totals().count == cache.policyCount)
  }

  /// Under `.refuse` the policy's own rule stands: the disk refuses what
  /// the replay refuses, and says so.
  @Test func refusedHeavyValuesAreReported() throws {
    let cache = try ByteDiskCache(
      directory: try scratchStore(), policy: "s3fifo", costLimit: 1 << 20, heavyEntries: .refuse)
    #expect(try cache.setValue(bytes(900_000, seed: 1), forKey: "large") == .rejected(.policy))
    #expect(try cache.totals().count == 0 && cache.statistics.rejections == 1)
  }

  /// A value heavier than the whole limit is an error the caller sees, and
  /// the key's value stays as it was.
  @Test func aValueHeavierThanTheLimitThrowsAndChangesNothing() throws {
    let cache = try ByteDiskCache(directory: try scratchStore(), costLimit: 1000)
    try cache.setValue(bytes(10, seed: 1), forKey: "a")
    #expect(throws: DiskError.valueTooLarge(key: "a", bytes: 1001, limit: 1000)) {
      try cache.setValue(bytes(1001, seed: 2), forKey: "a")
    }
    #expect(try cache.value(forKey: "a") == bytes(10, seed: 1))
    #expect("\(DiskError.valueTooLarge(key: "a", bytes: 1001, limit: 1000))".contains("Raise costLimit"))
  }

  @Test func limitsOutOfRangeAreRefusedAtCreation() throws {
    for make in [
      { try ByteDiskCache(directory: try scratchStore(), countLimit: 0) },
      { try ByteDiskCache(directory: try scratchStore(), costLimit: -1) },
      { try ByteDiskCache(directory: try scratchStore(), ageLimit: .zero) },
      { try ByteDiskCache(directory: try scratchStore(), freeDiskSpaceLimit: -5) },
    ] as [() throws -> ByteDiskCache] {
      #expect {
        _ = try make()
      } throws: { error in
        guard case DiskError.invalidLimit = error else { return false }
        return true
      }
    }
  }

  /// With both limits, the count limit binds beside the cost limit.
  @Test func aCountLimitBindsBesideACostLimit() throws {
    let cache = try ByteDiskCache(directory: try scratchStore(), countLimit: 3, costLimit: 1 << 20)
    for i in 0..<10 { try cache.setValue(bytes(100, seed: i), forKey: "k\(i)") }
    #expect(try cache.totals().count == 3 && cache.policyCount == 3)
    #expect(try cache.contains("k9") && !cache.contains("k6"))
  }

  /// W-TinyLFU's sketch is sized for entries, not one counter per byte of the limit.
  @Test func wTinyLFUsSketchIsSizedForEntriesNotBytes() throws {
    let cache = try ByteDiskCache(directory: try scratchStore(), policy: "wtinylfu", costLimit: 1 << 30)
    #expect(cache.core.policy.sketchBytes() < 1 << 20, "\(cache.core.policy.sketchBytes()) bytes")
  }

  @Test func missingParentFoldersAreCreated() throws {
    let root = try scratchStore()
    let cache = try ByteDiskCache(directory: root + "/a/b/c/store", countLimit: 10)
    try cache.setValue([1, 2, 3], forKey: "k")
    #expect(try cache.value(forKey: "k") == [1, 2, 3])
    // A file where a parent folder should be is a clear error.
    try FileManager.default.createDirectory(atPath: root + "/x", withIntermediateDirectories: true)
    #expect(FileManager.default.createFile(atPath: root + "/x/file", contents: Data([1])))
    #expect(throws: DiskError.notADirectory(path: root + "/x/file")) {
      try ByteDiskCache(directory: root + "/x/file/store", countLimit: 10)
    }
  }

  /// `Codable` keys and values round-trip, and survive a reopen.
  @Test func codableKeysAndValuesRoundTripAcrossAReopen() throws {
    let dir = try scratchStore()
    let first = Photo(album: "trip", number: 1)
    let second = Photo(album: "trip", number: 2)
    do {
      let cache = try DiskCache<Photo, Thumbnail>(directory: dir, policy: .lru, countLimit: 10)
      try cache.setValue(Thumbnail(width: 64, pixels: bytes(64, seed: 1)), forKey: first)
      try cache.setValue(Thumbnail(width: 32, pixels: bytes(32, seed: 2)), forKey: second)
      #expect(try cache.value(forKey: first)?.width == 64)
    }
    let reopened = try DiskCache<Photo, Thumbnail>(directory: dir, policy: .lru, countLimit: 10)
    #expect(try reopened.value(forKey: second) == Thumbnail(width: 32, pixels: bytes(32, seed: 2)))
    #expect(try reopened.value(forKey: Photo(album: "trip", number: 3)) == nil)
    #expect(try reopened.totals().count == 2)
  }

  /// A stored value that no longer decodes (its type changed) is dropped
  /// and read as a miss, counted; the cache goes on.
  @Test func aValueThatNoLongerDecodesIsAMissNotACrash() throws {
    let dir = try scratchStore()
    do {
      let old = try DiskCache<String, String>(directory: dir, countLimit: 10)
      try old.setValue("a string", forKey: "k")
    }
    let new = try DiskCache<String, Thumbnail>(directory: dir, countLimit: 10)
    #expect(try new.value(forKey: "k") == nil)
    #expect(new.statistics.undecodableValuesDropped == 1 && new.statistics.misses == 1)
    #expect(try new.totals().count == 0 && new.policyCount == 0)
    try new.setValue(Thumbnail(width: 1, pixels: [7]), forKey: "k")
    #expect(try new.value(forKey: "k") == Thumbnail(width: 1, pixels: [7]))
  }

  /// A coder that fails is an error naming the key; nothing is written.
  @Test func aValueThatCannotBeEncodedIsAnError() throws {
    struct Refused: Error {}
    let coder = DiskCoder<String, Int>(
      key: { $0 }, encode: { value in if value < 0 { throw Refused() } else { return [UInt8(value)] } },
      decode: { Int($0[0]) })
    let cache = try DiskCache(directory: try scratchStore(), countLimit: 10, coder: coder)
    try cache.setValue(5, forKey: "k")
    #expect {
      try cache.setValue(-1, forKey: "k")
    } throws: { error in
      guard case DiskError.encoding(let message) = error else { return false }
      return message.contains("'k'")
    }
    #expect(try cache.value(forKey: "k") == 5)
  }

  @Test func theAsyncVariantsDoTheSameWork() async throws {
    let cache = try DiskCache<Int, [UInt8]>(directory: try scratchStore(), countLimit: 50)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for i in 0..<40 { group.addTask { try await cache.setValue(bytes(100, seed: i), forKey: i) } }
      try await group.waitForAll()
    }
    let read = try await cache.value(forKey: 7)
    #expect(read == bytes(100, seed: 7))
    #expect(try await cache.removeValue(forKey: 7))
    #expect(try await cache.value(forKey: 7) == nil)
    try await cache.removeAll()
    #expect(try cache.totals().count == 0)
  }

  /// Get-or-load over both tiers: concurrent requests for a key load it
  /// once; a new process (a new cache on the same folder) reads it from
  /// disk without loading.
  @Test func theTieredCacheLoadsEachKeyOnceAndThenServesItFromDisk() async throws {
    let dir = try scratchStore()
    let loads = Counter()
    do {
      let tiered = try TieredCache<String, Thumbnail>(directory: dir, memoryCountLimit: 100, diskCountLimit: 100)
      try await withThrowingTaskGroup(of: Thumbnail.self) { group in
        for i in 0..<40 {
          group.addTask {
            try await tiered.value(forKey: "k\(i % 4)") { key in
              loads.increment()
              try await Task.sleep(for: .milliseconds(20))
              return Thumbnail(width: Int(key.dropFirst())!, pixels: [1])
            }
          }
        }
        for try await thumbnail in group { #expect((0..<4).contains(thumbnail.width)) }
      }
      #expect(loads.value == 4)
      #expect(tiered.statistics.loads == 4 && tiered.statistics.misses == 4)
      #expect(try tiered.disk.totals().count == 4)
    }
    let restarted = try TieredCache<String, Thumbnail>(directory: dir, memoryCountLimit: 100, diskCountLimit: 100)
    let thumbnail = try await restarted.value(forKey: "k3") { _ in
      loads.increment()
      return Thumbnail(width: -1, pixels: [])
    }
    #expect(thumbnail.width == 3 && loads.value == 4)
    #expect(restarted.statistics.diskHits == 1 && restarted.statistics.loads == 0)
    #expect(try restarted.lookup("k3")?.tier == .memory, "a disk hit is kept in memory")
  }

  /// A loader's error reaches the caller, and nothing is stored in either tier.
  @Test func aFailedLoadStoresNothing() async throws {
    struct Offline: Error {}
    let tiered = try TieredCache<String, String>(
      directory: try scratchStore(), memoryCountLimit: 10, diskCountLimit: 10)
    await #expect(throws: Offline.self) {
      try await tiered.value(forKey: "k") { _ in throw Offline() }
    }
    #expect(try tiered.disk.totals().count == 0 && !tiered.memory.contains("k"))
  }

  /// Byte values weigh their bytes in the memory tier too.
  @Test func theMemoryTierWeighsEncodedBytes() throws {
    let tiered = try TieredCache<String, [UInt8]>(
      directory: try scratchStore(), memoryCostLimit: 1000, diskCostLimit: 1 << 20)
    for i in 0..<10 { try tiered.setValue(bytes(300, seed: i), forKey: "k\(i)") }
    #expect(tiered.memory.totalCost <= 1000 && tiered.memory.count == 3)
    #expect(try tiered.disk.totals() == (10, 3000))
  }
}

/// What a hostile review found, each pinned down.
@Suite struct DiskCacheReviewTests {
  /// `missing/..` would create `missing` and open the folder above it,
  /// judged before it was reachable: refused, and nothing is written there.
  @Test func aPathThatGoesBackUpThroughAMissingFolderIsRefused() throws {
    let root = try scratchStore()
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    #expect(FileManager.default.createFile(atPath: root + "/notes.txt", contents: Data("mine".utf8)))
    #expect {
      try ByteDiskCache(directory: root + "/missing/..", countLimit: 10)
    } throws: { error in
      guard case DiskError.invalidPath = error else { return false }
      return true
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["notes.txt"])
  }

  /// A same-size overwrite keeps the entry's place, as in the memory
  /// cache: after the same stream of reads and writes (hits rewritten) the
  /// two hold the same keys.
  @Test(arguments: ["slru", "s3fifo", "wtinylfu", "lru", "arc"])
  func overwritesKeepTheirPlaceAsInTheMemoryCache(policy: String) throws {
    let disk = try ByteDiskCache(
      directory: try scratchStore(), policy: CachePolicy(policy), costLimit: 2_000, heavyEntries: .refuse,
      inlineThreshold: 64)
    let memory = try MemoryCache<String, [UInt8]>(
      policy: CachePolicy(policy), costLimit: 2_000, cost: { $0.count }, heavyEntries: .refuse)
    var state: UInt64 = 7
    for _ in 0..<800 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let k = Int((state >> 33) % 50) * Int((state >> 20) % 2 + 1) / 2
      let key = "key-\(k)"
      let value = bytes(40 + k % 3 * 20, seed: k)
      _ = try disk.value(forKey: key)
      try disk.setValue(value, forKey: key)
      _ = memory.value(forKey: key)
      memory.setValue(value, forKey: key)
    }
    let candidates = (0..<50).map { "key-\($0)" }
    let onDisk = Set(try candidates.filter { try disk.contains($0) })
    #expect(onDisk == Set(candidates.filter { memory.contains($0) }), "\(policy)")
  }

  @Test func optionalStringKeysStayDistinct() throws {
    let cache = try DiskCache<String?, Int>(directory: try scratchStore(), countLimit: 10)
    try cache.setValue(1, forKey: nil)
    try cache.setValue(2, forKey: "null")
    #expect(try cache.value(forKey: nil) == 1 && cache.value(forKey: "null") == 2)
  }

  /// Writers of one key through both tiers leave both holding the same value.
  @Test func concurrentWritersLeaveTheTiersAgreeing() throws {
    let tiered = try TieredCache<String, [UInt8]>(
      directory: try scratchStore(), memoryCountLimit: 10, diskCountLimit: 10)
    DispatchQueue.concurrentPerform(iterations: 4) { t in
      for i in 0..<60 {
        try! tiered.setValue(bytes(10 + t, seed: i), forKey: "k")
        if i % 3 == 0 { _ = try! tiered.lookup("k") }
        if i % 7 == 0 { try! tiered.removeValue(forKey: "k") }
      }
    }
    #expect(tiered.memory.value(forKey: "k") == (try tiered.disk.value(forKey: "k")))
  }

  /// A value written while it loads is newer: it stays in both tiers.
  @Test func aWriteDuringALoadWinsInBothTiers() async throws {
    let tiered = try TieredCache<String, String>(
      directory: try scratchStore(), memoryCountLimit: 10, diskCountLimit: 10)
    let started = AsyncStream<Void>.makeStream()
    let load = Task {
      try await tiered.value(forKey: "k") { _ in
        started.continuation.yield()
        try await Task.sleep(for: .milliseconds(200))
        return "loaded"
      }
    }
    for await _ in started.stream { break }
    try tiered.setValue("written", forKey: "k")
    #expect(try await load.value == "loaded")
    let onDisk = try await tiered.disk.value(forKey: "k")
    #expect(tiered.memory.value(forKey: "k") == "written" && onDisk == "written")
  }

  /// With a `ttl`, a value on disk older than it is loaded again.
  ///
  /// The disk tier reads the wall clock, so the test cannot inject one: it
  /// times its own first two reads and, only where they fell within the
  /// TTL, requires the second to be served (on CI's loaded machine a whole
  /// TTL once passed between them, and the second read rightly loaded).
  @Test func aTTLReloadsWhatTheDiskHoldsWhenItIsOlder() async throws {
    let tiered = try TieredCache<String, Int>(directory: try scratchStore(), memoryCountLimit: 10, diskCountLimit: 10)
    let loads = Counter()
    let ttl = Duration.seconds(1)
    func get() async throws -> Int {
      try await tiered.value(forKey: "weather", ttl: ttl) { _ in
        loads.increment()
        return loads.value
      }
    }
    let start = ContinuousClock.now
    #expect(try await get() == 1)
    let second = try await get()
    let withinTheTTL = start.duration(to: .now) < ttl
    #expect(withinTheTTL ? second == 1 : (1...2).contains(second), "a read within the TTL is served, not loaded")
    try await Task.sleep(for: ttl + .milliseconds(300))
    #expect(try await get() == second + 1, "expired from memory, and the disk's copy is as old")
    #expect(tiered.disk.statistics.expirations == second, "one expiry for each reload")
  }

  /// A value heavier than the disk's limit is kept in memory only, and the
  /// disk's older value of the key leaves.
  @Test func aValueTooHeavyForTheDiskIsKeptInMemoryOnly() async throws {
    let tiered = try TieredCache<String, [UInt8]>(
      directory: try scratchStore(), memoryCostLimit: 10_000, diskCostLimit: 1_000)
    try tiered.setValue(bytes(100, seed: 1), forKey: "k")
    try tiered.setValue(bytes(5_000, seed: 2), forKey: "k")
    #expect(tiered.memory.value(forKey: "k") == bytes(5_000, seed: 2))
    #expect(try !tiered.disk.contains("k"))
    let loaded = try await tiered.value(forKey: "big") { _ in bytes(4_000, seed: 3) }
    #expect(loaded.count == 4_000 && tiered.memory.contains("big"))
    #expect(tiered.statistics.diskWriteFailures == 2)
  }
}

/// A thread-safe count.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
