import EvictionSim
import Foundation

/// `evlab compare`'s outputs: `results.csv`/`results.json` (one row per trace
/// × policy × size), `timings.csv`, `traces.json`, `stress.csv`/`.json` and
/// `disk.csv`/`.json` when the sweep had those sections, `report.md` and
/// `report.html`.
public enum CompareReport {
  // MARK: Tables

  public static func csv(_ rows: [CompareRow]) -> String { ResultWriter.csv(rows, columns: CompareRow.columns) }

  public static func json(_ rows: [CompareRow]) -> String { ResultWriter.json(rows, columns: CompareRow.columns) }

  public static func timingsCSV(_ timings: [CompareTiming]) -> String {
    ResultWriter.csv(timings, columns: CompareTiming.columns)
  }

  public static func tracesJSON(_ infos: [TraceInfo]) -> String {
    TraceInfoTables.json(infos)
  }

  /// Writes every output into `directory` (created if needed); returns the files written.
  /// Writes every output into `directory`; with `provenance`, each JSON
  /// file carries it, the reports close with it, and `provenance.json`
  /// stands beside the CSV files.
  public static func write(
    _ outcome: CompareOutcome, config: CompareConfig, to directory: String, provenance: Provenance? = nil
  ) throws -> [String] {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let stamp: (String) -> String = { provenance?.stamped($0) ?? $0 }
    var files: [(String, String)] = [
      ("results.csv", csv(outcome.rows)), ("results.json", stamp(json(outcome.rows))),
      ("timings.csv", timingsCSV(outcome.timings)), ("traces.json", stamp(tracesJSON(outcome.infos))),
      ("report.md", markdown(outcome, config: config) + (provenance?.markdown ?? "")),
      ("report.html", html(outcome, config: config, provenance: provenance)),
    ]
    if !outcome.stress.isEmpty {
      files += [
        ("stress.csv", StressTables.csv(outcome.stress)), ("stress.json", stamp(StressTables.json(outcome.stress))),
      ]
    }
    if !outcome.disk.isEmpty {
      files += [
        ("disk.csv", DiskBenchTables.csv(outcome.disk)), ("disk.json", stamp(DiskBenchTables.json(outcome.disk))),
      ]
    }
    if let provenance { files.append(("provenance.json", provenance.file)) }
    var written: [String] = []
    for (name, content) in files {
      let path = (directory as NSString).appendingPathComponent(name)
      try content.write(toFile: path, atomically: true, encoding: .utf8)
      written.append(path)
    }
    return written
  }

  // MARK: Rankings

  /// The rows of one trace at one size, best first, with what the report says about them.
  public struct Ranking {
    public var sizeLabel: String
    public var cacheSize: Int64
    /// The contenders and the offline bounds, best first.
    public var rows: [CompareRow]
    /// Models of shipped caches, and anything that held more than its
    /// capacity: listed apart, never ranked.
    public var models: [CompareRow]
    /// Capacity-bound online policies that missed less than Belady's optimum
    /// in count mode: impossible, so a fault to report, not a result.
    public var anomalies: [CompareRow]
    /// The best online policy.
    public var winner: CompareRow?
    /// Online policies whose interval overlaps the winner's.
    public var tiedWithWinner: [CompareRow]
    public var lru: CompareRow?
  }

  /// `3 admissions (none, bloom-filter, prob:p=0.5) × `, or nothing without admission.
  static func admissionsText(_ config: CompareConfig) -> String {
    guard config.admissions != [.none] else { return "" }
    let names = config.admissions.map(\.description).joined(separator: ", ")
    return "\(config.admissions.count) admission\(config.admissions.count == 1 ? "" : "s") (\(names)) × "
  }

