import EvictionCore
import EvictionTestSupport
import Testing

/// The policies added from libCacheSim's zoo, by what defines each; exact
/// agreement with libCacheSim is in `MoreTracesReferenceTests`.
@Suite struct LiteraturePolicyTests {
  @Test func libCacheSimsSpellingsNameTheSamePolicies() throws {
    #expect(try PolicySpec("randomTwo").name == "randomtwo")
    #expect(try PolicySpec("FIFO_Merge").name == "fifo-merge")
    #expect(try PolicySpec("lru_prob:p=0.25").description == "lru-prob:p=0.25")
    // `-` and `_` are ignored, as libCacheSim also takes `fifomerge`.
    #expect(try PolicySpec("fifo__merge").name == "fifo-merge")
    #expect(throws: PolicyError.unknownPolicy("fifo_merges")) { try PolicySpec("fifo_merges") }
  }

  @Test func sizeEvictsTheLargestObject() throws {
    let weights: [UInt64: Int64] = [1: 5, 2: 2, 3: 3, 4: 4]
    // 1 (5) + 2 (2) + 3 (3) = 10; 4 (4) needs room: 1, the largest, goes.
    let run = try scenario("size", capacity: 10, [1, 2, 3, 4, 2, 3, 1], weights: weights)
    #expect(run.hits == [false, false, false, false, true, true, false])
    // 1 (5) again, with 4 + 2 + 3 = 9 resident: 4, now the largest, goes.
    #expect(run.evicted == [1, 4])
  }

  @Test func sfifoNeverReordersTheTopSegmentWhereSLRUDoes() throws {
    // Two segments of 2. 1 then 2 are hit into the top segment; a third hit
    // on 1 moves it to the front in SLRU only. Then 3's promotion passes the
    // top segment's back down: 2 in SLRU, 1 in SFIFO; 4's passes the other.
    let keys: [UInt64] = [1, 2, 1, 2, 1, 3, 4, 3, 4]
    let slru = try scenario("slru:segments=2", capacity: 4, keys)
    let sfifo = try scenario("sfifo:segments=2", capacity: 4, keys)
    #expect(slru.lists["segment 1"] == [4, 3])
    #expect(sfifo.lists["segment 1"] == [4, 3])
    #expect(slru.lists["segment 0"] == [1, 2])
    #expect(sfifo.lists["segment 0"] == [2, 1])
  }

  @Test func lruProbIsLRUAtOneAndNearFIFOAtTheFloor() throws {
    var keys: [UInt64] = []
    var state: UInt64 = 12_345
    for _ in 0..<20_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      keys.append((state >> 33) % 300)
    }
    #expect(try scenario("lru-prob:p=1", capacity: 50, keys).hits == scenario("lru", capacity: 50, keys).hits)
    let rare = try scenario("lru-prob:p=0.0001", capacity: 50, keys).hits
    let fifo = try scenario("fifo", capacity: 50, keys).hits
    let differing = zip(rare, fifo).filter { $0 != $1 }.count
    #expect(differing < 20, "p=0.0001 promotes about 2 hits in 20,000; \(differing) hits differ from FIFO")
    let seeded = try scenario("lru-prob:seed=3", capacity: 50, keys).hits
    #expect(try seeded == scenario("lru-prob:seed=3", capacity: 50, keys).hits)
    #expect(try seeded != scenario("lru-prob:seed=4", capacity: 50, keys).hits)
  }

  @Test func randomTwoEvictsTheOlderOfItsDraws() throws {
    // With room for two, both draws fall on the two residents (or twice on
    // one): the victim is never the one just used unless both draws pick it.
    var keptRecent = 0
    for seed in 1...200 {
      let run = try scenario("randomtwo:seed=\(seed)", capacity: 2, [1, 2, 1, 3])
      if run.evicted == [2] { keptRecent += 1 }
    }
    // 2 goes unless both draws pick 1: probability 3/4.
    #expect((130...170).contains(keptRecent), "kept the recent one in \(keptRecent) of 200")
    let a = try scenario("randomtwo:seed=9", capacity: 20, Array(0..<200).map { UInt64($0 % 37) })
    let b = try scenario("randomtwo:seed=9", capacity: 20, Array(0..<200).map { UInt64($0 % 37) })
    #expect(a.evicted == b.evicted)
  }

  @Test func fifoMergeIsFIFOUpToABatchAndKeepsFrequentObjectsBeyond() throws {
    var keys: [UInt64] = []
    var state: UInt64 = 99
    for _ in 0..<5_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      keys.append((state >> 33) % 200)
    }
    // At 100 objects or fewer it evicts the oldest, as FIFO.
    #expect(try scenario("fifo-merge", capacity: 100, keys).hits == scenario("fifo", capacity: 100, keys).hits)
    // Beyond, a hot object hit between every other request survives the
    // tail, where FIFO lets it go on each lap.
    var mixed: [UInt64] = []
    for i in 0..<3_000 { mixed += [0, UInt64(1 + i % 400)] }
    let merge = try scenario("fifo-merge", capacity: 300, mixed).hits
    let fifo = try scenario("fifo", capacity: 300, mixed).hits
    let hot = { (hits: [Bool]) in stride(from: 0, to: hits.count, by: 2).filter { hits[$0] }.count }
    #expect(hot(merge) == 2_999, "the hot object missed \(3_000 - hot(merge)) times")
    #expect(hot(fifo) < 2_999)
  }
}

