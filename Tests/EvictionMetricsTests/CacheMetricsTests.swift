import CoreMetrics
import EvictionCache
import MetricsTestKit
import Synchronization
import Testing

@testable import EvictionMetrics

/// A cache's statistics reach a swift-metrics backend (MetricsTestKit's,
/// given as the factory, so no process-wide bootstrap).
@Suite struct CacheMetricsTests {
  @Test func countersReportTheIncreaseSinceTheLastReportAndGaugesTheState() async throws {
    let backend = TestMetrics()
    let cache = try MemoryCache<String, Int>(policy: .lru, countLimit: 2)
    let metrics = CacheMetrics(
      cache, label: "thumbnails", dimensions: [("region", "eu")], interval: nil, factory: backend)
    let dims = [("cache", "thumbnails"), ("region", "eu")]
    cache.setValue(1, forKey: "a")
    cache.setValue(2, forKey: "b")
    cache.setValue(3, forKey: "c")  // evicts a (capacity)
    _ = cache.value(forKey: "b")
    _ = cache.value(forKey: "a")
    _ = try await cache.value(forKey: "d") { 4 }  // a load; evicts c
    struct Offline: Error {}
    _ = try? await cache.value(forKey: "e") { throw Offline() }
    metrics.report()
    #expect(try backend.expectCounter("evictionlab_cache_hits", dims).totalValue == 1)
    #expect(try backend.expectCounter("evictionlab_cache_misses", dims).totalValue == 3)
    #expect(try backend.expectCounter("evictionlab_cache_sets", dims).totalValue == 4)
    #expect(try backend.expectCounter("evictionlab_cache_loads", dims).totalValue == 2)
    #expect(try backend.expectCounter("evictionlab_cache_load_failures", dims).totalValue == 1)
    #expect(try backend.expectCounter("evictionlab_cache_refreshes", dims).totalValue == 0)
    #expect(try backend.expectCounter("evictionlab_cache_departures", dims + [("reason", "capacity")]).totalValue == 2)
    #expect(try backend.expectGauge("evictionlab_cache_entries", dims).lastValue == 2)
    // A second report adds only what happened since.
    _ = cache.value(forKey: "b")
    metrics.report()
    metrics.report()
    #expect(try backend.expectCounter("evictionlab_cache_hits", dims).totalValue == 2)
    #expect(try backend.expectCounter("evictionlab_cache_misses", dims).totalValue == 3)
  }

  @Test func rejectionsAreReportedByRule() throws {
    let backend = TestMetrics()
    let cache = try MemoryCache<String, Int>(policy: .lru, costLimit: 10)
    let metrics = CacheMetrics(cache, label: "c", interval: nil, factory: backend)
    #expect(try cache.store(1, forKey: "heavy", cost: 11) == .rejected(.heavierThanCache))
    metrics.report()
    let rejected = try backend.expectCounter(
      "evictionlab_cache_rejections", [("cache", "c"), ("rule", "heavierThanCache")])
    #expect(rejected.totalValue == 1)
  }

  /// A count that reads lower than before (a buffered cache's hits can
  /// for an instant) is not reported again when it climbs back; a
  /// whole-year interval is accepted, not wrapped into a negative one.
  @Test func aCountThatDipsIsNotCountedTwice() throws {
    let backend = TestMetrics()
    let readings = Readings([3, 2, 3, 5])
    let metrics = CacheMetrics(
      label: "dips", prefix: "p", dimensions: [], interval: .seconds(100 * 365 * 24 * 3600), factory: backend,
      read: {
        var statistics = CacheStatistics()
        statistics.hits = readings.next()
        return statistics
      })
    for _ in 0..<4 { metrics.report() }
    #expect(try backend.expectCounter("p_hits", [("cache", "dips")]).totalValue == 5)
  }

  /// With an interval, reports come on their own.
  @Test func aTimerReportsWithoutBeingAsked() async throws {
    let backend = TestMetrics()
    let cache = try MemoryCache<String, Int>(policy: .lru, countLimit: 10)
    let metrics = CacheMetrics(cache, label: "timed", interval: .milliseconds(10), factory: backend)
    _ = cache.value(forKey: "x")
    var seen: Int64 = 0
    for _ in 0..<500 where seen == 0 {
      try await Task.sleep(for: .milliseconds(10))
      seen = backend.counterTotal(label: "evictionlab_cache_misses", dimensions: [("cache", "timed")])
    }
    #expect(seen == 1)
    _ = metrics
  }
}

/// Values handed out in turn, across threads.
final class Readings: Sendable {
  let state: Mutex<[Int]>
  init(_ values: [Int]) { state = Mutex(values) }
  func next() -> Int { state.withLock { $0.isEmpty ? 0 : $0.removeFirst() } }
}
