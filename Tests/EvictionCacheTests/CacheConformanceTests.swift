import EvictionCache
import EvictionCore
import EvictionTestSupport
import Testing

/// The conformance driver's stream, read through a real `MemoryCache`: the
/// cache's hits are exactly the bare policy's, request for request (the same
/// policy code, behind a lock, an index and a value store).
@Suite struct CacheConformanceTests {
  static let online = PolicyCatalog.entries.filter { !PolicyCatalog.offline.contains($0.name) && !$0.trimsOnATimer }
    .map(\.name)

  @Test(arguments: online)
  func aReadThroughCacheHitsWhereThePolicyHits(policy: String) throws {
    let spec = try PolicySpec(policy)
    let requests = conformanceRequests(seed: 8, weighted: false)
    var driver = ConformanceDriver(requests: requests, checkEvery: 1_000, policy: spec)
    let expected = spec.withPolicy(capacity: 64, index: IntegerSlotIndex<UInt64>.self, visitor: &driver).hitSequence
    let cache = try MemoryCache<UInt64, UInt64>(policy: policy, countLimit: 64)
    var hits: [Bool] = []
    for request in requests {
      let hit = cache.value(forKey: request.key) != nil
      if !hit { try cache.setValue(request.key, forKey: request.key) }
      hits.append(hit)
    }
    #expect(
      hits == expected,
      "\(policy): first difference at request \(hits.indices.first { hits[$0] != expected[$0] } ?? -1)")
    #expect(cache.count <= 64)
  }
}
