import EvictionCache
import EvictionCore
import EvictionTestSupport
import Foundation
import Synchronization
import Testing

/// A clock the test moves by hand.
final class ManualClock: Sendable {
  let nanos = Atomic<UInt64>(1)
  func advance(seconds: Double) { nanos.add(UInt64(seconds * 1e9), ordering: .relaxed) }
  func now() -> UInt64 { nanos.load(ordering: .relaxed) }
}

/// Records every departure, checking each leaves once.
final class DepartureLog: @unchecked Sendable {
  let lock = SharedState<[(key: Int, value: Int, reason: EvictionReason)]>([])
  func record(_ key: Int, _ value: Int, _ reason: EvictionReason) { lock.withLock { $0.append((key, value, reason)) } }
  var entries: [(key: Int, value: Int, reason: EvictionReason)] { lock.withLock { $0 } }
  func count(_ reason: EvictionReason) -> Int { entries.filter { $0.reason == reason }.count }
}

let cachePolicies = PolicyCatalog.entries.filter { !PolicyCatalog.offline.contains($0.name) && !$0.trimsOnATimer }.map(
  \.name)
/// Every lock strategy; under ThreadSanitizer (`EVICTIONLAB_TSAN=1`, set by
/// `.ci/run`) only those built on pthread, atomics and Dispatch: `Synchronization.Mutex`
/// locks with raw futex calls on Linux, which ThreadSanitizer does not model,
/// so it reports every access made under one as a race.
let lockNames =
  ProcessInfo.processInfo.environment["EVICTIONLAB_TSAN"] == "1"
  ? ["pthread", "rwlock", "queue", "barrier", "buffered", "pthread+striped:4", "barrier+striped:2"]
  : [
    "mutex", "pthread", "rwlock", "queue", "barrier", "buffered", "striped:4", "rwlock+striped:4", "barrier+striped:2",
  ]

