import EvictionCache
import EvictionCore
import Foundation
import Synchronization
import Testing

/// The `buffered` strategy: hits without the policy lock, recorded and
/// replayed. Its name ends in `MemoryCacheTests`, so `scripts/test-tsan.sh`
/// runs it under ThreadSanitizer.
@Suite struct BufferedMemoryCacheTests {
  /// A value whose fields must agree: a torn or freed one would not.
  final class Checked: Sendable {
    let key: Int
    let writer: Int
    let check: Int
    init(key: Int, writer: Int) {
      self.key = key
      self.writer = writer
      check = key &* 1_000_003 &+ writer
    }
    var isWhole: Bool { check == key &* 1_000_003 &+ writer }
  }

  /// Runs `body(thread)` on `count` plain threads (ThreadSanitizer sees their
  /// happens-before edges) and waits for all of them.
  static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let workers = (0..<count).map { t in
      let thread = Thread { body(t) }
      thread.start()
      return thread
    }
    while workers.contains(where: { !$0.isFinished }) { usleep(1_000) }
  }

  /// One key read, written and removed from 8 threads at once: every value
  /// read is whole and is one some thread stored for that key.
  @Test func oneKeyHammeredFromEightThreads() throws {
    let cache = try MemoryCache<Int, Checked>(policy: "lru", countLimit: 4, lock: .buffered)
    let bad = Atomic<Int>(0)
    let seen = Atomic<Int>(0)
    Self.onThreads(8) { t in
      var generator = SeededGenerator(seed: UInt64(t + 11))
      for step in 0..<6_000 {
        // Mostly the one key; now and then others, so that it is evicted too.
        let key = generator.below(8) == 0 ? 100 + generator.below(6) : 7
        switch generator.below(10) {
        case 0...5:
          if let value = cache.value(forKey: key) {
            seen.add(1, ordering: .relaxed)
            if !value.isWhole || value.key != key || value.writer >= 8 * 6_000 { bad.add(1, ordering: .relaxed) }
          }
        case 6...8: try? cache.setValue(Checked(key: key, writer: t * 6_000 + step), forKey: key)
        default: cache.removeValue(forKey: key)
        }
      }
    }
    #expect(bad.load(ordering: .relaxed) == 0)
    #expect(seen.load(ordering: .relaxed) > 0, "no read hit at all")
    cache.checkInvariants()
    #expect(cache.count <= 4)
  }

  /// Reads of a filled cache from 4 threads: the hits need no lock (far fewer
  /// acquisitions than reads), every read is counted as a hit, and the
  /// dropped ones are no more than the hits.
  @Test func hitsTakeNoLockAndAreAllCounted() throws {
    let cache = try MemoryCache<Int, Int>(policy: "arc", countLimit: 1_000, lock: .buffered, instrumentLocks: true)
    for key in 0..<1_000 { try cache.setValue(key * 2, forKey: key) }
    let before = cache.lockStatistics.acquisitions
    let wrong = Atomic<Int>(0)
    let reads = 4 * 20_000
    Self.onThreads(4) { t in
      var generator = SeededGenerator(seed: UInt64(t + 1))
      for _ in 0..<(reads / 4) {
        let key = generator.below(1_000)
        if cache.value(forKey: key) != key * 2 { wrong.add(1, ordering: .relaxed) }
      }
    }
    #expect(wrong.load(ordering: .relaxed) == 0)
    let statistics = cache.statistics
    #expect(statistics.hits == reads && statistics.misses == 0)
    #expect(statistics.droppedAccesses <= statistics.hits)
    let taken = cache.lockStatistics.acquisitions - before
    #expect(taken < UInt64(reads / 8), "\(taken) lock acquisitions for \(reads) hits")
    cache.checkInvariants()
  }

  /// A buffered hit reaches the policy before the next eviction: LRU keeps
  /// the key just read.
  @Test func aBufferedHitCountsForTheNextEviction() throws {
    let cache = try MemoryCache<String, Int>(policy: "lru", countLimit: 3, lock: .buffered)
    for (i, key) in ["a", "b", "c"].enumerated() { try cache.setValue(i, forKey: key) }
    #expect(cache.value(forKey: "a") == 0)
    try cache.setValue(3, forKey: "d")
    #expect(cache.contains("a") && !cache.contains("b"))
    // A removed or replaced key is never read from the index again.
    cache.removeValue(forKey: "a")
    #expect(cache.value(forKey: "a") == nil)
    try cache.setValue(9, forKey: "c")
    #expect(cache.value(forKey: "c") == 9)
    cache.checkInvariants()
  }

  @Test func theStrategyParsesAndPrints() throws {
    #expect(try LockStrategy("buffered") == .buffered)
    #expect(LockStrategy.buffered.description == "buffered")
    #expect(CacheError.unknownLock("x").description.contains("buffered"))
  }
}
