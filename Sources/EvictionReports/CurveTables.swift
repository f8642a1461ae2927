import EvictionExperiments
import EvictionSim

/// Miss-ratio curves as JSON (`{"points": [...]}` with the method and rate),
/// CSV and a terminal table.
public enum CurveTables {
  public static let columns = [
    "trace", "policy", "method", "rate", "size_mode", "cache_size", "requests", "misses", "miss_ratio",
    "bytes_requested", "bytes_missed", "byte_miss_ratio", "admission", "scaled_below_largest_object",
  ]

  static func fields(_ curve: MissRatioCurve, _ p: CurvePoint) -> [String] {
    [
      curve.trace, curve.policy, curve.method(at: p.cacheSize).rawValue, "\(curve.rate)", curve.sizeMode.rawValue,
      "\(p.cacheSize)",
      "\(p.requests)", "\(p.misses)", ReplayTables.exact(p.missRatio), "\(p.bytesRequested)", "\(p.bytesMissed)",
      ReplayTables.exact(p.byteMissRatio), curve.admission, "\(curve.belowLargestObject.contains(p.cacheSize))",
    ]
  }

  public static func csv(_ curves: [MissRatioCurve]) -> String {
    var out = columns.joined(separator: ",") + "\n"
    for curve in curves {
      for point in curve.points { out += fields(curve, point).map(ReplayTables.csvField).joined(separator: ",") + "\n" }
    }
    return out
  }

  /// One curve: `{"trace": …, "method": …, "rate": …, "points": [{"cache_size": …, "miss_ratio": …, …}]}`;
  /// several: `{"curves": [ … ]}`.
  public static func json(_ curves: [MissRatioCurve]) -> String {
    let objects = curves.map { curve in
      let points = curve.points.map { p in
        "{\"cache_size\": \(p.cacheSize), \"method\": \"\(curve.method(at: p.cacheSize).rawValue)\", "
          + "\"miss_ratio\": \(ReplayTables.exact(p.missRatio)), "
          + "\"byte_miss_ratio\": \(ReplayTables.exact(p.byteMissRatio)), \"requests\": \(p.requests), "
          + "\"misses\": \(p.misses), \"bytes_requested\": \(p.bytesRequested), \"bytes_missed\": \(p.bytesMissed), "
          + "\"scaled_below_largest_object\": \(curve.belowLargestObject.contains(p.cacheSize))}"
      }
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
