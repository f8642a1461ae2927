import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

let sharedTraces = SharedData.traces

@Suite struct TOMLTests {
  @Test func readsTheDocumentsConfigurationsUse() throws {
    let doc = try TOMLParser.parse(
      """
      # a comment
      name = "sweep"   # trailing comment
      sizes = [100, "1%", 0x10, 1_000,
        # inside an array
        2.5e3, ]
      flag = true
      'literal key' = 'C:\\path'
      "quoted" = "tab\\there \\u00e9"
      a.b = 1
      inline = { x = 1, y = "z" }
      multi = \"\"\"
      two
      lines\"\"\"

      [table]
      key = -7
      [table.sub]
      deep = false

      [[traces]]
      path = "one"
      [[traces]]
      path = "two"
      [traces.extra]
      n = 3
      """, file: "t.toml")
    #expect(doc["name"] == .string("sweep"))
    #expect(doc["sizes"] == .array([.integer(100), .string("1%"), .integer(16), .integer(1000), .float(2500)]))
    #expect(doc["flag"] == .bool(true))
    #expect(doc["literal key"] == .string("C:\\path"))
    #expect(doc["quoted"] == .string("tab\there é"))
    #expect(doc["a"] == .table(["b": .integer(1)]))
    #expect(doc["inline"] == .table(["x": .integer(1), "y": .string("z")]))
    #expect(doc["multi"] == .string("two\nlines"))
    #expect(doc["table"] == .table(["key": .integer(-7), "sub": .table(["deep": .bool(false)])]))
    #expect(
      doc["traces"]
        == .array([
          .table(["path": .string("one")]), .table(["path": .string("two"), "extra": .table(["n": .integer(3)])]),
        ]))
  }

  @Test(arguments: [
    ("a = 1\na = 2\n", 2, "defined twice"),
    ("a = \"open\n", 1, "not closed"),
    ("a = bare\n", 1, "strings need quotes"),
    ("[t]\nx = 1\n[t]\n", 3, "defined twice"),
    ("a = [1, 2\n", 2, "not closed"),
    ("a = 1 2\n", 1, "after a value"),
    ("when = 1979-05-27\n", 1, "dates"),
    ("= 3\n", 1, "expected a key"),
  ])
  func errorsNameTheLine(text: String, line: Int, words: String) throws {
    #expect {
      _ = try TOMLParser.parse(text, file: "bad.toml")
    } throws: { error in
      guard let e = error as? ConfigError else { return false }
      return e.line == line && e.description.hasPrefix("bad.toml:\(line): ") && e.message.contains(words)
    }
  }
}

@Suite struct CompareConfigTests {
  func config(_ text: String) throws(ConfigError) -> CompareConfig {
    try CompareConfig.parse(text, format: "toml", file: "c.toml")
  }

  let trace = "\(sharedTraces)/libcachesim/cloudPhysicsIO.oracleGeneral.bin"

