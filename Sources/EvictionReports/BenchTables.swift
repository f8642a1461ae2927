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
