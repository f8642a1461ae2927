import EvictionCache
import EvictionCore
import Testing

@Suite struct TinyLFUCacheTests {
  /// The real cache runs the same gate: a key set once never displaces a key
  /// read many times, whether the policy names its victim (LRU) or asks
  /// before each eviction (ARC, LIRS, W-TinyLFU).
  @Test(arguments: ["lru", "arc", "lirs", "wtinylfu"])
  func memoryCacheKeepsTheFrequentKeyBehindTinyLFU(policy: String) throws {
    let cache = try MemoryCache<UInt64, Int>(
      policy: CachePolicy(policy), index: IntegerSlotIndex<UInt64>.self, countLimit: 2, admission: "tinylfu")
    cache.setValue(10, forKey: 1)
    cache.setValue(20, forKey: 2)
    for _ in 0..<5 {
      _ = cache.value(forKey: 1)
      _ = cache.value(forKey: 2)
    }
    for key: UInt64 in 100..<120 { cache.setValue(Int(key), forKey: key) }
    #expect(cache.value(forKey: 1) == 10 && cache.value(forKey: 2) == 20, "\(policy)")
    #expect(!cache.contains(100) && !cache.contains(119), "\(policy)")
    cache.checkInvariants()
  }

  /// A model of a shipped cache keeps its library's order of operations
  /// (it may insert before evicting), so no victim can be vetoed.
  @Test func aModelIsRefused() {
    #expect(throws: CacheError.self) {
      try MemoryCache<UInt64, Int>(
        policy: "yy-memory", index: IntegerSlotIndex<UInt64>.self, countLimit: 8, admission: "tinylfu")
    }
  }
}
