import EvictionExperiments
import EvictionSim

/// Miss-ratio curves as JSON (`{"points": [...]}` with the method and rate),
/// CSV and a terminal table.
public enum CurveTables {
  public static let columns = [
    "trace", "policy", "method", "rate", "size_mode", "cache_size", "requests", "misses", "miss_ratio",
    "bytes_requested", "bytes_missed", "byte_miss_ratio", "admission", "scaled_below_largest_object",
  ]

  /// The keys of each point in the JSON, in order.
  static let pointColumns = [
    "cache_size", "method", "miss_ratio", "byte_miss_ratio", "requests", "misses", "bytes_requested", "bytes_missed",
    "scaled_below_largest_object",
  ]

  public static func csv(_ curves: [MissRatioCurve]) -> String {
    ResultWriter.csv(curves.flatMap(\.rows), columns: columns)
  }

  /// One curve: `{"trace": …, "method": …, "rate": …, "points": [{"cache_size": …, "miss_ratio": …, …}]}`;
  /// several: `{"curves": [ … ]}`.
  public static func json(_ curves: [MissRatioCurve]) -> String {
    let objects = curves.map { curve in
      let points = curve.rows.map { ResultWriter.object($0, columns: pointColumns) }
      return
        "{\"trace\": \(ReplayTables.jsonString(curve.trace)), \"policy\": \(ReplayTables.jsonString(curve.policy)), "
        + "\"admission\": \(ReplayTables.jsonString(curve.admission)), "
        + "\"method\": \"\(curve.method.rawValue)\", \"rate\": \(curve.rate), \"size_mode\": \"\(curve.sizeMode.rawValue)\", "
        + "\"simulated_sizes\": [\(curve.simulatedSizes.map(String.init).joined(separator: ", "))], "
        + "\"points\": [\n    " + points.joined(separator: ",\n    ") + "\n  ]}"
    }
    if objects.count == 1 { return objects[0] + "\n" }
    return "{\"curves\": [\n  " + objects.joined(separator: ",\n  ") + "\n]}\n"
  }

  public static func table(_ curves: [MissRatioCurve]) -> String {
    var rows: [[String]] = []
    for curve in curves {
      for p in curve.points {
        rows.append([
          curve.trace, curve.admission == "none" ? curve.policy : "\(curve.policy) + \(curve.admission)",
          curve.method(at: p.cacheSize).rawValue, String(p.cacheSize), ReplayTables.fixed(p.missRatio, 4),
          ReplayTables.fixed(p.byteMissRatio, 4),
        ])
      }
    }
    return ReplayTables.render(
      header: ["trace", "policy", "method", "size", "miss ratio", "byte miss ratio"], rows: rows, leftColumns: 3)
  }
}
