import EvictionCache
import EvictionCore
import EvictionTestSupport
import Testing

/// Per-entry time-to-live (``MemoryCache/setValue(_:forKey:cost:ttl:)``):
/// lazy expiry on the cache's clock, as the replay's `--use-ttl` has it.
@Suite struct MemoryCacheTTLTests {
  @Test(arguments: lockNames)
  func anEntryExpiresAfterItsTTLAndNotBefore(lock: String) throws {
    let clock = ManualClock()
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 100, lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { log.record($0, $1, $2) })
    cache.setValue(1, forKey: 1, ttl: .seconds(5))
    cache.setValue(2, forKey: 2)  // never expires
    cache.setValue(3, forKey: 3, ttl: .seconds(5))
    clock.advance(seconds: 5)
    #expect(cache.value(forKey: 1) == 1, "at its expiry an entry still serves")
    #expect(cache.contains(3))
    clock.advance(seconds: 0.001)
    #expect(!cache.contains(3), "expired, though not yet removed")
    #expect(cache.count == 3, "lazy: an expired entry keeps its room until touched")
    #expect(cache.value(forKey: 1) == nil, "a hit did not extend it")
    #expect(log.entries.map(\.reason) == [.expired] && log.entries[0].key == 1)
    #expect(cache.value(forKey: 2) == 2)
    cache.trimExpired()
    #expect(log.count(.expired) == 2 && cache.count == 1)
    #expect(cache.statistics.evictions[.expired] == 2 && cache.statistics.misses == 1)
    cache.checkInvariants()
  }

  /// An `expiry` closure gives each write without a `ttl:` its own
  /// lifetime, from its key and value (an HTTP response's `max-age`); a
  /// `ttl:` wins; nil never expires; zero is expired at once; loads use it too.
  @Test(arguments: ["mutex", "buffered", "striped:4"])
  func anExpiryClosureGivesEachEntryItsLifetime(lock: String) async throws {
    let clock = ManualClock()
    let log = DepartureLog()
    // A value is its own max-age in seconds; a negative one never expires.
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 100, lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { log.record($0, $1, $2) },
      expiry: { _, maxAge in maxAge < 0 ? nil : .seconds(maxAge) })
    cache.setValue(10, forKey: 1)
    cache.setValue(2, forKey: 2)
    cache.setValue(-1, forKey: 3)
    cache.setValue(2, forKey: 4, ttl: .seconds(30))
    #expect(try cache.store(0, forKey: 5) == .expired)
    let loaded = try await cache.value(forKey: 6) { 3 }
    #expect(loaded == 3)
    clock.advance(seconds: 2.5)
    #expect(cache.value(forKey: 2) == nil && cache.value(forKey: 1) == 10)
    #expect(cache.value(forKey: 4) == 2, "a ttl: given to the write wins")
    clock.advance(seconds: 1)
    #expect(cache.value(forKey: 6) == nil, "a loaded value's lifetime comes from the closure too")
    clock.advance(seconds: 100)
    #expect(cache.value(forKey: 3) == -1 && cache.value(forKey: 1) == nil)
    #expect(log.count(.expired) == 4)
    cache.checkInvariants()
  }

  @Test(arguments: ["mutex", "buffered", "striped:4"])
  func aSetReplacesTheTTLAndARemovalFindsNothingExpired(lock: String) throws {
    let clock = ManualClock()
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "s3fifo", countLimit: 100, lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { log.record($0, $1, $2) })
    cache.setValue(1, forKey: 1, ttl: .seconds(1))
    cache.setValue(10, forKey: 1)  // no TTL now: a set replaces the expiry too
    cache.setValue(2, forKey: 2)
    cache.setValue(20, forKey: 2, ttl: .seconds(1))  // and gives one
    cache.setValue(3, forKey: 3, ttl: .seconds(1))
    clock.advance(seconds: 2)
    #expect(cache.value(forKey: 1) == 10 && cache.value(forKey: 2) == nil)
    #expect(!cache.removeValue(forKey: 3), "an expired entry is not cached: its removal finds nothing")
    #expect(log.entries.filter { $0.reason == .expired }.map(\.key) == [2, 3])
    // A set of an expired entry stores afresh.
    cache.setValue(1, forKey: 4, ttl: .seconds(1))
    clock.advance(seconds: 2)
    cache.setValue(40, forKey: 4, ttl: .seconds(1))
    #expect(cache.value(forKey: 4) == 40 && log.entries.last!.reason == .expired)
    // The automatic trim's pass removes what has expired.
    clock.advance(seconds: 2)
    cache.trimToLimits()
    #expect(cache.count == 1 && cache.value(forKey: 1) == 10)
    cache.checkInvariants()
  }

  @Test func aVeryLongTTLNeverWraps() throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10, clock: { clock.now() })
    cache.setValue(1, forKey: 1, ttl: .seconds(Int64.max))
    cache.setValue(2, forKey: 2, ttl: .nanoseconds(1))
    clock.advance(seconds: 1e9)
    #expect(cache.value(forKey: 1) == 1 && cache.value(forKey: 2) == nil)
  }
}