  public static func rankings(_ rows: [CompareRow], trace: String, config: CompareConfig) -> [Ranking] {
    config.sizes.map(\.description).compactMap { label in
      let group = rows.filter { $0.trace == trace && $0.sizeLabel == label }
        .sorted { $0.missRatio != $1.missRatio ? $0.missRatio < $1.missRatio : $0.label < $1.label }
      guard let first = group.first else { return nil }
      let online = group.filter(\.isContender)
      let winner = online.first
      let tied = winner.map { w in online.dropFirst().filter { !$0.differs(from: w) } } ?? []
      let belady = group.first { $0.label == "belady" && $0.sizeMode == .count }
      // Belady caches every missed object; an admission policy may leave one
      // out and so miss less, which is not an anomaly.
      let anomalies = belady.map { bound in online.filter { $0.admission == "none" && $0.misses < bound.misses } } ?? []
      return Ranking(
        sizeLabel: label, cacheSize: first.cacheSize, rows: group.filter { $0.isContender || $0.offline },
        models: group.filter { !$0.isContender && !$0.offline }, anomalies: anomalies, winner: winner,
        tiedWithWinner: tied, lru: group.first { $0.label == "lru" })
    }
  }

  /// "12.3% fewer misses than LRU" (or more).
  static func margin(_ row: CompareRow, over lru: CompareRow) -> String {
    guard lru.missRatio > 0 else { return "LRU misses nothing" }
    let change = (lru.missRatio - row.missRatio) / lru.missRatio * 100
    if abs(change) < 0.05 { return "the same misses as LRU" }
    return String(format: "%.1f%% %@ misses than LRU", abs(change), change > 0 ? "fewer" : "more")
  }

  static func ratio(_ x: Double) -> String { String(format: "%.4f", x) }

  static func interval(_ r: CompareRow) -> String {
    r.runs > 1 ? "[\(ratio(r.missRatioCi95Low)), \(ratio(r.missRatioCi95High))]" : "—"
  }

  static func vsLRU(_ r: CompareRow, _ lru: CompareRow?) -> String {
    guard let lru, lru.missRatio > 0, r.label != "lru" else { return "—" }
    return String(format: "%+.1f%%", (r.missRatio - lru.missRatio) / lru.missRatio * 100)
  }

  static func summary(_ info: TraceInfo?, format: String) -> String {
    guard let info else { return format }
    return "\(format) · \(info.requests) requests · \(info.uniqueObjects) objects · footprint "
      + SVGChart.compact(Double(info.footprintBytes), bytes: true)
      + String(
        format: " · one-hit wonders %.1f%% · Zipf α %.2f (R² %.2f)", info.oneHitWonderShare * 100, info.zipfAlpha,
        info.zipfR2)
  }

  static func verdict(_ ranking: Ranking) -> String {
    guard let winner = ranking.winner else { return "Only offline bounds ran at this size." }
    var text = "Best: **\(winner.label)** (miss ratio \(ratio(winner.missRatio)))"
    if let lru = ranking.lru, winner.label != "lru" { text += ", " + margin(winner, over: lru) }
    text += "."
    if !ranking.tiedWithWinner.isEmpty {
      text +=
        " Not distinguishable from it at 95% (intervals overlap): \(ranking.tiedWithWinner.map(\.label).joined(separator: ", "))."
    }
    if let bound = ranking.rows.first(where: \.offline) {
      text += " Offline bound \(bound.label): \(ratio(bound.missRatio))."
    }
    return text
  }

  /// One line per model (peak occupancy against the capacity), or nil.
  static func modelsNote(_ ranking: Ranking) -> String? {
    guard !ranking.models.isEmpty else { return nil }
    let items = ranking.models.map { r in
      "\(r.label) \(ratio(r.missRatio)) (held up to \(r.maxOccupancy)\(r.exceedsCapacity ? ", above the capacity of \(r.cacheSize)" : ""))"
    }
    return "Models of shipped caches, not ranked (they follow their library's rules, some trim only on a timer): "
      + items.joined(separator: "; ") + "."
  }

  /// The warning for policies that beat Belady's optimum, or nil.
  public static func anomalyNote(_ ranking: Ranking) -> String? {
    guard !ranking.anomalies.isEmpty else { return nil }
    return "ANOMALY: \(ranking.anomalies.map(\.label).joined(separator: ", ")) missed less than Belady's optimum at "
      + "\(ranking.sizeLabel), which no online policy can; this is a fault in the policy or the trace, not a result."
  }