/// The lazy-promotion family and CR-LFU, each by what sets it apart from the
/// policy it modifies; exact agreement with libCacheSim is in the reference tests.
@Suite struct LazyPromotionPolicyTests {
  @Test func lpARCGivesReferencedT2EntriesASecondChanceWhereARCReorders() throws {
    // 1 and 2 reach T2 (T2 front first: [2, 1]); hits on 2 then 1. ARC moves
    // each to the front ([1, 2]) and evicts its LRU end, 2; LP-ARC only sets
    // their bits, so its CLOCK clears both and evicts 1.
    let keys: [UInt64] = [1, 1, 2, 2, 2, 1, 3]
    let arc = try scenario("arc", capacity: 2, keys)
    let lazy = try scenario("lp-arc", capacity: 2, keys)
    #expect(arc.evicted == [2])
    #expect(lazy.evicted == [1])
    #expect(arc.hits == lazy.hits)
    #expect(lazy.lists["T1"] == [3] && lazy.lists["T2"] == [2] && lazy.lists["B2"] == [1])
  }

  @Test func lpTwoQLeavesAmInPlaceOnAHit() throws {
    // Capacity 4: A1in 1, A1out 2, Am 3. Keys 1-6 pass through A1in; 1, 2
    // and 3 come back from A1out into Am ([3, 2, 1]). A hit on 1 moves it to
    // Am's front in 2Q and sets a bit in LP-2Q; the next miss evicts Am's
    // back: 2 in 2Q, and in LP-2Q 2 as well, after 1's second chance.
    let keys: [UInt64] = [1, 2, 3, 4, 5, 6, 1, 2, 3, 1, 7]
    let twoQ = try scenario("2q", capacity: 4, keys)
    let lazy = try scenario("lp-twoq", capacity: 4, keys)
    #expect(twoQ.lists["Am"] == [1, 3])
    #expect(lazy.lists["Am"] == [1, 3])
    #expect(twoQ.evicted.suffix(1) == [2] && lazy.evicted.suffix(1) == [2])
    let beforeEviction = Array(keys.dropLast())
    #expect(try scenario("2q", capacity: 4, beforeEviction).lists["Am"] == [1, 3, 2])
    #expect(try scenario("lp-twoq", capacity: 4, beforeEviction).lists["Am"] == [3, 2, 1])
  }

  @Test func lpSFIFOPromotesAtEvictionTime() throws {
    // Two segments of 2. 1 and 2 fill segment 0, 3 and 4 segment 1; 1 is hit.
    // 5 needs room: 1, hit, moves up to segment 1, whose oldest (3) comes
    // down; then 2, never hit, is evicted (FIFO would have evicted 1).
    let r = try scenario("lp-sfifo:segments=2", capacity: 4, [1, 2, 1, 3, 4, 5])
    #expect(r.hits == [false, false, true, false, false, false])
    #expect(r.evicted == [2])
    #expect(r.lists["segment 0"] == [5, 3])
    #expect(r.lists["segment 1"] == [1, 4])
    #expect(try scenario("fifo", capacity: 4, [1, 2, 1, 3, 4, 5]).evicted == [1])
  }

  @Test func qdlpDemotesOneHitWondersQuicklyAndPromotesLazily() throws {
    // Capacity 20: a FIFO of 2, a main CLOCK of 18, a ghost of 18. Twenty
    // misses fill the cache through the FIFO; 3 is hit there. 21 and 22 evict
    // 1 and 2 (never hit) into the ghost; 23 finds 3 hit, moves it to the
    // main cache, and evicts 4. 1 then returns from the ghost into the main
    // cache, evicting 5.
    let keys: [UInt64] = Array(1...20) + [3, 21, 22, 23, 1]
    let r = try scenario("qdlp", capacity: 20, keys)
    #expect(r.evicted == [1, 2, 4, 5])
    #expect(r.lists["main"] == [1, 3])
    #expect(r.lists["ghost"] == [5, 4, 2])
    #expect(r.hits.filter { $0 }.count == 1)
  }

