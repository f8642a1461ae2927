import EvictionCore
import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionExperiments
@testable import EvictionReports
@testable import EvictionSim

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The across-trace numbers against ones worked out by hand.
@Suite struct AcrossTracesTests {
  static func row(
    _ trace: String, _ policy: String, _ missRatio: Double, dataset: String, offline: Bool = false,
    model: Bool = false
  ) -> CompareRow {
    let requests: Int64 = 1000
    let hits = requests - Int64((missRatio * Double(requests)).rounded())
    return CompareRow(
      key: CellKey(trace: trace, format: "txt", policy: policy, cacheSize: 10, sizeMode: .count),
      counts: HitCounts(requests: requests, hits: hits, bytesRequested: requests, bytesMissed: requests - hits),
      fields: CompareRow.Fields(
        sizeLabel: "1%", missRatio: missRatio, byteMissRatio: missRatio, runs: 1, missRatioCi95Low: missRatio,
        missRatioCi95High: missRatio, byteMissRatioCi95Low: missRatio, byteMissRatioCi95High: missRatio,
        offline: offline, model: model, dataset: dataset))
  }

  /// Four traces in two datasets. t4: FIFO misses nothing, so it has no
  /// reduction, and all three policies tie for best there.
  static let rows: [CompareRow] = AcrossTraces.withReductions([
    row("t1", "fifo", 0.5, dataset: "a"), row("t1", "lru", 0.4, dataset: "a"), row("t1", "x", 0.25, dataset: "a"),
    row("t1", "belady", 0.05, dataset: "a", offline: true),
    row("t1", "nscache-linux", 0.1, dataset: "a", model: true),
    row("t2", "fifo", 0.2, dataset: "a"), row("t2", "lru", 0.2, dataset: "a"), row("t2", "x", 0.3, dataset: "a"),
    row("t3", "fifo", 0.8, dataset: "b"), row("t3", "lru", 0.6, dataset: "b"), row("t3", "x", 0.6, dataset: "b"),
    row("t4", "fifo", 0, dataset: "b"), row("t4", "lru", 0, dataset: "b"), row("t4", "x", 0, dataset: "b"),
  ])

  /// "The same misses" only when the counts are equal; a difference too
  /// small for a tenth of a percent still says which way it goes.
  @Test func theMarginOverLRUSaysSameOnlyForEqualCounts() {
    let lru = Self.row("t", "lru", 0.4, dataset: "a")
    #expect(CompareReport.margin(Self.row("t", "x", 0.4, dataset: "a"), over: lru) == "the same misses as LRU")
    var close = Self.row("t", "x", 0.4, dataset: "a")
    close.counts.misses -= 1
    close.fields.missRatio = 0.39999  // as if a much longer trace: 1 miss in 40,000
    #expect(CompareReport.margin(close, over: lru) == "fewer misses than LRU (under 0.1%)")
    #expect(CompareReport.margin(Self.row("t", "x", 0.3, dataset: "a"), over: lru) == "25.0% fewer misses than LRU")
  }

  static let summaries = AcrossTraces.summaries(
    rows, labels: ["fifo", "lru", "x", "belady", "nscache-linux"], sizes: ["1%"],
    datasets: ["t1": "a", "t2": "a", "t3": "b", "t4": "b"])

  static func summary(_ policy: String, _ dataset: String = "all") -> AcrossTraces.Summary {
    summaries.first { $0.policy == policy && $0.dataset == dataset }!
  }

  @Test func reductionsAreFromFIFOAndLRUOfTheSameTraceAndSize() throws {
    func reduction(_ trace: String, _ policy: String) -> (Double?, Double?) {
      let r = Self.rows.first { $0.trace == trace && $0.policy == policy }!
      return (r.reductionFromFifo, r.reductionFromLru)
    }
    func close(_ got: (Double?, Double?), _ want: (Double, Double)) -> Bool {
      guard let a = got.0, let b = got.1 else { return false }
      return abs(a - want.0) < 1e-12 && abs(b - want.1) < 1e-12
    }
    #expect(close(reduction("t1", "x"), (0.5, 0.375)))
    #expect(close(reduction("t2", "x"), (-0.5, -0.5)))
    #expect(close(reduction("t3", "x"), (0.25, 0)))
    #expect(reduction("t4", "x") == (nil, nil))
    #expect(close(reduction("t1", "belady"), (0.9, 0.875)))
    // A model of a shipped cache is not measured against the policies.
    #expect(reduction("t1", "nscache-linux") == (nil, nil))
  }