  // MARK: Markdown

  public static func markdown(_ outcome: CompareOutcome, config: CompareConfig) -> String {
    var md = "# Policy comparison: \(config.name)\n\n"
    md +=
      "\(config.policies.count) policies × \(admissionsText(config))\(config.traces.count) traces × \(config.sizes.count) sizes, "
    md += "\(config.sizeMode.rawValue) mode, seeds \(config.seeds.map(String.init).joined(separator: ", ")). "
    md += "Randomised policies and synthetic traces run once per seed: their miss ratio is the mean, with a 95% "
    md +=
      "confidence interval (Student's t); two policies are called different only when their intervals are disjoint. "
    md += "`vs LRU` is the relative change in miss ratio. Offline policies (Belady) are bounds, not contenders.\n"
    for entry in config.traces {
      let info = outcome.infos.first { $0.trace == entry.name }
      let format = outcome.rows.first { $0.trace == entry.name }?.format ?? ""
      md += "\n## \(entry.name)\n\n\(summary(info, format: format))\n"
      for ranking in rankings(outcome.rows, trace: entry.name, config: config) {
        md += "\n### \(ranking.sizeLabel) (\(ranking.cacheSize) \(config.sizeMode == .count ? "objects" : "bytes"))\n\n"
        md += "| rank | policy | miss ratio | 95% CI | byte miss ratio | vs LRU |\n|---:|---|---:|---|---:|---:|\n"
        for (i, r) in ranking.rows.enumerated() {
          let name = r.offline ? "\(r.label) (offline bound)" : r.label
          md +=
            "| \(i + 1) | \(name) | \(ratio(r.missRatio)) | \(interval(r)) | \(ratio(r.byteMissRatio)) | \(vsLRU(r, ranking.lru)) |\n"
        }
        md += "\n" + verdict(ranking) + "\n"
        if let note = modelsNote(ranking) { md += "\n" + note + "\n" }
        if let note = anomalyNote(ranking) { md += "\n**\(note)**\n" }
      }
    }
    if !outcome.stress.isEmpty {
      md +=
        "\n## Memory cache under threads\n\n| lock | threads | Mops/s | hit ratio | get p99 ns | set p99 ns | contended | wait p99 ns |\n"
      md += "|---|---:|---:|---:|---:|---:|---:|---:|\n"
      for s in outcome.stress {
        md +=
          "| \(s.lock) | \(s.threads) | \(String(format: "%.2f", s.opsPerSecond / 1e6)) | \(ratio(s.hitRatio)) | \(s.getP99Ns) | \(s.setP99Ns) | \(String(format: "%.1f%%", s.contendedShare * 100)) | \(s.waitP99Ns) |\n"
      }
    }
    if !outcome.disk.isEmpty {
      md += "\n## The disk store\n\n| mode | value size | phase | ops/s | p99 ns |\n|---|---:|---|---:|---:|\n"
      for d in outcome.disk where d.phase == "write" || d.phase == "read-hit" {
        md += "| \(d.mode) | \(d.valueSize) | \(d.phase) | \(Int(d.opsPerSecond.rounded())) | \(d.p99Ns) |\n"
      }
      for phase in ["read-hit", "write"] {
        if let size = DiskBench.crossover(outcome.disk, phase: phase) {
          md += "\n\(phase): files beat SQLite from \(size) bytes up.\n"
        }
      }
      if let best = DiskBench.recommendedThreshold(outcome.disk) {
        md +=
          "\nBest inline threshold measured: \(DiskBench.describe(threshold: best.threshold)), at worst \(String(format: "%.0f%%", best.worst * 100)) of the better mode (\(best.phase) at \(best.size) bytes).\n"
      }
    }
    return md
  }

  // MARK: HTML

