import EvictionExperiments
import EvictionSim

/// `evlab disk-bench` results as CSV and JSON (keys: ``DiskBench/Result/columns``).
public enum DiskBenchTables {
  public static func csv(_ results: [DiskBench.Result]) -> String {
    ResultWriter.csv(results, columns: DiskBench.Result.columns)
  }

  public static func json(_ results: [DiskBench.Result]) -> String {
    ResultWriter.json(results, columns: DiskBench.Result.columns)
  }

  /// The terminal table, then what it means: where files beat SQLite (with
  /// every mode measured), how mixed mode fares with `threshold`, and the
  /// threshold that would have served best (with file and sqlite measured).
  public static func table(_ results: [DiskBench.Result], threshold: Int) -> String {
    let fixed = ReplayTables.fixed
    let rows = results.map {
      [
        $0.mode, String($0.valueSize), $0.phase, String(Int($0.opsPerSecond.rounded())),
        fixed($0.megabytesPerSecond, 1), String($0.p50Ns), String($0.p99Ns),
      ]
    }
    var out = ReplayTables.render(
      header: ["mode", "value size", "phase", "ops/s", "MB/s", "p50 ns", "p99 ns"], rows: rows, leftColumns: 3)
    let modes = Set(results.map(\.mode))
    if modes.isSuperset(of: ["file", "sqlite", "mixed"]) {
      for phase in ["read-hit", "write"] {
        if let size = DiskBench.crossover(results, phase: phase) {
          out += "\(phase): files beat SQLite from \(size) bytes up on this machine\n"
        } else {
          out += "\(phase): SQLite beats files at the largest size measured\n"
        }
      }
      if let worst = DiskBench.mixedRatios(results).min(by: { $0.ratio < $1.ratio }) {
        out +=
          "mixed mode (inline up to \(threshold) bytes): at worst \(fixed(worst.ratio * 100, 1))% of the better mode (\(worst.phase) at \(worst.size) bytes)\n"
      }
    }
    if modes.isSuperset(of: ["file", "sqlite"]), let best = DiskBench.recommendedThreshold(results) {
      out +=
        "best threshold measured here: \(DiskBench.describe(threshold: best.threshold)); at worst \(fixed(best.worst * 100, 1))% of the better mode (\(best.phase) at \(best.size) bytes)\n"
    }
    return out
  }

  public static func plistCSV(_ results: [DiskBench.PlistResult]) -> String {
    ResultWriter.csv(results, columns: DiskBench.PlistResult.columns)
  }

  public static func plistJSON(_ results: [DiskBench.PlistResult]) -> String {
    ResultWriter.json(results, columns: DiskBench.PlistResult.columns)
  }

  /// The plist experiment's two tables (empty without rows): updates lost
  /// per design and writer count, then a write's cost by dictionary size.
  public static func plistTable(_ results: [DiskBench.PlistResult]) -> String {
    guard !results.isEmpty else { return "" }
    let fixed = ReplayTables.fixed
    func micro(_ ns: UInt64) -> String { fixed(Double(ns) / 1_000, 1) }
    let lost = results.filter { $0.experiment == "lost-updates" }.map {
      [
        $0.store, String($0.writers), String($0.writes), String($0.lostUpdates), String($0.staleRenames),
        String($0.changesRolledBack), micro($0.p50Ns),
      ]
    }
    var out = "\nplist: updates lost by concurrent writers (lost: missing from the file read back after every writer"
    out += " is done; rolled back: taken out of it by a stale rename, for a while or for good)\n"
    out += ReplayTables.render(
      header: ["store", "writers", "writes", "lost", "stale renames", "rolled back", "set returns p50 µs"], rows: lost,
      leftColumns: 1)
    let latency = results.filter { $0.experiment == "write-latency" }.map {
      [
        $0.store, String($0.entries), micro($0.p50Ns), micro($0.p99Ns),
        $0.fileBytes.map(String.init) ?? "",
      ]
    }
    out += "\nplist: a write until it is on disk, by entries in the store before the writes"
    out += " (\(results[0].valueSize)-byte values; file bytes after the writes)\n"
    out += ReplayTables.render(
      header: ["store", "entries", "p50 µs", "p99 µs", "file bytes"], rows: latency, leftColumns: 1)
    return out
  }
}
