import EvictionCache
import EvictionCore
import Synchronization
import Testing

/// Refresh after write (``MemoryCache/value(forKey:cost:ttl:refreshAfter:serveStale:timeout:orLoad:)``):
/// an entry older than the interval is served while one reload runs.
@Suite(.timeLimit(.minutes(1))) struct RefreshTests {
  /// Waits (at most 20 s) until no load or refresh is in flight.
  func settle<V: Sendable>(_ cache: MemoryCache<Int, V>) async throws {
    for _ in 0..<20_000 where cache.loadsInFlight > 0 { try await Task.sleep(for: .milliseconds(1)) }
    #expect(cache.loadsInFlight == 0)
  }

  @Test(arguments: ["mutex", "buffered", "striped:4", "rwlock", "barrier"])
  func aStaleEntryIsServedWhileOneReloadReplacesIt(lock: String) async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, String>(
      policy: "lru", countLimit: 10, lock: LockStrategy(lock), clock: { clock.now() })
    let calls = Calls()
    let gate = Gate()
    let load: @Sendable () async throws -> String = {
      let n = calls.add()
      if n > 1 { try await gate.wait() }
      return "v\(n)"
    }
    #expect(try await cache.value(forKey: 1, refreshAfter: .seconds(10), orLoad: load) == "v1")
    clock.advance(seconds: 9.9)
    #expect(try await cache.value(forKey: 1, refreshAfter: .seconds(10), orLoad: load) == "v1")
    #expect(calls.value == 1 && cache.loadsInFlight == 0, "younger than the interval: no reload")
    clock.advance(seconds: 0.1)
    // Due: every read serves the old value at once; one reload runs.
    for _ in 0..<5 {
      #expect(try await cache.value(forKey: 1, refreshAfter: .seconds(10), orLoad: load) == "v1")
    }
    #expect(cache.loadsInFlight == 1)
    gate.open.store(true, ordering: .releasing)
    try await settle(cache)
    #expect(calls.value == 2, "one reload for five due reads")
    #expect(cache.value(forKey: 1) == "v2")
    let statistics = cache.statistics
    #expect(statistics.refreshes == 1 && statistics.refreshFailures == 0)
    #expect(statistics.loads == 1, "a refresh is not a load")
    #expect(statistics.misses == 1 && statistics.hits == 7)
    // The reload was a write: the interval starts again from it.
    clock.advance(seconds: 5)
    #expect(try await cache.value(forKey: 1, refreshAfter: .seconds(10), orLoad: load) == "v2")
    #expect(cache.loadsInFlight == 0 && calls.value == 2)
    cache.checkInvariants()
  }

  @Test func aFailedReloadKeepsTheValueAndTheNextReadTriesAgain() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "s3fifo", countLimit: 100, clock: { clock.now() })
    let failing = Atomic<Bool>(true)
    let calls = Calls()
    let load: @Sendable () async throws -> Int = {
      let n = calls.add()
      if n > 1 && failing.load(ordering: .relaxed) { throw LoadFailed(attempt: n) }
      return n
    }
    #expect(try await cache.value(forKey: 7, refreshAfter: .seconds(1), orLoad: load) == 1)
    clock.advance(seconds: 2)
    #expect(try await cache.value(forKey: 7, refreshAfter: .seconds(1), orLoad: load) == 1)
    try await settle(cache)
    #expect(cache.value(forKey: 7) == 1 && cache.statistics.refreshFailures == 1)
    failing.store(false, ordering: .relaxed)
    #expect(try await cache.value(forKey: 7, refreshAfter: .seconds(1), orLoad: load) == 1, "still served")
    try await settle(cache)
    #expect(cache.value(forKey: 7) == 3 && calls.value == 3)
    #expect(cache.statistics.refreshes == 2 && cache.statistics.refreshFailures == 1)
  }

  /// A write or a removal while the reload runs is newer than the reload:
  /// it stands. An eviction is not: the reload is stored as a load is.
  @Test func aWriteOrRemovalDuringTheReloadStandsAnEvictionDoesNot() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, String>(policy: "lru", countLimit: 2, clock: { clock.now() })
    let gate = Gate()
    let reload: @Sendable () async throws -> String = {
      try await gate.wait()
      return "reloaded"
    }
    for key in 1...2 { cache.setValue("first", forKey: key) }
    // The first refreshing read starts the write clock: entries stored
    // before count as written then.
    #expect(try await cache.value(forKey: 1, refreshAfter: .seconds(1), orLoad: reload) == "first")
    #expect(cache.loadsInFlight == 0)
    clock.advance(seconds: 2)
    for key in 1...2 {
      #expect(try await cache.value(forKey: key, refreshAfter: .seconds(1), orLoad: reload) == "first")
    }
    #expect(cache.loadsInFlight == 2)
    cache.setValue("written", forKey: 1)
    #expect(cache.removeValue(forKey: 2))
    gate.open.store(true, ordering: .releasing)
    try await settle(cache)
    #expect(cache.value(forKey: 1) == "written", "the newer write stands")
    #expect(cache.value(forKey: 2) == nil, "a removal is not undone")

    let second = Gate()
    let slow: @Sendable () async throws -> String = {
      try await second.wait()
      return "reloaded"
    }
    cache.setValue("first", forKey: 3)
    clock.advance(seconds: 2)
    #expect(try await cache.value(forKey: 3, refreshAfter: .seconds(1), orLoad: slow) == "first")
    // Two newer keys push 3 out of the two-entry LRU while it reloads.
    cache.setValue("x", forKey: 4)
    cache.setValue("y", forKey: 5)
    #expect(!cache.contains(3))
    second.open.store(true, ordering: .releasing)
    try await settle(cache)
    #expect(cache.value(forKey: 3) == "reloaded", "evicted meanwhile: stored as a load's value")
  }

  /// An expired entry is never served: the read that finds it past its TTL
  /// loads (and waits), whatever the refresh interval.
  @Test func anExpiredEntryIsLoadedNotServed() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10, clock: { clock.now() })
    let calls = Calls()
    let load: @Sendable () async throws -> Int = { calls.add() }
    #expect(try await cache.value(forKey: 1, ttl: .seconds(5), refreshAfter: .seconds(2), orLoad: load) == 1)
    clock.advance(seconds: 6)
    #expect(try await cache.value(forKey: 1, ttl: .seconds(5), refreshAfter: .seconds(2), orLoad: load) == 2)
    #expect(cache.statistics.refreshes == 0 && cache.statistics.loads == 2)
  }

  /// A loader that reads its own key through a refreshing read gets the
  /// cached value and starts no reload of itself.
  @Test func aReloadReadingItsOwnKeyStartsNoOther() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10, clock: { clock.now() })
    cache.setValue(1, forKey: 1)
    _ = try await cache.value(forKey: 1, refreshAfter: .seconds(1)) { 0 }
    clock.advance(seconds: 2)
    let calls = Calls()
    let load: @Sendable () async throws -> Int = {
      _ = calls.add()
      return try await cache.value(forKey: 1, refreshAfter: .seconds(1)) { -1 } + 10
    }
    #expect(try await cache.value(forKey: 1, refreshAfter: .seconds(1), orLoad: load) == 1)
    try await settle(cache)
    #expect(calls.value == 1 && cache.value(forKey: 1) == 11)
  }

  @Test func aRefreshIntervalOfZeroIsRefused() async throws {
    let cache = try MemoryCache<Int, Int>(countLimit: 10)
    await #expect(throws: CacheError.self) { try await cache.value(forKey: 1, refreshAfter: .zero) { 1 } }
    await #expect(throws: CacheError.self) { try await cache.value(forKey: 1, refreshAfter: .seconds(-1)) { 1 } }
  }
}