@Suite struct MemoryCacheTests {
  /// A model of what must be cached: values set and not departed.
  @Test(arguments: cachePolicies)
  func limitsHoldAfterEveryOperationAndEveryDepartureIsReportedOnce(policy: String) throws {
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: CachePolicy(policy), countLimit: 50, costLimit: 400, onEvict: { log.record($0, $1, $2) })
    var model: [Int: Int] = [:]
    var generator = SeededGenerator(seed: 42)
    var logged = 0
    for step in 0..<4_000 {
      let key = generator.below(10) < 7 ? generator.below(30) : generator.below(400)
      switch generator.below(10) {
      case 0...5:
        if let value = cache.value(forKey: key) {
          #expect(model[key] == value, "a hit returns the value last set")
        }
      case 6...8:
        let value = step
        cache.setValue(value, forKey: key, cost: Int(1 + generator.below(20)))
        model[key] = value
      default:
        if cache.removeValue(forKey: key) { #expect(model[key] != nil) }
      }
      #expect(cache.count <= 50 && cache.totalCost <= 400)
      // Every departure since the last step names a key that was cached with that value.
      let entries = log.entries
      for entry in entries[logged...] {
        switch entry.reason {
        case .replaced: continue
        case .rejected: model[entry.key] = nil  // too heavy for the policy: not cached
        default:
          #expect(model[entry.key] == entry.value, "\(entry)")
          model[entry.key] = nil
        }
      }
      logged = entries.count
      #expect(cache.contains(key) == (model[key] != nil), "step \(step), key \(key)")
      if step % 97 == 0 { cache.checkInvariants() }
    }
    cache.checkInvariants()
    // What the model still holds is exactly what the cache holds (`contains`
    // is not an access, so checking changes nothing; a read could promote
    // and evict others under SLRU).
    #expect(model.count == cache.count, "\(policy)")
    for key in model.keys { #expect(cache.contains(key), "\(key)") }
    let stats = cache.statistics
    let capacityOrTrim =
      stats.evictions[.capacity, default: 0] + stats.evictions[.count, default: 0] + stats.evictions[.cost, default: 0]
    #expect(capacityOrTrim == log.count(.capacity) + log.count(.count) + log.count(.cost))
    #expect(stats.evictions[.removed, default: 0] == log.count(.removed))
  }

  /// A value is released exactly once, when its entry leaves (and the
  /// departure has been delivered), or when the cache itself goes: no leak
  /// and no double release, whatever slots the policy hands out (ghost
  /// entries leave gaps among them) and however often the records grow.
  @Test(arguments: cachePolicies)
  func everyValueIsReleasedOnceAndOnlyWhenItLeaves(policy: String) throws {
    // One counter per test case: the cases run in parallel.
    final class Counter: Sendable { let live = Atomic<Int>(0) }
    final class Tracked: Sendable {
      let key: Int
      let counter: Counter
      init(_ key: Int, _ counter: Counter) {
        (self.key, self.counter) = (key, counter)
        counter.live.add(1, ordering: .relaxed)
      }
      deinit { counter.live.subtract(1, ordering: .relaxed) }
    }
    let counter = Counter()
    do {
      let cache = try MemoryCache<Int, Tracked>(policy: CachePolicy(policy), countLimit: 64, costLimit: 2_000)
      var generator = SeededGenerator(seed: 7)
      for step in 0..<6_000 {
        let key = generator.below(10) < 7 ? generator.below(80) : generator.below(3_000)
        switch generator.below(10) {
        case 0...4: if let value = cache.value(forKey: key) { #expect(value.key == key) }
        case 5...8: cache.setValue(Tracked(key, counter), forKey: key, cost: Int(1 + generator.below(40)))
        default: cache.removeValue(forKey: key)
        }
        if step == 3_000 { cache.trim(toCount: 10) }
        // Only the cache holds values, so the live ones are the cached ones.
        #expect(counter.live.load(ordering: .relaxed) == cache.count, "\(policy), step \(step)")
      }
      cache.checkInvariants()
      #expect(cache.count > 0)
    }
    #expect(counter.live.load(ordering: .relaxed) == 0, "\(policy): values outlived their cache")
  }

  @Test func evictionReasonsAreTheRightOnes() throws {
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 3, costLimit: 100, onEvict: { log.record($0, $1, $2) })
    for key in 1...3 { cache.setValue(key * 10, forKey: key, cost: 10) }
    cache.setValue(99, forKey: 2, cost: 10)  // same cost: replaced in place
    #expect(log.entries.map(\.reason) == [.replaced] && log.entries[0].value == 20)
    cache.setValue(40, forKey: 4, cost: 10)  // over the count limit: LRU (1) goes
    #expect(log.entries.last!.key == 1 && log.entries.last!.reason == .count)
    cache.setValue(50, forKey: 5, cost: 75)  // the cost limit (primary): the policy evicts
    #expect(log.entries.last!.key == 3 && log.entries.last!.reason == .capacity)
    cache.setValue(60, forKey: 6, cost: 101)  // heavier than the cache
    #expect(log.entries.last!.reason == .rejected && !cache.contains(6))
    cache.removeValue(forKey: 5)
    #expect(log.entries.last!.reason == .removed && log.entries.last!.value == 50)
    cache.removeAll()
    #expect(cache.count == 0 && cache.totalCost == 0)
    #expect(Set(log.entries.map(\.key)) == [1, 2, 3, 4, 5, 6])
  }

  @Test func loweringALimitTrimsAndRaisingItIsBoundedByThePolicy() throws {
    let cache = try MemoryCache<Int, String>(policy: "arc", countLimit: 100)
    for key in 0..<100 { cache.setValue("v\(key)", forKey: key) }
    try cache.setCountLimit(40)
    #expect(cache.count == 40)
    for key in 100..<200 { cache.setValue("v\(key)", forKey: key) }
    #expect(cache.count == 40)
    try cache.setCountLimit(100)
    for key in 200..<400 { cache.setValue("v\(key)", forKey: key) }
    #expect(cache.count == 100)
    #expect(throws: CacheError.limitAbovePolicyCapacity(name: "countLimit", value: 101, capacity: 100)) {
      try cache.setCountLimit(101)
    }
    try cache.setCostLimit(5)
    #expect(cache.totalCost <= 5)
    cache.trim(toCount: 3)
    #expect(cache.count == 3)
    cache.checkInvariants()
  }

