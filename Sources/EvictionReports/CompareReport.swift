import EvictionExperiments
import EvictionRun
import EvictionSim
import EvictionTraces
import Foundation

/// `evlab compare`'s outputs: `results.csv`/`results.json` (one row per trace
/// × policy × size), `timings.csv`, `traces.json`, `stress.csv`/`.json` and
/// `disk.csv`/`.json` when the sweep had those sections, `report.md` and
/// `report.html`.
public enum CompareReport {
  // MARK: Tables

  public static func csv(_ rows: [CompareRow]) -> String {
    ResultWriter.csv(rows, columns: CompareRow.columns(of: rows))
  }

  public static func json(_ rows: [CompareRow]) -> String {
    ResultWriter.json(rows, columns: CompareRow.columns(of: rows))
  }

  /// The rows of `results.json`, one per line, for pandas and other readers
  /// of records (`results.jsonl`).
  public static func jsonLines(_ rows: [CompareRow]) -> String {
    ResultWriter.jsonLines(rows, columns: CompareRow.columns(of: rows))
  }

  public static func timingsCSV(_ timings: [CompareTiming]) -> String {
    ResultWriter.csv(timings, columns: CompareTiming.columns)
  }

  public static func tracesJSON(_ infos: [TraceInfo]) -> String {
    TraceInfoTables.json(infos)
  }

