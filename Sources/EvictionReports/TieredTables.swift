import EvictionExperiments
import EvictionSim

/// `evlab replay --tier memory+disk` results as CSV and JSON (keys: ``TieredReplay/Result/columns``).
public enum TieredTables {
  public static func csv(_ results: [TieredReplay.Result]) -> String {
    ResultWriter.csv(results, columns: TieredReplay.Result.columns)
  }

  public static func json(_ results: [TieredReplay.Result]) -> String {
    ResultWriter.json(results, columns: TieredReplay.Result.columns)
  }

  public static func table(_ results: [TieredReplay.Result]) -> String {
    ReplayTables.render(
      header: [
        "trace", "policy", "memory", "disk", "requests", "memory hits", "disk hits", "misses", "disk MB read",
        "disk hit p99 ns",
      ],
      rows: results.map {
        [
          $0.trace, $0.policy, String($0.memorySize), String($0.diskSize), String($0.requests), String($0.memoryHits),
          String($0.diskHits), String($0.misses), ReplayTables.fixed(Double($0.bytesReadFromDisk) / 1e6, 1),
          String($0.diskHitP99Ns),
        ]
      }, leftColumns: 2)
  }
}