/// Per-entry expiry when idle (``MemoryCache/setValue(_:forKey:cost:ttl:timeToIdle:)``).
@Suite struct IdleExpiryTests {
  @Test(arguments: ["mutex", "buffered", "striped:4", "barrier"])
  func readsExtendAnIdleEntryAndATTLStillBinds(lock: String) throws {
    let clock = ManualClock()
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", countLimit: 100, lock: LockStrategy(lock), clock: { clock.now() },
      onEvict: { log.record($0, $1, $2) })
    cache.setValue(1, forKey: 1, timeToIdle: .seconds(10))
    cache.setValue(2, forKey: 2, ttl: .seconds(25), timeToIdle: .seconds(10))
    cache.setValue(3, forKey: 3, timeToIdle: .seconds(10))
    cache.waitForWrites()
    // Read 1 and 2 every 8 s: each read extends them; 3 is never read.
    for _ in 0..<3 {
      clock.advance(seconds: 8)
      #expect(cache.value(forKey: 1) == 1)
      #expect(cache.value(forKey: 2) == 2)
    }
    // 24 s in: 3 idled out at 10 s; 1 and 2 live on reads.
    #expect(!cache.contains(3))
    clock.advance(seconds: 1.5)
    #expect(cache.value(forKey: 1) == 1, "read 1.5 s ago, idle limit 10 s")
    #expect(cache.value(forKey: 2) == nil, "its TTL of 25 s binds, reads or not")
    // A write starts the idle time again; without a read it runs out.
    cache.setValue(10, forKey: 1, timeToIdle: .seconds(10))
    cache.waitForWrites()
    clock.advance(seconds: 10.5)
    #expect(cache.value(forKey: 1) == nil)
    cache.trimExpired()
    #expect(Set(log.entries.filter { $0.reason == .expired }.map(\.key)) == [1, 2, 3])
    #expect(cache.count == 0)
    cache.checkInvariants()
  }

  /// Get-or-load stores what it loads to expire when idle: reads extend
  /// it, a TTL still binds, and zero stores it expired (returned, then
  /// loaded again).
  @Test func getOrLoadStoresAnEntryThatExpiresWhenIdle() async throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 100, clock: { clock.now() })
    let loads = SharedState(0)
    let load: @Sendable () async throws -> Int = {
      loads.withLock { $0 += 1 }
      return 7
    }
    #expect(try await cache.value(forKey: 1, timeToIdle: .seconds(10), orLoad: load) == 7)
    #expect(try await cache.value(forKey: 2, ttl: .seconds(15), timeToIdle: .seconds(10), orLoad: load) == 7)
    #expect(loads.withLock { $0 } == 2)
    // Read every 8 s: each read extends both; the TTL of 15 s ends key 2.
    clock.advance(seconds: 8)
    #expect(try await cache.value(forKey: 1, timeToIdle: .seconds(10), orLoad: load) == 7)
    #expect(cache.value(forKey: 2) == 7)
    clock.advance(seconds: 8)
    #expect(cache.value(forKey: 1) == 7, "read 8 s ago, idle limit 10 s")
    #expect(cache.value(forKey: 2) == nil, "its TTL of 15 s binds, reads or not")
    #expect(loads.withLock { $0 } == 2)
    // Unread for 10.5 s, key 1 idles out and loads again.
    clock.advance(seconds: 10.5)
    #expect(!cache.contains(1))
    #expect(try await cache.value(forKey: 1, timeToIdle: .seconds(10), orLoad: load) == 7)
    #expect(loads.withLock { $0 } == 3)
    // Zero: returned, stored expired, loaded again by the next read.
    #expect(try await cache.value(forKey: 3, timeToIdle: .zero, orLoad: load) == 7)
    #expect(!cache.contains(3))
    #expect(try await cache.value(forKey: 3, timeToIdle: .zero, orLoad: load) == 7)
    #expect(loads.withLock { $0 } == 5)
  }

  @Test func anIdleTimeOfZeroIsExpiredAtOnceAndAPlainSetClearsIt() throws {
    let clock = ManualClock()
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10, clock: { clock.now() })
    #expect(try cache.store(1, forKey: 1, timeToIdle: .zero) == .expired)
    #expect(!cache.contains(1))
    #expect(try cache.store(2, forKey: 2, timeToIdle: .seconds(1)) == .stored)
    cache.setValue(3, forKey: 2)  // no expiry now
    clock.advance(seconds: 100)
    #expect(cache.value(forKey: 2) == 3)
    #expect(throws: CacheError.self) { try cache.store(4, forKey: 4, cost: -1, timeToIdle: .seconds(1)) }
  }
}