  @Test func qdlpWithAMainCacheTooSmallForAnObjectEvictsItInstead() throws {
    // fifo=0.9 at 20: a FIFO of 18 and a main cache of 2. 1 (weight 5) is hit
    // in the FIFO, but cannot move into the main cache: it leaves, with no
    // ghost, and returns as a plain miss.
    let r = try scenario(
      "qdlp:fifo=0.9", capacity: 20, [1, 1, 2, 3, 4, 5, 1], weights: [1: 5, 2: 5, 3: 5, 4: 5, 5: 5])
    #expect(r.evicted == [1, 2])
    #expect(r.lists["main"] == [] && r.lists["ghost"] == [2])
    #expect(r.hits == [false, true, false, false, false, false, false])
  }

  @Test func qdlpRefusesCapacitiesWhoseFIFOAdmitsNothing() throws {
    #expect(try PolicySpec("qdlp").minimumCapacity == 20)
    #expect(try PolicySpec("qdlp:fifo=0.5").minimumCapacity == 4)
  }

  @Test func crLFUEvictsTheNewestOfTheLeastFrequentWhereLFUEvictsTheOldest() throws {
    // 1 is hit twice; 2, 3 and 4 are seen once. 5 needs room: LFU evicts 2,
    // the first to reach frequency 1, CR-LFU 4, the last; a scan of new keys
    // then keeps replacing itself and never touches 2 or 3.
    let keys: [UInt64] = [1, 1, 1, 2, 3, 4, 5, 6, 7, 2, 3]
    let lfu = try scenario("lfu", capacity: 4, keys)
    let churn = try scenario("cr-lfu", capacity: 4, keys)
    #expect(lfu.evicted.prefix(1) == [2])
    #expect(churn.evicted == [4, 5, 6])
    #expect(churn.hits.suffix(2) == [true, true])
    #expect(try PolicySpec("CR_LFU").name == "cr-lfu")
  }

  /// S3-FIFO-D's share follows the side whose evictions come back. Each
  /// driven by a trace built for one side; its exact figures are in
  /// `MoreTracesReferenceTests`.
  @Test func s3fifodGrowsTheFIFOWhenItsEvictionsReturn() {
    // Capacity 1,000: a FIFO of 100, a main cache of 900, 100 remembered
    // evictions per side. Even keys are requested twice in a row: hit in the
    // FIFO, they are promoted and fill the main cache, whose evictions never
    // return. Odd keys return 150 new keys later: the FIFO (100) evicted them
    // unhit 50 evictions before, so they count for the FIFO. (Evictions the
    // main cache makes to take a key back from the ghost are not remembered,
    // as in libCacheSim, so the promotions are what let the share move.)
    var policy = S3FIFODPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000)
    for i in 0..<30_000 {
      _ = policy.access(Request(key: UInt64(i)))
      if i.isMultiple(of: 2) {
        _ = policy.access(Request(key: UInt64(i)))
      } else if i >= 150 {
        _ = policy.access(Request(key: UInt64(i - 150)))
      }
      if i.isMultiple(of: 997) { policy.checkInvariants() }
    }
    #expect(policy.currentFIFOCapacity >= 150, "the FIFO holds \(policy.currentFIFOCapacity)")
  }

  @Test func s3fifodShrinksTheFIFOWhenTheMainCachesEvictionsReturn() {
    // A loop over 1,050 keys, each requested twice in a row: every key is
    // hit in the FIFO and promoted, so the FIFO evicts nothing unhit, and
    // the main cache's evictions return about 50 keys later.
    var policy = S3FIFODPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000)
    for t in 0..<100_000 {
      _ = policy.access(Request(key: UInt64(t / 2 % 1_050)))
      if t.isMultiple(of: 997) { policy.checkInvariants() }
    }
    // It stops at 1% of the capacity (10), one step (1) below.
    #expect(policy.currentFIFOCapacity < 100 && policy.currentFIFOCapacity >= 9)
  }

  @Test func s3fifodTakesLibCacheSimsSpellingAndNeedsAFIFOOfOne() throws {
    #expect(try PolicySpec("S3FIFOd").name == "s3fifod")
    #expect(try PolicySpec("s3fifod").minimumCapacity == 10)
    #expect(try PolicySpec("s3fifod:fifo=0.5").minimumCapacity == 2)
  }
}
