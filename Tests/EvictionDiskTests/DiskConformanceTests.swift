import EvictionCache
import EvictionCore
import EvictionDisk
import EvictionTestSupport
import Testing

/// The conformance driver's stream through a `DiskCache` (SQLite manifest,
/// value files): the disk tier runs the same policy code, so it hits where
/// the bare policy hits. Policies that hash keys (W-TinyLFU's sketch) see
/// the disk's string keys and are left out.
@Suite struct DiskConformanceTests {
  @Test(arguments: ["lru", "fifo", "clock", "sieve", "arc", "s3fifo", "slru", "2q", "lirs", "lfu"])
  func aDiskCacheHitsWhereThePolicyHits(policy: String) throws {
    let spec = try PolicySpec(policy)
    let requests = Array(conformanceRequests(seed: 8, weighted: false).prefix(1_500))
    var driver = ConformanceDriver(requests: requests, checkEvery: 500, policy: spec)
    let expected = spec.withPolicy(capacity: 64, index: IntegerSlotIndex<UInt64>.self, visitor: &driver).hitSequence
    let cache = try ByteDiskCache(directory: Scratch.path("conformance"), policy: CachePolicy(policy), countLimit: 64)
    var hits: [Bool] = []
    for request in requests {
      let key = String(request.key)
      let hit = try cache.value(forKey: key) != nil
      if !hit { try cache.setValue([UInt8(truncatingIfNeeded: request.key)], forKey: key) }
      hits.append(hit)
    }
    #expect(
      hits == expected,
      "\(policy): first difference at request \(hits.indices.first { hits[$0] != expected[$0] } ?? -1)")
    #expect(try cache.totals().count <= 64)
  }
}
