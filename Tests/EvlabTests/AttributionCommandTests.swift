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
      sizes = [500, 1000]
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
    // A stacked bar of causes at every size, not only the chart size.
    for size in [500, 1000] {
      let figure = dir.appendingPathComponent("out/figures/causes-zipf-0.9-\(size).svg").path
      #expect(FileManager.default.fileExists(atPath: figure), "no \(figure)")
    }
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

  /// Where two policies part: every request one missed and the other hit
  /// is counted once, the totals agree with replay's, and the top key's life
  /// is shown under both.
  @Test func explainVersusRanksTheKeysWhereTwoPoliciesPart() throws {
    let dir = try scratchDirectory()
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-scan.oracleGeneral.zst").path
    let run = try evlab(["explain", trace, "--policy", "lru", "--versus", "s3fifo", "--size", "500", "--top", "3"])
    #expect(run.status == 0, "\(run.stderr)")
    let replay = try evlab(["replay", trace, "--policy", "lru,s3fifo", "--size", "500", "--csv", "rows.csv"], in: dir)
    #expect(replay.status == 0, "\(replay.stderr)")
    let rows = try String(contentsOf: dir.appendingPathComponent("rows.csv"), encoding: .utf8).split(separator: "\n")
    let header = rows[0].split(separator: ",").map(String.init)
    let (policy, misses) = (header.firstIndex(of: "policy")!, header.firstIndex(of: "misses")!)
    var replayed: [String: Int] = [:]
    for row in rows.dropFirst() {
      let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      replayed[fields[policy]] = Int(fields[misses])
    }
    func number(_ pattern: String) -> Int? {
      guard let range = run.stdout.range(of: pattern, options: .regularExpression) else { return nil }
      // The number is the match's last word ("s3fifo 109,030." is 109030, not 3109030).
      let words = run.stdout[range].split(separator: " ")
      let last = words.last { $0.contains(where: \.isNumber) } ?? ""
      return Int(last.filter(\.isNumber))
    }
    let lru = try #require(number(#"lru missed [0-9,]+"#))
    let s3fifo = try #require(number(#"s3fifo [0-9,]+\."#))
    #expect(lru == replayed["lru"] && s3fifo == replayed["s3fifo"], "\(replayed)")
    let only = try #require(number(#"s3fifo hit [0-9,]+ requests"#))
    let other = try #require(number(#"the other way round [0-9,]+ requests"#))
    #expect(only - other == lru - s3fifo)
    #expect(run.stdout.contains("The keys where lru missed, s3fifo hit most often"))
    #expect(run.stdout.contains("The life of key ") && run.stdout.contains(", s3fifo beside it"))
    // Beside another online policy the misses are not split by cause (those are against Belady).
    #expect(!run.stdout.contains("(compulsory)"))
  }

  @Test(arguments: [
    (["--key", "99"], "never requested"),
    (["--key", "1", "--around", "2"], "one of the three"),
    (["--versus", "fifo", "--around", "2"], "leave it out with --versus"),
    (["--versus", "fifo,arc"], "name one policy"),
    (["--versus", "lru3"], "--versus: "),
    (["--key", "1", "--top", "3"], "--top is for --versus"),
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

/// What a hostile user tried, each now a clear answer.
@Suite struct AttributionEdgeTests {
  @Test func aRegretLinkedToTheCSVIsRefused() throws {
    let dir = try AttributionCommandTests.handTrace()
    try "old\n".write(to: dir.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: dir.appendingPathComponent("regret.json").path, withDestinationPath: "rows.csv")
    let run = try evlab(
      [
        "replay", "six.txt", "--policy", "lru", "--size", "2", "--attribution", "--regret", "regret.json", "--csv",
        "rows.csv",
      ], in: dir)
    #expect(run.status != 0)
    #expect(run.stderr.contains("would write the same file"), "\(run.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("rows.csv"), encoding: .utf8) == "old\n")
  }

  @Test func regretOnStandardOutputIsJSONAlone() throws {
    let dir = try AttributionCommandTests.handTrace()
    let run = try evlab(
      ["replay", "six.txt", "--policy", "lru", "--size", "2", "--attribution", "--regret", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    #expect(object?["cells"] != nil, "\(run.stdout)")
    let both = try evlab(
      ["replay", "six.txt", "--policy", "lru", "--size", "2", "--attribution", "--regret", "-", "--csv", "-"], in: dir)
    #expect(both.status != 0)
    #expect(both.stderr.contains("can go to standard output"), "\(both.stderr)")
  }

  /// Seeds average each count: the causes still add up to the row's misses and bytes.
  @Test func causesOfSeveralSeedsAddUp() throws {
    let dir = try scratchDirectory()
    let run = try evlab(
      [
        "compare", "--trace", AttributionCommandTests.zipf, "--policy", "random,randomtwo,lru-prob", "--size",
        "100,500", "--seeds", "1,2,3", "--attribution", "-o", "out",
      ], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let csv = try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8)
    let table = rows(csv)
    #expect(table.count == 6)
    for row in table {
      let misses = ["compulsory_misses", "capacity_misses", "policy_misses", "admission_misses"]
      let bytes = misses.map { $0.replacingOccurrences(of: "_misses", with: "_bytes_missed") }
      #expect(misses.map { Int(row[$0] ?? "") ?? -1 }.reduce(0, +) == Int(row["misses"] ?? ""), "\(row)")
      #expect(bytes.map { Int(row[$0] ?? "") ?? -1 }.reduce(0, +) == Int(row["bytes_missed"] ?? ""), "\(row)")
    }
  }

  /// A shard run with --attribution and one without are not one sweep.
  @Test func shardsThatDifferInAttributionDoNotMerge() throws {
    let dir = try scratchDirectory()
    let sweep = ["compare", "--trace", AttributionCommandTests.zipf, "--policy", "lru,arc", "--size", "500"]
    let one = try evlab(sweep + ["--shard", "1/2", "--attribution", "-o", "s1"], in: dir)
    let two = try evlab(sweep + ["--shard", "2/2", "-o", "s2"], in: dir)
    #expect(one.status == 0 && two.status == 0, "\(one.stderr)\(two.stderr)")
    let merge = try evlab(["merge", "s1", "s2", "-o", "merged"], in: dir)
    #expect(merge.status == 1)
    #expect(merge.stderr.contains("different sweeps"), "\(merge.stderr)")
    // Both with it: they merge, and the rows keep their causes.
    let two2 = try evlab(sweep + ["--shard", "2/2", "--attribution", "-o", "s2b"], in: dir)
    #expect(two2.status == 0)
    let merged = try evlab(["merge", "s1", "s2b", "-o", "merged2"], in: dir)
    #expect(merged.status == 0, "\(merged.stderr)")
    let csv = try String(contentsOf: dir.appendingPathComponent("merged2/results.csv"), encoding: .utf8)
    #expect(rows(csv).allSatisfy { $0["attribution_reference"] == "belady" }, "\(csv)")
  }

  @Test func explainTakesAKeyAsTheTraceWritesIt() throws {
    let dir = try scratchDirectory()
    try "0,foo,1\n1,bar,1\n2,foo,1\n".write(
      to: dir.appendingPathComponent("words.csv"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["explain", "words.csv", "--key-column", "2", "--policy", "lru", "--size", "1", "--key", "foo"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("key foo under lru"), "\(run.stdout)")
    #expect(run.stdout.contains("2 counted requests for the key: 0 hits, 2 misses"), "\(run.stdout)")
  }

  @Test func explainRefusesAWarmupThatCoversEverything() throws {
    let dir = try AttributionCommandTests.handTrace()
    let run = try evlab(
      ["explain", "six.txt", "--policy", "lru", "--size", "2", "--key", "1", "--warmup", "100"], in: dir)
    #expect(run.status == 1)
    #expect(run.stderr.contains("covers all 6 requests"), "\(run.stderr)")
    let zero = try evlab(["replay", "six.txt", "--policy", "lru", "--size", "2", "--warmup", "0"], in: dir)
    #expect(zero.status != 0)
    #expect(zero.stderr.contains("at least 1 request"), "\(zero.stderr)")
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
    let docs = try String(
      contentsOf: repositoryRoot.appendingPathComponent("docs/miss-attribution.md"), encoding: .utf8)
    let lines = policy == "s3fifo" ? 12 : 10
    let quoted = committed.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines)
      .joined(separator: "\n")
    #expect(docs.contains(quoted), "docs/miss-attribution.md quotes the first \(lines) lines of explain-\(policy).txt")
  }
}

/// `--attribution-reference`: misses split against FOO's or PFOO-U's schedule.
@Suite struct AttributionReferenceCommandTests {
  static let cloud = SharedData.trace("libcachesim/cloudPhysicsIO.oracleGeneral.bin")

  /// Against FOO-U's schedule, a miss the schedule shares is a capacity miss,
  /// so compulsory and capacity misses together never pass the schedule's
  /// own misses (`evlab bounds`' foo-u); against Belady they differ.
  @Test func causesAreSplitAgainstFOOsSchedule() throws {
    let dir = try scratchDirectory()
    let common = [
      "--policy", "lru,gdsf,belady-size", "--size-mode", "bytes", "--size", "5%", "--attribution", "--csv", "-",
    ]
    let foo = try evlab(["replay", Self.cloud] + common + ["--attribution-reference", "foo"], in: dir)
    #expect(foo.status == 0, "\(foo.stderr)")
    let bounds = try evlab(
      ["bounds", Self.cloud, "--size-mode", "bytes", "--size", "5%", "--methods", "foo", "--csv", "-"], in: dir)
    #expect(bounds.status == 0, "\(bounds.stderr)")
    let fooU = try #require(rows(bounds.stdout).first { $0["bound"] == "foo-u" })
    let upper = try #require(Double(fooU["misses"] ?? ""))
    let belady = try evlab(["replay", Self.cloud] + common, in: dir)
    for (row, against) in zip(rows(foo.stdout), rows(belady.stdout)) {
      #expect(row["attribution_reference"] == "foo" && against["attribution_reference"] == "belady")
      let causes = ["compulsory_misses", "capacity_misses", "policy_misses", "admission_misses"].map {
        Int(row[$0]!)!
      }
      #expect(causes.reduce(0, +) == Int(row["misses"]!)!, "\(row)")
      #expect(Double(causes[0] + causes[1]) <= upper, "\(row)")
      #expect(row["capacity_misses"] != against["capacity_misses"], "\(row)")
    }
  }

  @Test func compareCarriesTheReferenceToEveryRow() throws {
    let dir = try scratchDirectory()
    let run = try evlab(
      [
        "compare", "--trace", Self.cloud, "--policy", "lru,s3fifo", "--size-mode", "bytes", "--sizes", "1%",
        "--attribution-reference", "pfoo-u", "--output", "out",
      ], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let table = rows(try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8))
    #expect(!table.isEmpty && table.allSatisfy { $0["attribution_reference"] == "pfoo-u" }, "\(table)")
  }

  @Test(arguments: [
    (["--attribution-reference", "foo"], "--attribution"),
    (["--attribution", "--attribution-reference", "opt"], "use belady, foo or pfoo-u"),
    (["--attribution", "--attribution-reference", "foo", "--warmup", "100"], "solved over the whole trace"),
  ])
  func misuseSaysSo(extra: [String], message: String) throws {
    let dir = try scratchDirectory()
    let run = try evlab(["replay", Self.cloud, "--policy", "lru", "--size", "100"] + extra, in: dir)
    #expect(run.status != 0)
    #expect(run.stderr.contains(message), "\(run.stderr)")
  }
}
