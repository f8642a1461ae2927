import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionLearned

/// LRB and 3L-Cache beside libCacheSim 0.3.5 built with LightGBM 4.6.0
/// (`results/reference/libcachesim_035_lightgbm.tsv`). Both tools decide
/// when the first training comes by the same rules (and the same random
/// draws), so a row ours never trained in is LRU in both and must match to
/// the miss; a trained row has XGBoost's trees here and LightGBM's there,
/// and must come within a point of libCacheSim's miss ratio.
@Suite struct LightGBMReferenceTests {
  static func rows(_ algorithm: String) throws -> [[String: String]] {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/libcachesim_035_lightgbm.tsv"),
      encoding: .utf8)
    var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    let header = lines.removeFirst().map(String.init)
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0.map(String.init))) }.filter {
      $0["algorithm"] == algorithm
    }
  }

  static func replay<Policy: ReplacementPolicy & ~Copyable>(
    _ row: [String: String], through policy: inout Policy
  ) throws -> ReplayCounts where Policy.Key == UInt64 {
    let source = try TraceSource(checking: SharedData.trace(row["trace"]!), formatName: "oracleGeneral")
    return try TraceReplay.replay(source, through: &policy, sizeMode: row["size_mode"] == "count" ? .count : .bytes)
  }

  static func check(_ row: [String: String], counts: ReplayCounts, trainings: Int64) throws {
    let label = "\(row["algorithm"]!) \(row["trace"]!) \(row["size_mode"]!) \(row["cache_size"]!)"
    #expect(counts.requests == Int64(row["n_req"]!)!, "\(label)")
    if trainings == 0 {
      #expect(counts.misses == Int64(row["n_miss"]!)!, "\(label): \(counts.misses) misses")
      if row["size_mode"] == "bytes" { #expect(counts.bytesMissed == Int64(row["n_miss_byte"]!)!, "\(label)") }
      var lru = LRUPolicy<IntegerSlotIndex<UInt64>>(capacity: Int64(row["cache_size"]!)!)
      #expect(try replay(row, through: &lru).misses == counts.misses, "\(label): untrained is LRU")
    } else {
      let theirs = Double(row["n_miss"]!)! / Double(row["n_req"]!)!
      let ours = Double(counts.misses) / Double(counts.requests)
      #expect(abs(ours - theirs) < 0.01, "\(label): ours \(ours), libCacheSim's \(theirs)")
    }
  }

  /// Every row but the two slowest (LRB ranks 64 residents on each of
  /// 330,000 evictions there; `scripts/learned-lightgbm.sh` runs them).
  @Test func lrbBesideLibCacheSim() throws {
    let rows = try Self.rows("LRB")
    #expect(rows.count == 12)
    var trained = 0
    for row in rows where !["1000", "1048576"].contains(row["cache_size"]!) || !row["trace"]!.contains("twitter") {
      var policy = LRBPolicy<IntegerSlotIndex<UInt64>>(capacity: Int64(row["cache_size"]!)!)
      let counts = try Self.replay(row, through: &policy)
      policy.checkInvariants()
      let trainings = policy.learning!.trainings
      if trainings > 0 { trained += 1 }
      try Self.check(row, counts: counts, trainings: trainings)
    }
    #expect(trained == 3, "Twitter's 10,000 and 50,000 objects and 4 MiB train")
  }

  @Test func threeLCacheBesideLibCacheSim() throws {
    let rows = try Self.rows("3LCache")
    #expect(rows.count == 12)
    var trained = 0
    for row in rows {
      var policy = ThreeLCachePolicy<IntegerSlotIndex<UInt64>>(capacity: Int64(row["cache_size"]!)!)
      let counts = try Self.replay(row, through: &policy)
      policy.checkInvariants()
      let trainings = policy.learning!.trainings
      if trainings > 0 { trained += 1 }
      try Self.check(row, counts: counts, trainings: trainings)
    }
    #expect(trained == 5, "every Twitter row but 16 MiB trains")
  }
}
