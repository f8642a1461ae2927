import EvictionExperiments
import EvictionSim
import Foundation
import Testing

/// `evlab replay --penalty` and `evlab compare --penalty`: the columns a
/// weighed run adds, the table's column, the report's, the merge's checks
/// and the refusals.
@Suite struct PenaltyCommandTests {
  static let gcc = sharedTraces + "/caffeine/address/penalties/gcc.trace.xz"

  @Test func aWeighedReplayAddsItsColumns() throws {
    let run = try evlab([
      "replay", Self.gcc, "--format", "address-penalties", "--policy", "lru,camp,gdwheel", "--size", "1000",
      "--penalty", "trace", "--csv", "-",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let table = rows(run.stdout)
    #expect(table.count == 3)
    for row in table {
      #expect(row["penalty_model"] == "trace")
      let (hit, miss, total, average) = (
        Double(row["hit_penalty"]!)!, Double(row["miss_penalty"]!)!, Double(row["total_penalty"]!)!,
        Double(row["average_penalty"]!)!
      )
      #expect(total == hit + miss)
      #expect(abs(average - total / Double(row["requests"]!)!) <= 1e-9 * average)
      // gcc's hits cost 1 each.
      #expect(hit == Double(row["hits"]!)!)
    }
    let terminal = try evlab([
      "replay", Self.gcc, "--format", "address-penalties", "--policy", "camp", "--size", "1000", "--penalty", "trace",
    ])
    #expect(terminal.stdout.contains("penalty/request"), "\(terminal.stdout)")
    // Without --penalty, no penalty column.
    let plain = try evlab([
      "replay", Self.gcc, "--format", "address-penalties", "--policy", "lru", "--size", "1000", "--csv", "-",
    ])
    #expect(plain.status == 0 && !plain.stdout.contains("penalty"), "\(plain.stdout)")
  }

  @Test(arguments: [
    (["--penalty", "trace"], "carries none"),
    (["--penalty", "size:base=1"], "needs per-byte"),
    (["--penalty", "-5"], "0 to 1e15"),
    (["--penalty", "5", "--attribution"], "not yet replayed with"),
    (["--penalty", "5", "--use-ttl"], "not yet replayed with"),
  ])
  func badPenaltiesAreRefusedBeforeWork(extra: [String], says: String) throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2"] + extra, in: dir)
    #expect(run.status == 1, "\(extra)")
    #expect(run.stderr.contains(says), "\(extra): \(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    #expect(run.stdout.isEmpty)
  }

  static let weighedCells = ["--policy", "lru,camp,gdwheel", "--size", "500,2000", "--penalty", "trace"]

  /// A sweep's rows carry the penalties `replay` pays for the same cells;
  /// its report and its summary name the cheapest policy; shards merge
  /// into the same rows.
  @Test func aWeighedSweepPaysWhatReplayPays() throws {
    let dir = try scratchDirectory()
    let sweep = ["compare", "--trace", Self.gcc, "--format", "address-penalties"] + Self.weighedCells
    let whole = try evlab(sweep + ["-o", "whole"], in: dir)
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(whole.stdout.contains("Cheapest under trace"), "\(whole.stdout)")
    let text = try String(contentsOf: dir.appendingPathComponent("whole/results.csv"), encoding: .utf8)
    let compared = rows(text)
    #expect(compared.count == 6)
    let replay = try evlab(["replay", Self.gcc, "--format", "address-penalties"] + Self.weighedCells + ["--csv", "-"])
    #expect(replay.status == 0, "\(replay.stderr)")
    let replayed = rows(replay.stdout)
    for row in compared {
      let twin = replayed.first { $0["policy"] == row["policy"] && $0["cache_size"] == row["cache_size"] }
      #expect(twin != nil && row["penalty_model"] == "trace")
      for column in ["misses", "total_penalty", "average_penalty", "hit_penalty", "miss_penalty"] {
        #expect(
          row[column].flatMap(Double.init) == twin?[column].flatMap(Double.init), "\(column): \(row) \(twin ?? [:])")
      }
    }
    let report = try String(contentsOf: dir.appendingPathComponent("whole/report.md"), encoding: .utf8)
    #expect(report.contains("| penalty/request |") && report.contains("Cheapest under trace: **"), "\(report)")
    let html = try String(contentsOf: dir.appendingPathComponent("whole/report.html"), encoding: .utf8)
    #expect(html.contains("<th>penalty/request</th>") && html.contains("class=\"cheapest\""))
    for shard in 1...2 {
      let run = try evlab(sweep + ["--shard", "\(shard)/2", "-o", "s\(shard)"], in: dir)
      #expect(run.status == 0, "\(run.stderr)")
    }
    let merged = try evlab(["merge", "s1", "s2", "-o", "merged"], in: dir)
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("merged/results.csv"), encoding: .utf8) == text)
    // Unweighed, a sweep's rows keep exactly their columns.
    let plain = try evlab(
      ["compare", "--trace", Self.gcc, "--format", "address-penalties", "--policy", "lru", "--size", "500", "-o", "p"],
      in: dir)
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(!(try String(contentsOf: dir.appendingPathComponent("p/results.csv"), encoding: .utf8)).contains("penalty"))
  }

  /// A shard's penalties are checked against the configuration's model and
  /// against the counts, even with digests computed again.
  @Test func forgedPenaltiesDoNotMerge() throws {
    let dir = try scratchDirectory()
    for shard in 1...2 {
      let run = try evlab(
        [
          "compare", "--trace", AttributionCommandTests.zipf, "--policy", "lru,arc", "--size", "500,1000",
          "--penalty", "constant:miss=5,hit=1", "--shard", "\(shard)/2", "-o", "s\(shard)",
        ], in: dir)
      #expect(run.status == 0, "\(run.stderr)")
    }
    let parts = try ComparePartial.load([dir.appendingPathComponent("s1").path, dir.appendingPathComponent("s2").path])
    _ = try ComparePartial.merge(parts)
    func refusal(_ edit: (inout ReplayResult) -> Void) -> String {
      let forged = parts.map { part in
        var partial = part.partial
        if partial.shard == 1 { edit(&partial.results[0]) }
        partial.countsDigest = ComparePartial.countsDigest(
          runs: partial.runs, results: partial.results, intervals: partial.intervals, traces: partial.traces,
          stress: partial.stress, disk: partial.disk)
        return (part.path, partial)
      }
      do {
        _ = try ComparePartial.merge(forged)
        return "merged"
      } catch {
        return error.description
      }
    }
    let relabelled = refusal { $0.fields.penaltyModel = "constant:miss=50,hit=1" }
    #expect(relabelled.contains("weighs its requests by constant:miss=50,hit=1"), "\(relabelled)")
    let dropped = refusal { $0.fields.penaltyModel = nil }
    #expect(dropped.contains("weighs nothing"), "\(dropped)")
    let halved = refusal { $0.fields.totalPenalty! /= 2 }
    #expect(halved.contains("no replay pays"), "\(halved)")
    // Cheaper misses, kept consistent with the total and the average: not 5 a miss.
    let cheaper = refusal { result in
      result.fields.missPenalty! /= 2
      result.fields.totalPenalty = result.fields.hitPenalty! + result.fields.missPenalty!
      result.fields.averagePenalty = result.fields.totalPenalty! / Double(result.requests)
    }
    #expect(cheaper.contains("no replay pays"), "\(cheaper)")
    let negative = refusal { $0.fields.hitPenalty = -1 }
    #expect(negative.contains("no replay pays"), "\(negative)")
  }

  /// A size model's sums follow from the counts: shards of a sweep on a
  /// trace without sizes (each request weighs 1) and on one with sizes merge
  /// as written, and a miss penalty moved off its price does not.
  @Test func sizeModelsAreCheckedAgainstTheBytesMissed() throws {
    let dir = try scratchDirectory()
    let loop = sharedTraces + "/caffeine/lirs/loop.trace.gz"
    let traces = [
      ("loop", ["--trace", loop, "--format", "lirs"]), ("zipf", ["--trace", AttributionCommandTests.zipf]),
    ]
    for (name, trace) in traces {
      for shard in 1...2 {
        let run = try evlab(
          ["compare"] + trace + [
            "--policy", "lru,camp", "--size", "300,600", "--penalty", "size:base=2,per-byte=0.25,hit=0.5",
            "--shard", "\(shard)/2", "-o", "\(name)\(shard)",
          ], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
      }
      let parts = try ComparePartial.load(["\(name)1", "\(name)2"].map { dir.appendingPathComponent($0).path })
      _ = try ComparePartial.merge(parts)
      let forged = parts.map { part in
        var partial = part.partial
        if partial.shard == 1 {
          // A hundredth more on the misses, the total and the average kept consistent.
          let more = partial.results[0].missPenalty! / 100
          partial.results[0].fields.missPenalty! += more
          partial.results[0].fields.totalPenalty! += more
          let result = partial.results[0]
          partial.results[0].fields.averagePenalty = result.totalPenalty! / Double(result.requests)
        }
        partial.countsDigest = ComparePartial.countsDigest(
          runs: partial.runs, results: partial.results, intervals: partial.intervals, traces: partial.traces,
          stress: partial.stress, disk: partial.disk)
        return (part.path, partial)
      }
      #expect(throws: CompareError.self, "\(name)") { _ = try ComparePartial.merge(forged) }
    }
  }

  /// What `compare` refuses before any work: a model no trace of the sweep
  /// can price, a model beside a configuration, and the settings a weighed
  /// replay does not take.
  @Test func aSweepRefusesPenaltiesItCannotPrice() throws {
    let dir = try scratchDirectory()
    func config(_ body: String) throws -> String {
      let path = dir.appendingPathComponent("c\(abs(body.hashValue)).toml").path
      try ("policies = [\"lru\"]\nsizes = [100]\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
      return path
    }
    let synthetic = try config(
      "penalty = \"trace\"\n[[traces]]\nname = \"z\"\ngenerate = \"zipf\"\nobjects = 1000\nrequests = 5000\n")
    let plainTrace = try config("penalty = \"trace\"\n[[traces]]\npath = \"\(AttributionCommandTests.zipf)\"\n")
    let attributed = try config(
      "penalty = 5\nattribution = true\n[[traces]]\npath = \"\(AttributionCommandTests.zipf)\"\n")
    let badModel = try config("penalty = \"size:base=1\"\n[[traces]]\npath = \"\(AttributionCommandTests.zipf)\"\n")
    for (arguments, says) in [
      (["--config", synthetic], "generated workload"),
      (["--config", plainTrace], "carries none"),
      (["--config", attributed], "penalty is not yet replayed with attribution"),
      (["--config", badModel], "needs per-byte"),
      (["--config", badModel, "--penalty", "5"], "give either --config or"),
      (
        ["--trace", AttributionCommandTests.zipf, "--policy", "lru", "--size", "100", "--penalty", "trace"],
        "carries none"
      ),
    ] {
      let run = try evlab(["compare"] + arguments + ["-o", "out"], in: dir)
      #expect(run.status != 0, "\(arguments)")
      #expect(run.stderr.contains(says), "\(arguments): \(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path), "\(arguments)")
    }
    // A synthetic workload priced by a model: every seed's run pays, the row their mean.
    let sized = try config(
      "penalty = \"size:base=10,per-byte=0.5\"\nseeds = [1, 2]\n[[traces]]\nname = \"z\"\ngenerate = \"zipf\"\n"
        + "objects = 1000\nrequests = 5000\n")
    let run = try evlab(["compare", "--config", sized, "-o", "sized"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let row = rows(try String(contentsOf: dir.appendingPathComponent("sized/results.csv"), encoding: .utf8))[0]
    #expect(row["runs"] == "2" && row["penalty_model"] == "size:base=10,per-byte=0.5,hit=0")
    let (misses, missPenalty) = (Double(row["misses"]!)!, Double(row["miss_penalty"]!)!)
    // Each miss costs 10 plus half its bytes, so at least 10.
    #expect(missPenalty >= 10 * misses * 0.99 && Double(row["hit_penalty"]!)! == 0, "\(row)")
  }
}