  public static func html(_ outcome: CompareOutcome, config: CompareConfig, provenance: Provenance? = nil) -> String {
    let unit = config.sizeMode == .count ? "objects" : "bytes"
    let bytes = config.sizeMode == .bytes
    var body = "<h1>Policy comparison: \(SVGChart.escape(config.name))</h1>\n"
    body +=
      "<p>\(config.policies.count) policies × \(SVGChart.escape(admissionsText(config)))\(config.traces.count) traces × \(config.sizes.count) sizes, \(config.sizeMode.rawValue) mode. "
    body +=
      "Means over seeds with 95% confidence intervals where runs differ by seed; offline policies are bounds.</p>\n"
    for entry in config.traces {
      let rows = outcome.rows.filter { $0.trace == entry.name }
      let info = outcome.infos.first { $0.trace == entry.name }
      body += "<section class=\"trace\"><h2>\(SVGChart.escape(entry.name))</h2>\n"
      body +=
        "<p>\(SVGChart.escape(summary(info, format: rows.first?.format ?? "").replacingOccurrences(of: "**", with: "")))</p>\n"
      // The miss-ratio curve: every contender and bound over the sizes. Models
      // of shipped caches are left out (listed under the ranking with their
      // peak occupancy): a timed model holding far more than the capacity
      // would draw a curve below the optimum.
      let labels = config.labels
      let charted = labels.filter { label in
        rows.filter { $0.label == label }.allSatisfy { $0.isContender || $0.offline }
      }
      let series = charted.map { label in
        let points = rows.filter { $0.label == label }.sorted { $0.cacheSize < $1.cacheSize }
        return SVGChart.Series(
          name: label, points: points.map { (Double($0.cacheSize), $0.missRatio) },
          intervals: points.map { $0.runs > 1 ? $0.missRatioCi95Low...$0.missRatioCi95High : nil })
      }
      body +=
        "<figure>"
        + SVGChart.lines(
          title: "Miss ratio by cache size: \(entry.name)", xLabel: "cache size (\(unit), log scale)",
          yLabel: "miss ratio", series: series, logX: true, yFormat: { String(format: "%.2f", $0) },
          xFormat: { SVGChart.compact($0, bytes: bytes) }, binaryTicks: bytes) + "</figure>\n"
      // Bars and the ranking at the chart size.
      if let ranking = rankings(outcome.rows, trace: entry.name, config: config)
        .first(where: { $0.sizeLabel == config.chartSize.description })
      {
        body +=
          "<figure>"
          + SVGChart.bars(
            title: "Miss ratio at \(ranking.sizeLabel) (\(ranking.cacheSize) \(unit))", xLabel: "miss ratio",
            labels: ranking.rows.map(\.label), values: ranking.rows.map(\.missRatio),
            intervals: ranking.rows.map { $0.runs > 1 ? $0.missRatioCi95Low...$0.missRatioCi95High : nil },
            colors: ranking.rows.map { r in labels.firstIndex(of: r.label) ?? 0 },
            format: { String(format: "%.3f", $0) }) + "</figure>\n"
        body +=
          "<table><thead><tr><th>rank</th><th>policy</th><th>miss ratio</th><th>95% CI</th><th>byte miss ratio</th><th>vs LRU</th></tr></thead><tbody>\n"
        for (i, r) in ranking.rows.enumerated() {
          body +=
            "<tr><td>\(i + 1)</td><td>\(SVGChart.escape(r.label))\(r.offline ? " (offline bound)" : "")</td><td>\(ratio(r.missRatio))</td><td>\(interval(r))</td><td>\(ratio(r.byteMissRatio))</td><td>\(vsLRU(r, ranking.lru))</td></tr>\n"
        }
        body +=
          "</tbody></table>\n<p>\(SVGChart.escape(verdict(ranking).replacingOccurrences(of: "**", with: "")))</p>\n"
        if let note = modelsNote(ranking) { body += "<p class=\"models\">\(SVGChart.escape(note))</p>\n" }
        if let note = anomalyNote(ranking) {
          body += "<p class=\"anomaly\" style=\"color:#b00020;font-weight:bold\">\(SVGChart.escape(note))</p>\n"
        }
      }
      body += "</section>\n"
    }
    if !outcome.stress.isEmpty { body += stressSection(outcome.stress) }
    if !outcome.disk.isEmpty { body += diskSection(outcome.disk) }
    return """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8"/><title>EvictionLab: \(SVGChart.escape(config.name))</title>
      <style>
      body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
      table { border-collapse: collapse; margin: 1em 0; } th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
      td:nth-child(2), th:nth-child(2) { text-align: left; } figure { margin: 1em 0; } svg.chart { max-width: 100%; height: auto; }
      </style></head>
      <body>
      \(body)\(provenance?.html ?? "")</body></html>

      """
  }

