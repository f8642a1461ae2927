import EvictionCache
import EvictionCore
import Foundation
import Testing

@testable import EvictionDisk

@Suite struct DiskCacheTests {
  func keys(_ cache: ByteDiskCache, among candidates: [String]) throws -> Set<String> {
    Set(try candidates.filter { try cache.contains($0) })
  }

  @Test func aCountLimitEvictsLeastRecentlyUsedFirst() throws {
    let dir = try scratchStore()
    let cache = try ByteDiskCache(directory: dir, policy: "lru", countLimit: 10)
    for i in 0..<15 { try cache.setValue(bytes(50, seed: i), forKey: "k\(i)") }
    let all = (0..<16).map { "k\($0)" }
    #expect(try keys(cache, among: all) == Set((5..<15).map { "k\($0)" }))
    _ = try cache.value(forKey: "k5")
    try cache.setValue(bytes(50, seed: 15), forKey: "k15")
    #expect(try !cache.contains("k6") && cache.contains("k5") && cache.totals().count == 10)
  }

  @Test func aCostLimitCountsBytesAndAnAgeLimitExpires() throws {
    let byCost = try ByteDiskCache(directory: try scratchStore(), costLimit: 10_000)
    for i in 0..<6 { try byCost.setValue(bytes(3000, seed: i), forKey: "k\(i)") }
    #expect(try byCost.totals() == (3, 9000))
    // A write stamps its entry and then trims by age in the same call: on a
    // loaded machine (the tests run in parallel, and a commit may wait for
    // the disk) that call once took longer than a one-second limit, so the
    // limit is three, and the new entry is checked only where its write
    // took less.
    let byAge = try ByteDiskCache(directory: try scratchStore(), ageLimit: .seconds(3))
    try byAge.setValue([1], forKey: "old")
    usleep(3_500_000)
    let start = ContinuousClock.now
    try byAge.setValue([2], forKey: "new")
    let quick = start.duration(to: .now) < .seconds(3)
    #expect(try !byAge.contains("old"))
    if quick { #expect(try byAge.contains("new")) }
  }

  /// The disk cache and the memory cache run the same policy code: after the
  /// same read-through stream they hold the same keys.
  @Test(arguments: ["lru", "fifo", "clock", "sieve", "arc", "s3fifo", "2q", "slru"])
  func evictionOrderMatchesTheMemoryCache(policy: String) throws {
    let disk = try ByteDiskCache(
      directory: try scratchStore(), policy: CachePolicy(policy), countLimit: 20, inlineThreshold: 64)
    let memory = try MemoryCache<String, [UInt8]>(policy: CachePolicy(policy), countLimit: 20)
    var rng = SystemRandomNumberGenerator()
    let stream = (0..<600).map { _ in Int.random(in: 0..<60, using: &rng) }
    for k in stream {
      let key = "key-\(k)"
      let value = bytes(k * 3, seed: k)
      if try disk.value(forKey: key) == nil { try disk.setValue(value, forKey: key) }
      if memory.value(forKey: key) == nil { memory.setValue(value, forKey: key) }
    }
    let candidates = (0..<60).map { "key-\($0)" }
    #expect(try keys(disk, among: candidates) == Set(candidates.filter { memory.contains($0) }), "\(policy)")
    #expect(try DiskStore.check(directory: disk.directory).isConsistent)
  }

  @Test func policyStateIsRebuiltOnReopenFromAccessTimes() throws {
    let dir = try scratchStore()
    do {
      let cache = try ByteDiskCache(directory: dir, policy: "lru", countLimit: 5)
      for i in 0..<5 { try cache.setValue(bytes(30, seed: i), forKey: "k\(i)") }
      _ = try cache.value(forKey: "k0")  // k1 is now the least recently used
    }
    let reopened = try ByteDiskCache(directory: dir, policy: "lru", countLimit: 5)
    #expect(reopened.policyCount == 5)
    try reopened.setValue([9], forKey: "k5")
    #expect(try !reopened.contains("k1") && reopened.contains("k0"))
    // Reopened with a lower limit: the oldest go at once.
    let smaller = try { () throws -> ByteDiskCache in
      _ = reopened
      return try ByteDiskCache(directory: dir, policy: "lru", countLimit: 2)
    }()
    #expect(try smaller.totals().count == 2)
  }

  @Test func concurrentWritersOfOneKeyLeaveOneConsistentValue() throws {
    let dir = try scratchStore()
    let cache = try ByteDiskCache(directory: dir, countLimit: 100, inlineThreshold: 1000)
    let threads = 8
    let written = (0..<threads).flatMap { t in
      (0..<40).map { i in bytes((t * 40 + i) % 3 == 0 ? 5000 : 200, seed: t * 100 + i) }
    }
    DispatchQueue.concurrentPerform(iterations: threads) { t in
      for i in 0..<40 { try! cache.setValue(written[t * 40 + i], forKey: "shared") }
    }
    let final = try #require(try cache.value(forKey: "shared"))
    #expect(written.contains(final))
    #expect(try DiskStore.check(directory: dir).isConsistent)
    #expect(try dataFiles(dir).count == (final.count > 1000 ? 1 : 0), "one value, at most one file")
  }

  @Test func aFreeDiskSpaceLimitEvictsUntilItHolds() throws {
    // Asking for more free space than any disk has: every value goes at once.
    let starved = try ByteDiskCache(directory: try scratchStore(), countLimit: 10, freeDiskSpaceLimit: Int.max)
    try starved.setValue(bytes(100, seed: 1), forKey: "a")
    #expect(try starved.totals().count == 0 && !starved.contains("a"))
    // A limit the disk meets: nothing is evicted for space.
    let roomy = try ByteDiskCache(directory: try scratchStore(), countLimit: 10, freeDiskSpaceLimit: 1)
    for i in 0..<5 { try roomy.setValue(bytes(100, seed: i), forKey: "k\(i)") }
    #expect(try roomy.totals().count == 5)
  }

  @Test func offlineOrTimedPoliciesAreRefused() throws {
    #expect(throws: DiskError.self) {
      try ByteDiskCache(directory: try scratchStore(), policy: "belady", countLimit: 5)
    }
    #expect(throws: DiskError.self) {
      try ByteDiskCache(directory: try scratchStore(), policy: "yy-disk", countLimit: 5)
    }
    #expect(throws: DiskError.self) { try ByteDiskCache(directory: try scratchStore(), policy: "nope", countLimit: 5) }
  }

  @Test func theTieredCacheServesFromMemoryThenDiskAndPromotes() throws {
    let disk = try ByteDiskCache(directory: try scratchStore(), countLimit: 100)
    let memory = try MemoryCache<String, [UInt8]>(costLimit: 1000)
    let tiered = TieredCache(memory: memory, disk: disk)
    for i in 0..<10 { try tiered.setValue(bytes(300, seed: i), forKey: "k\(i)") }
    // Memory holds the last three (900 bytes); disk holds all ten.
    #expect(try tiered.value(forKey: "k9") == bytes(300, seed: 9))
    #expect(try tiered.value(forKey: "k0") == bytes(300, seed: 0))
    #expect(memory.contains("k0"), "a disk hit is promoted")
    #expect(try tiered.value(forKey: "absent") == nil)
    #expect(try tiered.lookup("k0")?.tier == .memory, "promoted, so memory serves it next")
    #expect(
      tiered.statistics
        == TieredCache<String, [UInt8]>.Statistics(memoryHits: 2, diskHits: 1, misses: 1, bytesReadFromDisk: 300))
  }
}
