import EvictionCache
import EvictionCore
import Testing

/// An entry that fits a cache's cost limit is cached, whatever the policy and
/// the lock strategy (issue 77, defect 1); a policy's memory follows the
/// entries cached, not the cost limit's unit (defect 2).
@Suite struct HeavyEntryTests {
  /// The README's example cache: 900 KB and 2 MB values were refused by
  /// S3-FIFO's small queue (a tenth of a shard's 8 MiB); now they stay, and
  /// what cannot be cached says which rule refused it.
  @Test func theReadmeExampleCachesWhatItsShardsCanHold() throws {
    let cache = try MemoryCache<String, [UInt8]>(
      policy: .s3fifo(), countLimit: 10_000, costLimit: 64 << 20, cost: { $0.count }, lock: .striped(shards: 8))
    #expect(cache.largestCacheableCost == 8 << 20)
    for (key, size) in [("700k", 700_000), ("900k", 900_000), ("2m", 2_000_000), ("8m", 8 << 20)] {
      #expect(try cache.store([UInt8](repeating: 1, count: size), forKey: key) == .stored, "\(key)")
      #expect(cache.value(forKey: key)?.count == size, "\(key)")
    }
    #expect(try cache.store([UInt8](repeating: 1, count: 9 << 20), forKey: "9m") == .rejected(.heavierThanShard))
    #expect(try cache.store([UInt8](repeating: 1, count: 65 << 20), forKey: "65m") == .rejected(.heavierThanCache))
    let statistics = cache.statistics
    #expect(statistics.rejections == [.heavierThanShard: 1, .heavierThanCache: 1])
    #expect(statistics.evictions[.rejected] == 2)
    cache.checkInvariants()
  }

