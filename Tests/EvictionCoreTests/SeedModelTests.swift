import EvictionCore
import EvictionTestSupport
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
    return try PolicySpec(spec).withPolicy(capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &driver)
      .hits
  }

  @Test(arguments: [
    (weighted: true, capacity: 2_000, count: 0), (weighted: false, capacity: 300, count: 0),
    (weighted: true, capacity: 5_000, count: 90),
  ])
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

  /// Runs (key, second) requests, weight `weights[key]` or 1.
  func timed(_ spec: String, capacity: Int64, _ steps: [(UInt64, Int64)], weights: [UInt64: Int64] = [:]) throws -> (
    hits: [Bool], evicted: [UInt64], lists: [String: [UInt64]]
  ) {
    let requests = steps.enumerated().map { i, step in
      Request(key: step.0, weight: weights[step.0] ?? 1, time: Int64(i + 1), timestamp: step.1)
    }
    var driver = ScenarioDriver(requests: requests)
    let result = try PolicySpec(spec).withPolicy(
      capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &driver)
    return (result.hits, driver.evicted, result.lists)
  }

  /// YYDiskCache stores everything and trims every 60 s, oldest access
  /// second first; within a second the older row (write) goes first, however
  /// the reads were ordered.
  @Test func yyDiskTrimsOnItsTimerBySecondThenRow() throws {
    let r = try timed("yy-disk", capacity: 1, [(1, 0), (2, 0), (3, 0), (3, 5), (1, 5), (9, 59), (9, 60)])
    // Until second 60 nothing is trimmed: four entries in a one-entry cache.
    #expect(r.hits == [false, false, false, true, true, false, true])
    // At 60: 2 (second 0) goes, then 1 (second 5, row 1) before 3 (second 5, row 3).
    #expect(r.evicted == [2, 1, 3])
    #expect(r.lists["oldest first"] == [9])
  }

  @Test func yyDiskCountLimitTrimsAfterCost() throws {
    let r = try timed(
      "yy-disk:count=2,interval=10", capacity: 100, [(1, 0), (2, 1), (3, 2), (4, 3), (5, 10)],
      weights: [1: 40, 2: 40, 3: 40, 4: 1])
    // At 10: cost 121 > 100 drops 1 (81 left), then count 3 > 2 drops 2.
    #expect(r.evicted == [1, 2])
    #expect(r.lists["oldest first"] == [3, 4, 5])
  }

  /// SDImageCache's clean-up: expire files modified at or before now − age,
  /// then, over the limit, delete the oldest-modified until below half of it.
  /// Reads never change a file's modification date.
  @Test func sdDiskExpiresThenPurgesToHalf() throws {
    let r = try timed(
      "sd-disk:age=100,interval=50", capacity: 10,
      [(1, 0), (2, 0), (3, 20), (4, 20), (1, 30), (5, 50), (6, 120)], weights: [1: 3, 2: 3, 3: 3, 4: 3])
    #expect(r.hits == [false, false, false, false, true, false, false])
    // At 50: 12 > 10, so 1, 2 and 3 go (the read of 1 at 30 does not save it), leaving 3 < 5.
    // At 100 (run before the request at 120): 4, modified at 20, has expired; 5 (at 50) has not.
    #expect(r.evicted == [1, 2, 3, 4])
    #expect(r.lists["oldest first"] == [5, 6])
  }
}
