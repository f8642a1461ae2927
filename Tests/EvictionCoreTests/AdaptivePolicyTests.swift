import EvictionCore
import EvictionTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// SR-LRU, LeCaR, Hyperbolic and CAR by what defines each; agreement with
/// libCacheSim is in `ReferenceTests`, the ARC traces in `CARPaperTests`.
@Suite struct AdaptivePolicyTests {
  @Test func srLRUKeepsProvenObjectsThroughAScan() throws {
    // Capacity 4: R and SR keep 2 each. 1 is hit in SR and moves to R. 4
    // pushes 2 out of SR into the history H; 2's return finds it there and
    // admits it straight to R. The scan 5, 6, 7 then churns SR (3, 4, 5 leave
    // into H) and never reaches R, where LRU loses 1 and 2 to it.
    let keys: [UInt64] = [1, 2, 1, 3, 4, 2, 5, 6, 7, 1, 2]
    let r = try scenario("sr-lru", capacity: 4, keys)
    #expect(r.hits == [false, false, true, false, false, false, false, false, false, true, true])
    #expect(r.evicted == [2, 3, 4, 5])
    #expect(r.lists["R"] == [2, 1] && r.lists["SR"] == [7, 6] && r.lists["H"] == [5, 4, 3])
    #expect(try scenario("lru", capacity: 4, keys).hits.suffix(2) == [false, false])
    #expect(try PolicySpec("SR_LRU").name == "sr-lru")
  }

  @Test func srLRUDemotesRsOldestIntoSRAndKeepsHistoryBelowTheCapacity() throws {
    // 1, 2 and 3 each hit in SR move to R (2 at a time): 3's promotion
    // demotes R's oldest, 1, to SR's front.
    let r = try scenario("sr-lru", capacity: 4, [1, 2, 1, 2, 3, 3])
    #expect(r.lists["R"] == [3, 2] && r.lists["SR"] == [1])
    // A long stream of new keys: H is trimmed while it weighs 4 or more.
    let stream = try scenario("sr-lru", capacity: 4, Array(1...50))
    #expect(stream.lists["H"] == [48, 47, 46])
    #expect(try PolicySpec("sr-lru").minimumCapacity == 2)
  }

  @Test func hyperbolicEvictsTheFewestHitsPerUnitOfTime() throws {
    // Capacity 3, at request 7: 1 has 4 uses in 6 requests (0.67), 2 one in
    // 2 (0.5), 3 one in 1. Hyperbolic evicts 2, LRU 1 (least recent). With
    // 512 draws among 3 entries every entry is sampled.
    let keys: [UInt64] = [1, 1, 1, 1, 2, 3, 4]
    #expect(try scenario("hyperbolic:samples=512", capacity: 3, keys).evicted == [2])
    #expect(try scenario("lru", capacity: 3, keys).evicted == [1])
    // One draw per eviction is a random eviction: seeds differ.
    var victims = Set<UInt64>()
    for seed in 1...40 {
      victims.formUnion(try scenario("hyperbolic:samples=1,seed=\(seed)", capacity: 3, keys).evicted)
    }
    #expect(victims == [1, 2, 3])
  }

  @Test func lecarMovesWeightToTheExpertThatWasRight() throws {
    // Capacity 2: 1 is hit (frequency 2), 2 is not. 3 needs room: LRU names
    // 1, LFU 2, and the draw decides. The victim's return proves its expert
    // wrong one request after the eviction: that expert's weight w becomes
    // (w·e^(−0.45·d) + 10⁻¹⁰) / (w·e^(−0.45·d) + (1 − w) + 2·10⁻¹⁰), d = 0.005^(1/2).
    let lowered = 0.5 * exp(-0.45 * pow(0.005, 0.5)) + 1e-10
    let penalised = lowered / (lowered + 0.5 + 2e-10)
    var chose: Set<String> = []
    for seed in UInt64(1)...20 {
      var policy = LeCaRPolicy<IntegerSlotIndex<UInt64>>(capacity: 2, seed: seed)
      for key: UInt64 in [1, 1, 2, 3] { _ = policy.access(Request(key: key)) }
      let lists = Dictionary(uniqueKeysWithValues: policy.lists())
      if lists["LRU history"] == [1] {
        chose.insert("LRU")
        let hit = policy.access(Request(key: 1))
        #expect(!hit)
        #expect(abs(policy.weightOfLRU - penalised) < 1e-12)
      } else {
        #expect(lists["LFU history"] == [2])
        chose.insert("LFU")
        let hit = policy.access(Request(key: 2))
        #expect(!hit)
        #expect(abs((1 - policy.weightOfLRU) - penalised) < 1e-9)
      }
      policy.checkInvariants()
    }
    #expect(chose == ["LRU", "LFU"])
    // When both experts name the same entry it leaves with no history.
    let same = try scenario("lecar", capacity: 2, [1, 2, 3])
    #expect(same.evicted == [1] && same.lists["LRU history"] == [] && same.lists["LFU history"] == [])
  }

  @Test func lecarIsReproducibleForASeed() throws {
    var keys: [UInt64] = []
    var state: UInt64 = 7
    for _ in 0..<20_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      keys.append((state >> 33) % 400)
    }
    let one = try scenario("lecar:seed=3", capacity: 50, keys).hits
    #expect(try one == scenario("lecar:seed=3", capacity: 50, keys).hits)
    #expect(try one != scenario("lecar:seed=4", capacity: 50, keys).hits)
  }

  @Test func carFollowsThePapersClockHands() throws {
    // Capacity 2. 1 is hit (its bit set). 3 needs room: T1's hand clears 1
    // and moves it to T2, then demotes 2 to B1. 2's return is a B1 hit:
    // REPLACE demotes 3 (T1 still holds max(1, p) = 1), then p grows to 1
    // and 2 enters T2.
    let r = try scenario("car", capacity: 2, [1, 2, 1, 3, 2])
    #expect(r.hits == [false, false, true, false, false])
    #expect(r.evicted == [2, 3])
    #expect(r.lists["T1"] == [] && r.lists["T2"] == [2, 1] && r.lists["B1"] == [3] && r.lists["B2"] == [])
    // A hit only sets a bit: T2's order is unchanged by a hit on 1.
    #expect(try scenario("car", capacity: 2, [1, 2, 1, 3, 2, 1]).lists["T2"] == [2, 1])
  }

  @Test func carResistsAScanThatFlushesClock() throws {
    // A hot set of 30 keys, used twice each, then a scan of 1,000 new keys
    // and the hot set again: CAR keeps the hot set in T2 while the scan
    // passes through T1; CLOCK (and LRU) lose it.
    let hot = (0..<60).map { UInt64($0 % 30) }
    let keys = hot + (1_000..<2_000).map { UInt64($0) } + hot
    let car = try scenario("car", capacity: 40, keys).hits.suffix(60).filter { $0 }.count
    let clock = try scenario("clock", capacity: 40, keys).hits.suffix(60).filter { $0 }.count
    #expect(car == 60 && clock == 30, "after the scan: CAR \(car) hits, CLOCK \(clock)")
  }
}