  /// Writes every output into `directory` (created if needed), the charts
  /// also as figure files under `figures/` (``Figures``); returns the files
  /// written. With `provenance`, each JSON file carries it, the reports
  /// close with it, and `provenance.json` stands beside the CSV files.
  /// `warn` hears what could not be made (PDF and PNG without rsvg-convert);
  /// `figureProgress` hears (rendered, total) as the figures are rendered.
  public static func write(
    _ outcome: CompareOutcome, config: CompareConfig, to directory: String, provenance: Provenance? = nil,
    warn: (String) -> Void = { _ in }, figureProgress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws -> [String] {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let stamp: (String) -> String = { provenance?.stamped($0) ?? $0 }
    let summaries = summaries(outcome, config: config)
    let figures = Figures(layout: figureLayout(config.figures))
    var files: [(String, String)] = [
      ("results.csv", csv(outcome.rows)), ("results.json", stamp(json(outcome.rows))),
      ("results.jsonl", jsonLines(outcome.rows)),
      ("summary.csv", ResultWriter.csv(summaries, columns: AcrossTraces.Summary.columns)),
      ("summary.json", stamp(ResultWriter.json(summaries, columns: AcrossTraces.Summary.columns))),
      ("styles.json", stamp(stylesJSON(config))),
      ("timings.csv", timingsCSV(outcome.timings)), ("traces.json", stamp(tracesJSON(outcome.infos))),
      ("report.md", markdown(outcome, config: config) + (provenance?.markdown ?? "")),
      ("report.html", html(outcome, config: config, provenance: provenance, figures: figures)),
    ]
    if !outcome.timeseries.isEmpty {
      files.append(("timeseries.csv", ResultWriter.csv(outcome.timeseries, columns: TimeseriesRow.columns)))
    }
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
    // provenance.json goes first and comes back last: a report stopped
    // half-way (Ctrl-C, a full disk) has none, so no later run takes the
    // folder for a whole report, and replaces it only when told to.
    let provenancePath = (directory as NSString).appendingPathComponent("provenance.json")
    unlink(provenancePath)
    var written: [String] = []
    for (name, content) in files {
      let path = (directory as NSString).appendingPathComponent(name)
      try content.write(toFile: path, atomically: true, encoding: .utf8)
      written.append(path)
    }
    let (figureFiles, warning) = try figures.write(into: directory, progress: figureProgress)
    if let warning { warn(warning) }
    if let provenance {
      try provenance.file.write(toFile: provenancePath, atomically: true, encoding: .utf8)
      written.append(provenancePath)
    }
    if !figureFiles.isEmpty { written.append((directory as NSString).appendingPathComponent("figures")) }
    return written
  }

  /// Each row label's colour and marker in the charts (``SVGChart/Styles``),
  /// so a notebook draws every policy as the report does.
  struct Style: Codable {
    var policy: String
    /// What figures call it (``DisplayNames``).
    var name: String
    var color: String
    var marker: String
    var bound: Bool
  }

  static func stylesJSON(_ config: CompareConfig) -> String {
    var offline: [String: Bool] = [:]
    for policy in config.policies { offline[policy.description] = policy.descriptor.isOffline }
    let book = styles(config)
    let styles = config.labels.map { label in
      let style = book.style(label)
      return Style(
        policy: label, name: book.name(label), color: style.color, marker: style.marker,
        bound: offline[label.components(separatedBy: " + ")[0]] ?? false)
    }
    return ResultWriter.json(styles)
  }

  /// The report's colours, markers and display names, one book for every chart.
  public static func styles(_ config: CompareConfig) -> SVGChart.Styles {
    SVGChart.Styles(
      config.labels, colors: config.figures.colors, markers: config.figures.markers,
      names: DisplayNames(config: config).policyNames)
  }

  /// The figure files' layout from the sweep's settings.
  public static func figureLayout(_ settings: FigureSettings) -> SVGChart.Layout {
    SVGChart.Layout(inches: settings.width.inches, points: settings.points, titles: settings.titles)
  }

  // MARK: Across traces

  /// The across-trace summaries (``AcrossTraces``) of a comparison.
  public static func summaries(_ outcome: CompareOutcome, config: CompareConfig) -> [AcrossTraces.Summary] {
    AcrossTraces.summaries(
      outcome.rows, labels: config.labels, sizes: config.sizes.map(\.description),
      datasets: Dictionary(config.traces.map { ($0.name, $0.dataset) }, uniquingKeysWith: { a, _ in a }))
  }

  /// One size's summaries over all traces, best mean reduction first.
  static func ranked(_ summaries: [AcrossTraces.Summary], size: String) -> [AcrossTraces.Summary] {
    summaries.filter { $0.dataset == "all" && $0.sizeLabel == size && $0.meanReduction != nil }
      .sorted { ($0.meanReduction!, $1.policy) > ($1.meanReduction!, $0.policy) }
  }

  static func percent(_ x: Double?) -> String {
    guard let x else { return "—" }
    // No "-0.0%" for a change that rounds to nothing.
    return abs(x) < 0.0005 ? "0.0%" : String(format: "%+.1f%%", x * 100)
  }

  /// The (trace, size) cells left out as too small (no rows at all).
  static func leftOut(_ outcome: CompareOutcome, config: CompareConfig) -> [String] {
    config.traces.flatMap { entry in
      config.sizes.map(\.description).filter { size in
        !outcome.rows.contains { $0.trace == entry.name && $0.sizeLabel == size }
      }.map { "\(entry.name) at \($0)" }
    }
  }

  /// The sizes left out on one trace, as a sentence (nil when none is).
  static func leftOutNote(_ outcome: CompareOutcome, config: CompareConfig, trace: String) -> String? {
    let gone = config.sizes.map(\.description).filter { size in
      !outcome.rows.contains { $0.trace == trace && $0.sizeLabel == size }
    }
    guard !gone.isEmpty else { return nil }
    return "Left out for every policy, as too small for some policy (it would cache nothing) or the same cache size "
      + "as a smaller size on this trace: \(gone.joined(separator: ", "))."
  }

  static let acrossIntro =
    "Per trace, a policy's miss-ratio reduction from FIFO is (mr_FIFO − mr) / mr_FIFO: positive is fewer misses "
    + "than FIFO. Across traces: mean, median and the 5th–95th percentiles of that reduction (as in the S3-FIFO "
    + "and SIEVE papers), the share of traces where the policy missed least (ties shared), and its worst "
    + "regression, the largest (mr − mr_FIFO) / mr_FIFO on any trace."

  static let acrossColumns = [
    "policy", "mean", "median", "P5", "P95", "best on", "worst regression", "mean vs LRU",
  ]

  /// One summary as the reports' table row.
  /// What an offline policy is in `sizeMode`: `bound` for Belady with
  /// equal weights (no cache that admits every miss misses less), else
  /// `heuristic` (with sizes the optimum is NP-hard: `evlab bounds`).
  public static func offlineKind(_ policy: String, _ sizeMode: SizeMode) -> String {
    let name = policy.split(separator: ":").first.map(String.init) ?? policy
    return name == "belady" && sizeMode == .count ? "bound" : "heuristic"
  }

  /// `offline bound` or `offline heuristic`, as tables tag an offline row.
  static func offlineTag(_ policy: String, _ sizeMode: SizeMode) -> String {
    "offline \(offlineKind(policy, sizeMode))"
  }

  static func acrossCells(
    _ r: AcrossTraces.Summary, sizeMode: SizeMode, name: (String) -> String = { $0 }
  ) -> [String] {
    [
      r.offline ? "\(name(r.policy)) (\(offlineTag(r.policy, sizeMode)))" : name(r.policy), percent(r.meanReduction),
      percent(r.medianReduction),
      percent(r.p5Reduction), percent(r.p95Reduction),
      r.bestShare.map { String(format: "%.1f%%", $0 * 100) } ?? "bound",
      percent(r.worstRegressionVsFifo), percent(r.meanReductionFromLru),
    ]
  }

  /// Why a comparison of several traces has no across-trace view: its
  /// reductions are from FIFO, and FIFO was not compared.
  public static func acrossWithoutFifo(_ config: CompareConfig) -> String {
    "Across traces, each policy is measured by its miss-ratio reduction from FIFO, the baseline of the S3-FIFO "
      + "and SIEVE papers, and this comparison has no fifo: add it to the policies (--policy …,fifo, or "
      + "\"fifo\" in policies) for the box plots, the share of traces each policy wins and the table per dataset."
  }

  static func acrossMarkdown(_ outcome: CompareOutcome, config: CompareConfig) -> String {
    let summaries = summaries(outcome, config: config)
    guard config.traces.count > 1 else { return "" }
    guard summaries.contains(where: { $0.meanReduction != nil }) else {
      return "\n## Across \(config.traces.count) traces\n\n\(acrossWithoutFifo(config))\n"
    }
    var md = "\n## Across \(config.traces.count) traces\n\n\(acrossIntro)\n"
    for spec in config.sizes {
      let size = spec.description
      let rows = ranked(summaries, size: size)
      guard let traces = rows.first?.traces else { continue }
      // A share is of each trace's footprint; an absolute size is the same cache on every trace.
      let unit = config.sizeMode == .count ? "objects" : "bytes"
      md +=
        spec.isShare
        ? "\n### \(size) of each trace's footprint, \(traces) traces\n\n"
        : "\n### A cache of \(size) \(unit) on each trace, \(traces) traces\n\n"
      md += "| " + acrossColumns.joined(separator: " | ") + " |\n|---|" + String(repeating: "---:|", count: 7) + "\n"
      for cells in rows.map({ acrossCells($0, sizeMode: config.sizeMode) }) {
        md += "| " + cells.joined(separator: " | ") + " |\n"
      }
    }
    let datasets = summaries.filter { $0.dataset != "all" }.map(\.dataset).reduce(into: [String]()) {
      if !$0.contains($1) { $0.append($1) }
    }
    if !datasets.isEmpty {
      let size = config.chartSize.description
      md += "\n### Mean reduction from FIFO per dataset, at \(size)\n\n"
      md +=
        "| policy | " + datasets.joined(separator: " | ") + " |\n|---|" + datasets.map { _ in "---:|" }.joined() + "\n"
      for r in ranked(summaries, size: size) {
        md += "| \(r.policy) | "
        md +=
          datasets.map { d in
            percent(summaries.first { $0.dataset == d && $0.sizeLabel == size && $0.policy == r.policy }?.meanReduction)
          }.joined(separator: " | ") + " |\n"
      }
    }
    let left = leftOut(outcome, config: config)
    if !left.isEmpty {
      md +=
        "\nLeft out for every policy, as too small for some policy (it would cache nothing) or the same cache size as a smaller size on that trace: \(left.joined(separator: ", ")).\n"
    }
    return md
  }

  static func acrossHTML(_ outcome: CompareOutcome, config: CompareConfig, figures: Figures) -> String {
    let summaries = summaries(outcome, config: config)
    guard config.traces.count > 1 else { return "" }
    guard summaries.contains(where: { $0.meanReduction != nil }) else {
      return
        "<section class=\"across\" id=\"across\"><h2>Across \(config.traces.count) traces</h2>\n<p>\(SVGChart.escape(acrossWithoutFifo(config)))</p>\n</section>\n"
    }
    var html =
      "<section class=\"across\" id=\"across\"><h2>Across \(config.traces.count) traces</h2>\n<p>\(SVGChart.escape(acrossIntro))</p>\n"
    let pct: (Double) -> String = { ($0 * 100).rounded() == 0 ? "0%" : String(format: "%+.0f%%", $0 * 100) }
    let styles = styles(config)
    func boxes(_ rows: [AcrossTraces.Summary]) -> [SVGChart.Box] {
      rows.map { r in
        var box = SVGChart.Box(
          name: r.policy, p5: r.p5Reduction!, p25: r.p25Reduction!, median: r.medianReduction!, p75: r.p75Reduction!,
          p95: r.p95Reduction!, mean: r.meanReduction!, bound: r.offline)
        box.offlineLabel = offlineKind(r.policy, config.sizeMode)
        return box
      }
    }
    // One axis for every size's box plot, so the sizes compare at a glance.
    let domains = config.sizes.compactMap { SVGChart.boxDomain(boxes(ranked(summaries, size: $0.description))) }
    let domain = domains.isEmpty ? nil : domains.map(\.lowerBound).min()!...domains.map(\.upperBound).max()!
    for size in config.sizes.map(\.description) {
      let rows = ranked(summaries, size: size)
      guard let traces = rows.first?.traces else { continue }
      html +=
        "<figure id=\"\(anchor("across", size))\">"
        + figures.add("reduction-box-\(size)") { layout in
          SVGChart.boxes(
            title: "Miss-ratio reduction from FIFO at \(size), \(traces) traces",
            xLabel: "(mr_FIFO − mr) / mr_FIFO; box P25–P75, whiskers P5–P95, ◇ mean", boxes: boxes(rows), format: pct,
            styles: styles, domain: domain, layout: layout)
        }
        + "</figure>\n"
      html +=
        "<div class=\"wide\"><table class=\"names\"><thead><tr>" + acrossColumns.map { "<th>\($0)</th>" }.joined()
        + "</tr></thead><tbody>\n"
      for cells in rows.map({ acrossCells($0, sizeMode: config.sizeMode, name: styles.name) }) {
        html += "<tr>" + cells.map { "<td>\(SVGChart.escape($0))</td>" }.joined() + "</tr>\n"
      }
      html += "</tbody></table></div>\n"
      let contenders = rows.filter { !$0.offline }.sorted {
        ($0.bestShare ?? 0, $1.policy) > ($1.bestShare ?? 0, $0.policy)
      }
      html +=
        "<figure>"
        + figures.add("best-share-\(size)") { layout in
          SVGChart.bars(
            title: "Share of traces where each policy misses least, at \(size)", xLabel: "share of traces",
            labels: contenders.map(\.policy), values: contenders.map { $0.bestShare ?? 0 },
            intervals: [], colors: [], format: { String(format: "%.0f%%", $0 * 100) }, styles: styles, layout: layout)
        } + "</figure>\n"
    }
    html += heatTable(summaries, size: config.chartSize.description, name: styles.name)
    let left = leftOut(outcome, config: config)
    if !left.isEmpty {
      html +=
        "<p>Left out for every policy, as too small for some policy (it would cache nothing) or the same cache size as a smaller size on that trace: \(SVGChart.escape(left.joined(separator: ", "))).</p>\n"
    }
    return html + "</section>\n"
  }

  /// Mean reduction from FIFO per dataset and policy: green where the policy
  /// misses less than FIFO, red where more, deeper with the size of the change.
  static func heatTable(_ summaries: [AcrossTraces.Summary], size: String, name: (String) -> String) -> String {
    let datasets = summaries.filter { $0.dataset != "all" }.map(\.dataset).reduce(into: [String]()) {
      if !$0.contains($1) { $0.append($1) }
    }
    guard !datasets.isEmpty else { return "" }
    let values = summaries.filter { $0.dataset != "all" && $0.sizeLabel == size }.compactMap(\.meanReduction)
    let scale = max(values.map(abs).max() ?? 1, 1e-9)
    var html =
      "<h3>Mean reduction from FIFO per dataset, at \(SVGChart.escape(size))</h3>\n<div class=\"wide\"><table class=\"heat\"><thead><tr><th>policy</th>"
    html += datasets.map { "<th>\(SVGChart.escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
    for r in ranked(summaries, size: size) {
      html += "<tr><td>\(SVGChart.escape(name(r.policy)))</td>"
      for d in datasets {
        guard
          let v = summaries.first(where: { $0.dataset == d && $0.sizeLabel == size && $0.policy == r.policy })?
            .meanReduction
        else {
          html += "<td>—</td>"
          continue
        }
        let strength = min(1, abs(v) / scale) * 0.75
        let colour =
          v >= 0
          ? "rgba(0,158,115,\(String(format: "%.2f", strength)))" : "rgba(213,94,0,\(String(format: "%.2f", strength)))"
        html += "<td style=\"background:\(colour)\">\(percent(v))</td>"
      }
      html += "</tr>\n"
    }
    return html + "</tbody></table></div>\n"
  }

  // MARK: Rankings

  /// The rows of one trace at one size, best first, with what the report says about them.
  public struct Ranking {
    public var sizeLabel: String
    public var cacheSize: Int64
    /// The contenders and the offline bounds, best first.
    public var rows: [CompareRow]
    /// Models of shipped caches: listed apart, never ranked.
    public var models: [CompareRow]
    /// Policies that are not models yet held more than their capacity: a
    /// fault in the policy, listed apart as one and never ranked.
    public var faulty: [CompareRow] = []
    /// Capacity-bound online policies that missed less than Belady's optimum
    /// in count mode: impossible, so a fault to report, not a result.
    public var anomalies: [CompareRow]
    /// The best online policy (nil where they all miss every request).
    public var winner: CompareRow?
    /// Online policies whose interval overlaps the winner's.
    public var tiedWithWinner: [CompareRow]
    public var lru: CompareRow?
    /// Whether every online policy missed every request: none is ranked.
    public var cachesNothing = false
  }

  /// `3 admissions (none, bloom-filter, prob:p=0.5) × `, or nothing without admission.
  /// The sweep's dimensions: "3 policies × 1 trace × 2 sizes", with its
  /// admission policies when there are any.
  static func shape(_ config: CompareConfig) -> String {
    var parts = [Wording.count(config.policies.count, "policy", plural: "policies")]
    if config.admissions != [.none] {
      let names = config.admissions.map(\.description).joined(separator: ", ")
      parts.append("\(Wording.count(config.admissions.count, "admission")) (\(names))")
    }
    parts.append(Wording.count(config.traces.count, "trace"))
    parts.append(Wording.count(config.sizes.count, "size"))
    return parts.joined(separator: " × ")
  }

  public static func rankings(_ rows: [CompareRow], trace: String, config: CompareConfig) -> [Ranking] {
    config.sizes.map(\.description).compactMap { label in
      let group = rows.filter { $0.trace == trace && $0.sizeLabel == label }
        .sorted { $0.missRatio != $1.missRatio ? $0.missRatio < $1.missRatio : $0.label < $1.label }
      guard let first = group.first else { return nil }
      let online = group.filter(\.isContender)
      // Where every policy misses every request (a byte-mode cache smaller
      // than every object holds nothing), none is better than another.
      let cachesNothing = !online.isEmpty && online.allSatisfy { $0.hits == 0 }
      let winner = cachesNothing ? nil : online.first
      let tied = winner.map { w in online.dropFirst().filter { !$0.differs(from: w) } } ?? []
      let belady = group.first { $0.label == "belady" && $0.sizeMode == .count }
      // Belady caches every missed object; an admission policy may leave one
      // out and so miss less, which is not an anomaly.
      let anomalies = belady.map { bound in online.filter { $0.admission == "none" && $0.misses < bound.misses } } ?? []
      return Ranking(
        sizeLabel: label, cacheSize: first.cacheSize, rows: group.filter { $0.isContender || $0.offline },
        models: group.filter { $0.model && !$0.offline }, faulty: group.filter(\.isFaulty), anomalies: anomalies,
        winner: winner, tiedWithWinner: tied, lru: group.first { $0.label == "lru" }, cachesNothing: cachesNothing)
    }
  }

  /// "12.3% fewer misses than LRU" (or more).
  static func margin(_ row: CompareRow, over lru: CompareRow) -> String {
    guard lru.missRatio > 0 else { return "LRU misses nothing" }
    let change = (lru.missRatio - row.missRatio) / lru.missRatio * 100
    if row.misses == lru.misses { return "the same misses as LRU" }
    if abs(change) < 0.05 { return String(format: "%@ misses than LRU (under 0.1%%)", change > 0 ? "fewer" : "more") }
    return String(format: "%.1f%% %@ misses than LRU", abs(change), change > 0 ? "fewer" : "more")
  }

  static func ratio(_ x: Double) -> String { String(format: "%.4f", x) }

  /// A penalty per request, to four significant digits ("—" where none).
  static func penalty(_ x: Double?) -> String {
    guard let x else { return "—" }
    return String(format: "%.4g", x)
  }

  /// Which contender paid least per request, when the sweep weighed misses:
  /// the policy with the fewest misses need not be the cheapest.
  static func cheapest(_ ranking: Ranking, name: (String) -> String = { $0 }) -> String? {
    let weighed = ranking.rows.filter { $0.isContender && $0.averagePenalty != nil }
    guard !ranking.cachesNothing,
      let best = weighed.min(by: {
        $0.averagePenalty! != $1.averagePenalty! ? $0.averagePenalty! < $1.averagePenalty! : $0.label < $1.label
      }), let model = best.penaltyModel
    else { return nil }
    var text = "Cheapest under \(model): **\(name(best.label))** (penalty \(penalty(best.averagePenalty)) per request"
    if let lru = ranking.lru, let paid = lru.averagePenalty, best.label != "lru", paid > 0 {
      let change = (paid - best.averagePenalty!) / paid * 100
      text += String(format: ", %.1f%% %@ than LRU", abs(change), change >= 0 ? "less" : "more")
    }
    text += ")"
    if let winner = ranking.winner, winner.label != best.label {
      text += "; the fewest misses, \(name(winner.label)), pays \(penalty(winner.averagePenalty))"
    }
    return text + "."
  }

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

  static func verdict(_ ranking: Ranking, name: (String) -> String = { $0 }) -> String {
    guard let winner = ranking.winner else {
      guard ranking.cachesNothing else { return "Only offline bounds ran at this size." }
      return "No policy caches anything at this size: every policy missed every request (in byte mode, a cache "
        + "smaller than every object holds nothing). None is ranked."
    }
    var text = "Best: **\(name(winner.label))** (miss ratio \(ratio(winner.missRatio)))"
    if let lru = ranking.lru, winner.label != "lru" { text += ", " + margin(winner, over: lru) }
    text += "."
    if !ranking.tiedWithWinner.isEmpty {
      text +=
        " Not distinguishable from it at 95% (intervals overlap): \(ranking.tiedWithWinner.map { name($0.label) }.joined(separator: ", "))."
    }
    if let bound = ranking.rows.first(where: \.offline) {
      text += " Offline \(offlineKind(bound.policy, bound.sizeMode)) \(name(bound.label)): \(ratio(bound.missRatio))."
    }
    return text
  }

  /// One line per model (peak occupancy against the capacity), or nil.
  public static func modelsNote(_ ranking: Ranking, name: (String) -> String = { $0 }) -> String? {
    guard !ranking.models.isEmpty else { return nil }
    let items = ranking.models.map { r in
      "\(name(r.label)) \(ratio(r.missRatio)) (held up to \(r.maxOccupancy)\(r.exceedsCapacity ? ", above the capacity of \(r.cacheSize)" : ""))"
    }
    return "Models of shipped caches, not ranked (they follow their library's rules, some trim only on a timer): "
      + items.joined(separator: "; ") + "."
  }

  /// The warning for policies that held more than their capacity without
  /// being models of shipped caches, or nil.
  public static func faultyNote(_ ranking: Ranking, name: (String) -> String = { $0 }) -> String? {
    guard !ranking.faulty.isEmpty else { return nil }
    let items = ranking.faulty.map { r in
      "\(name(r.label)) held up to \(r.maxOccupancy), above its capacity of \(r.cacheSize)"
    }
    let names = ranking.faulty.map(\.policy).joined(separator: ",")
    return "FAULTY: \(items.joined(separator: "; ")). A policy that is not a model of a shipped cache must stay "
      + "within its capacity: its misses are not comparable, so it is not ranked. Running \(Setting.checkPolicy) with "
      + "\(names) shows which guarantee it breaks."
  }

  /// The warning for policies that beat Belady's optimum, or nil.
  public static func anomalyNote(_ ranking: Ranking, name: (String) -> String = { $0 }) -> String? {
    guard !ranking.anomalies.isEmpty else { return nil }
    return
      "ANOMALY: \(ranking.anomalies.map { name($0.label) }.joined(separator: ", ")) missed less than Belady's optimum at "
      + "\(ranking.sizeLabel), which no online policy can; this is a fault in the policy or the trace, not a result."
  }

  // MARK: Terminal

  /// What `compare` prints when it is done: per trace and size the winner,
  /// its margin over LRU, the policies tied with it and the bound; past a
  /// few traces, per size the best mean reduction from FIFO across them.
  public static func terminalSummary(_ outcome: CompareOutcome, config: CompareConfig, mostTraces: Int = 4) -> String {
    let styles = styles(config)
    let names = DisplayNames(config: config)
    let unit = config.sizeMode == .count ? "objects" : "bytes"
    var lines: [String] = []
    if config.traces.count <= mostTraces {
      for entry in config.traces {
        for ranking in rankings(outcome.rows, trace: entry.name, config: config) {
          let size = "\(ranking.sizeLabel) (\(ReplayTables.grouped(ranking.cacheSize)) \(unit))"
          var text = verdict(ranking, name: styles.name)
          if let line = cheapest(ranking, name: styles.name) { text += " " + line }
          lines.append("\(names.trace(entry.name)) at \(size): \(text.replacingOccurrences(of: "**", with: ""))")
        }
      }
    } else {
      let summaries = summaries(outcome, config: config)
      for size in config.sizes.map(\.description) {
        let rows = ranked(summaries, size: size)
        guard let best = rows.first(where: { !$0.offline }) else { continue }
        var line =
          "At \(size), across \(best.traces) traces: best \(styles.name(best.policy)), "
          + "mean reduction from FIFO \(percent(best.meanReduction))"
        if let share = best.bestShare { line += String(format: ", best on %.0f%% of them", share * 100) }
        if let bound = rows.first(where: \.offline) {
          line +=
            "; \(offlineKind(bound.policy, config.sizeMode)) \(styles.name(bound.policy)) \(percent(bound.meanReduction))"
        }
        lines.append(line + ".")
      }
    }
    return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
  }

  // MARK: Markdown

  public static func markdown(_ outcome: CompareOutcome, config: CompareConfig) -> String {
    var md = "# Policy comparison: \(config.name)\n\n"
    md +=
      "\(shape(config)), "
    md += "\(config.sizeMode.rawValue) mode, seeds \(config.seeds.map(String.init).joined(separator: ", ")). "
    md += "Randomised policies and synthetic traces run once per seed: their miss ratio is the mean, with a 95% "
    md +=
      "confidence interval (Student's t); two policies are called different only when their intervals are disjoint. "
    md += "`vs LRU` is the relative change in miss ratio. Offline policies (Belady) are not contenders: "
    md += "Belady is a bound in count mode; with sizes it and Belady-Size are heuristics (`evlab bounds` gives "
    md += "the bounds for sizes).\n"
    md += acrossMarkdown(outcome, config: config)
    for entry in config.traces {
      let info = outcome.infos.first { $0.trace == entry.name }
      let format = outcome.rows.first { $0.trace == entry.name }?.format ?? ""
      md += "\n## \(entry.name)\n\n\(summary(info, format: format))\n"
      if let note = leftOutNote(outcome, config: config, trace: entry.name) { md += "\n\(note)\n" }
      for ranking in rankings(outcome.rows, trace: entry.name, config: config) {
        md += "\n### \(ranking.sizeLabel) (\(ranking.cacheSize) \(config.sizeMode == .count ? "objects" : "bytes"))\n\n"
        let weighed = ranking.rows.contains { $0.averagePenalty != nil }
        md += "| rank | policy | miss ratio | 95% CI | byte miss ratio | vs LRU |"
        md += weighed ? " penalty/request |\n" : "\n"
        md += "|---:|---|---:|---|---:|---:|\(weighed ? "---:|" : "")\n"
        for (i, r) in ranking.rows.enumerated() {
          let name = r.offline ? "\(r.label) (\(offlineTag(r.policy, r.sizeMode)))" : r.label
          md +=
            "| \(ranking.cachesNothing ? "—" : String(i + 1)) | \(name) | \(ratio(r.missRatio)) | \(interval(r)) | \(ratio(r.byteMissRatio)) | \(vsLRU(r, ranking.lru)) |\(weighed ? " \(penalty(r.averagePenalty)) |" : "")\n"
        }
        md += "\n" + verdict(ranking) + "\n"
        if let line = cheapest(ranking) { md += "\n" + line + "\n" }
        md += causesMarkdown(ranking)
        if let note = modelsNote(ranking) { md += "\n" + note + "\n" }
        if let note = faultyNote(ranking) { md += "\n**\(note)**\n" }
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

  // MARK: Miss causes

  /// The parts of a miss ratio split by cause, in the order they stack:
  /// what no policy of the size avoids first, then what this one gave away.
  static func causeParts(_ rows: [CompareRow]) -> [SVGChart.Part] {
    func share(_ field: KeyPath<MissAttribution, Int64>) -> [Double] {
      rows.map { r in r.attribution.map { TraceReplay.ratio($0[keyPath: field], r.requests) } ?? 0 }
    }
    var parts = [
      SVGChart.Part(name: "compulsory", color: "#9e9e9e", values: share(\.compulsoryMisses)),
      SVGChart.Part(name: "capacity (Belady misses too)", color: "#56B4E9", values: share(\.capacityMisses)),
      SVGChart.Part(name: "policy (Belady hits)", color: "#D55E00", values: share(\.policyMisses)),
    ]
    if rows.contains(where: { ($0.attribution?.admissionMisses ?? 0) > 0 }) {
      parts.append(SVGChart.Part(name: "admission", color: "#E69F00", values: share(\.admissionMisses)))
    }
    return parts
  }

  /// The stacked bars of a ranking's miss causes, when its rows were attributed.
  static func causesFigure(
    _ ranking: Ranking, traceName: String, unit: String, styles: SVGChart.Styles, figures: Figures
  ) -> String {
    let rows = ranking.rows.filter { $0.attribution != nil }
    guard !rows.isEmpty else { return "" }
    return "<figure>"
      + figures.add("causes-\(traceName)-\(ranking.sizeLabel)", perTrace: true) { layout in
        SVGChart.stackedBars(
          title: "Why each policy missed on \(traceName) at \(ranking.sizeLabel) (\(ranking.cacheSize) \(unit))",
          xLabel: "miss ratio, by cause (against Belady at the same size)", labels: rows.map(\.label),
          parts: causeParts(rows), format: { String(format: "%.3f", $0) }, styles: styles, layout: layout)
      } + "</figure>\n"
  }

  /// A ranking's misses by cause as a Markdown table, when attributed.
  static func causesMarkdown(_ ranking: Ranking) -> String {
    let rows = ranking.rows.filter { $0.attribution != nil }
    guard !rows.isEmpty else { return "" }
    var md = "\nMisses by cause, as shares of the requests (against Belady at the same size):\n\n"
    md += "| policy | compulsory | capacity | policy | admission | avoidable share of misses |\n"
    md += "|---|---:|---:|---:|---:|---:|\n"
    for r in rows {
      let a = r.attribution!
      let share = { (n: Int64) in ratio(TraceReplay.ratio(n, r.requests)) }
      md +=
        "| \(r.label) | \(share(a.compulsoryMisses)) | \(share(a.capacityMisses)) | \(share(a.policyMisses)) | \(share(a.admissionMisses)) | \(String(format: "%.1f%%", 100 * TraceReplay.ratio(a.policyMisses + a.admissionMisses, r.misses))) |\n"
    }
    return md
  }

  // MARK: HTML

  /// The report page; every chart drawn is also kept in `figures`.
  public static func html(
    _ outcome: CompareOutcome, config: CompareConfig, provenance: Provenance? = nil, figures: Figures = Figures()
  ) -> String {
    let unit = config.sizeMode == .count ? "objects" : "bytes"
    let bytes = config.sizeMode == .bytes
    let names = DisplayNames(config: config)
    let styles = styles(config)
    var body = "<h1>Policy comparison: \(SVGChart.escape(config.name))</h1>\n"
    body +=
      "<p>\(SVGChart.escape(shape(config))), \(config.sizeMode.rawValue) mode. "
    body +=
      "Means over seeds with 95% confidence intervals where runs differ by seed; offline policies are bounds.</p>\n"
    // Contents: each section of the page, by its anchor.
    var contents: [(anchor: String, title: String)] = []
    let across = acrossHTML(outcome, config: config, figures: figures)
    if !across.isEmpty { contents.append(("across", "Across \(config.traces.count) traces")) }
    var sections = across
    // Many traces: each trace's details fold away under its name.
    let fold = config.traces.count > 4
    for entry in config.traces {
      let rows = outcome.rows.filter { $0.trace == entry.name }
      let info = outcome.infos.first { $0.trace == entry.name }
      let traceName = names.trace(entry.name)
      let id = anchor("trace", entry.name)
      contents.append((id, traceName))
      let heading = "<h2>\(SVGChart.escape(traceName))</h2>"
      sections +=
        fold
        ? "<details class=\"trace\" id=\"\(id)\"><summary>\(heading)</summary>\n"
        : "<section class=\"trace\" id=\"\(id)\">\(heading)\n"
      let named = traceName == entry.name ? "" : "\(entry.name) · "
      sections +=
        "<p>\(SVGChart.escape(named + summary(info, format: rows.first?.format ?? "").replacingOccurrences(of: "**", with: "")))</p>\n"
      if let note = leftOutNote(outcome, config: config, trace: entry.name) {
        sections += "<p class=\"left-out\">\(SVGChart.escape(note))</p>\n"
      }
      // The miss-ratio curve: every contender and bound over the sizes. Models
      // of shipped caches are left out (listed under the ranking with their
      // peak occupancy): a timed model holding far more than the capacity
      // would draw a curve below the optimum.
      let charted = config.labels.filter { label in
        rows.filter { $0.label == label }.allSatisfy { $0.isContender || $0.offline }
      }
      // Byte mode draws the byte miss ratio as well: what a byte-sized cache is for.
      for byteRatio in bytes ? [false, true] : [false] {
        let series = charted.map { label in
          let points = rows.filter { $0.label == label }.sorted { $0.cacheSize < $1.cacheSize }
          var series = SVGChart.Series(
            name: label,
            points: points.map { (Double($0.cacheSize), byteRatio ? $0.byteMissRatio : $0.missRatio) },
            intervals: points.map {
              $0.runs <= 1
                ? nil
                : byteRatio
                  ? $0.byteMissRatioCi95Low...$0.byteMissRatioCi95High : $0.missRatioCi95Low...$0.missRatioCi95High
            }, bound: points.first?.offline ?? false, styledByName: true)
          series.offlineLabel = offlineKind(points.first?.policy ?? label, config.sizeMode)
          series.style = styles.style(label)
          series.displayName = styles.name(label)
          return series
        }
        let what = byteRatio ? "Byte miss ratio" : "Miss ratio"
        sections +=
          "<figure>"
          + figures.add("\(byteRatio ? "byte-mrc" : "mrc")-\(traceName)", perTrace: true) { layout in
            SVGChart.lines(
              title: "\(what) by cache size: \(traceName)", xLabel: "cache size (\(unit), log scale)",
              yLabel: what.lowercased(), series: series, logX: true, yFormat: { String(format: "%.2f", $0) },
              xFormat: { SVGChart.compact($0, bytes: bytes) }, binaryTicks: bytes, zeroBaseline: false, layout: layout)
          }
          + "</figure>\n"
      }
      sections += timeseriesChart(outcome, config: config, trace: entry.name, figures: figures)
      // Bars and the ranking at the chart size.
      if let ranking = rankings(outcome.rows, trace: entry.name, config: config)
        .first(where: { $0.sizeLabel == config.chartSize.description })
      {
        let weighed = ranking.rows.contains { $0.averagePenalty != nil }
        sections +=
          "<figure>"
          + figures.add("bars-\(traceName)-\(ranking.sizeLabel)", perTrace: true) { layout in
            SVGChart.bars(
              title: "Miss ratio on \(traceName) at \(ranking.sizeLabel) (\(ranking.cacheSize) \(unit))",
              xLabel: "miss ratio",
              labels: ranking.rows.map(\.label), values: ranking.rows.map(\.missRatio),
              intervals: ranking.rows.map { $0.runs > 1 ? $0.missRatioCi95Low...$0.missRatioCi95High : nil },
              colors: [], format: { String(format: "%.3f", $0) }, styles: styles, layout: layout)
          }
          + "</figure>\n"
        sections +=
          "<div class=\"wide\"><table><thead><tr><th>rank</th><th>policy</th><th>miss ratio</th><th>95% CI</th><th>byte miss ratio</th><th>vs LRU</th>\(weighed ? "<th>penalty/request</th>" : "")</tr></thead><tbody>\n"
        for (i, r) in ranking.rows.enumerated() {
          sections +=
            "<tr><td>\(ranking.cachesNothing ? "—" : String(i + 1))</td><td>\(SVGChart.escape(styles.name(r.label)))\(r.offline ? " (\(offlineTag(r.policy, r.sizeMode)))" : "")</td><td>\(ratio(r.missRatio))</td><td>\(interval(r))</td><td>\(ratio(r.byteMissRatio))</td><td>\(vsLRU(r, ranking.lru))</td>\(weighed ? "<td>\(penalty(r.averagePenalty))</td>" : "")</tr>\n"
        }
        sections +=
          "</tbody></table></div>\n<p>\(SVGChart.escape(verdict(ranking, name: styles.name).replacingOccurrences(of: "**", with: "")))</p>\n"
        if let line = cheapest(ranking, name: styles.name) {
          sections += "<p class=\"cheapest\">\(SVGChart.escape(line.replacingOccurrences(of: "**", with: "")))</p>\n"
        }
        if let note = modelsNote(ranking, name: styles.name) {
          sections += "<p class=\"models\">\(SVGChart.escape(note))</p>\n"
        }
        if let note = faultyNote(ranking, name: styles.name) {
          sections += "<p class=\"faulty\" style=\"color:#b00020;font-weight:bold\">\(SVGChart.escape(note))</p>\n"
        }
        if let note = anomalyNote(ranking, name: styles.name) {
          sections += "<p class=\"anomaly\" style=\"color:#b00020;font-weight:bold\">\(SVGChart.escape(note))</p>\n"
        }
      }
      // Why each policy missed, at every size (when the sweep attributed its misses).
      for ranking in rankings(outcome.rows, trace: entry.name, config: config) {
        sections += causesFigure(ranking, traceName: traceName, unit: unit, styles: styles, figures: figures)
      }
      sections += fold ? "</details>\n" : "</section>\n"
    }
    if !outcome.stress.isEmpty {
      contents.append(("stress", "Memory cache under threads"))
      sections += stressSection(outcome.stress, figures: figures)
    }
    if !outcome.disk.isEmpty {
      contents.append(("disk", "The disk store"))
      sections += diskSection(outcome.disk, figures: figures)
    }
    if provenance != nil { contents.append(("provenance", "Provenance")) }
    if contents.count > 1 {
      body +=
        "<nav class=\"contents\"><h2>Contents</h2><ol>"
        + contents.map { "<li><a href=\"#\($0.anchor)\">\(SVGChart.escape($0.title))</a></li>" }.joined()
        + "</ol></nav>\n"
    }
    body += sections
    return """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8"/><title>EvictionLab: \(SVGChart.escape(config.name))</title>
      <meta name="viewport" content="width=device-width, initial-scale=1"/>
      <style>
      body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 0.6em; max-width: 64em; color: #222; }
      table { border-collapse: collapse; margin: 1em 0; } th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
      td:nth-child(2), th:nth-child(2) { text-align: left; } figure { margin: 1em 0; overflow-x: auto; }
      /* Charts take the column's width (their text grows with them, to the tables' size at about 1,000 px). */
      svg.chart { width: 100%; max-width: 1000px; height: auto; display: block; }
      table.heat td:first-child, table.names td:first-child { text-align: left; } table.names td:nth-child(2) { text-align: right; } div.wide { overflow-x: auto; } summary h2 { display: inline; }
      nav.contents ol { columns: 2 16em; padding-left: 1.4em; } nav.contents h2 { font-size: 1.1em; }
      /* On a narrow screen a chart keeps 600 px (its 12 px text stays above 9 px) and scrolls sideways. */
      @media (max-width: 640px) { svg.chart { min-width: 600px; } body { margin: 1em auto; } }
      </style></head>
      <body>
      \(body)\(provenance?.html ?? "")</body></html>

      """
  }

  /// A fragment identifier for a section of the page: letters, digits and
  /// dashes, from its kind and name.
  static func anchor(_ kind: String, _ name: String) -> String {
    var id = kind + "-"
    for c in name.lowercased() { id.append(c.isLetter || c.isNumber ? c : "-") }
    return id
  }

  /// The miss ratio per interval at the chart size (first run of each
  /// policy), when the sweep had intervals.
  static func timeseriesChart(_ outcome: CompareOutcome, config: CompareConfig, trace: String, figures: Figures)
    -> String
  {
    let size = config.chartSize.description
    let points = outcome.timeseries.filter { $0.trace == trace && $0.sizeLabel == size && $0.run == 1 }
    guard !points.isEmpty, let interval = config.window.interval else { return "" }
    let styles = styles(config)
    let traceName = DisplayNames(config: config).trace(trace)
    let series = config.labels.compactMap { label -> SVGChart.Series? in
      let mine = points.filter { ($0.admission == "none" ? $0.policy : "\($0.policy) + \($0.admission)") == label }
      guard !mine.isEmpty else { return nil }
      var series = SVGChart.Series(
        name: label, points: mine.map { (Double($0.interval + 1), $0.missRatio) }, styledByName: true)
      series.style = styles.style(label)
      series.displayName = styles.name(label)
      return series
    }
    let unit: String
    switch interval {
    case .requests(let n): unit = "interval of \(n) requests"
    case .duration(let d): unit = "interval of \(d) s of the trace's clock"
    }
    let warm = config.window.warmup.map { ", after a warm-up of \($0)" } ?? ""
    return "<figure>"
      + figures.add("timeseries-\(traceName)", perTrace: true) { layout in
        SVGChart.lines(
          title: "Miss ratio over time at \(size): \(traceName)", xLabel: unit + warm, yLabel: "miss ratio",
          series: series, logX: false, yFormat: { String(format: "%.3f", $0) }, xFormat: { String(Int($0)) },
          zeroBaseline: false, layout: layout)
      }
      + "</figure>\n"
  }

  /// Read and write throughput by value size per storage mode, and where files overtake SQLite.
  static func diskSection(_ results: [DiskBench.Result], figures: Figures) -> String {
    let modes = results.reduce(into: [String]()) { if !$0.contains($1.mode) { $0.append($1.mode) } }
    var html = "<section class=\"disk\" id=\"disk\"><h2>The disk store: SQLite or files</h2>\n"
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
        + figures.add("disk-\(phase)") { layout in
          SVGChart.lines(
            title: "Disk store \(phase == "write" ? "writes" : "reads (hits)") by value size",
            xLabel: "value size (bytes, log scale)",
            yLabel: "thousand operations per second", series: series, logX: true,
            yFormat: { String(format: "%.0f", $0) },
            xFormat: { SVGChart.compact($0, bytes: true) }, binaryTicks: true, layout: layout)
        } + "</figure>\n"
      let verdict =
        DiskBench.crossover(results, phase: phase).map {
          "\(phase): files beat SQLite from \(SVGChart.compact(Double($0), bytes: true)) up on the machine that ran this."
        } ?? "\(phase): SQLite is at least as fast as files at the largest size measured."
      html += "<p>\(SVGChart.escape(verdict))</p>\n"
    }
    return html + "</section>\n"
  }

  static func stressSection(_ results: [StressResult], figures: Figures) -> String {
    let locks = results.reduce(into: [String]()) { if !$0.contains($1.lock) { $0.append($1.lock) } }
    func series(_ value: (StressResult) -> Double) -> [SVGChart.Series] {
      locks.map { lock in
        SVGChart.Series(
          name: lock,
          points: results.filter { $0.lock == lock }.map { (Double($0.threads), value($0)) })
      }
    }
    let cores = results.first?.cores ?? 0
    let policy =
      results.first.map {
        "\($0.policy) at \($0.cacheSize) on \($0.trace), measured on a machine with \(cores) cores: threads beyond \(cores) share them."
      } ?? ""
    let threadsLabel = "threads (\(cores) cores)"
    var html =
      "<section class=\"stress\" id=\"stress\"><h2>Memory cache under threads</h2>\n<p>\(SVGChart.escape(policy))</p>\n"
    html +=
      "<figure>"
      + figures.add("stress-throughput") { layout in
        SVGChart.lines(
          title: "Throughput by thread count", xLabel: threadsLabel, yLabel: "million operations per second",
          series: series { $0.opsPerSecond / 1e6 }, logX: false, yFormat: { String(format: "%.1f", $0) },
          xFormat: { String(Int($0)) }, layout: layout)
      } + "</figure>\n"
    html +=
      "<figure>"
      + figures.add("stress-get-p99") { layout in
        SVGChart.lines(
          title: "Get latency, 99th percentile", xLabel: threadsLabel, yLabel: "latency (log scale)",
          series: series { Double($0.getP99Ns) }, logX: false, yFormat: { SVGChart.duration(nanoseconds: $0) },
          xFormat: { String(Int($0)) }, logY: true, layout: layout)
      } + "</figure>\n"
    html +=
      "<figure>"
      + figures.add("stress-contention") { layout in
        SVGChart.lines(
          title: "Lock contention: share of contended acquisitions", xLabel: threadsLabel,
          yLabel: "contended share (%)",
          series: series { $0.contendedShare * 100 }, logX: false, yFormat: { String(format: "%.0f", $0) },
          xFormat: { String(Int($0)) }, layout: layout)
      } + "</figure>\n"
    return html + "</section>\n"
  }
}
