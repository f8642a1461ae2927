import EvictionCache
import EvictionCore
import EvictionTestSupport
import Foundation
import Testing

/// Warm restart: a snapshot restored into a new cache makes the same next
/// decisions as the cache it was taken from, and counts the time between.
@Suite struct SnapshotTests {
  /// A skewed key stream with a write on every miss, and some removals.
  static func workload(seed: UInt64, count: Int) -> [(key: Int, cost: Int, remove: Bool)] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      let u = Double.random(in: 0..<1, using: &generator)
      let key = Int(u * u * u * 3_000)
      return (key, 1 + key % 37, generator.below(100) == 0)
    }
  }

  /// Serves `ops`: a read, and a write on a miss; each hit and each departure logged.
  static func serve(_ cache: MemoryCache<Int, Int>, _ ops: ArraySlice<(key: Int, cost: Int, remove: Bool)>) -> [String]
  {
    var log: [String] = []
    for op in ops {
      if op.remove {
        log.append("remove \(op.key) \(cache.removeValue(forKey: op.key))")
      } else if let value = cache.value(forKey: op.key) {
        log.append("hit \(op.key) \(value)")
      } else {
        cache.setValue(op.key * 10, forKey: op.key, cost: op.cost)
        log.append("miss \(op.key)")
      }
    }
    cache.waitForWrites()
    return log
  }

  final class Departures: @unchecked Sendable {
    let log = SharedState<[String]>([])
    func handler(_ key: Int, _ value: Int, _ reason: EvictionReason) {
      log.withLock { $0.append("\(key) \(reason)") }
    }
    var all: [String] { log.withLock { $0 } }
  }

  static func make(_ policy: String, lock: String, costs: Bool, _ departures: Departures) throws -> MemoryCache<
    Int, Int
  > {
    try MemoryCache<Int, Int>(
      policy: CachePolicy(policy), countLimit: costs ? nil : 300, costLimit: costs ? 4_000 : nil,
      lock: LockStrategy(lock), onEvict: departures.handler)
  }

  @Test(
    arguments: ["lru", "fifo", "clock", "sieve", "slru", "s3fifo", "2q", "arc", "lfu", "wtinylfu"],
    ["mutex", "buffered", "striped:4", "barrier"])
  func aRestoredCacheMakesTheSameNextDecisions(policy: String, lock: String) throws {
    let ops = Self.workload(seed: 17, count: 12_000)
    for costs in [false, true] {
      let (savedLog, restoredLog) = (Departures(), Departures())
      let saved = try Self.make(policy, lock: lock, costs: costs, savedLog)
      _ = Self.serve(saved, ops[..<6_000])
      let snapshot = saved.snapshot()
      #expect(snapshot.count == saved.count)
      let restored = try Self.make(policy, lock: lock, costs: costs, restoredLog)
      let summary = try restored.restore(snapshot, elapsed: .zero)
      #expect(summary.exact, "\(policy) \(lock): \(summary.reason ?? "")")
      #expect(summary.restored == saved.count && restored.count == saved.count)
      #expect(restoredLog.all.isEmpty, "a restore evicts nothing")
      restored.checkInvariants()
      let before = savedLog.all.count
      #expect(
        Self.serve(restored, ops[6_000...]) == Self.serve(saved, ops[6_000...]), "\(policy) \(lock) costs \(costs)")
      // Under `barrier` a removal's departure reaches `onEvict` on the
      // caller's thread, a write's on the delivery queue: their order
      // between the two is the scheduler's.
      let (mine, theirs) = (restoredLog.all, Array(savedLog.all[before...]))
      #expect(
        lock == "barrier" ? mine.sorted() == theirs.sorted() : mine == theirs, "\(policy) \(lock): the same victims")
      #expect(restored.statistics.hits > 0)
      restored.checkInvariants()
    }
  }

  @Test func expiriesAndAgesCountTheTimeBetween() throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(
      policy: .lru, countLimit: 100, ageLimit: .seconds(300), clock: { clock.now() })
    cache.setValue(1, forKey: 1, ttl: .seconds(10))
    cache.setValue(2, forKey: 2, ttl: .seconds(100))
    cache.setValue(3, forKey: 3)
    clock.advance(seconds: 200)
    cache.setValue(4, forKey: 4)
    let snapshot = cache.snapshot()

    // Another process 50 s later, its monotonic clock at three hours since boot.
    let later = ManualClock()
    later.advance(seconds: 3 * 3_600)
    let restored = try MemoryCache<Int, Int>(
      policy: .lru, countLimit: 100, ageLimit: .seconds(300), clock: { later.now() })
    let summary = try restored.restore(snapshot, elapsed: .seconds(50))
    #expect(summary.exact && summary.elapsed == .seconds(50))
    #expect(restored.value(forKey: 1) == nil, "expired 240 s before the restore")
    #expect(restored.value(forKey: 2) == nil, "expired 150 s before the restore")
    later.advance(seconds: 60)
    // Key 3 was last used 250 s before the restore: 310 s now, past the age limit.
    #expect(restored.value(forKey: 3) == nil)
    #expect(restored.value(forKey: 4) == 4, "used 110 s ago")
    #expect(restored.statistics.evictions[.expired] == 2 && restored.statistics.evictions[.age] == 1)
  }

  @Test func aPolicyWithoutASavedFormIsRestoredAfreshInItsOrder() throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lirs", countLimit: 50, clock: { clock.now() })
    for key in 0..<80 { cache.setValue(key, forKey: key, ttl: key == 79 ? .seconds(5) : nil) }
    let snapshot = cache.snapshot()
    #expect(snapshot.shards[0].policy == nil && snapshot.shards[0].unsavedBecause != nil)
    let restored = try MemoryCache<Int, Int>(policy: "lirs", countLimit: 50, clock: { clock.now() })
    let summary = try restored.restore(snapshot, elapsed: .seconds(10))
    #expect(!summary.exact && summary.reason != nil)
    #expect(summary.expired == 1 && summary.restored == cache.count - 1)
    #expect(restored.value(forKey: 79) == nil)
  }

  @Test func anotherConfigurationTakesTheMostRecentEntriesAfresh() throws {
    let cache = try MemoryCache<Int, Int>(policy: .lru, countLimit: 200)
    for key in 0..<500 { cache.setValue(key, forKey: key) }
    for key in stride(from: 300, to: 500, by: 2) { _ = cache.value(forKey: key) }
    let smaller = try MemoryCache<Int, Int>(policy: .lru, countLimit: 100)
    let summary = try smaller.restore(cache.snapshot(), elapsed: .zero)
    #expect(!summary.exact && summary.reason!.contains("of 200"))
    #expect(summary.restored == 100 && summary.dropped == 100)
    // The 100 most recently used: the even keys read last.
    for key in stride(from: 300, to: 500, by: 2) { #expect(smaller.contains(key)) }
  }

  @Test func aSnapshotGoesOnlyIntoAnEmptyCacheAndADamagedOneChangesNothing() throws {
    let cache = try MemoryCache<Int, Int>(policy: .s3fifo(), countLimit: 100, lock: .striped(shards: 2))
    for key in 0..<300 { cache.setValue(key, forKey: key % 150) }
    let snapshot = cache.snapshot()
    #expect(throws: CacheError.self) { try cache.restore(snapshot) }
    var damaged = snapshot
    damaged.shards[1].policy!.words[1] = .max
    let target = try MemoryCache<Int, Int>(policy: .s3fifo(), countLimit: 100, lock: .striped(shards: 2))
    #expect(throws: CacheError.self) { try target.restore(damaged) }
    #expect(target.count == 0, "shard 0's state was good, but nothing is restored when shard 1's is not")
    var moved = snapshot
    moved.shards[0].entries[0].slot += 1
    #expect(throws: CacheError.self) { try target.restore(moved) }
    #expect(target.count == 0)
    #expect(try target.restore(snapshot).exact)
  }

  /// Another thread writing while a restore runs: the restore either
  /// finishes or stops with an error, and every shard holds together.
  @Test func aWriteDuringARestoreLeavesEveryShardWhole() throws {
    let source = try MemoryCache<Int, Int>(policy: .arc, countLimit: 400, lock: .striped(shards: 4))
    for key in 0..<2_000 { source.setValue(key, forKey: key % 700) }
    let snapshot = source.snapshot()
    var outcomes = (restored: 0, refused: 0)
    for round in 0..<40 {
      let target = try MemoryCache<Int, Int>(policy: .arc, countLimit: 400, lock: .striped(shards: 4))
      let writer = Thread {
        for key in 0..<200 { target.setValue(-key, forKey: 10_000 + key + round) }
      }
      writer.start()
      do {
        try target.restore(snapshot, elapsed: .zero)
        outcomes.restored += 1
      } catch {
        guard case .snapshot = error else { throw error }
        outcomes.refused += 1
      }
      while !writer.isFinished { usleep(100) }
      target.checkInvariants()
    }
    #expect(outcomes.restored + outcomes.refused == 40)
  }

  /// From an attack on the first version: forged entries that crashed or
  /// left a key without its value are refused, and states a live cache
  /// reaches (ARC after a removal, expired entries, ages begun by a trim)
  /// restore exactly.
  @Test func forgedEntriesAreRefused() throws {
    let source = try MemoryCache<Int, String>(policy: .lru, countLimit: 8)
    for key in 0..<8 { source.setValue("v\(key)", forKey: key) }
    _ = source.removeValue(forKey: 3)
    var outOfRange = source.snapshot()
    outOfRange.shards[0].entries[0].slot = 50_000_000
    var freedSlot = source.snapshot()
    let last = freedSlot.shards[0].entries.firstIndex { $0.key == 7 }!
    freedSlot.shards[0].entries[last] = .init(key: 0, value: "evil", cost: 0, slot: 3)
    var twice = source.snapshot()
    twice.shards[0].entries[1].key = twice.shards[0].entries[0].key
    for forged in [outOfRange, freedSlot, twice] {
      let target = try MemoryCache<Int, String>(policy: .lru, countLimit: 8)
      #expect {
        try target.restore(forged)
      } throws: { error in
        guard case .snapshotDamaged = error as? CacheError else { return false }
        return true
      }
      #expect(target.count == 0)
    }
  }

  @Test func anARCThatRemovedAnEntryRestoresExactly() throws {
    let cache = try MemoryCache<Int, Int>(policy: .arc, countLimit: 4)
    for key in [0, 1, 5] { cache.setValue(key, forKey: key) }
    _ = cache.value(forKey: 5)
    for key in [7, 8] { cache.setValue(key, forKey: key) }
    _ = cache.removeValue(forKey: 5)
    cache.setValue(4, forKey: 4)
    cache.checkInvariants()
    let restored = try MemoryCache<Int, Int>(policy: .arc, countLimit: 4)
    #expect(try restored.restore(cache.snapshot(), elapsed: .zero).exact)
    let ops = Self.workload(seed: 9, count: 3_000).map { (key: $0.key % 12, cost: 1, remove: $0.remove) }
    #expect(Self.serve(restored, ops[...]) == Self.serve(cache, ops[...]))
  }

  @Test func expiredEntriesStayAsTheyDidInTheSavedCache() throws {
    let clock = ManualClock()
    let departures = Departures()
    let cache = try MemoryCache<Int, Int>(policy: .lru, countLimit: 8, clock: { clock.now() })
    cache.setValue(1, forKey: 1, ttl: .milliseconds(10))
    cache.setValue(2, forKey: 2)
    clock.advance(seconds: 0.02)
    let restored = try MemoryCache<Int, Int>(
      policy: .lru, countLimit: 8, clock: { clock.now() }, onEvict: departures.handler)
    let summary = try restored.restore(cache.snapshot(), elapsed: .zero)
    #expect(summary.exact && summary.restored == 2 && restored.count == 2 && departures.all.isEmpty)
    #expect(restored.value(forKey: 1) == nil && departures.all == ["1 expired"])
  }

  @Test(arguments: ["slru", "slru:segments=2", "lru", "s3fifo"])
  func agesBegunByATrimAreRestored(policy: String) throws {
    func make(_ clock: ManualClock) throws -> MemoryCache<Int, Int> {
      try MemoryCache<Int, Int>(policy: CachePolicy(policy), costLimit: 400, lock: .buffered, clock: { clock.now() })
    }
    let ops = Self.workload(seed: 105, count: 8_000).map { (key: $0.key % 400, cost: 1 + $0.key % 20, remove: false) }
    func serve(_ c: MemoryCache<Int, Int>, _ clock: ManualClock, _ range: Range<Int>) -> [String] {
      var log: [String] = []
      for i in range {
        if i % 500 == 0 { c.trim(toAge: .seconds(3)) }
        if i % 700 == 0 { c.trim(toCount: 30) }
        log += Self.serve(c, ops[i..<i + 1])
        if i % 10 == 0 { clock.advance(seconds: 0.05) }
      }
      return log
    }
    let (first, second) = (ManualClock(), ManualClock())
    let cache = try make(first)
    _ = serve(cache, first, 0..<4_000)
    // The restarted process's clock reads what the first's did.
    second.advance(seconds: Double(first.now() - second.now()) / 1e9)
    let restored = try make(second)
    #expect(try restored.restore(cache.snapshot(), elapsed: .zero).exact)
    #expect(serve(restored, second, 4_000..<8_000) == serve(cache, first, 4_000..<8_000))
  }
}
