import EvictionSim

/// `evlab replay --tier memory+disk` results as CSV and JSON (keys: ``TieredReplay/Result/columns``).
public enum TieredTables {
  public static func csv(_ results: [TieredReplay.Result]) -> String {
    ReplayTables.csv(columns: TieredReplay.Result.columns, rows: results.map(fields))
  }

  public static func json(_ results: [TieredReplay.Result]) -> String {
    ReplayTables.json(columns: TieredReplay.Result.columns, rows: results.map(fields))
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

  static func fields(_ r: TieredReplay.Result) -> [ReplayTables.Field] {
    [
      .text(r.trace), .text(r.policy), .number(r.memorySize), .number(r.diskSize), .text(r.sizeMode.rawValue),
      .number(r.requests), .number(r.memoryHits), .number(r.diskHits), .number(r.misses), .number(r.bytesReadFromDisk),
      .number(r.memoryHitP50Ns), .number(r.memoryHitP99Ns), .number(r.diskHitP50Ns), .number(r.diskHitP99Ns),
      .number(r.missP50Ns), .number(r.missP99Ns), .number(r.seconds),
    ]
  }
}
