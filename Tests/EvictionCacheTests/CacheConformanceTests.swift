import EvictionCore
import EvictionTestSupport
import Testing

@testable import EvictionCache

/// The conformance driver's stream, read through a real `MemoryCache`: the
/// cache's hits are exactly the bare policy's, request for request (the same
/// policy code, behind a lock, an index and a value store).
@Suite struct CacheConformanceTests {
  static let online = PolicyCatalog.entries.filter { !PolicyCatalog.offline.contains($0.name) && !$0.trimsOnATimer }
    .map(\.name)

  /// Under `buffered` too: on one thread no hit is dropped, and every
  /// operation under the lock replays the buffered hits first, so the hits
  /// are the bare policy's, except that an entry a hit evicts (a policy
  /// with `PolicyTraits.evictsOnHit`) can still be read until that hit is
  /// replayed; `BufferedReadsModel` derives those hits from the bare policy.
  @Test(arguments: online)
  func aReadThroughCacheHitsWhereThePolicyHits(policy: String) throws {
    let spec = try PolicySpec(policy)
    let requests = conformanceRequests(seed: 8, weighted: false)
    var driver = ConformanceDriver(requests: requests, checkEvery: 1_000, policy: spec)
    let bare = spec.withPolicy(capacity: 64, index: IntegerSlotIndex<UInt64>.self, visitor: &driver).hitSequence
    var model = BufferedReadsModel(requests: requests, ringCapacity: BufferedReads<UInt64, UInt64>.ringCapacity)
    let deferred = spec.withPolicy(capacity: 64, index: IntegerSlotIndex<UInt64>.self, visitor: &model)
    if !spec.descriptor.evictsOnHit { #expect(deferred == bare, "the model defers what needs no deferring") }
    if policy == "wtinylfu" { #expect(deferred != bare, "the stream no longer reads an entry a hit evicted") }
    for lock in [LockStrategy.mutex, .buffered] {
      let expected = lock == .buffered ? deferred : bare
      let cache = try MemoryCache<UInt64, UInt64>(policy: CachePolicy(policy), countLimit: 64, lock: lock)
      var hits: [Bool] = []
      for request in requests {
        let hit = cache.value(forKey: request.key) != nil
        if !hit { cache.setValue(request.key, forKey: request.key) }
        hits.append(hit)
      }
      #expect(
        hits == expected,
        "\(policy), \(lock): first difference at request \(hits.indices.first { hits[$0] != expected[$0] } ?? -1)")
      #expect(cache.count <= 64)
      let statistics = cache.statistics
      #expect(statistics.hits == expected.filter { $0 }.count && statistics.droppedAccesses == 0, "\(lock)")
      cache.checkInvariants()
    }
  }

  /// Admission composes with the cache as with the simulator: the same
  /// gate in front of the same policy, so an admitted read-through cache
  /// hits where the admitted policy does, and a refused set stores nothing.
  @Test(arguments: ["lru", "arc", "s3fifo", "wtinylfu", "lecar", "s3fifod"])
  func anAdmittedReadThroughCacheHitsWhereTheAdmittedPolicyHits(policy: String) throws {
    let spec = try PolicySpec(policy)
    let requests = conformanceRequests(seed: 9, weighted: true)
    for admission in ["bloom-filter", "prob:p=0.5,seed=7", "size:max=32"] {
      var visitor = AdmissionVisitor(
        ConformanceDriver(requests: requests, checkEvery: 1_000, policy: spec), admission: try AdmissionSpec(admission))
      let expected = spec.withPolicy(capacity: 600, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor).hitSequence
      let cache = try MemoryCache<UInt64, UInt64>(
        policy: CachePolicy(policy), costLimit: 600, admission: CacheAdmission(admission), heavyEntries: .refuse)
      var hits: [Bool] = []
      for request in requests {
        let hit = cache.value(forKey: request.key) != nil
        if !hit { cache.setValue(request.key, forKey: request.key, cost: Int(request.weight)) }
        hits.append(hit)
      }
      #expect(
        hits == expected,
        "\(policy) + \(admission): first difference at request \(hits.indices.first { hits[$0] != expected[$0] } ?? -1)"
      )
      #expect(cache.statistics.evictions[.rejected, default: 0] > 0, "\(admission) refused nothing")
      #expect(cache.policyName.hasSuffix(" + " + (try AdmissionSpec(admission)).description))
    }
  }

  @Test func anAdmissionIsCheckedWhenTheCacheIsMade() {
    #expect(throws: CacheError.self) { try MemoryCache<UInt64, UInt64>(countLimit: 10, admission: "sometimes") }
    // A size gate in a cache where every entry weighs 1 would admit everything.
    let error = #expect(throws: CacheError.self) {
      try MemoryCache<UInt64, UInt64>(countLimit: 10, admission: "size:max=64k")
    }
    #expect(error.map { "\($0)" }?.contains("costLimit") == true)
  }
}
