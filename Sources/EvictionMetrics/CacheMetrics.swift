import CoreMetrics
import Dispatch
import EvictionCache
import Synchronization

/// Reports a `MemoryCache`'s statistics through
/// swift-metrics, to whatever backend the process bootstrapped (Prometheus,
/// StatsD, OpenTelemetry): hits, misses, sets, loads, load failures and
/// time, refreshes, departures by reason, rejections by rule, entries and cost.
///
/// ```swift
/// let cache = try MemoryCache<String, Data>(policy: .s3fifo(), costLimit: 64 << 20, cost: { $0.count })
/// let metrics = CacheMetrics(cache, label: "thumbnails")   // reports every 10 s
/// ```
///
/// Counters are reported as the increase since the last report, so a
/// backend's rates are right however often it runs; gauges as they are.
/// Every metric carries the dimension `cache` (the `label`) beside your
/// own `dimensions`, so one name serves many caches:
///
/// | metric | kind | dimensions |
/// | --- | --- | --- |
/// | `evictionlab_cache_hits`, `_misses`, `_sets` | counter | |
/// | `evictionlab_cache_loads`, `_load_failures` | counter | |
/// | `evictionlab_cache_refreshes`, `_refresh_failures`, `_stale_hits` | counter | |
/// | `evictionlab_cache_load_seconds` | floating-point counter | |
/// | `evictionlab_cache_departures` | counter | `reason` (`capacity`, `expired`, ...) |
/// | `evictionlab_cache_rejections` | counter | `rule` (`heavierThanCache`, ...) |
/// | `evictionlab_cache_entries`, `_cost` | gauge | |
///
/// `EvictionCache` itself depends on nothing: this is a product of its own.
public final class CacheMetrics: Sendable {
  /// The `cache` dimension's value.
  public let label: String
  let read: @Sendable () -> CacheStatistics
  let reported = Mutex(CacheStatistics())
  let counters: Counters
  nonisolated(unsafe) let timer: DispatchSourceTimer?

  /// The metrics of one cache, created once through `factory`.
  struct Counters: Sendable {
    let hits: Counter
    let misses: Counter
    let sets: Counter
    let loads: Counter
    let loadFailures: Counter
    let loadSeconds: FloatingPointCounter
    let refreshes: Counter
    let refreshFailures: Counter
    let staleHits: Counter
    let departures: [EvictionReason: Counter]
    let rejections: [RejectionRule: Counter]
    let entries: Gauge
    let cost: Gauge
  }

  /// Starts reporting `cache`'s statistics.
  ///
  /// - Parameters:
  ///   - cache: the cache to report.
  ///   - label: the `cache` dimension's value, naming this cache among others.
  ///   - prefix: the start of every metric's name.
  ///   - dimensions: added to every metric.
  ///   - interval: how often to report (nil: only when ``report()`` is called).
  ///   - factory: the metrics backend (the one the process bootstrapped, by default).
  public convenience init<Key: Hashable & Sendable, Value: Sendable>(
    _ cache: MemoryCache<Key, Value>, label: String, prefix: String = "evictionlab_cache",
    dimensions: [(String, String)] = [], interval: Duration? = .seconds(10),
    factory: MetricsFactory = MetricsSystem.factory
  ) {
    self.init(
      label: label, prefix: prefix, dimensions: dimensions, interval: interval, factory: factory,
      read: { [weak cache] in cache?.statistics ?? CacheStatistics() })
  }

  init(
    label: String, prefix: String, dimensions: [(String, String)], interval: Duration?, factory: MetricsFactory,
    read: @escaping @Sendable () -> CacheStatistics
  ) {
    self.label = label
    self.read = read
    let base = [("cache", label)] + dimensions
    func counter(_ name: String, _ extra: [(String, String)] = []) -> Counter {
      Counter(label: prefix + "_" + name, dimensions: base + extra, factory: factory)
    }
    counters = Counters(
      hits: counter("hits"), misses: counter("misses"), sets: counter("sets"), loads: counter("loads"),
      loadFailures: counter("load_failures"),
      loadSeconds: FloatingPointCounter(label: prefix + "_load_seconds", dimensions: base, factory: factory),
      refreshes: counter("refreshes"), refreshFailures: counter("refresh_failures"), staleHits: counter("stale_hits"),
      departures: Dictionary(
        uniqueKeysWithValues: EvictionReason.allCases.map { ($0, counter("departures", [("reason", "\($0)")])) }),
      rejections: Dictionary(
        uniqueKeysWithValues: RejectionRule.allCases.map { ($0, counter("rejections", [("rule", $0.rawValue)])) }),
      entries: Gauge(label: prefix + "_entries", dimensions: base, factory: factory),
      cost: Gauge(label: prefix + "_cost", dimensions: base, factory: factory))
    guard let interval else {
      timer = nil
      return
    }
    let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
    // At most a year between reports (a longer interval would overflow the timer's nanoseconds).
    let (seconds, attoseconds) = min(max(interval, .milliseconds(1)), .seconds(365 * 24 * 3600)).components
    let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
    self.timer = timer
    timer.setEventHandler { [weak self] in self?.report() }
    timer.resume()
  }

  deinit { timer?.cancel() }

  /// Reports the statistics now: each counter's increase since the last
  /// report, and the gauges. Safe from any thread; reports never overlap.
  /// The first report carries everything since the cache was created. A
  /// count read lower than before (a `buffered` cache's hits may read one
  /// high for an instant) reports nothing until it passes its highest.
  public func report() {
    reported.withLock { last in
      let now = read()
      let c = counters
      func add(_ counter: Counter, _ new: Int, _ old: inout Int) {
        guard new > old else { return }
        counter.increment(by: Int64(new - old))
        old = new
      }
      add(c.hits, now.hits, &last.hits)
      add(c.misses, now.misses, &last.misses)
      add(c.sets, now.sets, &last.sets)
      add(c.loads, now.loads, &last.loads)
      add(c.loadFailures, now.loadFailures, &last.loadFailures)
      add(c.refreshes, now.refreshes, &last.refreshes)
      add(c.refreshFailures, now.refreshFailures, &last.refreshFailures)
      add(c.staleHits, now.staleHits, &last.staleHits)
      if now.loadTime > last.loadTime {
        let (seconds, attoseconds) = (now.loadTime - last.loadTime).components
        c.loadSeconds.increment(by: Double(seconds) + Double(attoseconds) / 1e18)
        last.loadTime = now.loadTime
      }
      for (reason, counter) in c.departures {
        var old = last.evictions[reason, default: 0]
        add(counter, now.evictions[reason, default: 0], &old)
        last.evictions[reason] = old
      }
      for (rule, counter) in c.rejections {
        var old = last.rejections[rule, default: 0]
        add(counter, now.rejections[rule, default: 0], &old)
        last.rejections[rule] = old
      }
      c.entries.record(now.count)
      c.cost.record(now.cost)
    }
  }

}
