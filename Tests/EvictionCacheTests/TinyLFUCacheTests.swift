import EvictionCache
import EvictionCore
import Testing

@Suite struct TinyLFUCacheTests {
  /// The real cache runs the same gate: a key set once never displaces a key
  /// read many times.
  @Test func memoryCacheKeepsTheFrequentKeyBehindTinyLFU() throws {
    let cache = try MemoryCache<UInt64, Int>(
      policy: "lru", index: IntegerSlotIndex<UInt64>.self, countLimit: 2, admission: "tinylfu")
    try cache.setValue(10, forKey: 1)
    try cache.setValue(20, forKey: 2)
    for _ in 0..<5 {
      _ = cache.value(forKey: 1)
      _ = cache.value(forKey: 2)
    }
    for key: UInt64 in 100..<120 { try cache.setValue(Int(key), forKey: key) }
    #expect(cache.value(forKey: 1) == 10 && cache.value(forKey: 2) == 20)
    #expect(!cache.contains(100) && !cache.contains(119))
    cache.checkInvariants()
  }

  @Test func aPolicyThatNamesNoVictimIsRefused() {
    #expect(throws: CacheError.self) {
      try MemoryCache<UInt64, Int>(
        policy: "arc", index: IntegerSlotIndex<UInt64>.self, countLimit: 8, admission: "tinylfu")
    }
  }
}