  /// Under `buffered`, reads without the lock judge ages by the read index's
  /// stamp and leave the doubtful cases to the policy lock: same answers.
  @Test(arguments: ["pthread", "buffered"])
  func ageLimitExpiresAndTrimsWithAnInjectedClock(lock: String) throws {
    let clock = ManualClock()
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 100, ageLimit: .seconds(10), lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { log.record($0, $1, $2) })
    for key in 0..<5 { cache.setValue(key, forKey: key) }
    clock.advance(seconds: 6)
    _ = cache.value(forKey: 0)  // read: young again
    cache.setValue(55, forKey: 5)
    clock.advance(seconds: 6)  // 1...4 are 12 s old, 0 and 5 are 6 s old
    #expect(cache.value(forKey: 1) == nil, "an entry past the age limit is a miss")
    #expect(log.entries.last!.key == 1 && log.entries.last!.reason == .age)
    cache.trimToLimits()
    #expect(Set(log.entries.filter { $0.reason == .age }.map(\.key)) == [1, 2, 3, 4])
    #expect(cache.count == 2 && cache.value(forKey: 0) == 0 && cache.value(forKey: 5) == 55)
    clock.advance(seconds: 3)
    cache.trim(toAge: .seconds(2))
    #expect(cache.count == 0)
    cache.checkInvariants()
  }

  /// Ages cost 16 bytes an entry, so a cache without an age limit keeps them
  /// only once asked: the first age trim or limit starts the list with every
  /// entry read then, and from there on ages are judged as with a limit
  /// from the start (the same departures, in the same order).
  @Test(arguments: ["pthread", "buffered", "striped:4"])
  func agesAreTrackedFromTheFirstAgeTrimOrLimit(lock: String) throws {
    let clock = ManualClock()
    let late = DepartureLog()
    let untracked = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 100, lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { late.record($0, $1, $2) })
    let early = DepartureLog()
    let tracked = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 100, tracksAges: true, lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { early.record($0, $1, $2) })
    #expect(!untracked.tracksAges && tracked.tracksAges)
    for key in 0..<20 {
      untracked.setValue(key, forKey: key)
      tracked.setValue(key, forKey: key)
    }
    clock.advance(seconds: 30)
    untracked.trim(toAge: .seconds(10))
    tracked.trim(toAge: .seconds(10))
    #expect(untracked.tracksAges, "an age trim starts the tracking")
    #expect(untracked.count == 20, "entries from before the tracking count as read when it began")
    #expect(tracked.count == 0 && early.entries.allSatisfy { $0.reason == .age })

    // From here on, both caches judge ages alike.
    for key in 20..<30 { tracked.setValue(key, forKey: key) }
    for key in 0..<10 { _ = untracked.value(forKey: key) }
    clock.advance(seconds: 6)
    for key in 20..<25 { _ = tracked.value(forKey: key) }
    for key in 5..<10 { _ = untracked.value(forKey: key) }
    clock.advance(seconds: 6)
    untracked.trim(toAge: .seconds(10))
    tracked.trim(toAge: .seconds(10))
    #expect(Set(untracked.statistics.evictions.keys) == [.age])
    #expect(untracked.count == 5 && (5..<10).allSatisfy { untracked.value(forKey: $0) == $0 })
    #expect(tracked.count == 5 && (20..<25).allSatisfy { tracked.value(forKey: $0) == $0 })
    #expect(Set(late.entries.map(\.key)) == Set(0..<5).union(10..<20))

    // An age limit set later starts the tracking the same way.
    let limited = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 100, lock: LockStrategy(lock), clock: { clock.now() })
    for key in 0..<10 { limited.setValue(key, forKey: key) }
    clock.advance(seconds: 30)
    try limited.setAgeLimit(.seconds(10))
    #expect(limited.count == 10 && limited.value(forKey: 3) == 3, "a fresh limit expires nothing at once")
    clock.advance(seconds: 11)
    #expect(limited.value(forKey: 4) == nil, "past the new limit, an entry is a miss")
    #expect(limited.value(forKey: 3) == nil)
    for cache in [untracked, tracked, limited] { cache.checkInvariants() }
  }

  /// Costs live in a column made on the first non-zero cost: the totals,
  /// replacements and cost trims agree whether it came early or late.
  @Test func costsAreKeptFromTheFirstNonZeroCost() throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 50)
    for key in 0..<40 { cache.setValue(key, forKey: key) }
    #expect(cache.totalCost == 0)
    for key in 30..<40 { cache.setValue(key, forKey: key, cost: Int(key)) }
    #expect(cache.totalCost == Int64((30..<40).reduce(0, +)))
    cache.setValue(0, forKey: 35, cost: 0)
    #expect(cache.totalCost == Int64((30..<40).reduce(0, +) - 35))
    for key in 40..<60 { cache.setValue(key, forKey: key, cost: 1) }  // evicts 0...9 (cost 0)
    #expect(cache.count == 50 && cache.totalCost == Int64((30..<40).reduce(0, +) - 35 + 20))
    cache.checkInvariants()
    cache.trim(toCost: 20)
    #expect(cache.totalCost <= 20)
    cache.checkInvariants()
  }

  @Test func automaticTrimmingRunsOnItsInterval() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 10, ageLimit: .seconds(1), lock: .pthread, autoTrimInterval: .milliseconds(10),
      clock: { clock.now() })  // pthread: ThreadSanitizer models it (see `lockNames`)
    for key in 0..<10 { cache.setValue(key, forKey: key) }
    clock.advance(seconds: 2)
    var waited = 0
    while cache.count > 0 && waited < 500 {
      try await Task.sleep(for: .milliseconds(10))
      waited += 1
    }
    #expect(cache.count == 0)
  }

  /// Evicted values are released after the lock is let go: a value whose
  /// deinit reads the cache would deadlock otherwise.
  @Test(arguments: lockNames)
  func evictedValuesAreReleasedOutsideTheLock(lock: String) throws {
    final class Reentrant: @unchecked Sendable {
      weak var cache: MemoryCache<Int, Reentrant>?
      let seen = Atomic<Int>(0)
      deinit {
        if let cache {
          _ = cache.count
          _ = cache.contains(0)
        }
      }
    }
    let cache = try MemoryCache<Int, Reentrant>(
      policy: "lru", countLimit: 4, lock: LockStrategy(lock),
      onEvict: { key, value, _ in value.cache?.removeValue(forKey: key) })
    for key in 0..<50 {
      let value = Reentrant()
      value.cache = cache
      cache.setValue(value, forKey: key)
    }
    cache.removeAll()
    #expect(cache.count == 0)
  }

  @Test func badInputIsAClearError() throws {
    #expect(throws: CacheError.invalidLimit(name: "countLimit", value: "0")) {
      _ = try MemoryCache<Int, Int>(policy: "lru", countLimit: 0)
    }
    #expect(throws: CacheError.invalidLimit(name: "costLimit", value: "-5")) {
      _ = try MemoryCache<Int, Int>(policy: "lru", costLimit: -5)
    }
    #expect(throws: CacheError.unknownLock("spinlock")) { _ = try LockStrategy("spinlock") }
    #expect(throws: CacheError.invalidShardCount(0)) { _ = try LockStrategy("striped:0") }
    #expect(throws: CacheError.offlinePolicy("belady")) {
      _ = try MemoryCache<Int, Int>(policy: "belady", countLimit: 5)
    }
    #expect(throws: CacheError.trimsOnATimer("yy-disk")) {
      _ = try MemoryCache<Int, Int>(policy: "yy-disk", countLimit: 5)
    }
    do {
      _ = try MemoryCache<Int, Int>(policy: "lruu", countLimit: 5)
      Issue.record("an unknown policy was accepted")
    } catch {
      #expect("\(error)".contains("lruu"))
    }
    #expect(CacheError.unknownLock("spinlock").description.contains("mutex, pthread, rwlock, queue"))
  }

  @Test func aHandBuiltPolicyDrivesTheCache() throws {
    let cache = try MemoryCache<String, Int>(
      policy: SIEVEPolicyFactory.make(capacity: 3), weighsCost: false, lock: .pthread)
    for (i, key) in ["a", "b", "c", "a", "d"].enumerated() {
      _ =
        cache.value(forKey: key)
        ?? {
          cache.setValue(i, forKey: key)
          return i
        }()
    }
    // SIEVE keeps the visited "a" and evicts "b" for "d".
    #expect(cache.contains("a") && !cache.contains("b") && cache.contains("d"))
    #expect(cache.policyName.lowercased().contains("sieve"))
  }

  /// Many threads, every lock strategy: the cache stays within its limits and
  /// consistent, and the counters add up. Run under ThreadSanitizer by CI.
  @Test(arguments: lockNames)
  func manyThreadsStayConsistent(lock: String) throws {
    let departures = Atomic<Int>(0)
    let cache = try MemoryCache<Int, Int>(
      policy: "arc", countLimit: 200, costLimit: 5_000, lock: LockStrategy(lock), instrumentLocks: true,
      onEvict: { _, _, reason in if reason != .rejected && reason != .replaced { departures.add(1, ordering: .relaxed) }
      })
    let threads = 8
    let perThread = 4_000
    // Plain threads (not tasks), so ThreadSanitizer sees every happens-before edge.
    let workers = (0..<threads).map { t in
      let thread = Thread {
        var generator = SeededGenerator(seed: UInt64(t + 1))
        for _ in 0..<perThread {
          let key = generator.below(500)
          switch generator.below(10) {
          case 0...6:
            if cache.value(forKey: key) == nil {
              cache.setValue(key, forKey: key, cost: Int(generator.below(50)))
            }
          case 7, 8: _ = cache.contains(key)
          default: cache.removeValue(forKey: key)
          }
        }
      }
      thread.start()
      return thread
    }
    while workers.contains(where: { !$0.isFinished }) { usleep(1_000) }
    cache.waitForWrites()
    cache.checkInvariants()
    let stats = cache.statistics
    #expect(stats.count <= 200 && stats.cost <= 5_000 && stats.count == cache.count)
    #expect(stats.hits + stats.misses >= threads * perThread * 6 / 10)
    let admitted = stats.sets - stats.evictions[.rejected, default: 0] - stats.evictions[.replaced, default: 0]
    #expect(
      admitted - departures.load(ordering: .relaxed) == stats.count, "admissions minus departures is what is cached")
    let locks = cache.lockStatistics
    // Hits under `buffered` take no lock.
    #expect(locks.acquisitions > UInt64(threads * perThread - (lock == "buffered" ? stats.hits : 0)))
    #expect(locks.contended <= locks.acquisitions)
  }
}

