import EvictionCache
import EvictionCore
import Foundation
import Synchronization
import Testing

/// What a server meets: values from the network, clocks read before locks,
/// loaders that hang or recurse, handlers that write back (issue 77,
/// defects 3 to 5). None of them may crash the process or corrupt a count.
@Suite struct MisuseTests {
  // MARK: Ages

  /// A thread reads the clock before it takes the lock, so the entry it
  /// reads may carry a newer stamp than its clock: that is an age of 0, not
  /// of 2⁶⁴ (it was evicted as `age`, and `trim(toAge:)` did the same).
  @Test(arguments: ["mutex", "pthread", "striped:4", "buffered"])
  func aStampNewerThanTheReadersClockIsNotOld(lock: String) throws {
    let clock = ManualClock()
    clock.advance(seconds: 100)
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 10, ageLimit: .seconds(3_600), lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { log.record($0, $1, $2) })
    cache.setValue(1, forKey: 1)
    clock.nanos.subtract(1_000_000, ordering: .relaxed)  // the next reader's clock is a millisecond behind
    #expect(cache.value(forKey: 1) == 1)
    cache.trim(toAge: .seconds(60))
    cache.trimToLimits()
    #expect(cache.value(forKey: 1) == 1 && log.count(.age) == 0)
  }

  /// The race as a server met it: eight threads on the coarse clock, an age
  /// limit of an hour, nothing may leave for its age.
  @Test(arguments: ["mutex", "pthread", "striped:4"])
  func noEntryLeavesForItsAgeUnderContention(lock: String) throws {
    let aged = Atomic<Int>(0)
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 64, ageLimit: .seconds(3_600), lock: LockStrategy(lock),
      onEvict: { _, _, reason in if reason == .age { aged.add(1, ordering: .relaxed) } })
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      var generator = SeededGenerator(seed: UInt64(thread))
      for _ in 0..<30_000 {
        let key = generator.below(64)
        if cache.value(forKey: key) == nil { cache.setValue(key, forKey: key) }
      }
    }
    #expect(aged.load(ordering: .relaxed) == 0)
    cache.checkInvariants()
  }

  // MARK: Values from the network

  /// `max-age=0` and an expiry in the past are expired at once: the old
  /// value leaves as `replaced`, the new one as `expired`, nothing crashes.
  @Test(arguments: ["mutex", "buffered", "barrier", "striped:4"])
  func aTTLOfZeroOrLessIsExpiredAtOnce(lock: String) throws {
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 10, lock: LockStrategy(lock), onEvict: { log.record($0, $1, $2) })
    cache.setValue(1, forKey: 1)
    cache.setValue(2, forKey: 1, ttl: .zero)
    cache.waitForWrites()
    #expect(cache.value(forKey: 1) == nil && cache.count == 0)
    #expect(try cache.store(3, forKey: 2, ttl: .seconds(-5)) == .expired)
    #expect(log.entries.map(\.reason) == [.replaced, .expired, .expired])
    #expect(log.entries.map(\.value) == [1, 2, 3])
    #expect(cache.statistics.evictions[.expired] == 2 && cache.statistics.sets == 3)
    cache.checkInvariants()
  }

  /// A negative cost is an error the caller can handle: `store` throws and
  /// changes nothing; `setValue` (and the subscript, through a cost closure)
  /// rejects the entry and keeps the key's cached value.
  @Test func aNegativeCostIsRefusedNotACrash() throws {
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", costLimit: 100, cost: { $0 < 0 ? $0 : 1 }, onEvict: { log.record($0, $1, $2) })
    cache.setValue(1, forKey: 1, cost: 5)
    #expect(throws: CacheError.invalidCost(-1)) { try cache.store(2, forKey: 1, cost: -1) }
    cache.setValue(3, forKey: 1, cost: -1)
    cache[2] = -7
    #expect(cache.value(forKey: 1) == 1 && cache.value(forKey: 2) == nil && cache.totalCost == 5)
    #expect(cache.statistics.rejections == [.invalidCost: 2])
    #expect(log.entries.map(\.reason) == [.rejected, .rejected])
    #expect(CacheError.invalidCost(-1).description.contains("0 or more"))
  }

  /// Costs without a cost limit are counted, however large: two of
  /// `Int.max` summed to −2.
  @Test func theTotalCostDoesNotWrap() throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10)
    cache.setValue(1, forKey: 1, cost: .max)
    cache.setValue(2, forKey: 2, cost: .max)
    #expect(cache.totalCost == .max && cache.statistics.cost == .max)
    cache.removeValue(forKey: 1)
    #expect(cache.totalCost == .max)
    cache.removeValue(forKey: 2)
    #expect(cache.totalCost == 0)
    cache.checkInvariants()
  }

  // MARK: Handlers

  /// A handler that re-sets the key it is told was replaced used to recurse
  /// until the stack overflowed: its own write is not reported back to it.
  @Test(arguments: ["mutex", "pthread", "buffered", "striped:4"])
  func aHandlerThatResetsItsKeyOnReplacementReturns(lock: String) throws {
    final class Box: @unchecked Sendable { var cache: MemoryCache<Int, Int>? }
    let box = Box()
    let calls = Atomic<Int>(0)
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 10, lock: LockStrategy(lock),
      onEvict: { key, value, reason in
        calls.add(1, ordering: .relaxed)
        if reason == .replaced { box.cache?.setValue(value + 1_000, forKey: key) }
      })
    box.cache = cache
    cache.setValue(1, forKey: 1)
    cache.setValue(2, forKey: 1)
    #expect(calls.load(ordering: .relaxed) == 1)
    #expect(cache.value(forKey: 1) == 1_001)
    // A write to another key from the handler is still reported.
    cache.setValue(3, forKey: 2)
    cache.setValue(4, forKey: 2)
    #expect(cache.value(forKey: 2) == 1_003 && calls.load(ordering: .relaxed) == 2)
    box.cache = nil
  }

  // MARK: Get-or-load

  @Test func aLoadedValueTakesItsTTL() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10, clock: { clock.now() })
    #expect(try await cache.value(forKey: 1, ttl: .seconds(10)) { 7 } == 7)
    clock.advance(seconds: 5)
    #expect(cache.value(forKey: 1) == 7)
    clock.advance(seconds: 6)
    #expect(cache.value(forKey: 1) == nil)
    #expect(cache.statistics.evictions[.expired] == 1)
  }

  /// A loader that stores its own value, with its own TTL, keeps it: the
  /// load used to overwrite it with an entry that never expired.
  @Test func aValueTheLoaderStoredIsKept() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10, clock: { clock.now() })
    let loaded = try await cache.value(forKey: 1) {
      cache.setValue(8, forKey: 1, ttl: .seconds(60))
      return 8
    }
    #expect(loaded == 8 && cache.value(forKey: 1) == 8)
    clock.advance(seconds: 61)
    #expect(cache.value(forKey: 1) == nil)
  }

  /// A loader that asks for its own key, directly or through another key's
  /// load, would wait for itself for ever: it gets an error instead.
  @Test func aRecursiveLoadIsAnError() async throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10)
    await #expect(throws: CacheError.recursiveLoad("1")) {
      try await cache.value(forKey: 1) { try await cache.value(forKey: 1) { 1 } }
    }
    await #expect(throws: CacheError.recursiveLoad("1")) {
      try await cache.value(forKey: 1) {
        try await cache.value(forKey: 2) { try await cache.value(forKey: 1) { 1 } }
      }
    }
    // Loading another key from a loader is fine.
    #expect(try await cache.value(forKey: 3) { try await cache.value(forKey: 4) { 4 } + 1 } == 5)
    #expect(cache.loadsInFlight == 0 && cache.count == 2)
  }

  /// A hung loader holds its key; a waiter with a timeout stops waiting,
  /// and the load, when it ends, is stored for the next request.
  @Test func aWaiterGivesUpOnAHungLoadAfterItsTimeout() async throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10)
    let release = AsyncStream<Void>.makeStream()
    await #expect(throws: CacheError.loadTimedOut(key: "1", after: .milliseconds(50))) {
      try await cache.value(forKey: 1, timeout: .milliseconds(50)) {
        for await _ in release.stream { break }
        return 9
      }
    }
    #expect(cache.loadsInFlight == 1)
    release.continuation.yield()
    while cache.loadsInFlight > 0 { try await Task.sleep(for: .milliseconds(1)) }
    #expect(cache.value(forKey: 1) == 9)
  }

  /// A get-or-load miss counts once, and loads and their failures are counted.
  @Test func statisticsCountEachLoadOnce() async throws {
    struct Failure: Error {}
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 100)
    for key in 0..<10 { _ = try await cache.value(forKey: key) { key } }
    for key in 0..<10 { _ = try await cache.value(forKey: key) { key } }
    await #expect(throws: Failure.self) { try await cache.value(forKey: 99) { throw Failure() } }
    let statistics = cache.statistics
    #expect(statistics.misses == 11 && statistics.hits == 10)
    #expect(statistics.loads == 11 && statistics.loadFailures == 1 && statistics.loadTime > .zero)
    #expect(statistics.hitRatio == 10.0 / 21.0)
  }
}
