import EvictionSim

/// Where each attributed cell's avoidable misses came from, as JSON: per
/// cell (trace, policy, admission, size), its attribution, its costliest
/// evictions and its requests by object-size and reuse-distance class.
public enum RegretTables {
  struct Cell: Encodable {
    var trace: String
    var policy: String
    var admission: String
    var cacheSize: Int64
    var sizeMode: String
    var misses: Int64
    var attribution: MissAttribution
    var regret: Regret
  }

  public static func json(_ results: [ReplayResult]) -> String {
    let cells = results.compactMap { r -> Cell? in
      guard let attribution = r.attribution, let regret = r.regret else { return nil }
      return Cell(
        trace: r.trace, policy: r.policy, admission: r.admission, cacheSize: r.cacheSize,
        sizeMode: r.sizeMode.rawValue, misses: r.misses, attribution: attribution, regret: regret)
    }
    return OutputFile.json(["cells": cells])
  }
}