  @Test func percentilesInterpolateAsGSLDoes() throws {
    // x's reductions from FIFO: [-0.5, 0.25, 0.5] (t4 has none).
    let x = Self.summary("x")
    #expect(x.traces == 3)
    #expect(abs(x.meanReduction! - 0.25 / 3) < 1e-12)
    #expect(abs(x.medianReduction! - 0.25) < 1e-12)
    #expect(abs(x.p5Reduction! - -0.425) < 1e-12)
    #expect(abs(x.p25Reduction! - -0.125) < 1e-12)
    #expect(abs(x.p75Reduction! - 0.375) < 1e-12)
    #expect(abs(x.p95Reduction! - 0.475) < 1e-12)
    #expect(abs(x.meanReductionFromLru! - -0.125 / 3) < 1e-12)
    #expect(abs(x.worstRegressionVsFifo! - 0.5) < 1e-12)
    #expect(Self.summary("fifo").worstRegressionVsFifo == 0)
  }

  @Test func bestSharesSplitTiesAndSumToOne() throws {
    // t1: x; t2: fifo and lru tie; t3: lru and x tie. t4, where all three
    // tie but FIFO misses nothing, has no reduction, so no column counts it.
    #expect(Self.summary("x").traces == 3)
    #expect(abs(Self.summary("x").bestShare! - (1 + 0.5) / 3) < 1e-12)
    #expect(abs(Self.summary("lru").bestShare! - (0.5 + 0.5) / 3) < 1e-12)
    #expect(abs(Self.summary("fifo").bestShare! - 0.5 / 3) < 1e-12)
    let total = ["fifo", "lru", "x"].map { Self.summary($0).bestShare! }.reduce(0, +)
    #expect(abs(total - 1) < 1e-12)
    // The bound and the model missed least on t1, but neither is a contender.
    #expect(Self.summary("belady").bestShare == nil)
    #expect(Self.summaries.contains { $0.policy == "nscache-linux" } == false)
  }

  @Test func datasetsAverageTheirOwnTraces() throws {
    #expect(abs(Self.summary("x", "a").meanReduction!) < 1e-12)
    #expect(Self.summary("x", "a").bestShare == 0.5)
    #expect(abs(Self.summary("x", "b").meanReduction! - 0.25) < 1e-12)
    #expect(Self.summary("x", "b").traces == 1)
    #expect(abs(Self.summary("x", "b").bestShare! - 0.5) < 1e-12)
  }

  @Test func summaryTableHasTheContractColumns() throws {
    let csv = ResultWriter.csv(Self.summaries, columns: AcrossTraces.Summary.columns)
    let header = csv.split(separator: "\n").first.map(String.init)
    #expect(
      header
        == "policy,size_label,dataset,traces,mean_reduction,median_reduction,p5_reduction,p25_reduction,p75_reduction,p95_reduction,mean_reduction_from_lru,best_share,worst_regression_vs_fifo,offline"
    )
    let results = ResultWriter.csv(Self.rows, columns: CompareRow.columns)
    #expect(
      results.split(separator: "\n").first!.hasSuffix(
        ",admission,dataset,reduction_from_fifo,reduction_from_lru,warmup_requests,size_share"))
  }

  @Test func boxPlotIsWellFormedWithCapsAndAMeanPerPolicy() throws {
    let boxes = ["x", "lru", "belady"].map { name in
      let s = Self.summary(name)
      return SVGChart.Box(
        name: name, p5: s.p5Reduction!, p25: s.p25Reduction!, median: s.medianReduction!, p75: s.p75Reduction!,
        p95: s.p95Reduction!, mean: s.meanReduction!, bound: s.offline)
    }
    let svg = SVGChart.boxes(
      title: "t", xLabel: "reduction", boxes: boxes, format: { String(format: "%+.0f%%", $0 * 100) })
    let document = try XMLDocument(xmlString: svg)
    let groups = try document.nodes(forXPath: "//*[local-name()='g'][@class='box']")
    #expect(groups.count == 3)
    // Each box: two whiskers, two caps, a median line; a dashed outline only for the bound.
    let dashed = try document.nodes(forXPath: "//*[local-name()='rect'][@stroke-dasharray]")
    #expect(dashed.count == 1)
    #expect(svg.contains("belady (bound)"))
    // The axis reaches below the lowest P5 and above the highest P95.
    #expect(svg.contains(">-50%<") && svg.contains(">+90%<"))
  }

  @Test func everyBuiltinPolicyHasItsOwnColourAndMarker() throws {
    let styles = PolicyCatalog.builtinNames.map { SVGChart.style($0) }
    #expect(Set(styles.map { "\($0.color) \($0.marker)" }).count == styles.count)
    #expect(SVGChart.style("lru") == SVGChart.style("lru"))
  }
}

