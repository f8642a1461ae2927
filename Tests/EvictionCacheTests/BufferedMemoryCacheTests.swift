import EvictionCache
import EvictionCore
import EvictionTestSupport
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
        case 6...8: cache.setValue(Checked(key: key, writer: t * 6_000 + step), forKey: key)
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
    for key in 0..<1_000 { cache.setValue(key * 2, forKey: key) }
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

  /// More threads alive at once than the cache has stripes (twice the
  /// cores): the later ones are guests of a stripe another thread owns,
  /// counted with atomic adds in a ring of their own. Every read is right,
  /// every hit and write in place is counted, and the policy heard of each
  /// access that was not dropped.
  @Test func guestsBeyondTheStripesReadWriteAndAreCounted() throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 512, lock: .buffered)
    for key in 0..<512 { cache.setValue(key, forKey: key) }
    let threads = 2 * ProcessInfo.processInfo.activeProcessorCount + 8
    let arrived = Atomic<Int>(0)
    let wrong = Atomic<Int>(0)
    let (reads, writes) = (2_000, 500)
    Self.onThreads(threads) { t in
      // All alive together, so that their slots are distinct.
      arrived.add(1, ordering: .relaxed)
      while arrived.load(ordering: .relaxed) < threads { sched_yield() }
      var generator = SeededGenerator(seed: UInt64(t + 31))
      for step in 0..<(reads + writes) {
        let key = generator.below(512)
        if step % 5 == 4 {
          cache.setValue(key, forKey: key)
        } else if cache.value(forKey: key) != key {
          wrong.add(1, ordering: .relaxed)
        }
      }
    }
    #expect(wrong.load(ordering: .relaxed) == 0)
    let statistics = cache.statistics
    // Every key stays cached, so no read misses. (Exact hit and in-place
    // counts are not asserted here: with more threads than cores, a
    // writer preempted with its flag up sends readers and writers to the
    // locked path, and under a loaded machine the totals have come out one
    // or two off; issue 71 keeps that open.)
    #expect(statistics.misses == 0, "\(statistics)")
    #expect(statistics.writesInPlace > 0 && statistics.writesInPlace <= threads * writes, "\(statistics)")
    #expect(statistics.droppedAccesses <= statistics.hits + statistics.writesInPlace)
    #expect(cache.count == 512)
    cache.checkInvariants()
  }

  /// A buffered hit reaches the policy before the next eviction: LRU keeps
  /// the key just read.
  @Test func aBufferedHitCountsForTheNextEviction() throws {
    let cache = try MemoryCache<String, Int>(policy: "lru", countLimit: 3, lock: .buffered)
    for (i, key) in ["a", "b", "c"].enumerated() { cache.setValue(i, forKey: key) }
    #expect(cache.value(forKey: "a") == 0)
    cache.setValue(3, forKey: "d")
    #expect(cache.contains("a") && !cache.contains("b"))
    // A removed or replaced key is never read from the index again.
    cache.removeValue(forKey: "a")
    #expect(cache.value(forKey: "a") == nil)
    cache.setValue(9, forKey: "c")
    #expect(cache.value(forKey: "c") == 9)
    cache.checkInvariants()
  }

  /// On one thread, writes in place leave every decision as the `mutex`
  /// strategy makes it: the same hits, the same departures (key, value and
  /// reason) and the same counters, for every online policy. The stream
  /// reads, writes cached and new keys (now and then at a new cost, which
  /// takes the lock), removes, and reads through.
  ///
  /// Replaced values are handed on at once under both strategies, in the
  /// same order, and so are the other departures among themselves.
  ///
  /// Not for a policy whose hits may evict (`PolicyTraits.evictsOnHit`):
  /// under `buffered` such an eviction waits until the hit is replayed, so
  /// the victim can still be read (`CacheConformanceTests` holds those to
  /// `BufferedReadsModel`).
  @Test(arguments: cachePolicies.filter { !PolicyCatalog.entry(named: $0)!.evictsOnHit })
  func oneThreadWritingInPlaceDecidesAsTheMutexStrategyDoes(policy: String) throws {
    var runs: [(hits: [Bool], departures: [String], statistics: CacheStatistics, locked: UInt64)] = []
    for lock in [LockStrategy.mutex, .buffered] {
      let log = DepartureLog()
      let cache = try MemoryCache<Int, Int>(
        policy: CachePolicy(policy), countLimit: 64, lock: lock, instrumentLocks: true,
        onEvict: { log.record($0, $1, $2) })
      var generator = SeededGenerator(seed: 77)
      var hits: [Bool] = []
      for step in 0..<8_000 {
        let key = generator.below(100) < 70 ? generator.below(50) : generator.below(300)
        switch generator.below(20) {
        case 0..<10: hits.append(cache.value(forKey: key) != nil)
        case 10..<17: cache.setValue(step, forKey: key, cost: generator.below(10) == 0 ? 1 : 0)
        case 17: cache.removeValue(forKey: key)
        default:
          let hit = cache.value(forKey: key) != nil
          if !hit { cache.setValue(step, forKey: key) }
          hits.append(hit)
        }
      }
      cache.checkInvariants()
      runs.append(
        (
          hits, log.entries.map { "\($0.key)=\($0.value) \($0.reason)" }, cache.statistics,
          cache.lockStatistics.acquisitions
        ))
      #expect(cache.statistics.droppedAccesses == 0, "\(lock)")
    }
    let (mutex, buffered) = (runs[0], runs[1])
    #expect(
      buffered.hits == mutex.hits,
      "first difference at read \(mutex.hits.indices.first { mutex.hits[$0] != buffered.hits[$0] } ?? -1)")
    for replaced in [true, false] {
      let (m, b) = [mutex.departures, buffered.departures].map { $0.filter { $0.hasSuffix(" replaced") == replaced } }
        .pair
      #expect(b == m, "first difference at departure \(m.indices.first { m[$0] != b[$0] } ?? -1), replaced \(replaced)")
    }
    var counted = buffered.statistics
    #expect(counted.writesInPlace > 0 && mutex.statistics.writesInPlace == 0)
    counted.writesInPlace = 0
    #expect(counted == mutex.statistics)
    #expect(mutex.statistics.evictions[.replaced, default: 0] > 500, "the stream replaces too seldom")
    // Reads hit and writes replace without the lock.
    #expect(buffered.locked < mutex.locked * 9 / 10, "\(buffered.locked) acquisitions against \(mutex.locked)")
  }

  /// Writes of cached keys from 4 threads: none takes the lock, none is
  /// lost (each key ends with some thread's last write to it), each counts
  /// as a set and a replacement, and every read sees a value written for
  /// its key.
  @Test func writesInPlaceTakeNoLockAndLoseNoWrite() throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 1_000, lock: .buffered, instrumentLocks: true)
    for key in 0..<1_000 { cache.setValue(key * 1_000_000, forKey: key) }
    let before = cache.lockStatistics.acquisitions
    let (threads, writes) = (4, 5_000)
    let lastWrites = SharedState<[Int: Set<Int>]>([:])
    let wrong = Atomic<Int>(0)
    Self.onThreads(threads) { t in
      var generator = SeededGenerator(seed: UInt64(t + 31))
      var last: [Int: Int] = [:]
      for i in 0..<writes {
        let key = generator.below(1_000)
        let value = key * 1_000_000 + t * 10_000 + i
        cache.setValue(value, forKey: key)
        last[key] = value
        let read = generator.below(1_000)
        if let seen = cache.value(forKey: read), seen / 1_000_000 != read { wrong.add(1, ordering: .relaxed) }
      }
      lastWrites.withLock { all in for (key, value) in last { all[key, default: []].insert(value) } }
    }
    #expect(wrong.load(ordering: .relaxed) == 0)
    let taken = cache.lockStatistics.acquisitions - before
    #expect(taken < UInt64(threads * writes / 8), "\(taken) lock acquisitions for \(threads * writes) writes")
    let statistics = cache.statistics
    #expect(statistics.sets == 1_000 + threads * writes)
    #expect(statistics.evictions[.replaced] == threads * writes && statistics.count == 1_000)
    for (key, candidates) in lastWrites.withLock({ $0 }) {
      let kept = cache.value(forKey: key)
      #expect(kept.map(candidates.contains) == true, "key \(key) keeps \(String(describing: kept))")
    }
    cache.checkInvariants()
  }

  /// A value that counts the live ones.
  final class Tracked: Sendable {
    static let live = Atomic<Int>(0)
    let id: Int
    init(_ id: Int) {
      self.id = id
      Self.live.add(1, ordering: .relaxed)
    }
    deinit { Self.live.subtract(1, ordering: .relaxed) }
  }

  /// A boxed value swapped out by a write in place is handed to the
  /// eviction handler at once and freed after a grace period: the boxes
  /// waiting stay bounded, and none outlives the cache.
  @Test func boxedValuesSwappedOutAreFreedAfterAGracePeriod() throws {
    let replaced = SharedState<[Int]>([])
    var cache: MemoryCache<Int, Tracked>? = try MemoryCache<Int, Tracked>(
      policy: "lru", countLimit: 8, lock: .buffered, instrumentLocks: true,
      onEvict: { _, value, reason in if reason == .replaced { replaced.withLock { $0.append(value.id) } } })
    for key in 0..<8 { cache!.setValue(Tracked(key), forKey: key) }
    let before = cache!.lockStatistics.acquisitions
    var most = 0
    for i in 8..<2_008 {
      cache!.setValue(Tracked(i), forKey: i % 8)
      most = max(most, Tracked.live.load(ordering: .relaxed))
    }
    #expect(replaced.withLock { $0 } == Array(0..<2_000), "each write hands on the value it replaced, in order")
    #expect(most <= 8 + 2 * 64, "\(most) values alive at once")
    #expect(cache!.lockStatistics.acquisitions - before < 100)
    #expect((0..<8).allSatisfy { cache!.value(forKey: $0)?.id == 2_000 + $0 })
    cache!.checkInvariants()
    cache = nil
    #expect(Tracked.live.load(ordering: .relaxed) == 0)
  }

  /// Writes take the lock where a write in place could not keep the cache's
  /// books: a new cost, costs that are the policy's weights, ages kept.
  @Test func writesTakeTheLockWhenCostsOrAgesMustFollow() throws {
    /// The lock acquisitions `body` makes (reading the figure takes one).
    func locks(_ cache: MemoryCache<Int, Int>, _ body: () -> Void) -> UInt64 {
      let before = cache.lockStatistics.acquisitions
      body()
      return cache.lockStatistics.acquisitions - before - 1
    }
    let counted = try MemoryCache<Int, Int>(countLimit: 10, lock: .buffered, instrumentLocks: true)
    counted.setValue(1, forKey: 1, cost: 5)
    #expect(locks(counted) { counted.setValue(2, forKey: 1, cost: 5) } == 0)
    #expect(locks(counted) { counted.setValue(3, forKey: 1, cost: 7) } > 0)
    #expect(counted.totalCost == 7 && counted.value(forKey: 1) == 3)
    #expect(locks(counted) { counted.setValue(4, forKey: 1, cost: 7) } == 0)

    let weighed = try MemoryCache<Int, Int>(costLimit: 100, lock: .buffered, instrumentLocks: true)
    weighed.setValue(1, forKey: 1, cost: 5)
    #expect(locks(weighed) { weighed.setValue(2, forKey: 1, cost: 5) } > 0)

    counted.trim(toAge: .seconds(60))
    #expect(counted.tracksAges)
    #expect(locks(counted) { counted.setValue(5, forKey: 1, cost: 7) } > 0)
    #expect(counted.value(forKey: 1) == 5 && counted.statistics.evictions[.replaced] == 4)
    counted.checkInvariants()
    weighed.checkInvariants()
  }

  @Test func theStrategyParsesAndPrints() throws {
    #expect(try LockStrategy("buffered") == .buffered)
    #expect(LockStrategy.buffered.description == "buffered")
    #expect(CacheError.unknownLock("x").description.contains("buffered"))
  }
}

extension Array {
  /// The first two elements.
  fileprivate var pair: (Element, Element) { (self[0], self[1]) }
}
