import CXGBoost
import EvictionCache
import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Synchronization
import Testing

@testable import EvictionLearned

/// LRB's random draws against libstdc++'s, its tree walk against
/// XGBoost's, and LRB as a policy like any other (its rows beside
/// libCacheSim's are in LightGBMReferenceTests). Driven directly, not
/// through the catalog (see GLCacheTests).
@Suite struct LRBTests {
  typealias Policy = LRBPolicy<IntegerSlotIndex<UInt64>>

  static func replay(
    _ trace: String, capacity: Int64, mode: SizeMode, batchSize: Int = 131_072
  ) throws -> (ReplayCounts, LearningCounts) {
    var policy = Policy(capacity: capacity, batchSize: batchSize)
    let source = try TraceSource(checking: SharedData.trace(trace), formatName: "oracleGeneral")
    let counts = try TraceReplay.replay(source, through: &policy, sizeMode: mode)
    policy.checkInvariants()
    return (counts, policy.learning!)
  }

  /// libstdc++'s `minstd_rand0`, `uniform_int_distribution<size_t>` and
  /// `bernoulli_distribution`, draw for draw (2,000 draws of GCC 12's).
  @Test func randomDrawsAreLibstdcxxs() throws {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/libstdcxx_random.txt"),
      encoding: .utf8)
    var random = StdRandom()
    var checked = 0
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ")
      if parts[0] == "u" {
        #expect(random.any() == UInt64(parts[1])!, "draw \(checked)")
      } else {
        #expect(random.bernoulli(Double(parts[1])!) == (parts[2] == "1"), "draw \(checked)")
      }
      checked += 1
    }
    #expect(checked == 2_000)
  }

  /// The tree walk predicts what XGBoost predicts, bit for bit, on every
  /// training row of a model trained on rows like LRB's.
  @Test func treesPredictWhatXGBoostPredicts() throws {
    let learner = TreeLearner(width: 44, rounds: 32, leaves: 32, batchSize: 5_000, rankedRows: 1)
    var rng = SeededGenerator(seed: 11)
    let width = LRBPolicy<IntegerSlotIndex<UInt64>>.featureCount
    for _ in 0..<5_000 {
      var row = [Float](repeating: 0, count: width)
      row[0] = Float(rng.below(100_000))
      let gaps = Int(rng.below(32))
      for j in 0..<min(gaps, 31) { row[j + 1] = Float(rng.below(50_000)) }
      row[32] = Float(rng.below(4_096) + 1)
      row[33] = Float(gaps)
      for k in 0..<10 { row[34 + k] = Float(rng.below(1_000)) / 100 }
      learner.features += row
      learner.labels.append(Float(log1p(Double(row[0]) + Double(row[1]) / 2)))
    }
    let features = learner.features
    learner.fit()
    #expect(learner.trainings == 1 && learner.labels.isEmpty && !learner.model.isEmpty)
    #expect(learner.model.roots.count == 32)
    let matrix = features.withUnsafeBufferPointer {
      XGBoost.matrix($0.baseAddress!, rows: 5_000, columns: width, missing: .nan)
    }
    defer { XGBoost.free(matrix: matrix) }
    var length: bst_ulong = 0
    var result: UnsafePointer<Float>? = nil
    XGBoost.check(XGBoosterPredict(learner.booster, matrix, 0, 0, 0, &length, &result), "XGBoosterPredict")
    #expect(length == 5_000)
    var differing = 0
    features.withUnsafeBufferPointer { rows in
      for i in 0..<5_000 where learner.model.predict(rows.baseAddress! + i * width) != result![i] { differing += 1 }
    }
    #expect(differing == 0, "\(differing) of 5,000 predictions differ from XGBoost's")
  }

  /// Training is reproducible (one thread, seeded sampling): a small batch
  /// makes it train often, and two runs agree.
  @Test func twoRunsAgree() throws {
    let trace = "libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    let (first, learnedFirst) = try Self.replay(trace, capacity: 5_000, mode: .count, batchSize: 4_096)
    let (second, learnedSecond) = try Self.replay(trace, capacity: 5_000, mode: .count, batchSize: 4_096)
    #expect(first.misses == second.misses)
    #expect(learnedFirst.trainings == learnedSecond.trainings && learnedFirst.trainings >= 10)
    let (untrained, _) = try Self.replay(trace, capacity: 5_000, mode: .count)
    #expect(first.misses != untrained.misses, "the model decides evictions once trained")
  }

  /// A cache holding the whole trace never evicts, never samples, never trains.
  @Test func aCacheLargerThanTheTraceMissesOnlyFirstRequests() throws {
    let (counts, learning) = try Self.replay(
      "libcachesim/cloudPhysicsIO.oracleGeneral.bin", capacity: 60_000, mode: .count, batchSize: 16)
    #expect(counts.misses == 48_974 && learning.trainings == 0)
  }

  /// The conformance stream, unit and weighted (weights may be 0), with
  /// removals, a short memory window (keys forgotten, idle residents
  /// dropped whole) and small batches: the invariants hold throughout, and
  /// trimming empties the cache.
  @Test(arguments: [false, true])
  func invariantsHoldWhileLearning(weighted: Bool) {
    let requests = PolicyConformance.requests(seed: 7, weighted: weighted, weightless: weighted, count: 20_000)
    for capacity: Int64 in weighted ? [64, 700, 5_000] : [1, 2, 50, 400] {
      for window: UInt32 in [1_024, 67_108_864] {
        var policy = LRBPolicy<HashedSlotIndex<UInt64>>(
          capacity: capacity, sampleRate: 8, memoryWindow: window, batchSize: 500, rounds: 4)
        exercise(&policy, with: requests) { learning in
          if capacity >= 50 { #expect(learning!.trainings > 5, "capacity \(capacity), window \(window)") }
        }
      }
    }
  }

  /// The policy behind a `MemoryCache`: values come back while resident,
  /// sets without a read first count, and it trains.
  @Test func drivesAMemoryCache() throws {
    let evicted = Mutex(0)
    let policy = LRBPolicy<HashedSlotIndex<UInt64>>(capacity: 300, batchSize: 2_000)
    let cache = try MemoryCache<UInt64, String>(
      policy: policy, weighsCost: false, onEvict: { _, _, _ in evicted.withLock { $0 += 1 } })
    serveSkewedReads(cache, evicted: { evicted.withLock { $0 } })
  }
}
