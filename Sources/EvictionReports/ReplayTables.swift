import EvictionSim

/// Replay results as CSV, JSON and a terminal table. Column names and JSON
/// keys are those of ``ReplayResult/columns``, in that order.
public enum ReplayTables {
  /// RFC 4180 CSV with a header line.
  public static func csv(_ results: [ReplayResult]) -> String {
    csv(columns: ReplayResult.columns, rows: results.map(fields))
  }

  /// `{"results": [...]}`, one object per row, keys in column order.
  public static func json(_ results: [ReplayResult]) -> String {
    json(columns: ReplayResult.columns, rows: results.map(fields))
  }

  /// CSV of `rows` under `columns`.
  static func csv(columns: [String], rows: [[Field]]) -> String {
    var out = columns.joined(separator: ",") + "\n"
    for row in rows {
      out += row.map { csvField($0.text) }.joined(separator: ",") + "\n"
    }
    return out
  }

  /// `{"results": [...]}` of `rows` under `columns`, keys in column order.
  static func json(columns: [String], rows: [[Field]]) -> String {
    var out = "{\n  \"results\": ["
    for (i, row) in rows.enumerated() {
      out += i == 0 ? "\n    {" : ",\n    {"
      out += zip(columns, row).map { key, field in
        "\"\(key)\": " + (field.quoted ? jsonString(field.text) : field.text)
      }.joined(separator: ", ")
      out += "}"
    }
    out += rows.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
    return out
  }

  /// A fixed-width table for people.
  public static func table(_ results: [ReplayResult]) -> String {
    let header = ["trace", "policy", "size", "mode", "requests", "miss ratio", "byte miss ratio", "Mreq/s"]
    let rows = results.map { r in
      [
        r.trace, r.policy, String(r.cacheSize), r.sizeMode.rawValue, String(r.requests),
        fixed(r.missRatio, 4), fixed(r.byteMissRatio, 4), fixed(r.requestsPerSecond / 1e6, 2),
      ]
    }
    return render(header: header, rows: rows, leftColumns: 2)
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

  static func fields(_ r: ReplayResult) -> [Field] {
    [
      Field(text: r.trace, quoted: true), Field(text: r.format, quoted: true), Field(text: r.policy, quoted: true),
      Field(text: String(r.cacheSize), quoted: false), Field(text: r.sizeMode.rawValue, quoted: true),
      Field(text: String(r.requests), quoted: false), Field(text: String(r.hits), quoted: false),
      Field(text: String(r.misses), quoted: false), Field(text: exact(r.missRatio), quoted: false),
      Field(text: String(r.bytesRequested), quoted: false), Field(text: String(r.bytesMissed), quoted: false),
      Field(text: exact(r.byteMissRatio), quoted: false), Field(text: exact(r.seconds), quoted: false),
      Field(text: String(r.requestsPerSecond.rounded()), quoted: false),
      Field(text: String(r.skippedZeroSize), quoted: false), Field(text: String(r.maxOccupancy), quoted: false),
      Field(text: String(r.exceedsCapacity), quoted: false),
    ]
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