/// The `mutex` strategy lets a waiter that won the lock keep it for a turn
/// (see `ShardLock.acquireAfterBackingOff`): a thread that never stops
/// taking the lock must still not shut out another for good.
@Suite struct MutexTurnTests {
  @Test(
    .timeLimit(.minutes(1)),
    .enabled(if: lockNames.contains("mutex"), "ThreadSanitizer does not model Mutex")
  )
  func aWriterGetsThroughWhileAReaderHammersTheLock() throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 1_000, lock: .mutex, instrumentLocks: true)
    for key in 0..<100 { cache.setValue(key, forKey: key) }
    let writerDone = Atomic<Bool>(false)
    let reads = Atomic<Int>(0)
    let reader = Thread {
      var n = 0
      while !writerDone.load(ordering: .acquiring) {
        _ = cache.value(forKey: n % 100)
        n += 1
      }
      reads.store(n, ordering: .relaxed)
    }
    let writes = 2_000
    let writer = Thread {
      for i in 0..<writes { cache.setValue(i, forKey: 100 + i % 500) }
      writerDone.store(true, ordering: .releasing)
    }
    reader.start()
    writer.start()
    while !reader.isFinished || !writer.isFinished { usleep(1_000) }
    let stats = cache.statistics
    // Every write went through, and every read was a hit counted once.
    #expect(stats.sets == 100 + writes)
    #expect(stats.hits == reads.load(ordering: .relaxed))
    #expect(stats.count == 600)
    #expect(cache.lockStatistics.acquisitions >= UInt64(100 + writes + stats.hits))
    cache.checkInvariants()
  }

  /// `buffered` writers that find the policy lock held wait in turns (a
  /// pthread mutex, so this runs under ThreadSanitizer too): every write of
  /// four threads gets through, each thread's last values are the ones kept,
  /// and every insert took the lock (the later writes replace in place).
  @Test(.timeLimit(.minutes(1)))
  func bufferedWritersTakeTheLockInTurns() throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 4_000, lock: .buffered, instrumentLocks: true)
    let (threads, writes) = (4, 3_000)
    let finished = Atomic<Int>(0)
    for t in 0..<threads {
      Thread {
        for i in 0..<writes {
          cache.setValue(t * 1_000_000 + i, forKey: t * 1_000 + i % 1_000)
          _ = cache.value(forKey: t * 1_000 + (i * 7) % 1_000)
        }
        finished.wrappingAdd(1, ordering: .releasing)
      }.start()
    }
    while finished.load(ordering: .acquiring) < threads { usleep(1_000) }
    let stats = cache.statistics
    #expect(stats.sets == threads * writes)
    #expect(stats.count == threads * 1_000)
    for t in 0..<threads {
      for key in 0..<1_000 {
        let last = (writes - 1) - (writes - 1 - key) % 1_000
        #expect(cache.value(forKey: t * 1_000 + key) == t * 1_000_000 + last)
      }
    }
    #expect(cache.lockStatistics.acquisitions >= UInt64(threads * 1_000))
    #expect(stats.evictions[.replaced] == threads * (writes - 1_000))
    cache.checkInvariants()
  }
}

/// Builds a SIEVE policy over string keys (a policy made by hand, not by name).
enum SIEVEPolicyFactory {
  static func make(capacity: Int64) -> SievePolicy<HashedSlotIndex<String>> { SievePolicy(capacity: capacity) }
}
