import EvictionCache
import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Synchronization
import Testing

@testable import EvictionLearned

/// 3L-Cache as a policy like any other (its rows beside libCacheSim's are in
/// LightGBMReferenceTests). Driven directly, not through the catalog.
@Suite struct ThreeLCacheTests {
  static func replay(capacity: Int64, batchSize: Int = 65_536) throws -> (ReplayCounts, LearningCounts) {
    var policy = ThreeLCachePolicy<IntegerSlotIndex<UInt64>>(capacity: capacity, batchSize: batchSize)
    let source = try TraceSource(
      checking: SharedData.trace("libcachesim/cloudPhysicsIO.oracleGeneral.bin"), formatName: "oracleGeneral")
    let counts = try TraceReplay.replay(source, through: &policy, sizeMode: .count)
    policy.checkInvariants()
    return (counts, policy.learning!)
  }

  /// Reproducible: two runs with many trainings agree, and the model decides.
  @Test func twoRunsAgree() throws {
    let (first, learnedFirst) = try Self.replay(capacity: 5_000, batchSize: 512)
    let (second, learnedSecond) = try Self.replay(capacity: 5_000, batchSize: 512)
    #expect(first.misses == second.misses)
    #expect(learnedFirst.trainings == learnedSecond.trainings && learnedFirst.trainings >= 10)
    let (untrained, learned) = try Self.replay(capacity: 5_000)
    #expect(learned.trainings == 0 && first.misses != untrained.misses)
  }

  @Test func aCacheLargerThanTheTraceMissesOnlyFirstRequests() throws {
    let (counts, learning) = try Self.replay(capacity: 60_000, batchSize: 16)
    #expect(counts.misses == 48_974 && learning.trainings == 0)
  }

  /// The conformance stream, unit and weighted (weights may be 0), with
  /// removals and small batches: the invariants hold throughout (the ring,
  /// the walk's pointer through swaps, remembered keys coming back), and
  /// trimming empties the cache.
  @Test(arguments: [false, true])
  func invariantsHoldWhileLearning(weighted: Bool) {
    let requests = PolicyConformance.requests(seed: 9, weighted: weighted, weightless: weighted, count: 20_000)
    for capacity: Int64 in weighted ? [64, 700, 5_000] : [1, 2, 3, 50, 400] {
      var policy = ThreeLCachePolicy<HashedSlotIndex<UInt64>>(capacity: capacity, batchSize: 300, rounds: 4)
      exercise(&policy, with: requests) { learning in
        if capacity >= 50 { #expect(learning!.trainings >= 3, "capacity \(capacity): retrains") }
      }
    }
  }

  @Test func drivesAMemoryCache() throws {
    let evicted = Mutex(0)
    let cache = try MemoryCache<UInt64, String>(
      policy: ThreeLCachePolicy<HashedSlotIndex<UInt64>>(capacity: 300, batchSize: 1_000),
      weighsCost: false, onEvict: { _, _, _ in evicted.withLock { $0 += 1 } })
    serveSkewedReads(cache, evicted: { evicted.withLock { $0 } })
  }
}