/// Every chart of a report as paper figures: SVG that parses, PDF with one
/// page, PNG at 300 dpi.
@Suite struct FigureFileTests {
  @Test func everyChartIsWrittenAsSVGPDFAndPNG() throws {
    let text = """
      name = "figures"
      policies = ["fifo", "lru", "arc", "belady"]
      sizes = [100, "1%"]
      interval = 20000
      warmup = 5000
      [[traces]]
      path = "\(SharedData.traces)/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
      dataset = "libcachesim"
      [[traces]]
      name = "zipf-small"
      generate = "zipf"
      objects = 2000
      requests = 60000
      """
    let config = try CompareConfig.parse(text, format: "toml", file: "t.toml")
    let workspace = try CompareWorkspace(config)
    let plan = ComparePlan(
      config: config, infos: try ComparePlan.measure(config, sources: workspace.sources), sources: workspace.sources)
    let (rows, timings, timeseries) = CompareRun.rows(
      plan, results: try TraceReplay.runAll(plan.cells, parallelism: 2))
    var outcome = CompareOutcome(rows: rows, timings: timings, infos: plan.infos, stress: [])
    outcome.timeseries = timeseries
    #expect(rows.allSatisfy { $0.warmupRequests == 5000 })
    // Past a few traces, the terminal hears the best across them per size.
    let across = CompareReport.terminalSummary(outcome, config: config, mostTraces: 1)
    #expect(across.hasPrefix("At 100, across 2 traces: best ") && across.contains("; bound Belady "), "\(across)")
    #expect(across.split(separator: "\n").count == 2)
    let dir = try Scratch.directory("figures").path
    // A figure of the user's own in that folder is left alone.
    try FileManager.default.createDirectory(atPath: dir + "/figures", withIntermediateDirectories: true)
    try "mine".write(toFile: dir + "/figures/mine.png", atomically: true, encoding: .utf8)
    var warnings: [String] = []
    _ = try CompareReport.write(outcome, config: config, to: dir) { warnings.append($0) }
    let folder = dir + "/figures"
    #expect(try String(contentsOfFile: folder + "/mine.png", encoding: .utf8) == "mine")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter { $0 != "mine.png" }
    let stems = Set(names.map { ($0 as NSString).deletingPathExtension })
    for expected in [
      "reduction-box-100", "reduction-box-1pct", "best-share-1pct", "mrc-zipf-small", "timeseries-zipf-small",
      "bars-zipf-small-1pct",
    ] {
      #expect(stems.contains(expected), "\(expected) in \(stems.sorted())")
    }
    // A trace's ranking bars say whose they are, so the figure stands alone in a paper.
    let bars = try String(contentsOfFile: folder + "/bars-zipf-small-1pct.svg", encoding: .utf8)
    #expect(bars.contains("Miss ratio on zipf-small at 1%"), "\(bars.prefix(600))")
    for stem in stems {
      let svg = try String(contentsOfFile: "\(folder)/\(stem).svg", encoding: .utf8)
      let document = try XMLDocument(xmlString: svg)
      #expect(document.rootElement()?.name == "svg")
      func attribute(_ name: String) -> Double {
        let start = svg.range(of: " \(name)=\"")!.upperBound
        return Double(svg[start...].prefix { $0 != "\"" }) ?? 0
      }
      let (width, height) = (attribute("width"), attribute("height"))
      #expect(width > 0 && height > 0)
      guard Figures.converter != nil else { continue }
      let pdf = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(stem).pdf"))
      #expect(pdf.starts(with: Data("%PDF-".utf8)))
      let pdfText = String(decoding: pdf, as: UTF8.self)
      #expect(pdfText.ranges(of: "/Type /Page\n").count + pdfText.ranges(of: "/Type /Page ").count == 1)
      let png = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(stem).png"))
      #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
      func be32(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
      // IHDR: width and height at 300 dpi of the SVG's CSS pixels.
      #expect(abs(Double(be32(16)) - width * Figures.dpi / 96) <= 1)
      #expect(abs(Double(be32(20)) - height * Figures.dpi / 96) <= 1)
    }
    #expect(warnings.isEmpty || Figures.converter == nil)
  }
}
