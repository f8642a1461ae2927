import EvictionExperiments
import EvictionSim

/// Replay results as CSV, JSON and a terminal table. Column names and JSON
/// keys are those of ``ReplayResult/columns``, in that order.
public enum ReplayTables {
  /// RFC 4180 CSV with a header line.
  public static func csv(_ results: [ReplayResult]) -> String {
    ResultWriter.csv(results, columns: ReplayResult.columns(ReplayResult.columns, of: results))
  }

  /// `{"results": [...]}`, one object per row, keys in column order.
  public static func json(_ results: [ReplayResult]) -> String {
    ResultWriter.json(results, columns: ReplayResult.columns(ReplayResult.columns, of: results))
  }

  /// A fixed-width table for people: grouped by trace, then by size (in
  /// the order given), a blank line between groups; the size as given
  /// (`sizeGiven`: `0.1% (3,153 objects)`); an admission column when a row
  /// has an admission policy, and the byte miss ratio only where objects
  /// differ in size (else it repeats the miss ratio); with miss attribution,
  /// the miss ratio's shares by cause (compulsory + capacity + policy, and
  /// admission behind an admission policy), which add up to it; with
  /// penalties, the average penalty a request paid.
  public static func table(_ results: [ReplayResult], sizeGiven: (ReplayResult) -> String? = { _ in nil }) -> String {
    let admitted = results.contains { $0.admission != "none" }
    // Where every object weighs the same, the byte miss ratio repeats the miss ratio.
    let sized = results.contains { fixed($0.byteMissRatio, 4) != fixed($0.missRatio, 4) }
    let weighed = results.contains { $0.averagePenalty != nil }
    let header =
      ["trace", "size", "policy"] + (admitted ? ["admission"] : [])
      + ["mode", "requests", "miss ratio"] + (sized ? ["byte miss ratio"] : []) + Self.causeHeader(results)
      + (weighed ? ["penalty/request"] : []) + ["Mreq/s"]
    // Stable: rows of one trace and size keep the order they came in.
    let traces = results.reduce(into: [String]()) { if !$0.contains($1.trace) { $0.append($1.trace) } }
    var sizeOrder: [String: [Int64]] = [:]
    for r in results where !(sizeOrder[r.trace]?.contains(r.cacheSize) ?? false) {
      sizeOrder[r.trace, default: []].append(r.cacheSize)
    }
    let ordered = results.enumerated().sorted { a, b in
      let keyA = (
        traces.firstIndex(of: a.element.trace)!, sizeOrder[a.element.trace]!.firstIndex(of: a.element.cacheSize)!
      )
      let keyB = (
        traces.firstIndex(of: b.element.trace)!, sizeOrder[b.element.trace]!.firstIndex(of: b.element.cacheSize)!
      )
      return keyA != keyB ? keyA < keyB : a.offset < b.offset
    }.map(\.element)
    var groups: [[[String]]] = []
    var previous: (String, Int64)? = nil
    for r in ordered {
      if previous.map({ $0 != (r.trace, r.cacheSize) }) ?? true { groups.append([]) }
      previous = (r.trace, r.cacheSize)
      let unit = r.sizeMode == .count ? "objects" : "bytes"
      let number = grouped(r.cacheSize)
      let size =
        sizeGiven(r).flatMap { given in given == String(r.cacheSize) ? nil : "\(given) (\(number) \(unit))" } ?? number
      groups[groups.count - 1].append(
        [r.trace, size, r.policy] + (admitted ? [r.admission] : []) + [
          r.sizeMode.rawValue, String(r.requests), fixed(r.missRatio, 4),
        ] + (sized ? [fixed(r.byteMissRatio, 4)] : []) + Self.causes(r, admitted: admitted)
          + (weighed ? [r.averagePenalty.map { significant($0) } ?? ""] : [])
          + [fixed(r.requestsPerSecond / 1e6, 2)])
    }
    // A blank line between groups only where a group holds several rows.
    let spaced = groups.contains { $0.count > 1 }
    return render(header: header, groups: groups, spaced: spaced, leftColumns: admitted ? 4 : 3)
  }

  /// The table's columns of miss causes, when the rows were attributed.
  static func causeHeader(_ results: [ReplayResult]) -> [String] {
    guard results.contains(where: { $0.attribution != nil }) else { return [] }
    return ["compulsory", "capacity", "policy"] + (results.contains { $0.admission != "none" } ? ["admission"] : [])
  }

  /// Each cause's share of the requests: the miss ratio, split.
  static func causes(_ r: ReplayResult, admitted: Bool) -> [String] {
    guard let a = r.attribution else { return [] }
    let share = { (n: Int64) in fixed(TraceReplay.ratio(n, r.requests), 4) }
    return [share(a.compulsoryMisses), share(a.capacityMisses), share(a.policyMisses)]
      + (admitted ? [share(a.admissionMisses)] : [])
  }

  /// `1234567` as `1,234,567`.
  public static func grouped(_ n: Int64) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(c)
    }
    return (n < 0 ? "-" : "") + out
  }

  /// ``render(header:rows:leftColumns:)`` with a blank line between groups of rows.
  static func render(header: [String], groups: [[[String]]], spaced: Bool, leftColumns: Int) -> String {
    let rows = groups.flatMap { $0 }
    guard spaced else { return render(header: header, rows: rows, leftColumns: leftColumns) }
    let lines = render(header: header, rows: rows, leftColumns: leftColumns).split(
      separator: "\n", omittingEmptySubsequences: false)
    var out = lines.prefix(2).joined(separator: "\n") + "\n"
    var line = 2
    for (i, group) in groups.enumerated() {
      if i > 0 { out += "\n" }
      for _ in group {
        out += lines[line] + "\n"
        line += 1
      }
    }
    return out
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

extension ReplayTables {
  /// `value` with 6 significant digits where it has them, at most 5
  /// decimals; as Swift writes a Double from 10^15 on.
  static func significant(_ value: Double) -> String {
    guard value.isFinite, value.magnitude < 1e15 else { return "\(value)" }
    var digits = 5
    var magnitude = value.magnitude
    while magnitude >= 10 && digits > 0 {
      magnitude /= 10
      digits -= 1
    }
    return fixed(value, digits)
  }
}
