import EvictionExperiments
import EvictionSim

/// Stress results as CSV, JSON (`{"results": [...]}`) and a terminal table;
/// keys are ``StressResult/columns``.
public enum StressTables {
  public static func csv(_ results: [StressResult]) -> String {
    ResultWriter.csv(results, columns: StressResult.columns)
  }

  public static func json(_ results: [StressResult]) -> String {
    ResultWriter.json(results, columns: StressResult.columns)
  }

  public static func table(_ results: [StressResult]) -> String {
    let header = [
      "policy", "threads", "lock", "Mops/s", "hit ratio", "drift pp", "dropped", "get p50", "get p99", "set p99",
      "contended", "wait p99",
      "vs NSCache", "vs Dict",
    ]
    let rows = results.map { r -> [String] in
      let drift: String = r.hitRatioDrift.map { ReplayTables.fixed($0 * 100, 3) } ?? ""
      let dropped: String = r.droppedAccesses.map { String($0) } ?? ""
      return [
        r.admission == "none" ? r.policy : "\(r.policy) + \(r.admission)", String(r.threads), r.lock,
        ReplayTables.fixed(r.opsPerSecond / 1e6, 2), ReplayTables.fixed(r.hitRatio, 4), drift, dropped,
        "\(r.getP50Ns) ns", "\(r.getP99Ns) ns", "\(r.setP99Ns) ns", ReplayTables.fixed(r.contendedShare, 3),
        "\(r.waitP99Ns) ns", r.vsNscache.map { ReplayTables.fixed($0, 2) + "×" } ?? "",
        r.vsDictionary.map { ReplayTables.fixed($0, 2) + "×" } ?? "",
      ]
    }
    return ReplayTables.render(header: header, rows: rows, leftColumns: 3)
  }
}
