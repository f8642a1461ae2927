import EvictionTestSupport
import Foundation
import Testing

/// `--attribution` in replay and compare, `--regret`, and `evlab explain`, as a user runs them.
@Suite struct AttributionCommandTests {
  static let zipf = repositoryRoot.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path

  /// 1 2 3 1 2 3 as a key-per-line trace in a new folder.
  static func handTrace() throws -> URL {
    let dir = try scratchDirectory()
    try "1\n2\n3\n1\n2\n3\n".write(to: dir.appendingPathComponent("six.txt"), atomically: true, encoding: .utf8)
    return dir
  }

  @Test func replayAddsTheCausesColumnsAndTheyAddUp() throws {
    let dir = try Self.handTrace()
    let run = try evlab(
      ["replay", "six.txt", "--policy", "lru,belady", "--size", "2", "--attribution", "--csv", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let table = rows(run.stdout)
    #expect(table.count == 2)
    let lru = try #require(table.first { $0["policy"] == "lru" })
    #expect(lru["attribution_reference"] == "belady")
    #expect(
      [lru["compulsory_misses"], lru["capacity_misses"], lru["policy_misses"], lru["admission_misses"]] == [
        "3", "1", "2", "0",
      ])
    let belady = try #require(table.first { $0["policy"] == "belady" })
    #expect(belady["policy_misses"] == "0" && belady["misses"] == "4")
    // Without the flag, the columns are not there at all.
    let plain = try evlab(["replay", "six.txt", "--policy", "lru", "--size", "2", "--csv", "-"], in: dir)
    #expect(plain.status == 0 && !plain.stdout.contains("policy_misses"))
  }

  @Test func regretNamesTheCostliestEvictions() throws {
    let dir = try Self.handTrace()
    let run = try evlab(
      ["replay", "six.txt", "--policy", "lru", "--size", "2", "--attribution", "--regret", "regret.json"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let data = try Data(contentsOf: dir.appendingPathComponent("regret.json"))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let cells = try #require(object["cells"] as? [[String: Any]])
    let regret = try #require(cells.first?["regret"] as? [String: Any])
    let costliest = try #require(regret["costliest"] as? [[String: Any]])
    // Each cost one miss of one byte: the earlier eviction ranks first.
    #expect(costliest.compactMap { $0["evicted_at"] as? Int } == [3, 5])
    #expect(costliest.compactMap { $0["key"] as? Int } == [1, 3])
    #expect(costliest.compactMap { $0["evicted_for"] as? Int } == [3, 2])
  }

  @Test(arguments: [
    (["--regret", "r.json"], "--regret needs --attribution"),
    (["--attribution", "--interval", "2", "--timeseries", "t.csv"], "intervals"),
  ])
  func misusedOptionsSaySo(extra: [String], message: String) throws {
    let dir = try Self.handTrace()
    let run = try evlab(["replay", "six.txt", "--policy", "lru", "--size", "2"] + extra, in: dir)
    #expect(run.status != 0)
    #expect(run.stderr.contains(message), "\(run.stderr)")
  }

  @Test func compareTakesTheFlagAndTheKey() throws {
    let dir = try scratchDirectory()
    let config = """
      name = "why"
      policies = ["lru", "s3fifo"]
      sizes = [500]
      attribution = true
      [[traces]]
      path = "\(Self.zipf)"
      """
    try config.write(to: dir.appendingPathComponent("why.toml"), atomically: true, encoding: .utf8)
    let run = try evlab(["compare", "--config", "why.toml", "-o", "out"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let csv = try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8)
    for row in rows(csv) {
      let parts = ["compulsory_misses", "capacity_misses", "policy_misses", "admission_misses"].map {
        Int(row[$0] ?? "") ?? -1
      }
      #expect(parts.reduce(0, +) == Int(row["misses"] ?? ""), "\(row)")
    }
    let report = try String(contentsOf: dir.appendingPathComponent("out/report.md"), encoding: .utf8)
    #expect(report.contains("Misses by cause"))
    let html = try String(contentsOf: dir.appendingPathComponent("out/report.html"), encoding: .utf8)
    #expect(html.contains("data-part=\"policy (Belady hits)\""))
    #expect(
      FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/figures/causes-zipf-0.9-500.svg").path))
  }

  @Test func explainTellsTheLifeOfAKey() throws {
    let dir = try Self.handTrace()
    let run = try evlab(["explain", "six.txt", "--policy", "lru", "--size", "2", "--key", "1"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("miss (compulsory)"))
    #expect(run.stdout.contains("miss (policy)"))
    #expect(run.stdout.contains("evicted (was: resident)"))
    #expect(run.stdout.contains("next request 4"))
    #expect(run.stdout.contains("2 counted requests for the key: 0 hits, 2 misses (1 compulsory, 1 policy)"))

    let around = try evlab(["explain", "six.txt", "--policy", "arc", "--size", "2", "--around", "4"], in: dir)
    #expect(around.status == 0, "\(around.stderr)")
    #expect(around.stdout.contains("a request for key 1"))
    #expect(around.stdout.contains("T1"))
  }

  @Test(arguments: [
    (["--key", "99"], "never requested"),
    (["--key", "1", "--around", "2"], "one of the two"),
    (["--around", "7"], "6 requests"),
    (["--key", "1", "--policy", "arc"], "one policy"),
  ])
  func explainRefusesWhatItCannotShow(extra: [String], message: String) throws {
    let dir = try Self.handTrace()
    let run = try evlab(["explain", "six.txt", "--policy", "lru", "--size", "2"] + extra, in: dir)
    #expect(run.status != 0)
    #expect(run.stderr.contains(message), "\(run.stderr)")
  }
}

/// The committed life of key 300 is what `explain` prints today, and the
/// docs quote its beginning.
@Suite struct AttributionResultsTests {
  @Test(arguments: ["lru", "s3fifo"])
  func theCommittedLifeIsCurrent(policy: String) throws {
    let committed = try String(
      contentsOf: repositoryRoot.appendingPathComponent("results/attribution/explain-\(policy).txt"), encoding: .utf8)
    let run = try evlab(
      [
        "explain", "traces/zipf-0.9.oracleGeneral.zst", "--policy", policy, "--size", "500", "--key", "300",
        "--events", "40",
      ], in: repositoryRoot)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == committed, "scripts/attribution.sh makes results/attribution/explain-\(policy).txt")
    guard policy == "s3fifo" else { return }
    let docs = try String(
      contentsOf: repositoryRoot.appendingPathComponent("docs/miss-attribution.md"), encoding: .utf8)
    let quoted = committed.split(separator: "\n", omittingEmptySubsequences: false).prefix(12).joined(separator: "\n")
    #expect(docs.contains(quoted), "docs/miss-attribution.md quotes the first 12 lines of explain-s3fifo.txt")
  }
}
