import EvictionCore
import EvictionSim
import EvictionTraces
import Foundation
import Testing

/// Exact agreement with libCacheSim and with the ARC paper: a policy that is
/// off by one miss is wrong.
@Suite struct ReferenceTests {
  /// The reference's algorithm names for the catalog policies compared with it.
  static let policies = [
    "lru": "lru", "fifo": "fifo", "lfu": "lfu", "mru": "mru", "arc": "arc", "slru": "slru",
    "slru(n-seg=5)": "slru:segments=5", "random": "random", "clock": "clock", "sieve": "sieve", "s3fifo": "s3fifo", "2q": "2q", "lfuda": "lfuda",
  ]

  @Test func everyReferenceRowOfTheCatalogPoliciesAgrees() throws {
    let rows = try SharedData.table("reference/libcachesim_cloudPhysicsIO.tsv", separator: "\t")
      .filter { Self.policies[$0["algorithm"]!] != nil }
    #expect(rows.count >= 575, "the reference lost rows")
    let cells = try rows.map { row in
      ReplayCell(
        trace: TraceSource(
          path: SharedData.path("traces/libcachesim/" + row["trace"]!), format: try TraceFormat(name: row["format"]!)),
        policy: try PolicySpec(Self.policies[row["algorithm"]!]!), cacheSize: Int64(row["cache_size"]!)!,
        sizeMode: SizeMode(rawValue: row["size_mode"]!)!)
    }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    var formats = Set<String>()
    for (row, result) in zip(rows, results) {
      let what = "\(row["algorithm"]!) on \(row["trace"]!) at \(row["cache_size"]!) \(row["size_mode"]!)"
      formats.insert(row["format"]!)
      #expect(result.requests == Int64(row["n_req"]!)!, "\(what): requests")
      if row["algorithm"] == "random" {
        // libCacheSim's own generator: only the ratio is comparable.
        let reference = Double(row["miss_ratio_exact"]!)!
        #expect(abs(result.missRatio - reference) / reference < 0.01, "\(what): \(result.missRatio) vs \(reference)")
        continue
      }
      #expect(result.misses == Int64(row["n_miss"]!)!, "\(what): misses")
      if row["size_mode"] == "bytes" {
        #expect(result.bytesRequested == Int64(row["n_req_byte"]!)!, "\(what): bytes requested")
        #expect(result.bytesMissed == Int64(row["n_miss_byte"]!)!, "\(what): bytes missed")
      }
    }
    #expect(formats == ["txt", "csv", "vscsi", "oracleGeneral"])
  }

  @Test func arcPaperOLTPFiguresExactly() throws {
    let rows = try SharedData.table("traces/arc/REFERENCE_hit_ratios.csv", separator: ",").filter { $0["trace"] == "OLTP" }
    #expect(rows.count == 5)
    let trace = TraceSource(path: SharedData.path("traces/arc/OLTP.lis.zst"), format: .arc)
    var cells: [ReplayCell] = []
    for row in rows {
      for policy in ["lru", "arc"] {
        cells.append(ReplayCell(trace: trace, policy: try PolicySpec(policy), cacheSize: Int64(row["cache_pages"]!)!, sizeMode: .count))
      }
    }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    for (i, row) in rows.enumerated() {
      #expect(results[2 * i].requests == Int64(row["requests"]!)!)
      #expect(results[2 * i].hits == Int64(row["lru_hits"]!)!, "LRU at \(row["cache_pages"]!)")
      #expect(results[2 * i + 1].hits == Int64(row["arc_hits"]!)!, "ARC at \(row["cache_pages"]!)")
    }
  }

  @Test func randomIsReproducibleRunToRun() throws {
    let trace = TraceSource(path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)
    let a = try TraceReplay.run(trace, policy: PolicySpec("random:seed=7"), cacheSize: 2500, sizeMode: .count)
    let b = try TraceReplay.run(trace, policy: PolicySpec("random:seed=7"), cacheSize: 2500, sizeMode: .count)
    let c = try TraceReplay.run(trace, policy: PolicySpec("random:seed=8"), cacheSize: 2500, sizeMode: .count)
    #expect(a.misses == b.misses && a.bytesMissed == b.bytesMissed)
    #expect(a.misses != c.misses)
  }

  /// Tiling: copy k adds k·2^40 to every id, so the copies share no object
  /// and every copy after the first starts cold except for what fits.
  @Test func tiledCopiesShareNoObject() throws {
    let path = SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin")
    let one = try TraceReplay.run(TraceSource(path: path, format: .oracleGeneral), policy: PolicySpec("lru"), cacheSize: 500, sizeMode: .count)
    let three = try TraceReplay.run(
      TraceSource(path: path, format: .oracleGeneral, copies: 3), policy: PolicySpec("lru"), cacheSize: 500, sizeMode: .count)
    #expect(three.requests == 3 * one.requests)
    // At 500 objects the cache forgets the previous copy long before its end.
    #expect(three.misses == 3 * one.misses)
  }
}
