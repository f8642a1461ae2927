import EvictionTestSupport
import Testing

@testable import EvictionCore

@Suite struct ModernPolicyTests {
  /// A hot set that earned main-cache hits, then a one-time scan five times
  /// the cache, then the hot set again: W-TinyLFU's sketch rates the scan's
  /// objects below the hot set's, LRU loses everything.
  @Test func wtinylfuKeepsAFrequentHotSetThroughAScan() throws {
    let hot = Array(UInt64(1)...20)
    let filler = Array(UInt64(2000)..<2100)
    let scan = Array(UInt64(1000)..<1500)
    let keys = hot + filler + Array(repeating: hot, count: 10).flatMap { $0 } + scan + hot
    let tiny = try scenario("wtinylfu", capacity: 100, keys)
    let lru = try scenario("lru", capacity: 100, keys)
    #expect(tiny.hits.suffix(hot.count).allSatisfy { $0 })
    #expect(lru.hits.suffix(hot.count).allSatisfy { !$0 })
    #expect(Set(hot).isSubset(of: Set(tiny.lists["protected"]!)))
  }

  /// libCacheSim's window takes every new object until the cache is full;
  /// the first eviction moves window victims into the main cache (filling
  /// probation, then protected) before anything is evicted.
  @Test func wtinylfuSharesFollowLibCacheSim() throws {
    // c = 1000: window ⌊10⌋, main 990, probation ⌊198⌋, protected ⌊792⌋.
    let r = try scenario("wtinylfu", capacity: 1000, Array(UInt64(1)...1001))
    #expect(r.evicted == [991], "the first victim rated no higher than probation's oldest")
    #expect(r.lists["window"] == Array(UInt64(992)...1001).reversed())
    #expect(r.lists["probation"]!.count == 198 && r.lists["probation"]!.last == 1)
    #expect(r.lists["protected"]!.count == 792 && r.lists["protected"]!.last == 199)
  }

  @Test func wtinylfuRefusesObjectsHeavierThanTheWindow() throws {
    let r = try scenario("wtinylfu:window=0.1", capacity: 1000, [1, 2, 1, 2], weights: [1: 100, 2: 101])
    #expect(r.hits == [false, false, true, false])
  }

  @Test func countingBloomFilterNeverUnderestimatesAndHalves() {
    var filter = CountingBloomFilter(entries: 1000, error: 0.001)
    #expect(filter.probes == 10 && filter.counterCount == 14_378)
    // W-TinyLFU's sketch at 1 M objects is an array; a byte-mode one of 1 GiB is sparse.
    #expect(CountingBloomFilter(entries: 1_000_000, error: 0.001).isDense)
    #expect(!CountingBloomFilter(entries: 1 << 30, error: 0.001).isDense)
    for item in UInt64(1)...500 {
      for _ in 0..<(item % 7) { filter.add(item) }
    }
    for item in UInt64(1)...500 { #expect(filter.estimate(item) >= UInt32(item % 7)) }
    let exact = (UInt64(1)...500).filter { filter.estimate($0) == UInt32($0 % 7) }.count
    #expect(exact > 490, "a filter sized for 1000 entries holding 500 should be almost exact")
    let before = (UInt64(1)...500).map { filter.estimate($0) }
    filter.halve()
    for (i, item) in (UInt64(1)...500).enumerated() { #expect(filter.estimate(item) <= before[i] / 2 + 0) }
  }

  /// The sketch's remainder by multiplication is the remainder, for every
  /// counter count a filter can have (2 up to 2³¹ − 1) and any 32-bit probe.
  @Test func theSketchsFastRemainderIsExact() {
    var generator = SeededGenerator(seed: 11)
    for entries in [0, 1, 7, 1000, 5000, 123_457, 149_000_000] {
      let filter = CountingBloomFilter(entries: entries, error: 0.001, denseLimit: 0)
      let edges: [UInt32] = [
        0, 1, filter.counterCount - 1, filter.counterCount, filter.counterCount &+ 1, .max, .max - 1,
      ]
      for x in edges + (0..<20_000).map({ _ in UInt32(truncatingIfNeeded: generator.next()) }) {
        #expect(filter.reduce(x) == x % filter.counterCount, "\(x) mod \(filter.counterCount)")
      }
    }
    let largest = CountingBloomFilter(entries: Int(Int32.max), error: 0.001, denseLimit: 0)
    #expect(largest.counterCount == UInt32(Int32.max) && largest.reduce(.max) == UInt32.max % UInt32(Int32.max))
  }

  @Test func sparseAndDenseFiltersAnswerAlike() {
    var dense = CountingBloomFilter(entries: 5000, error: 0.001)
    var sparse = CountingBloomFilter(entries: 5000, error: 0.001, denseLimit: 0)
    var generator = SeededGenerator(seed: 3)
    for _ in 0..<40_000 {
      let item = UInt64(generator.below(3000))
      dense.add(item)
      sparse.add(item)
      if generator.below(5000) == 0 {
        dense.halve()
        sparse.halve()
      }
    }
    for item in UInt64(0)..<3500 { #expect(dense.estimate(item) == sparse.estimate(item)) }
  }

  @Test func beladySizeEvictsTheMostByteTimeAndDeadObjectsFirst() throws {
    // At time 3, object 1 (weight 4, next at 10) holds 28 byte-steps, object
    // 2 (weight 1, next at 20) 17: object 1 goes, though 2 is farther.
    func request(_ key: UInt64, _ weight: Int64, _ time: Int64, _ next: Int64) -> Request<UInt64> {
      Request(key: key, weight: weight, time: time, nextAccess: next)
    }
    var policy = BeladySizePolicy<IntegerSlotIndex<UInt64>>(capacity: 6)
    var evicted: [UInt64] = []
    func note(_ slot: Slot, _ key: UInt64) { evicted.append(key) }
    if policy.lookup(request(1, 4, 1, 10), onEvict: note) == nil {
      _ = policy.admit(request(1, 4, 1, 10), onEvict: note)
    }
    if policy.lookup(request(2, 1, 2, 20), onEvict: note) == nil {
      _ = policy.admit(request(2, 1, 2, 20), onEvict: note)
    }
    if policy.lookup(request(3, 2, 3, 4), onEvict: note) == nil { _ = policy.admit(request(3, 2, 3, 4), onEvict: note) }
    #expect(evicted == [1])
    // Object 3's last request marks it dead; it goes before 2, whatever the sample.
    if policy.lookup(request(3, 2, 4, Request<UInt64>.never), onEvict: note) == nil {
      _ = policy.admit(request(3, 2, 4, Request<UInt64>.never), onEvict: note)
    }
    if policy.lookup(request(4, 4, 5, 6), onEvict: note) == nil { _ = policy.admit(request(4, 4, 5, 6), onEvict: note) }
    #expect(evicted == [1, 3])
    // An object never requested again is not admitted.
    let admitted = policy.access(request(5, 1, 6, Request<UInt64>.never))
    #expect(!admitted)
    let holdsFive = policy.contains(5)
    #expect(!holdsFive)
    policy.checkInvariants()
  }
}