/// Stale while revalidating: an entry past its TTL by no more than the
/// grace is served while one reload replaces it; past the grace, a miss.
@Suite(.timeLimit(.minutes(1))) struct StaleServingTests {
  @Test(arguments: ["mutex", "buffered", "striped:4"])
  func anEntryWithinItsGraceIsServedWhileOneReloadRuns(lock: String) async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 10, lock: LockStrategy(lock), clock: { clock.now() })
    let calls = Calls()
    let gate = Gate()
    let load: @Sendable () async throws -> Int = {
      let n = calls.add()
      if n == 2 { try await gate.wait() }
      return n
    }
    func read() async throws -> Int {
      try await cache.value(
        forKey: 1, ttl: .seconds(10), refreshAfter: .seconds(100), serveStale: .seconds(5), orLoad: load)
    }
    #expect(try await read() == 1)
    clock.advance(seconds: 12)  // 2 s past its TTL, within the 5 s grace
    #expect(try await read() == 1)
    #expect(try await read() == 1)
    #expect(cache.value(forKey: 1) == nil, "a plain read never sees it stale")
    gate.open.store(true, ordering: .releasing)
    for _ in 0..<20_000 where cache.loadsInFlight > 0 { try await Task.sleep(for: .milliseconds(1)) }
    #expect(cache.value(forKey: 1) == 2, "the reload replaced it, with a new TTL")
    #expect(calls.value == 2)
    let statistics = cache.statistics
    #expect(statistics.staleHits == 2 && statistics.refreshes == 1)
    // Past the grace: a miss, and the read waits for a load.
    clock.advance(seconds: 16)
    #expect(try await read() == 3)
    #expect(calls.value == 3 && cache.statistics.loads == 2)
  }

  /// The age limit binds a stale entry as it binds any: past it, the read
  /// misses and waits for the load.
  @Test func anEntryPastTheAgeLimitIsNotServedStale() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 10, ageLimit: .seconds(11), clock: { clock.now() })
    let calls = Calls()
    let load: @Sendable () async throws -> Int = { calls.add() }
    func read() async throws -> Int {
      try await cache.value(
        forKey: 1, ttl: .seconds(10), refreshAfter: .seconds(100), serveStale: .seconds(5), orLoad: load)
    }
    #expect(try await read() == 1)
    clock.advance(seconds: 12)  // 2 s past the TTL, within the grace; 12 s old, past the age limit
    #expect(try await read() == 2)
    #expect(cache.statistics.staleHits == 0 && cache.statistics.evictions[.age] == 1)
  }

  @Test func aNegativeGraceIsRefused() async throws {
    let cache = try MemoryCache<Int, Int>(countLimit: 10)
    await #expect(throws: CacheError.self) {
      try await cache.value(forKey: 1, refreshAfter: .seconds(1), serveStale: .seconds(-1)) { 1 }
    }
  }
}