  /// Read and write throughput by value size per storage mode, and where files overtake SQLite.
  static func diskSection(_ results: [DiskBench.Result]) -> String {
    let modes = results.reduce(into: [String]()) { if !$0.contains($1.mode) { $0.append($1.mode) } }
    var html = "<section class=\"disk\"><h2>The disk store: SQLite or files</h2>\n"
    for phase in ["read-hit", "write"] {
      let series = modes.map { mode in
        SVGChart.Series(
          name: mode,
          points: results.filter { $0.mode == mode && $0.phase == phase }.map {
            (Double($0.valueSize), $0.opsPerSecond / 1e3)
          })
      }
      html +=
        "<figure>"
        + SVGChart.lines(
          title: "Disk store \(phase == "write" ? "writes" : "reads (hits)") by value size",
          xLabel: "value size (bytes, log scale)",
          yLabel: "thousand operations per second", series: series, logX: true, yFormat: { String(format: "%.0f", $0) },
          xFormat: { SVGChart.compact($0, bytes: true) }, binaryTicks: true) + "</figure>\n"
      let verdict =
        DiskBench.crossover(results, phase: phase).map {
          "\(phase): files beat SQLite from \(SVGChart.compact(Double($0), bytes: true)) up on the machine that ran this."
        } ?? "\(phase): SQLite is at least as fast as files at the largest size measured."
      html += "<p>\(SVGChart.escape(verdict))</p>\n"
    }
    return html + "</section>\n"
  }

  static func stressSection(_ results: [StressResult]) -> String {
    let locks = results.reduce(into: [String]()) { if !$0.contains($1.lock) { $0.append($1.lock) } }
    func series(_ value: (StressResult) -> Double) -> [SVGChart.Series] {
      locks.map { lock in
        SVGChart.Series(
          name: lock,
          points: results.filter { $0.lock == lock }.map { (Double($0.threads), value($0)) })
      }
    }
    let policy = results.first.map { "\($0.policy) at \($0.cacheSize) on \($0.trace)" } ?? ""
    var html = "<section class=\"stress\"><h2>Memory cache under threads</h2>\n<p>\(SVGChart.escape(policy))</p>\n"
    html +=
      "<figure>"
      + SVGChart.lines(
        title: "Throughput by thread count", xLabel: "threads", yLabel: "million operations per second",
        series: series { $0.opsPerSecond / 1e6 }, logX: false, yFormat: { String(format: "%.1f", $0) },
        xFormat: { String(Int($0)) }) + "</figure>\n"
    html +=
      "<figure>"
      + SVGChart.lines(
        title: "Get latency, 99th percentile", xLabel: "threads", yLabel: "nanoseconds",
        series: series { Double($0.getP99Ns) }, logX: false, yFormat: { String(Int($0)) },
        xFormat: { String(Int($0)) }) + "</figure>\n"
    html +=
      "<figure>"
      + SVGChart.lines(
        title: "Lock contention: share of contended acquisitions", xLabel: "threads", yLabel: "contended share (%)",
        series: series { $0.contendedShare * 100 }, logX: false, yFormat: { String(format: "%.0f", $0) },
        xFormat: { String(Int($0)) }) + "</figure>\n"
    return html + "</section>\n"
  }
}
