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

/// The first training batch of LRB and 3L-Cache, row for row libCacheSim's:
/// the same samples drawn (libstdc++'s draws replayed), labelled at the same
/// requests, with the same features. `results/reference/libcachesim_035_first_batch.tsv`
/// holds a digest of libCacheSim's (FNV-1a over the dense rows' `float`
/// bits, then the labels'), printed by `cachesim` with
/// `scripts/reference/lightgbm_first_batch.patch` applied.
@Suite struct FirstBatchTests {
  final class FirstBatch {
    var seen: (rows: Int, digest: UInt64)? = nil
  }

  static func digest(_ features: [Float], _ labels: [Float]) -> UInt64 {
    var hash: UInt64 = 1_469_598_103_934_665_603
    for value in features + labels {
      let bits = value.bitPattern
      for byte in 0..<4 {
        hash ^= UInt64((bits >> (8 * UInt32(byte))) & 0xff)
        hash = hash &* 1_099_511_628_211
      }
    }
    return hash
  }

  static func rows() throws -> [[String: String]] {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/libcachesim_035_first_batch.tsv"),
      encoding: .utf8)
    var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    let header = lines.removeFirst().map(String.init)
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0.map(String.init))) }
  }

  @Test func firstBatchesAreLibCacheSims() throws {
    let rows = try Self.rows()
    #expect(rows.count == 6)
    for row in rows {
      let capacity = Int64(row["cache_size"]!)!
      let first = FirstBatch()
      let record: ([Float], [Float]) -> Void = { features, labels in
        if first.seen == nil { first.seen = (labels.count, Self.digest(features, labels)) }
      }
      let source = try TraceSource(checking: SharedData.trace(row["trace"]!), formatName: "oracleGeneral")
      let mode: SizeMode = row["size_mode"] == "count" ? .count : .bytes
      if row["algorithm"] == "LRB" {
        var policy = LRBPolicy<IntegerSlotIndex<UInt64>>(capacity: capacity, rounds: 1)
        policy.learner.inspect = record
        _ = try TraceReplay.replay(source, through: &policy, sizeMode: mode)
      } else {
        var policy = ThreeLCachePolicy<IntegerSlotIndex<UInt64>>(capacity: capacity, rounds: 1)
        policy.learner.inspect = record
        _ = try TraceReplay.replay(source, through: &policy, sizeMode: mode)
      }
      let label = "\(row["algorithm"]!) \(row["size_mode"]!) \(capacity)"
      let batch = try #require(first.seen, "\(label): never trained")
      #expect(batch.rows == Int(row["rows"]!)!, "\(label)")
      #expect(String(batch.digest, radix: 16) == row["digest"]!.drop { $0 == "0" }, "\(label)")
    }
  }
}
