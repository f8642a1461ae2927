import EvictionSim

/// `evlab disk-bench` results as CSV and JSON (keys: ``DiskBench/Result/columns``).
public enum DiskBenchTables {
  public static func csv(_ results: [DiskBench.Result]) -> String {
    ReplayTables.csv(columns: DiskBench.Result.columns, rows: results.map(fields))
  }

  public static func json(_ results: [DiskBench.Result]) -> String {
    ReplayTables.json(columns: DiskBench.Result.columns, rows: results.map(fields))
  }

  static func fields(_ r: DiskBench.Result) -> [ReplayTables.Field] {
    [
      .text(r.mode), .number(r.valueSize), .text(r.phase), .number(r.ops), .number(r.seconds),
      .number(r.opsPerSecond.rounded()), .number(r.megabytesPerSecond), .number(r.p50Ns), .number(r.p99Ns),
      .number(r.p999Ns), .number(r.maxNs), .number(r.rounds),
    ]
  }
}
