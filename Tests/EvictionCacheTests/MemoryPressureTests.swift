import EvictionCache
import Synchronization
import Testing

/// Trimming on memory pressure, as NSCache and Nuke purge on a memory warning.
@Suite struct MemoryPressureTests {
  @Test func trimToAFractionKeepsThatShareOfEntriesAndCost() throws {
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: "lru", costLimit: 10_000, onEvict: { log.record($0, $1, $2) })
    for key in 0..<100 { cache.setValue(key, forKey: key, cost: 10) }
    cache.trim(toFraction: 0.5)
    #expect(cache.count == 50 && cache.totalCost == 500)
    // The least recently used went: the newest key stays.
    #expect(cache.contains(99) && !cache.contains(0))
    #expect(log.entries.count == 50)
    cache.trim(toFraction: .nan)
    #expect(cache.count == 50)
    cache.trim(toFraction: -1)
    #expect(cache.count == 0 && cache.totalCost == 0)
    cache.checkInvariants()
    // Striped, each shard keeps its share (rounded down).
    let striped = try MemoryCache<Int, Int>(policy: "lru", countLimit: 1_000, lock: .striped(shards: 4))
    for key in 0..<100 { striped[key] = key }
    striped.trim(toFraction: 0.5)
    #expect((47...50).contains(striped.count))
  }

  /// The monitor trims once per rise past its threshold, then waits for
  /// the usage to fall back below it; a cache that goes is forgotten.
  @Test func theMonitorTrimsOncePerRise() throws {
    let used = Atomic<Int>(50)
    let monitor = MemoryPressureMonitor(threshold: 0.9, keep: 0.5, interval: nil) {
      MemoryUsage(used: used.load(ordering: .relaxed), limit: 100)
    }
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 1_000)
    for key in 0..<100 { cache[key] = key }
    monitor.watch(cache)
    #expect(!monitor.check() && cache.count == 100)
    used.store(95, ordering: .relaxed)
    #expect(monitor.check() && cache.count == 50)
    #expect(!monitor.check() && cache.count == 50)  // still high: no second trim
    used.store(70, ordering: .relaxed)
    #expect(!monitor.check())
    used.store(91, ordering: .relaxed)
    #expect(monitor.check() && cache.count == 25 && monitor.trims == 2)
    do {
      let passing = try MemoryCache<Int, Int>(policy: "lru", countLimit: 10)
      monitor.watch(passing)
      #expect(monitor.watching == 2)
    }
    used.store(0, ordering: .relaxed)
    _ = monitor.check()
    used.store(100, ordering: .relaxed)
    #expect(monitor.check() && monitor.watching == 1 && cache.count == 12)
  }

  /// The readings this machine gives: its cgroup's or its own memory.
  @Test func thisMachinesUsageReads() throws {
    let usage = try #require(MemoryUsage.current())
    #expect(usage.limit > 0 && usage.used > 0 && usage.used <= usage.limit)
    #expect(usage.fraction > 0 && usage.fraction <= 1)
  }
}