  @Test func badConfigurationsAreRefusedBeforeAnyWork() throws {
    let cases: [(String, String)] = [
      ("policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"/nonexistent/x.oracleGeneral\"\n", "does not exist"),
      ("policies = [\"lruu\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n", "unknown policy 'lruu'"),
      ("policies = [\"lru\"]\nsizes = []\n[[traces]]\npath = \"\(trace)\"\n", "sizes is empty"),
      ("policies = [\"lru\"]\nsizes = [10]\ncolour = 1\n[[traces]]\npath = \"\(trace)\"\n", "unknown key 'colour'"),
      (
        "policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\nfromat = \"csv\"\n",
        "traces[1]: unknown key 'fromat'"
      ),
      ("policies = [\"lru\"]\nsizes = [\"150%\"]\n[[traces]]\npath = \"\(trace)\"\n", "share of the footprint"),
      ("policies = [\"lru\"]\nsizes = [10]\n", "no traces"),
      ("policies = []\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n", "policies is empty"),
      ("policies = [\"lru\"]\nsizes = [10]\n[[traces]]\ngenerate = \"zipff\"\n", "generate 'zipff'"),
      (
        "policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n[stress]\nlocks = [\"spin\"]\n",
        "[stress]"
      ),
      ("policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n[disk]\nmode = \"mixed\"\n", "[disk]"),
      (
        "policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n[disk]\ninline_threshold = \"5%\"\n",
        "inline_threshold is a byte count"
      ),
      ("policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n[disk]\nrounds = 0\n", "rounds"),
      (
        "policies = [\"lru\"]\nadmissions = [\"size:max=4k\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n",
        "size_mode = \"bytes\""
      ),
      (
        "policies = [\"lru\"]\nadmissions = [\"tinylru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n",
        "admissions: unknown admission 'tinylru'"
      ),
      (
        "policies = [\"lru\"]\nadmissions = [\"none\", \"none\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n",
        "twice"
      ),
    ]
    for (text, words) in cases {
      #expect("\(text)") {
        _ = try config(text)
      } throws: { error in
        "\(error)".contains(words) && "\(error)".hasPrefix("c.toml")
      }
    }
    // JSON keeps the last of a key given twice; a configuration refuses it, as TOML does.
    for (text, key) in [
      ("{\"policies\": [\"lru\"], \"sizes\": [10], \"sizes\": [20], \"traces\": [{\"path\": \"\(trace)\"}]}", "sizes"),
      ("{\"policies\": [\"lru\"], \"sizes\": [10], \"traces\": [{\"path\": \"\(trace)\", \"path\" : \"x\"}]}", "path"),
    ] {
      #expect(throws: ConfigError.self) { try CompareConfig.parse(text, format: "json", file: "c.json") }
      #expect(ConfigValue.firstDuplicateKey(in: Data(text.utf8)) == key)
    }
    let fine = "{\"a\": {\"k\": 1}, \"b\": {\"k\": \"\\\": [\"}, \"c\": [{\"k\": 1}, {\"k\": 2}]}"
    #expect(ConfigValue.firstDuplicateKey(in: Data(fine.utf8)) == nil)
  }

  @Test func theDiskSectionTakesRoundsAndAThreshold() throws {
    let base = "policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n[disk]\n"
    let defaults = try #require(try config(base).disk)
    #expect(
      defaults.rounds == 1 && defaults.inlineThreshold == 20 * 1024 && defaults.modes == [.file, .sqlite, .mixed])
    let set = try #require(try config(base + "rounds = 3\ninline_threshold = \"64k\"\nvalue_sizes = [100]\n").disk)
    #expect(set.rounds == 3 && set.inlineThreshold == 65536 && set.valueSizes == [100])
  }

  @Test func sizesAndSeedsAreReadAsWritten() throws {
    let c = try config(
      """
      policies = ["lru", "random", "slru:segments=3"]
      sizes = [500, "4k", "1%"]
      seeds = [3, 4]
      [[traces]]
      path = "\(trace)"
      """)
    #expect(c.sizes == [.absolute(500), .absolute(4096), .fraction(0.01)])
    #expect(c.sizes.map(\.description) == ["500", "4096", "1%"])
    #expect(c.chartSize == .absolute(4096))
    #expect(c.policies.map(\.description) == ["lru", "random", "slru:segments=3"])
    #expect(CompareConfig.isRandomised(c.policies[1]) && !CompareConfig.isRandomised(c.policies[0]))
    #expect(!CompareConfig.isRandomised(try PolicySpec("random:seed=9")))
  }
}

@Suite struct CompareReportTests {
  static let trace = "\(sharedTraces)/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
  static let text = """
    name = "test"
    policies = ["lru", "arc", "random", "belady"]
    sizes = [100, "1%", 2000]
    seeds = [1, 2, 3]
    [[traces]]
    path = "\(trace)"
    [[traces]]
    name = "zipf-small"
    generate = "zipf"
    objects = 2000
    requests = 20000
    alpha = 0.8
    """

  /// The test sweep, run: its workspace must outlive any replay of its generated traces.
  struct Sweep {
    let config: CompareConfig
    let workspace: CompareWorkspace
    let plan: ComparePlan
    let outcome: CompareOutcome
  }

