import EvictionCache
import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Synchronization
import Testing

@testable import EvictionLearned

/// GL-Cache against libCacheSim 0.3.5 built with XGBoost 1.7.4, and as a
/// policy like any other. The policy is driven directly here, not through
/// the catalog: registering it would change the catalog other suites of the
/// same test process enumerate (`evlab`, which registers it, is tested in
/// EvlabTests).
@Suite struct GLCacheTests {
  typealias Policy = GLCachePolicy<IntegerSlotIndex<UInt64>>

  /// The rows to agree with: the shared reference's GL-Cache rows (never
  /// trained: both traces are shorter than a day) and ours with training
  /// every 60 or 600 s (`results/reference/libcachesim_035_glcache.tsv`).
  static func rows() throws -> [[String: String]] {
    let shared = try SharedData.table("reference/libcachesim_035.tsv", separator: "\t").filter {
      $0["algorithm"] == "GLCache"
    }
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/libcachesim_035_glcache.tsv"),
      encoding: .utf8)
    var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    let header = lines.removeFirst().map(String.init)
    let ours = lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0.map(String.init))) }
    return shared + ours
  }

  static func mode(_ row: [String: String]) -> SizeMode { row["size_mode"] == "count" ? .count : .bytes }

  /// Replays `row`'s trace through a fresh GL-Cache with the row's settings.
  static func replay(_ row: [String: String], retrain: Int64? = nil) throws -> (ReplayCounts, LearningCounts?) {
    let params = row["eviction_params"] ?? ""
    let interval =
      retrain ?? params.split(separator: "=").last.flatMap { Int64($0) }.map { params.isEmpty ? 86_400 : $0 }
      ?? 86_400
    var policy = Policy(capacity: Int64(row["cache_size"]!)!, retrainInterval: interval)
    let source = try TraceSource(checking: SharedData.trace(row["trace"]!), formatName: row["format"])
    let counts = try TraceReplay.replay(source, through: &policy, sizeMode: mode(row))
    policy.checkInvariants()
    return (counts, policy.learning)
  }

  @Test func everyRowOfLibCacheSimIsMatchedMissForMiss() throws {
    let rows = try Self.rows()
    #expect(rows.count == 27, "12 shared rows and 15 trained ones: \(rows.count)")
    var trained = 0
    for row in rows {
      let (counts, learning) = try Self.replay(row)
      let label = "\(row["trace"]!) \(row["eviction_params"]!) \(row["size_mode"]!) \(row["cache_size"]!)"
      #expect(counts.requests == Int64(row["n_req"]!)!, "\(label)")
      #expect(counts.misses == Int64(row["n_miss"]!)!, "\(label): \(counts.misses) misses")
      if Self.mode(row) == .bytes {
        #expect(counts.bytesMissed == Int64(row["n_miss_byte"]!)!, "\(label): \(counts.bytesMissed) bytes missed")
      }
      if row["eviction_params"]!.isEmpty {
        #expect(learning?.trainings == 0, "\(label): the trace is shorter than a day")
      } else if learning!.trainings > 0 {
        trained += 1
      }
    }
    #expect(trained == 15, "every row with a short interval trains")
  }

  /// Training is deterministic (one thread, no sampling): the same run twice
  /// gives the same misses and trainings.
  @Test func twoRunsAgree() throws {
    let row = [
      "trace": "libcachesim/cloudPhysicsIO.oracleGeneral.bin", "format": "oracleGeneral", "cache_size": "10000",
      "size_mode": "count", "eviction_params": "retrain-intvl=120",
    ]
    let (first, learnedFirst) = try Self.replay(row)
    let (second, learnedSecond) = try Self.replay(row)
    #expect(first.misses == second.misses && first.bytesMissed == second.bytesMissed)
    #expect(learnedFirst!.trainings == learnedSecond!.trainings && learnedFirst!.trainings > 20)
    #expect(learnedFirst!.seconds > 0)
  }

  /// A cache that holds the whole trace never evicts, so never trains, and
  /// misses each object once.
  @Test func aCacheLargerThanTheTraceMissesOnlyFirstRequests() throws {
    let row = [
      "trace": "libcachesim/cloudPhysicsIO.oracleGeneral.bin", "format": "oracleGeneral", "cache_size": "60000",
      "size_mode": "count", "eviction_params": "retrain-intvl=60",
    ]
    let (counts, learning) = try Self.replay(row)
    #expect(counts.misses == 48_974, "the trace's distinct objects")
    #expect(learning?.trainings == 0)
  }

  /// Copies of a trace restart its timestamps; the clock holds instead of
  /// going back, so later copies train as the first did.
  @Test func copiesOfATraceKeepTraining() throws {
    let path = SharedData.trace("libcachesim/cloudPhysicsIO.oracleGeneral.bin")
    func trainings(copies: Int) throws -> Int64 {
      var policy = Policy(capacity: 1000, retrainInterval: 60)
      let source = TraceSource(path: path, format: .oracleGeneral, copies: copies)
      _ = try TraceReplay.replay(source, through: &policy, sizeMode: .count)
      return policy.learning!.trainings
    }
    let once = try trainings(copies: 1)
    #expect(once == 107)
    #expect(try trainings(copies: 3) >= 3 * once - 3)
  }

  /// Requests a policy must survive: the conformance battery's stream (hot
  /// set, loop, scan; 50 requests a second, so the model trains every 2 s),
  /// unit and weighted, with removals, the invariants checked throughout.
  /// With `rank-intvl` 1 the position in a ranking runs to its end (where
  /// libCacheSim's array holds stale segments); every weight may be 0.
  @Test(arguments: [(false, 0.02), (true, 0.02), (false, 1.0), (true, 1.0)])
  func invariantsHoldWhileLearning(weighted: Bool, rankInterval: Double) {
    let requests = PolicyConformance.requests(seed: 5, weighted: weighted, weightless: weighted, count: 20_000)
    for capacity: Int64 in weighted ? [64, 700, 5_000] : [1, 2, 50, 250, 400, 1_000] {
      var policy = GLCachePolicy<HashedSlotIndex<UInt64>>(
        capacity: capacity, segmentSize: 4, rankInterval: rankInterval, retrainInterval: 1)
      // Trains from the first eviction at a time above 0 (libCacheSim's rule):
      // at the smaller capacities that eviction comes in the first second.
      exercise(&policy, with: requests) { learning in
        if !weighted && capacity >= 250 { #expect(learning!.trainings > 100, "capacity \(capacity)") }
      }
    }
  }

  /// The policy behind a `MemoryCache`: values come back while resident,
  /// evictions are reported, and a clock the test moves makes it train.
  @Test func drivesAMemoryCache() throws {
    let seconds = Mutex<UInt64>(0)
    let evicted = Mutex(0)
    let cache = try MemoryCache<UInt64, String>(
      policy: GLCachePolicy<HashedSlotIndex<UInt64>>(capacity: 300, segmentSize: 20, retrainInterval: 5),
      weighsCost: false, clock: { seconds.withLock { $0 } * 1_000_000_000 },
      onEvict: { _, _, _ in evicted.withLock { $0 += 1 } })
    serveSkewedReads(cache, evicted: { evicted.withLock { $0 } }) { i in
      if i % 100 == 0 { seconds.withLock { $0 += 1 } }
    }
  }
}
