import EvictionCache
import EvictionCore
import EvictionTestSupport
import Foundation
import Synchronization
import Testing

/// Many threads' gets, sets, removes and TTLs on a small key set, under
/// every lock strategy, checked afterwards as a history: no read returns a
/// value never stored for its key, no read that began after a removal
/// finished returns a value whose store had finished before the removal
/// began, and the counts and costs add up when the threads stop. Its name
/// ends in `MemoryCacheTests`, so `scripts/test-tsan.sh` runs it under
/// ThreadSanitizer.
@Suite struct HistoryMemoryCacheTests {
  static let keys = 32
  static let threads = 4
  static let steps = 3_000

  /// A stored value: its key and a ticket unique to the store (a thread's
  /// step and number: no two stores of a run share one).
  static func value(key: Int, ticket: Int) -> Int { key << 32 | ticket }
  /// Each key weighs the same in every store, so a write in place (which
  /// must keep the cost) stays possible under `buffered`.
  static func cost(of key: Int) -> Int { 1 + key % 3 }

  /// What one thread did, each event stamped from one counter that every
  /// thread advances (relaxed: its modification order is the real-time
  /// order the checks need, and it adds no happens-before edge that could
  /// hide a race from ThreadSanitizer).
  struct Log {
    /// A store of `ticket` for `key`, finished at `end`.
    var stores: [(key: Int, ticket: Int, end: Int)] = []
    /// A removal of `key` that began at `begin` and finished at `end`.
    var removals: [(key: Int, begin: Int, end: Int)] = []
    /// A read of `key` that began at `begin` and returned `value`.
    var reads: [(key: Int, begin: Int, value: Int?)] = []
  }

  /// Every lock strategy (`lockNames`: those ThreadSanitizer can follow when it runs).
  @Test(arguments: lockNames, ["lru", "s3fifo:small=0.25", "wtinylfu"])
  func aManyThreadHistoryIsConsistent(lock: String, policy: String) throws {
    let cache = try MemoryCache<Int, Int>(policy: CachePolicy(policy), countLimit: 16, lock: LockStrategy(lock))
    let clock = Atomic<Int>(0)
    let logs = SharedState<[Log]>([])
    BufferedMemoryCacheTests.onThreads(Self.threads) { t in
      var log = Log()
      var generator = SeededGenerator(seed: UInt64(97 + t))
      for step in 0..<Self.steps {
        // Hot keys most of the time, so that threads meet on them.
        let key = generator.below(4) == 0 ? generator.below(Self.keys) : generator.below(4)
        switch generator.below(20) {
        case 0..<11:
          let begin = clock.wrappingAdd(1, ordering: .relaxed).oldValue
          log.reads.append((key, begin, cache.value(forKey: key)))
        case 11..<17:
          let ticket = step * Self.threads + t
          // The second half of each thread's steps gives some stores a
          // time-to-live, short enough that entries expire under the others.
          let ttl: Duration? = step >= Self.steps / 2 && generator.below(3) == 0 ? .microseconds(200) : nil
          cache.setValue(Self.value(key: key, ticket: ticket), forKey: key, cost: Self.cost(of: key), ttl: ttl)
          log.stores.append((key, ticket, clock.wrappingAdd(1, ordering: .relaxed).oldValue))
        default:
          let begin = clock.wrappingAdd(1, ordering: .relaxed).oldValue
          cache.removeValue(forKey: key)
          log.removals.append((key, begin, clock.wrappingAdd(1, ordering: .relaxed).oldValue))
        }
      }
      logs.withLock { $0.append(log) }
    }
    cache.waitForWrites()
    let all = logs.withLock { $0 }
    #expect(all.count == Self.threads)

    // When each (key, ticket) was stored; every read must name one.
    var storedAt: [Int: Int] = [:]
    for log in all { for s in log.stores { storedAt[Self.value(key: s.key, ticket: s.ticket)] = s.end } }
    var removalsOf = [[(begin: Int, end: Int)]](repeating: [], count: Self.keys)
    for log in all { for r in log.removals { removalsOf[r.key].append((r.begin, r.end)) } }
    var (hits, misses, neverStored, resurrected) = (0, 0, 0, 0)
    for log in all {
      for read in log.reads {
        guard let value = read.value else {
          misses += 1
          continue
        }
        hits += 1
        guard value >> 32 == read.key, let stored = storedAt[value] else {
          neverStored += 1
          continue
        }
        // A removal that finished before this read began, of a store that
        // had finished before the removal began: the value was gone.
        if removalsOf[read.key].contains(where: { $0.end < read.begin && stored < $0.begin }) { resurrected += 1 }
      }
    }
    #expect(neverStored == 0, "\(policy), \(lock): \(neverStored) reads returned a value never stored for their key")
    #expect(resurrected == 0, "\(policy), \(lock): \(resurrected) reads returned a value removed before they began")
    #expect(hits > 0 && misses > 0, "\(policy), \(lock): a history that never hits or never misses checks little")

    // The counts add up: every read is a hit or a miss, and what the cache
    // says it holds is what it holds, at the costs it was given.
    // Let the last times-to-live run out and take their entries away, so
    // that nothing expires between the counts below.
    // 50 ms: the default clock is the coarse one, which moves a tick (4 ms) at a time.
    usleep(50_000)
    cache.trimExpired()
    let statistics = cache.statistics
    #expect(statistics.hits == hits && statistics.misses == misses, "\(policy), \(lock): \(statistics)")
    let resident = (0..<Self.keys).filter { cache.contains($0) }
    #expect(cache.count == resident.count, "\(policy), \(lock)")
    #expect(cache.count <= 16)
    #expect(cache.totalCost == resident.reduce(0) { $0 + Self.cost(of: $1) }, "\(policy), \(lock)")
    cache.checkInvariants()
  }
}
