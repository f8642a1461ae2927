import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// A model that held more than its capacity never wins, and an online
/// policy that beats Belady's optimum is reported as the fault it is.
@Suite struct CapacityHonestyTests {
  static let config = """
    policies = ["lru", "sd-disk", "yy-disk", "belady"]
    sizes = [1000]
    [[traces]]
    path = "\(sharedTracesPath)/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    """

  @Test func modelsThatExceedTheirCapacityAreListedApartAndNeverCalledBest() throws {
    let config = try CompareConfig.parse(Self.config, format: "toml", file: "c.toml")
    let workspace = try CompareWorkspace(config)
    let infos = try ComparePlan.measure(config, sources: workspace.sources)
    let plan = ComparePlan(config: config, infos: infos, sources: workspace.sources)
    let (rows, _, _) = CompareRun.rows(plan, results: try TraceReplay.runAll(plan.cells, parallelism: 2))
    let sd = try #require(rows.first { $0.policy == "sd-disk" })
    #expect(sd.model && sd.exceedsCapacity && sd.maxOccupancy > 1000)
    let lru = try #require(rows.first { $0.policy == "lru" })
    #expect(!lru.exceedsCapacity && lru.maxOccupancy == 1000 && lru.isContender)
    #expect(sd.missRatio < lru.missRatio, "the timed model looks better than LRU: the trap this guards against")
    let ranking = try #require(CompareReport.rankings(rows, trace: rows[0].trace, config: config).first)
    #expect(ranking.winner?.policy == "lru")
    #expect(Set(ranking.models.map(\.policy)) == ["sd-disk", "yy-disk"] && ranking.anomalies.isEmpty)
    let markdown = CompareReport.markdown(
      CompareOutcome(rows: rows, timings: [], infos: infos, stress: []), config: config)
    #expect(markdown.contains("Best: **lru**") && markdown.contains("Models of shipped caches, not ranked"))
    #expect(
      markdown.contains("sd-disk") && markdown.contains("held up to \(sd.maxOccupancy), above the capacity of 1000"))
    // The ranking table lists no model.
    let table = markdown.components(separatedBy: "| rank |")[1].components(separatedBy: "Best:")[0]
    #expect(!table.contains("sd-disk") && !table.contains("yy-disk"))

    // Nor does the curve chart draw them (a timed model's curve lies below the optimum).
    let page = CompareReport.html(CompareOutcome(rows: rows, timings: [], infos: infos, stress: []), config: config)
    #expect(page.contains("data-series=\"lru\"") && !page.contains("data-series=\"sd-disk\""))

    // A policy that is no model yet held more than its capacity is faulty:
    // not ranked, not a model, named as a fault with the way to find it.
    var overfull = rows
    let lruRow = try #require(overfull.firstIndex { $0.policy == "lru" })
    overfull[lruRow].exceedsCapacity = true
    overfull[lruRow].maxOccupancy = 1005
    let faulty = try #require(CompareReport.rankings(overfull, trace: rows[0].trace, config: config).first)
    #expect(faulty.faulty.map(\.policy) == ["lru"] && !faulty.models.contains { $0.policy == "lru" })
    #expect(faulty.winner?.policy != "lru" && !faulty.rows.contains { $0.policy == "lru" })
    let note = try #require(CompareReport.faultyNote(faulty))
    #expect(
      note.hasPrefix("FAULTY: lru held up to 1005, above its capacity of 1000")
        && note.contains("check-policy` command with lru"))
    #expect(!(CompareReport.modelsNote(faulty) ?? "").contains("lru"))

    // An online row that misses less than Belady is an anomaly, in red.
    var forged = rows
    let belady = try #require(forged.firstIndex { $0.policy == "belady" })
    let fake = try #require(forged.firstIndex { $0.policy == "lru" })
    forged[fake].misses = forged[belady].misses - 1
    forged[fake].missRatio = forged[belady].missRatio * 0.99
    let flagged = try #require(CompareReport.rankings(forged, trace: rows[0].trace, config: config).first)
    #expect(flagged.anomalies.map(\.policy) == ["lru"])
    let html = CompareReport.html(CompareOutcome(rows: forged, timings: [], infos: infos, stress: []), config: config)
    #expect(html.contains("class=\"anomaly\"") && html.contains("missed less than Belady"))
  }
}

let sharedTracesPath = SharedData.traces
