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
    #expect(throws: PolicyError.unknownPolicy("fifo__merge")) { try PolicySpec("fifo__merge") }
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
