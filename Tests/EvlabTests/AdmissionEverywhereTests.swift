import EvictionCore
import EvictionTestSupport
import Foundation
import Testing

/// `--admission` on replay, mrc and stress: one gate in front of one policy,
/// so the three agree where their runs are the same run.
@Suite struct AdmissionEverywhereTests {
  @Test func replayMRCAndOneThreadStressAgreeBehindEachAdmission() throws {
    let dir = try scratchDirectory()
    var rng = SeededGenerator(seed: 5)
    try (0..<4_000).map { _ in String(rng.below(10) < 6 ? rng.below(60) : rng.below(3_000)) }
      .joined(separator: "\n").write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let admissions = "none,bloom-filter,prob:p=0.3"
    let expected = ["none", "bloom-filter", "prob:p=0.3"]
    for policy in ["lru", "s3fifo"] {
      let replay = try evlab(
        ["replay", "t.txt", "--policy", policy, "--size", "50", "--admission", admissions, "--csv", "-"], in: dir)
      let mrc = try evlab(
        ["mrc", "t.txt", "--policy", policy, "--sizes", "50", "--admission", admissions, "--csv", "-"], in: dir)
      let stress = try evlab(
        [
          "stress", "t.txt", "--policy", policy, "--size", "50", "--admission", admissions, "--threads", "1",
          "--lock", "mutex", "--csv", "-",
        ], in: dir)
      for run in [replay, mrc, stress] { #expect(run.status == 0, "\(run.stderr)") }
      var missRatios: [String: [Double]] = [:]
      for row in rows(replay.stdout) { missRatios[row["admission"]!, default: []].append(Double(row["miss_ratio"]!)!) }
      for row in rows(mrc.stdout) {
        let method = row["admission"] == "none" && policy == "lru" ? "exact" : "simulate"
        #expect(row["method"] == method, "a curve behind an admission is simulated")
        missRatios[row["admission"]!, default: []].append(Double(row["miss_ratio"]!)!)
      }
      for row in rows(stress.stdout) where row["lock"] == "mutex" {
        missRatios[row["admission"]!, default: []].append(1 - Double(row["hit_ratio"]!)!)
      }
      try #require(Set(missRatios.keys) == Set(expected))
      for (admission, ratios) in missRatios {
        #expect(ratios.count == 3, "\(policy) + \(admission): \(ratios)")
        #expect(ratios.max()! - ratios.min()! < 1e-9, "\(policy) + \(admission): \(ratios)")
      }
      // The gates do something: each admission's miss ratio differs from none's.
      let none = missRatios["none"]![0]
      #expect(missRatios["bloom-filter"]![0] != none && missRatios["prob:p=0.3"]![0] != none)
    }
  }

  @Test func stackDistanceCurvesRefuseAnAdmission() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n3\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    for method in [["--method", "exact"], ["--method", "shards", "--max-objects", "10"]] {
      let run = try evlab(
        ["mrc", "t.txt", "--policy", "lru", "--sizes", "2", "--admission", "bloom-filter"] + method, in: dir)
      #expect(run.status != 0 && run.stderr.contains("simulate"), "\(method): \(run.stderr)")
    }
    let stress = try evlab(
      ["stress", "t.txt", "--size", "2", "--admission", "size:max=10", "--threads", "1", "--lock", "mutex"], in: dir)
    #expect(stress.status != 0 && stress.stderr.contains("--size-mode bytes"), "\(stress.stderr)")
  }
}
