import EvictionCore
import Foundation
import Testing

/// The models of shipped caches behave like the caches they model.
@Suite struct SeedModelTests {
  /// Replays `requests` through Foundation's own NSCache (as a read-through
  /// cache: a miss is followed by a set with the request's cost) and returns
  /// which requests hit.
  func realNSCacheHits(_ requests: [Request<UInt64>], totalCostLimit: Int, countLimit: Int) -> [Bool] {
    let cache = NSCache<NSNumber, NSNumber>()
    cache.totalCostLimit = totalCostLimit
    cache.countLimit = countLimit
    return requests.map { request in
      let key = NSNumber(value: request.key)
      if cache.object(forKey: key) != nil { return true }
      cache.setObject(NSNumber(value: 1), forKey: key, cost: Int(request.weight))
      return false
    }
  }

  func modelHits(_ spec: String, _ requests: [Request<UInt64>], capacity: Int64) throws -> [Bool] {
    var driver = ScenarioDriver(requests: requests)
    return try PolicySpec(spec).withPolicy(capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &driver).hits
  }

  @Test(arguments: [(weighted: true, capacity: 2_000, count: 0), (weighted: false, capacity: 300, count: 0), (weighted: true, capacity: 5_000, count: 90)])
  func nscacheModelMatchesTheRealNSCache(weighted: Bool, capacity: Int, count: Int) throws {
    let requests = conformanceRequests(seed: 21, weighted: weighted, count: 8_000)
    let real = realNSCacheHits(requests, totalCostLimit: capacity, countLimit: count)
    let model = try modelHits("nscache-linux:count=\(count)", requests, capacity: Int64(capacity))
    #expect(real.filter { $0 }.count > 100, "the comparison needs hits to mean something")
    #expect(model == real)
  }

  @Test func nscacheWithEqualCostsEvictsTheNewcomer() throws {
    let r = try scenario("nscache-linux", capacity: 2, [1, 2, 3, 1, 2, 3])
    // 3 enters at the head of the equal-cost group and is purged at once.
    #expect(r.hits == [false, false, false, true, true, false])
  }

  @Test func yyMemoryTrimsCostThenDropsOneForCount() throws {
    // 3 brings the cost to 12: the tail (1) goes; 1 returns and pushes out 2.
    let cost = try scenario("yy-memory", capacity: 10, [1, 2, 3, 1], weights: [1: 4, 2: 4, 3: 4])
    #expect(cost.evicted == [1, 2])
    #expect(cost.hits == [false, false, false, false])
    let counted = try scenario("yy-memory:count=2", capacity: 100, [1, 2, 3, 2, 1])
    #expect(counted.evicted == [1, 3])
    #expect(counted.hits == [false, false, false, true, false])
    // Heavier than the whole limit: inserted, then trimmed away with everything older.
    let heavy = try scenario("yy-memory", capacity: 10, [1, 9, 1], weights: [9: 11])
    #expect(heavy.evicted == [1])
    #expect(heavy.hits == [false, false, false])
  }

  @Test func afAutoPurgingPurgesDownToThePreferredUsage() throws {
    // Capacity 10, preferred 6: adding d brings usage to 12, so 6 must go,
    // least recently accessed first (b, then c; a was read after them).
    let r = try scenario("af-autopurging", capacity: 10, [1, 2, 3, 1, 4, 1, 4, 2], weights: [1: 3, 2: 3, 3: 3, 4: 3])
    #expect(r.evicted == [2, 3])
    #expect(r.hits == [false, false, false, true, false, true, true, false])
  }
}