  static func sweep(replay: Bool = true) throws -> Sweep {
    let config = try CompareConfig.parse(text, format: "toml", file: "t.toml")
    let workspace = try CompareWorkspace(config)
    let infos = try ComparePlan.measure(config, sources: workspace.sources)
    let plan = ComparePlan(config: config, infos: infos, sources: workspace.sources)
    let (rows, timings, _) =
      replay ? CompareRun.rows(plan, results: try TraceReplay.runAll(plan.cells, parallelism: 2)) : ([], [], [])
    return Sweep(
      config: config, workspace: workspace, plan: plan,
      outcome: CompareOutcome(rows: rows, timings: timings, infos: infos, stress: []))
  }

  @Test func rowsEqualTheReplayOfEachCell() throws {
    let sweep = try Self.sweep()
    let (config, workspace, rows, infos) = (sweep.config, sweep.workspace, sweep.outcome.rows, sweep.outcome.infos)
    #expect(rows.count == 2 * 4 * 3)
    // "1%" of cloudPhysicsIO's distinct objects.
    #expect(rows[1].sizeLabel == "1%" && rows[1].cacheSize == Int64(Double(infos[0].uniqueObjects) * 0.01))
    for row in rows {
      let t = config.traces.firstIndex { $0.name == row.trace }!
      let policy = try PolicySpec(row.policy)
      let synthetic = config.traces[t].isSynthetic
      let randomised = CompareConfig.isRandomised(policy)
      #expect(row.runs == (synthetic || randomised ? 3 : 1))
      var ratios: [Double] = []
      var hits: [Int64] = []
      for s in 0..<row.runs {
        let spec = randomised ? policy.withSeed(config.seeds[s]) : policy
        let replay = try TraceReplay.run(
          workspace.sources[t][synthetic ? s : 0], policy: spec, cacheSize: row.cacheSize, sizeMode: .count)
        ratios.append(replay.missRatio)
        hits.append(replay.hits)
        if row.runs == 1 {
          #expect(replay.hits == row.hits && replay.misses == row.misses && replay.requests == row.requests)
          #expect(replay.bytesMissed == row.bytesMissed && replay.missRatio == row.missRatio)
          #expect(row.missRatioCi95Low == row.missRatio && row.missRatioCi95High == row.missRatio)
        }
      }
      let mean = ratios.reduce(0, +) / Double(ratios.count)
      #expect(abs(row.missRatio - mean) < 1e-12, "\(row.trace) \(row.policy) \(row.sizeLabel)")
      #expect(row.hits == Int64((Double(hits.reduce(0, +)) / Double(hits.count)).rounded()))
      #expect(row.missRatioCi95Low <= row.missRatio && row.missRatio <= row.missRatioCi95High)
      if row.runs > 1 && Set(ratios).count > 1 { #expect(row.missRatioCi95Low < row.missRatioCi95High) }
      #expect(row.offline == (row.policy == "belady"))
    }
  }

  @Test func shardsPartitionTheRunsAndBalanceThem() throws {
    let plan = try Self.sweep(replay: false).plan
    for n in [1, 2, 3, 7] {
      let shards = (1...n).map { plan.runs(ofShard: $0, of: n) }
      #expect(shards.flatMap { $0 }.sorted() == Array(plan.cells.indices), "\(n) shards")
      #expect(shards == (1...n).map { plan.runs(ofShard: $0, of: n) }, "deterministic")
      if n > 1 {
        let sizes = shards.map(\.count)
        #expect(sizes.max()! - sizes.min()! <= plan.cells.count / n + 1)
      }
    }
  }

  @Test func htmlIsWellFormedSelfContainedAndEveryChartHasItsSeries() throws {
    let sweep = try Self.sweep()
    let (config, outcome) = (sweep.config, sweep.outcome)
    let html = CompareReport.html(outcome, config: config)

    final class Collector: NSObject, XMLParserDelegate {
      var charts: [[String: Int]] = []
      var inChart = false
      func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
      ) {
        if name == "svg" { charts.append([:]) }
        if let cls = attributes["class"], cls == "series" || cls == "bar" {
          charts[charts.count - 1][cls, default: 0] += 1
        }
        for (key, value) in attributes where key == "src" || (key == "href" && value.hasPrefix("http")) {
          charts.append(["external": 1])
        }
      }
    }
    let parser = XMLParser(data: Data(html.utf8))
    let collector = Collector()
    parser.delegate = collector
    #expect(parser.parse(), "report.html is well-formed XML: \(String(describing: parser.parserError))")
    #expect(!html.contains("<script") && !html.contains("<link") && !collector.charts.contains(["external": 1]))
    // Per trace: a curve with a line per policy, and a bar per policy.
    #expect(collector.charts.count == 2 * config.traces.count)
    for (i, chart) in collector.charts.enumerated() {
      let expected = i % 2 == 0 ? ["series": config.policies.count] : ["bar": config.policies.count]
      #expect(chart == expected, "chart \(i)")
    }
    for policy in config.policies { #expect(html.contains("data-series=\"\(policy.description)\"")) }
  }

  @Test func markdownRanksWithTheRowsNumbersAndCallsTiesByIntervals() throws {
    let sweep = try Self.sweep()
    let (config, outcome, rows) = (sweep.config, sweep.outcome, sweep.outcome.rows)
    let md = CompareReport.markdown(outcome, config: config)
    for row in rows {
      #expect(
        md.contains(
          "| \(row.offline ? "\(row.policy) (offline bound)" : row.policy) | \(String(format: "%.4f", row.missRatio)) |"
        ))
    }
    for ranking in CompareReport.rankings(rows, trace: "zipf-small", config: config) {
      let winner = try #require(ranking.winner)
      #expect(!winner.offline && ranking.rows.filter { !$0.offline }.allSatisfy { $0.missRatio >= winner.missRatio })
      for tied in ranking.tiedWithWinner { #expect(!tied.differs(from: winner)) }
      let others = ranking.rows.filter {
        !$0.offline && $0.policy != winner.policy && !ranking.tiedWithWinner.contains($0)
      }
      for other in others { #expect(other.differs(from: winner)) }
    }
    // The terminal hears the winner per trace and size, or across many traces per size.
    let perTrace = CompareReport.terminalSummary(outcome, config: config)
    let rankingCount = config.traces.reduce(0) {
      $0 + CompareReport.rankings(rows, trace: $1.name, config: config).count
    }
    #expect(perTrace.split(separator: "\n").count == rankingCount && perTrace.contains(": Best: "), "\(perTrace)")
    let across = CompareReport.terminalSummary(outcome, config: config, mostTraces: 0)
    let reductions = CompareReport.summaries(outcome, config: config).contains { $0.meanReduction != nil }
    #expect(
      reductions ? across.hasPrefix("At ") && across.contains("mean reduction from FIFO") : across.isEmpty,
      "\(across)")
    // The sweep's shape counts in words, one of a kind in the singular.
    #expect(Wording.count(1, "trace") == "1 trace" && Wording.count(3, "policy", plural: "policies") == "3 policies")
    let shape =
      "\(config.policies.count) policies × \(Wording.count(config.traces.count, "trace")) × \(config.sizes.count) sizes"
    #expect(md.contains(shape), "\(md.prefix(300))")
    // The CSV holds exactly the rows, in order.
    let csvLines = CompareReport.csv(rows).split(separator: "\n")
    #expect(csvLines.count == rows.count + 1 && csvLines[0] == Substring(CompareRow.columns.joined(separator: ",")))
  }
}

/// The progress total of a sweep counts each run at its own trace's length,
/// named traces included (a lookup by name once fell back to the first
/// trace, so runs counted at its length: "44.7M of 9.6M requests").
@Suite struct CompareProgressTests {
  @Test func namedTracesCountTheirOwnRequests() throws {
    let root = SharedData.repository.appendingPathComponent("traces").path
    let text = """
      name = "progress"
      policies = ["lru", "fifo"]
      sizes = [100]
      [[traces]]
      path = "\(root)/zipf-0.9.oracleGeneral.zst"
      name = "long"
      [[traces]]
      path = "\(root)/loop-3000.oracleGeneral.zst"
      name = "short"
      """
    let config = try CompareConfig.parse(text, format: "toml", file: "p.toml")
    let workspace = try CompareWorkspace(config)
    let infos = try ComparePlan.measure(config, sources: workspace.sources)
    let plan = ComparePlan(config: config, infos: infos, sources: workspace.sources)
    let shard = CompareShard(plan: plan, index: 1, of: 1, parallelism: 2)
    #expect(infos.map(\.requests) == [200_000, 60_000])
    #expect(shard.expectedRequests == 2 * 200_000 + 2 * 60_000)
    let progress = ReplayProgress(expectedRequests: shard.expectedRequests)
    _ = try shard.run(sources: workspace.sources, scratch: NSTemporaryDirectory(), progress: progress) { _ in }
    #expect(progress.requests.load(ordering: .relaxed) == shard.expectedRequests)
  }
}

/// A key set in a table copied the whole table (the child was matched out
/// of its parent while the parent still held it): 100,000 labels took 73 s
/// to read, 20,000 traces as long. Each insertion now changes the table in
/// place. The time limit guards against a hang, it measures nothing.
@Suite struct TOMLLargeTableTests {
  @Test(.timeLimit(.minutes(1))) func aTableOfManyKeysAndManyTablesAreReadInLinearTime() throws {
    let count = 200_000
    var text = "[labels]\n"
    for i in 0..<count { text += "p\(i) = \"P\(i)\"\n" }
    for i in 0..<count / 4 { text += "[[traces]]\npath = \"t\(i)\"\n" }
    let doc = try TOMLParser.parse(text, file: "big.toml")
    guard case .table(let labels)? = doc["labels"], case .array(let traces)? = doc["traces"] else {
      Issue.record("labels or traces missing")
      return
    }
    #expect(labels.count == count && labels["p77"] == .string("P77"))
    #expect(traces.count == count / 4 && traces.last == .table(["path": .string("t\(count / 4 - 1)")]))
  }
}

/// TOML 1.0's rules on tables given whole, which the reader let through: a
/// static array grown by `[[x]]`, an inline table grown by a dotted key, a
/// table made by dotted keys defined again by a header.
@Suite struct TOMLWholeValueTests {
  @Test(arguments: [
    "traces = [{path = \"a\"}]\n[[traces]]\npath = \"b\"\n",
    "traces = []\n[[traces]]\npath = \"b\"\n",
    "stress = {ops = 5}\nstress.threads = [1]\n",
    "stress.ops = 5\n[stress]\nthreads = [1]\n",
    "[a]\nb.c = 1\n[a.b]\nd = 2\n",
    "a = 1\n[a]\n",
  ])
  func isRefused(text: String) {
    #expect(throws: ConfigError.self, "\(text)") { try TOMLParser.parse(text, file: "t.toml") }
  }

  @Test(arguments: [
    "[[traces]]\nopt = {a = 1}\n[[traces]]\nopt.b = 2\n",
    "a.b = 1\na.c = 2\n",
    "[a]\n[a.b]\nc = 1\n",
    "[a.b]\nc = 1\n[a]\nd = 2\n",
    "[[t]]\n[t.x]\ny = 1\n[[t]]\n[t.x]\ny = 2\n",
  ])
  func isRead(text: String) throws {
    _ = try TOMLParser.parse(text, file: "t.toml")
  }
}

/// Which offline rows a report may call a bound.
@Suite struct OfflineKindTests {
  @Test func onlyBeladyWithEqualWeightsIsABound() {
    #expect(CompareReport.offlineKind("belady", .count) == "bound")
    #expect(CompareReport.offlineKind("belady:bypass=true", .count) == "bound")
    #expect(CompareReport.offlineKind("belady", .bytes) == "heuristic")
    #expect(CompareReport.offlineKind("belady-size", .count) == "heuristic")
    #expect(CompareReport.offlineKind("belady-size:seed=2", .bytes) == "heuristic")
  }
}