  /// A configuration that could not cache the heaviest entry its user will
  /// store is refused when it is made, naming the largest it can.
  @Test func aConfigurationTooSmallForTheLargestCostIsRefused() throws {
    #expect(throws: CacheError.entryHeavierThanConfiguration(cost: 9 << 20, largest: 8 << 20)) {
      try MemoryCache<Int, Int>(policy: .s3fifo(), costLimit: 64 << 20, lock: .striped(shards: 8), largestCost: 9 << 20)
    }
    _ = try MemoryCache<Int, Int>(
      policy: .s3fifo(), costLimit: 64 << 20, lock: .striped(shards: 8), largestCost: 8 << 20)
    let error = #expect(throws: CacheError.self) {
      try MemoryCache<Int, Int>(policy: .lru, costLimit: 100, largestCost: 101)
    }
    #expect(error?.description.contains("cost 100 at most") == true)
  }

  /// Every policy under a plain and a striped lock: 16 KiB thumbnails in a
  /// 1 MiB cache are cached (count was 0 for S3-FIFO striped 8 ways), an
  /// entry of the largest cacheable cost is cached into a warm cache, and
  /// the true costs never exceed the limit. (Models of shipped caches are
  /// left out: NSCache's model evicts the newest of equals, itself
  /// included, as the real NSCache does. GDSF refuses a newcomer ranked
  /// below every entry by design: it runs as `v0`, which always admits;
  /// `gdsfRefusesByRankNotByWeight` checks the other.)
  @Test(
    arguments: cachePolicies.filter { !PolicyCatalog.entry(named: $0)!.isModel }.map {
      $0 == "gdsf" ? "gdsf:v0=true" : $0
    })
  func everyPolicyCachesWhatFitsItsLimit(policy: String) throws {
    for lock in [LockStrategy.mutex, .striped(shards: 4)] {
      let cache = try MemoryCache<Int, Int>(policy: CachePolicy(policy), costLimit: 1 << 20, lock: lock)
      var generator = SeededGenerator(seed: 77)
      for step in 0..<3_000 {
        let key = generator.below(10) < 6 ? generator.below(40) : generator.below(2_000)
        if cache.value(forKey: key) == nil {
          #expect(try cache.store(step, forKey: key, cost: 16 << 10) == .stored, "\(policy), \(lock), step \(step)")
          #expect(cache.contains(key), "\(policy), \(lock), step \(step)")
        }
        #expect(cache.totalCost <= 1 << 20)
      }
      #expect(cache.count >= 16, "\(policy), \(lock): \(cache.count) thumbnails")
      let largest = cache.largestCacheableCost
      #expect(largest == (1 << 20) / lock.shards)
      for key in 5_000..<5_004 {
        #expect(try cache.store(key, forKey: key, cost: largest) == .stored, "\(policy), \(lock)")
        #expect(cache.value(forKey: key) == key, "\(policy), \(lock)")
        #expect(cache.totalCost <= 1 << 20)
      }
      #expect(cache.statistics.rejections.isEmpty, "\(policy), \(lock): \(cache.statistics.rejections)")
      cache.checkInvariants()
    }
  }

  /// GDSF's own refusal (a newcomer ranked below every entry) stands: the
  /// cache does not overrule a policy's decision, only a segment's weight.
  @Test func gdsfRefusesByRankNotByWeight() throws {
    let cache = try MemoryCache<Int, Int>(policy: "gdsf", costLimit: 1_000)
    for key in 0..<10 {
      for _ in 0..<3 {
        if cache.value(forKey: key) == nil { cache.setValue(key, forKey: key, cost: 100) }
      }
    }
    #expect(try cache.store(99, forKey: 99, cost: 1_000) == .rejected(.policy))
    #expect(cache.count == 10 && cache.totalCost == 1_000)
    // An empty GDSF takes the same entry.
    let empty = try MemoryCache<Int, Int>(policy: "gdsf", costLimit: 1_000)
    #expect(try empty.store(99, forKey: 99, cost: 1_000) == .stored)
  }

  /// `.refuse` keeps the simulator's rule: an entry heavier than S3-FIFO's
  /// small queue is refused, and the rule says it was the policy's.
  @Test func refusingHeavyEntriesIsTheSimulatorsRule() throws {
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      policy: .s3fifo(), costLimit: 1_000, onEvict: { log.record($0, $1, $2) }, heavyEntries: .refuse)
    #expect(try cache.store(1, forKey: 1, cost: 100) == .stored)
    #expect(try cache.store(2, forKey: 2, cost: 101) == .rejected(.policy))
    #expect(log.entries.map(\.reason) == [.rejected] && cache.count == 1)
    let admitting = try MemoryCache<Int, Int>(policy: .s3fifo(), costLimit: 1_000)
    #expect(try admitting.store(2, forKey: 2, cost: 1_000) == .stored)
  }

  /// An admission policy still judges: a size gate on the true cost (the
  /// policy may weigh the entry less), and its refusals are named as its own.
  @Test func anAdmissionStillJudgesTheTrueCost() throws {
    let cache = try MemoryCache<Int, Int>(policy: .wtinylfu(), costLimit: 10_000, admission: .size(max: 500))
    #expect(try cache.store(1, forKey: 1, cost: 400) == .stored)
    #expect(try cache.store(2, forKey: 2, cost: 600) == .rejected(.admission))
    #expect(cache.statistics.rejections == [.admission: 1])
  }

  /// W-TinyLFU's sketch was sized per byte of a cost limit: 966 MB for a
  /// 16 MiB cache striped 8 ways. Now it is sized by entries and grows
  /// with them; `.refuse` keeps libCacheSim's sizing, for the replay.
  @Test func wTinyLFUsSketchFollowsTheEntriesNotTheBytes() throws {
    let cache = try MemoryCache<Int, Int>(policy: .wtinylfu(), costLimit: 16 << 20, lock: .striped(shards: 8))
    let atStart = cache.sketchBytes
    #expect(atStart > 0 && atStart < 1 << 20, "\(atStart) bytes")
    for key in 0..<40_000 { cache.setValue(key, forKey: key, cost: 100) }
    #expect(cache.count == 40_000)
    // libCacheSim's counters: about 14.4 per entry, 4 bytes each, doubling.
    #expect(cache.sketchBytes <= 40_000 * 14 * 4 * 2 + atStart, "\(cache.sketchBytes) bytes")
    #expect(cache.sketchBytes > atStart)
    let counted = try MemoryCache<Int, Int>(policy: .wtinylfu(), countLimit: 2_000, costLimit: 16 << 20)
    #expect(counted.sketchBytes < 2_000 * 15 * 4 * 2)
    let simulated = try MemoryCache<Int, Int>(policy: .wtinylfu(), costLimit: 1 << 20, heavyEntries: .refuse)
    #expect(simulated.sketchBytes > 14 * (1 << 20))
    cache.checkInvariants()
  }
}
