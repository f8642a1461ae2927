import EvictionCache
import EvictionCore
import EvictionExperiments
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Synchronization
import Testing

/// The same code, the same answer: a `MemoryCache` driven read-through (get,
/// then set on a miss) on one thread hits exactly where `evlab replay` does,
/// for every catalog policy that runs online, in both size modes (heavy
/// entries refused and the policy sized as the replay's, `.refuse`).
@Suite struct CacheAgreesWithReplayTests {
  static let trace = TraceSource(
    path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)

  @Test(
    arguments: PolicyCatalog.entries.filter { !PolicyCatalog.offline.contains($0.name) && !$0.trimsOnATimer }.map(
      \.name))
  func readThroughCacheHitsWhereTheReplayHits(policy: String) throws {
    let records = try openTrace(Self.trace.path, format: .oracleGeneral).readAll()
    for (mode, size) in [(SizeMode.count, Int64(2_500)), (.bytes, Int64(256 << 20))] {
      var recorder = HitRecorder(trace: Self.trace, sizeMode: mode)
      let replayHits = try PolicySpec(policy).withPolicy(
        capacity: size, index: IntegerSlotIndex<UInt64>.self, visitor: &recorder
      ).get()
      // The cache's clock shows the trace's time (the disk models trim on it).
      let traceTime = Atomic<UInt64>(0)
      let cache = try MemoryCache<UInt64, UInt64>(
        policy: CachePolicy(policy), index: IntegerSlotIndex<UInt64>.self,
        countLimit: mode == .count ? Int(size) : nil, costLimit: mode == .bytes ? Int(size) : nil,
        clock: { traceTime.load(ordering: .relaxed) }, heavyEntries: .refuse)
      var cacheHits: [Bool] = []
      cacheHits.reserveCapacity(records.count)
      for record in records {
        traceTime.store(UInt64(record.time) * 1_000_000_000, ordering: .relaxed)
        if cache.value(forKey: record.key) != nil {
          cacheHits.append(true)
        } else {
          cacheHits.append(false)
          cache.setValue(record.key, forKey: record.key, cost: Int(record.size))
        }
      }
      #expect(cacheHits.count == replayHits.count)
      let firstDifference = zip(cacheHits, replayHits).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      #expect(firstDifference == nil, "\(policy) \(mode): first differs at request \(firstDifference ?? -1)")
      cache.checkInvariants()
    }
  }
}

/// Replays a trace through a freshly built policy and keeps the hit sequence.
struct HitRecorder: PolicyVisitor {
  typealias Key = UInt64
  let trace: TraceSource
  let sizeMode: SizeMode

  func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Result<[Bool], TraceError>
  where Policy.Key == UInt64 {
    var policy = policy
    var hits: [Bool] = []
    return Result { () throws(TraceError) in
      _ = try TraceReplay.replay(trace, through: &policy, sizeMode: sizeMode) { _, hit in hits.append(hit) }
      return hits
    }
  }
}
