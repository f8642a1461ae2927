import EvictionExperiments
import EvictionSim

/// Replay results as CSV, JSON and a terminal table. Column names and JSON
/// keys are those of ``ReplayResult/columns``, in that order.
public enum ReplayTables {
  /// RFC 4180 CSV with a header line.
  public static func csv(_ results: [ReplayResult]) -> String {
    ResultWriter.csv(results, columns: ReplayResult.columns)
  }

  /// `{"results": [...]}`, one object per row, keys in column order.
  public static func json(_ results: [ReplayResult]) -> String {
    ResultWriter.json(results, columns: ReplayResult.columns)
  }

  /// A fixed-width table for people.
  /// With an admission column when a row has an admission policy.
  public static func table(_ results: [ReplayResult]) -> String {
    let admitted = results.contains { $0.admission != "none" }
    let header =
      ["trace", "policy"] + (admitted ? ["admission"] : [])
      + ["size", "mode", "requests", "miss ratio", "byte miss ratio", "Mreq/s"]
    let rows = results.map { r in
      [r.trace, r.policy] + (admitted ? [r.admission] : []) + [
        String(r.cacheSize), r.sizeMode.rawValue, String(r.requests),
        fixed(r.missRatio, 4), fixed(r.byteMissRatio, 4), fixed(r.requestsPerSecond / 1e6, 2),
      ]
    }
    return render(header: header, rows: rows, leftColumns: admitted ? 3 : 2)
  }

  /// A fixed-width table: the first `leftColumns` columns are text (left
  /// aligned), the rest numbers (right aligned).
  public static func render(header: [String], rows: [[String]], leftColumns: Int) -> String {
    var widths = header.map(\.count)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { i, cell in
        let pad = String(repeating: " ", count: widths[i] - cell.count)
        return i < leftColumns ? cell + pad : pad + cell
      }.joined(separator: "  ")
    }
    var out = line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
    for row in rows { out += line(row) + "\n" }
    return out
  }

  struct Field {
    var text: String
    var quoted: Bool

    static func text(_ s: String) -> Field { Field(text: s, quoted: true) }
    static func number(_ n: some BinaryInteger) -> Field { Field(text: String(n), quoted: false) }
    static func number(_ x: Double) -> Field { Field(text: exact(x), quoted: false) }
    static func bool(_ b: Bool) -> Field { Field(text: b ? "true" : "false", quoted: false) }
  }

  /// Shortest text that reads back as the same Double.
  static func exact(_ x: Double) -> String { x.isFinite ? "\(x)" : "0" }

  /// `x` with exactly `digits` decimals.
  public static func fixed(_ x: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let n = Int64((x * scale).rounded())
    let sign = n < 0 ? "-" : ""
    let whole = n.magnitude / UInt64(scale)
    let fraction = String(n.magnitude % UInt64(scale))
    return sign + "\(whole)"
      + (digits > 0 ? "." + String(repeating: "0", count: digits - fraction.count) + fraction : "")
  }

  public static func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return text }
    return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
  }

  public static func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}

extension String {
  func replacingAll(_ target: Character, with replacement: String) -> String {
    var out = ""
    for c in self { if c == target { out += replacement } else { out.append(c) } }
    return out
  }
}
