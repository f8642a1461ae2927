import EvictionCache
import Testing

/// `MemoryCache(penalty:)`: the cost-aware policies keep what is dear to
/// fetch again, priced by a closure or by how long each load took, under
/// every lock strategy.
@Suite struct MissPenaltyCacheTests {
  static let locks = ["mutex", "pthread", "rwlock", "queue", "barrier", "buffered", "striped:1"]

  /// Keys 1 to 3 stored in order, then 4: which of the first three stayed.
  func survivors(_ policy: String, lock: String, penalty: MemoryCache<Int, Int>.MissPenalty?) throws -> [Int] {
    let cache = try MemoryCache<Int, Int>(
      policy: CachePolicy(policy), countLimit: 3, lock: LockStrategy(lock), penalty: penalty)
    for key in 1...4 { try cache.store(key * 10, forKey: key) }
    return (1...3).filter { cache.value(forKey: $0) != nil }
  }

  @Test(arguments: ["camp", "gdwheel"], locks)
  func anExpensiveEntryOutlivesCheapNewerOnes(policy: String, lock: String) throws {
    // Key 1 costs 100 to fetch again, the others 1: the oldest cheap entry leaves.
    let priced = try survivors(policy, lock: lock, penalty: .computed { key, _ in key == 1 ? 100 : 1 })
    #expect(priced == [1, 3], "\(policy) under \(lock)")
    // Priced alike (or not at all), they are LRU in count mode: the oldest leaves.
    #expect(try survivors(policy, lock: lock, penalty: nil) == [2, 3])
    #expect(try survivors(policy, lock: lock, penalty: .computed { _, _ in 7 }) == [2, 3])
    // A cost-blind policy ignores prices.
    #expect(try survivors("lru", lock: lock, penalty: .computed { key, _ in key == 1 ? 100 : 1 }) == [2, 3])
  }

  /// The two policies as values name the catalog's spellings, and build.
  @Test func theCostAwarePoliciesAreValues() throws {
    #expect(CachePolicy.camp() == "camp" && CachePolicy.camp(precision: 53) == "camp:precision=53")
    #expect(CachePolicy.gdwheel() == "gdwheel" && CachePolicy.gdwheel(queues: 64) == "gdwheel:queues=64")
    #expect(CachePolicy.gdwheel(wheels: 3, queues: 16) == "gdwheel:wheels=3,queues=16")
    for policy in [CachePolicy.camp(precision: 53), .gdwheel(wheels: 3, queues: 16)] {
      let cache = try MemoryCache<Int, Int>(
        policy: policy, countLimit: 3, penalty: .computed { key, _ in key == 1 ? 9 : 1 })
      for key in 1...4 { try cache.store(key, forKey: key) }
      #expect(cache.value(forKey: 1) == 1, "\(policy)")
    }
    #expect(throws: CacheError.self) { try MemoryCache<Int, Int>(policy: .camp(precision: 54), countLimit: 3) }
  }

  /// Prices that are not numbers, or below 0, count as 0: the first to go.
  @Test func pricesThatAreNoNumbersCostNothing() throws {
    let odd: MemoryCache<Int, Int>.MissPenalty = .computed { key, _ in
      [1: Double.nan, 2: -5, 3: .infinity][key] ?? 1
    }
    // 1 (NaN) and 2 (−5) cost 0, 3 (∞) the most a Float holds: 1 leaves first, then 2.
    #expect(try survivors("camp", lock: "mutex", penalty: odd) == [2, 3])
    let cache = try MemoryCache<Int, Int>(policy: "camp", countLimit: 3, penalty: odd)
    for key in 1...5 { try cache.store(key, forKey: key) }
    #expect([1, 2, 3, 4, 5].filter { cache.value(forKey: $0) != nil } == [3, 4, 5])
  }

  /// Priced by the time each load took: the slow backend's values stay, a
  /// directly stored one costs what `stored` says.
  @Test(arguments: ["mutex", "buffered", "barrier"])
  func slowLoadsOutliveFastOnes(lock: String) async throws {
    let cache = try MemoryCache<Int, Int>(
      policy: "camp", countLimit: 3, lock: LockStrategy(lock), penalty: .loadTime(stored: 0))
    _ = try await cache.value(forKey: 1) {
      try await Task.sleep(for: .milliseconds(100))
      return 10
    }
    _ = try await cache.value(forKey: 2) { 20 }
    // Two keys in one slow call: each is priced half its time, still far dearer than key 2.
    _ = await cache.values(forKeys: [3, 4]) { keys in
      try await Task.sleep(for: .milliseconds(160))
      return Dictionary(uniqueKeysWithValues: keys.map { ($0, $0 * 10) })
    }
    // Key 4 took the place of key 2, which loaded fastest.
    #expect([1, 2, 3, 4].filter { cache.value(forKey: $0) != nil } == [1, 3, 4], "\(lock)")

    // Stored directly at 1 second, dearer than any load here: a fast load leaves instead.
    let stored = try MemoryCache<Int, Int>(
      policy: "camp", countLimit: 3, lock: LockStrategy(lock), penalty: .loadTime(stored: 1))
    try stored.store(90, forKey: 9)
    for key in 1...3 { _ = try await stored.value(forKey: key) { key * 10 } }
    #expect(stored.value(forKey: 9) == 90, "\(lock)")
    #expect([1, 2, 3].filter { stored.value(forKey: $0) != nil }.count == 2, "\(lock)")
  }
}
