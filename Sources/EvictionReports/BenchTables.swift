import EvictionExperiments
import EvictionSim
import EvictionStats
import Foundation

/// The benchmarks' terminal tables.
public enum BenchTables {
  static let fixed = ReplayTables.fixed

  /// `evlab bench replay`: medians, min and max per policy, and the ratio to the bare loop when it ran.
  public static func replay(_ report: ReplayBenchmark.Report) -> String {
    let bare = report.results.contains { $0.policy == ReplayBenchmark.bareName }
    var header = ["policy", "requests", "miss ratio", "median Mreq/s", "min", "max"]
    if bare { header.append("vs bare LRU") }
    let rows = report.results.map { r in
      [
        r.policy, String(r.requests), fixed(r.missRatio, 4), fixed(r.medianRequestsPerSecond / 1e6, 2),
        fixed(r.minRequestsPerSecond / 1e6, 2), fixed(r.maxRequestsPerSecond / 1e6, 2),
      ] + (bare ? [fixed(r.ratioToBareLru ?? 0, 2)] : [])
    }
    return ReplayTables.render(header: header, rows: rows, leftColumns: 1)
  }

  /// `evlab bench throughput` without a baseline.
  public static func throughput(_ samples: ThroughputBenchmark.Samples) -> String {
    let rows = samples.policies.map { policy in
      let s = SampleSummary(samples.samples[policy] ?? [])
      return [
        policy, fixed(s.median / 1e6, 2), fixed(s.minimum / 1e6, 2), fixed(s.maximum / 1e6, 2), String(s.count),
      ]
    }
    return ReplayTables.render(header: ["policy", "median Mreq/s", "min", "max", "runs"], rows: rows, leftColumns: 1)
  }

  /// `evlab bench throughput --baseline`: medians, change, Welch's p and the verdict per policy.
  public static func comparison(_ verdicts: [(policy: String, comparison: ThroughputComparison)]) -> String {
    let rows = verdicts.map { v in
      let c = v.comparison
      return [
        v.policy, fixed(c.baselineMedian / 1e6, 2), fixed(c.currentMedian / 1e6, 2),
        (c.change >= 0 ? "+" : "") + fixed(c.change * 100, 1) + "%", String(format: "%.2g", c.p), c.verdict.rawValue,
      ]
    }
    return ReplayTables.render(
      header: ["policy", "baseline Mreq/s", "current Mreq/s", "change", "p (Welch)", "verdict"], rows: rows,
      leftColumns: 1)
  }

  /// `evlab bench memory`.
  public static func memory(_ report: MemoryBenchmark.Report) -> String {
    let rows = report.results.map { r in
      [r.policy, String(r.entries), fixed(r.bytesPerEntry, 1), r.bytesPerGhost.map { fixed($0, 1) } ?? "–"]
    }
    return ReplayTables.render(
      header: ["policy", "entries", "bytes/entry", "bytes/ghost"], rows: rows, leftColumns: 1)
  }

  /// `evlab bench concurrent`.
  /// The columns of today's table, then the speed-up over one thread, and
  /// the ceiling and scaling efficiency where the run measured them.
  public static func concurrent(_ report: ConcurrentBenchmark.Report) -> String {
    let ceiling = report.results.contains { $0.ceilingOpsPerSecond != nil }
    let rows = report.results.map { (r: ConcurrentBenchmark.Row) -> [String] in
      var row: [String] = [r.lock, r.mix, String(r.threads)]
      row.append(fixed(r.opsPerSecond / 1e6, 2))
      row.append(fixed(r.opsPerSecondPerThread / 1e6, 2))
      row.append(fixed(r.opsPerSecondMin / 1e6, 2) + "–" + fixed(r.opsPerSecondMax / 1e6, 2))
      row.append(r.droppedShare.map { fixed($0 * 100, 2) + "%" } ?? "–")
      row.append(r.speedupOverOneThread.map { fixed($0, 2) + "×" } ?? "–")
      if ceiling {
        row.append(r.ceilingOpsPerSecond.map { fixed($0 / 1e6, 2) } ?? "–")
        row.append(r.scalingEfficiency.map { fixed($0 * 100, 0) + "%" } ?? "–")
      }
      return row
    }
    let cores = report.results.first.map { "\($0.cores) cores, \($0.rounds) rounds of \($0.seconds) s each\n" } ?? ""
    return cores
      + ReplayTables.render(
        header: ["lock", "mix", "threads", "M ops/s", "M ops/s/thread", "range", "dropped", "× 1 thread"]
          + (ceiling ? ["ceiling M ops/s", "efficiency"] : []), rows: rows, leftColumns: 2)
  }

  /// `evlab bench concurrent`'s charts: per mix, operations per second by
  /// thread count, a line per lock strategy (and comparison point); the file
  /// name and the SVG. The title gives the core count, so that threads
  /// beyond the cores are visible as such.
  public static func concurrentCharts(_ report: ConcurrentBenchmark.Report) -> [(name: String, svg: String)] {
    var mixes: [String] = []
    var locks: [String] = []
    for row in report.results {
      if !mixes.contains(row.mix) { mixes.append(row.mix) }
      if !locks.contains(row.lock) { locks.append(row.lock) }
    }
    let cores = report.results.first?.cores ?? 0
    return mixes.map { mix in
      let series = locks.map { lock in
        SVGChart.Series(
          name: lock,
          points: report.results.filter { $0.mix == mix && $0.lock == lock }.map {
            (Double($0.threads), $0.opsPerSecond / 1e6)
          })
      }
      let svg = SVGChart.lines(
        title: "GetPut \(mix) reads/writes, \(cores) cores", xLabel: "threads", yLabel: "M ops/s (median)",
        series: series, logX: true, yFormat: { fixed($0, 0) }, xFormat: { String(Int($0)) }, binaryTicks: true)
      return ("getput-" + mix.replacingOccurrences(of: "/", with: "-"), svg)
    }
  }

  /// `evlab bench cache`.
  public static func cache(_ report: CacheBenchmark.Report) -> String {
    let rows = report.results.map { r in
      [
        r.target, fixed(r.getNs, 1), fixed(r.setNs, 1), fixed(r.hitRatio, 3), fixed(r.costVsDictionary, 2) + "×",
        fixed(r.speedupVsNscache, 1) + "×",
      ]
    }
    return ReplayTables.render(
      header: ["target", "get ns", "set ns", "hit ratio", "set+get vs Dictionary", "faster than NSCache"], rows: rows,
      leftColumns: 1)
  }

  /// `evlab bench read`.
  public static func read(_ rows: [ReadBenchmark.Row]) -> String {
    ReplayTables.render(
      header: ["trace", "records", "median M rec/s", "min", "max"],
      rows: rows.map {
        [
          $0.trace, String($0.records), fixed($0.medianRecordsPerSecond / 1e6, 1),
          fixed($0.minRecordsPerSecond / 1e6, 1), fixed($0.maxRecordsPerSecond / 1e6, 1),
        ]
      }, leftColumns: 1)
  }
}
