import EvictionTestSupport
import Testing

@testable import EvictionCore

/// Cacheus, LHD and CLOCK-Pro by what defines each. Cacheus and LHD draw
/// random numbers, so libCacheSim's figures are matched in miss ratio
/// (`ReferenceTests`); CLOCK-Pro has no reference figures.
@Suite struct LearnedPolicyTests {
  /// A loop over 1.2 × the cache: recency is the wrong expert (what LRU
  /// evicts comes back soonest), so Cacheus's LRU weight falls (at 1.5 ×,
  /// SR of N/2 and H of N − 1 forget every key before it returns, and
  /// SR-LRU's own trimming is all that evicts: no expert ever chooses); a hot set
  /// that moves away leaves the old set the most frequent, so LFU's victims
  /// (the new hot keys) come back and its weight falls instead.
  @Test func cacheusMovesWeightFromTheExpertWhoseVictimsReturn() {
    var looped = CacheusPolicy<IntegerSlotIndex<UInt64>>(capacity: 100, seed: 1)
    for t in 0..<30_000 {
      _ = looped.access(Request(key: UInt64(t % 120)))
      if t.isMultiple(of: 997) { looped.checkInvariants() }
    }
    // libCacheSim's λ revision shrinks λ every N requests on a hit rate
    // that integer division makes 0, so the weight moves early and little.
    #expect(looped.weightOfLRU < 0.5, "LRU weight \(looped.weightOfLRU) on a loop")

    var shifted = CacheusPolicy<IntegerSlotIndex<UInt64>>(capacity: 100, seed: 1)
    for t in 0..<30_000 {
      // Keys 0..<80 forty times each, then new sets of 80 visited twice each.
      let key = t < 3_200 ? t % 80 : 1_000 + (t - 3_200) / 160 * 80 + t % 80
      _ = shifted.access(Request(key: UInt64(key)))
      if t.isMultiple(of: 997) { shifted.checkInvariants() }
    }
    #expect(shifted.weightOfLRU > 0.8, "LRU weight \(shifted.weightOfLRU) after the hot set moved")
  }

  @Test func cacheusDrawsItsLearningRateFromItsSeed() {
    let rates = (1...20).map { CacheusPolicy<IntegerSlotIndex<UInt64>>(capacity: 100, seed: UInt64($0)).learningRate }
    #expect(rates.allSatisfy { $0 >= 0.001 && $0 <= 1.0 })
    #expect(Set(rates).count > 15)
    #expect(CacheusPolicy<IntegerSlotIndex<UInt64>>(capacity: 100, seed: 7).learningRate == rates[6])
  }

  @Test func lhdClassesAreLog2OfTheMaximumAgeOverTheLastHitAges() {
    #expect(LHDModel.hitAgeClass(0) == 15)
    #expect(LHDModel.hitAgeClass(1) == 15)
    #expect(LHDModel.hitAgeClass(625) == 5)
    #expect(LHDModel.hitAgeClass(626) == 5)
    #expect(LHDModel.hitAgeClass(624) == 6)
    #expect(LHDModel.hitAgeClass(20_000) == 0)
    #expect(LHDModel.hitAgeClass(40_000) == 0)
    // Until the first reconfiguration a class's density is
    // (16 + class + 1) / (age + 1), libCacheSim's starting point.
    let model = LHDModel()
    #expect(model.density(class: 0, age: 0) == 17)
    #expect(model.density(class: 15, age: 3) == 8)
  }

  /// The density at age a is the hits expected beyond a over the lifetime
  /// expected beyond a: one hit at age 5 and one eviction at age 10
  /// (decayed by 0.9 alike) give 1 / ((6 − a) · 2 + 5) for a ≤ 5, then 0.
  @Test func lhdModelsHitDensityFromHitsAndEvictionsByAge() {
    var model = LHDModel()
    model.hit(class: 3, age: 5)
    model.eviction(class: 3, age: 10)
    model.reconfigure(residents: 0)
    for age: Int64 in 0...5 {
      let expected = Float(1) / Float((6 - age) * 2 + 5)
      #expect(abs(model.density(class: 3, age: age) - expected) < 1e-6, "age \(age)")
    }
    // (The last age, 19,999, keeps its initial density, as in libCacheSim:
    // an object that old ranks below everything anyway.)
    for age: Int64 in [6, 10, 11, 19_998] { #expect(model.density(class: 3, age: age) == 0) }
    #expect(model.density(class: 4, age: 0) == 0, "a class with no events has no density")
  }

  /// LHD's clock counts the accesses it serves and reconfigures every 2²⁰;
  /// at the 6th it sets the age coarsening from the residents: 1,000 of
  /// them span 5 coarse ages (÷ 200), 2³.
  @Test func lhdReconfiguresEvery2To20AccessesAndCoarsensAgesToTheResidents() {
    var policy = LHDPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000, seed: 3)
    let accesses = 6 << 20
    for t in 0..<accesses {
      _ = policy.access(Request(key: UInt64(t % 1_000)))
      if t == 1 << 20 - 1 { #expect(policy.model.reconfigurations == 1) }
      if t.isMultiple(of: 100_003) { policy.checkInvariants() }
    }
    #expect(policy.model.reconfigurations == 6)
    #expect(policy.model.time == Int64(accesses))
    #expect(policy.model.ageShift == 3)
  }

  /// The model pays off: a hot set of 500 keys requested all the time and
  /// a stream of keys seen once, at a cache of 1,000. Before LHD has
  /// learned anything it ranks by recency, and a recency ranking lets the
  /// stream push hot keys out; once reconfigured, the one-time keys' class
  /// has no hits, so they go first and nearly every hot request hits.
  @Test func lhdLearnsToEvictOneTimeKeysBeforeAHotSet() {
    var policy = LHDPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000, seed: 5)
    var lru = LRUPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000)
    var state: UInt64 = 99
    var hotHits = (lhd: 0, lru: 0, requests: 0)
    for t in 0..<4_000_000 {
      let key: UInt64
      if t.isMultiple(of: 2) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        key = (state >> 33) % 500
      } else {
        key = 1_000_000 + UInt64(t)
      }
      let lhdHit = policy.access(Request(key: key))
      let lruHit = lru.access(Request(key: key))
      if t >= 3_000_000 && key < 500 {
        hotHits.requests += 1
        if lhdHit { hotHits.lhd += 1 }
        if lruHit { hotHits.lru += 1 }
      }
    }
    policy.checkInvariants()
    let lhd = Double(hotHits.lhd) / Double(hotHits.requests)
    let recency = Double(hotHits.lru) / Double(hotHits.requests)
    #expect(lhd > 0.95 && lhd > recency + 0.05, "hot hit ratio: LHD \(lhd), LRU \(recency)")
  }

  /// CLOCK-Pro's reason to exist (the paper's Section 5): a loop slightly
  /// larger than the cache defeats CLOCK (and LRU) entirely, while
  /// CLOCK-Pro, like LIRS, keeps more than half of it hitting.
  @Test func clockProKeepsMostOfALoopThatDefeatsCLOCK() throws {
    let keys = (0..<30_000).map { UInt64($0 % 120) }
    let clockPro = try scenario("clock-pro", capacity: 100, keys).hits.filter { $0 }.count
    let clock = try scenario("clock", capacity: 100, keys).hits.filter { $0 }.count
    let lirs = try scenario("lirs", capacity: 100, keys).hits.filter { $0 }.count
    #expect(clock == 0)
    #expect(clockPro > 15_000 && lirs > 15_000, "CLOCK-Pro hits \(clockPro) of 30,000; LIRS \(lirs)")
  }

  /// A scan of one-time keys through a cache holding a hot set: the scan's
  /// pages stay cold and leave, the hot pages stay.
  @Test func clockProResistsAScanThatFlushesCLOCK() throws {
    var keys: [UInt64] = []
    for round in 0..<200 {
      keys += (0..<60).map { UInt64($0) }
      keys += (0..<100).map { UInt64(1_000 + round * 100 + $0) }
    }
    let hotRequests = 200 * 60
    func hotHits(_ spec: String) throws -> Int {
      let run = try scenario(spec, capacity: 100, keys)
      return zip(keys, run.hits).filter { $0.0 < 60 && $0.1 }.count
    }
    let clockPro = try hotHits("clock-pro")
    let clock = try hotHits("clock")
    #expect(clock < hotRequests / 10, "CLOCK hits \(clock) hot requests")
    #expect(clockPro > hotRequests * 9 / 10, "CLOCK-Pro hits \(clockPro) of \(hotRequests) hot requests")
  }

  /// The cold allocation m_c adapts: on a loop, where the test periods
  /// catch re-accesses, it grows; on one-time keys, whose tests expire
  /// unreused, it returns to its floor (1% of the capacity).
  @Test func clockProsColdAllocationFollowsTheTestPeriods() {
    var policy = ClockProPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000)
    #expect(policy.coldAllocation == 10)
    for t in 0..<50_000 {
      _ = policy.access(Request(key: UInt64(t % 1_500)))
      if t.isMultiple(of: 997) { policy.checkInvariants() }
    }
    let afterLoop = policy.coldAllocation
    for t in 0..<50_000 {
      _ = policy.access(Request(key: UInt64(10_000 + t)))
      if t.isMultiple(of: 997) { policy.checkInvariants() }
    }
    #expect(afterLoop > 10, "m_c \(afterLoop) after a loop")
    #expect(policy.coldAllocation == 10, "m_c \(policy.coldAllocation) after one-time keys")
  }

  /// A `MemoryCache` entry may cost 0, so pages may weigh nothing: trimming
  /// must still find a page to evict (HAND_cold used to look for cold
  /// weight, found none, and ran forever).
  @Test func clockProEvictsPagesThatWeighNothing() {
    var policy = ClockProPolicy<IntegerSlotIndex<UInt64>>(capacity: 10)
    for key in 0..<20 { _ = policy.access(Request(key: UInt64(key), weight: 0)) }
    for key in 20..<25 { _ = policy.access(Request(key: UInt64(key), weight: 2)) }
    policy.checkInvariants()
    #expect(policy.count == 25 && policy.usedWeight == 10)
    var evicted = 0
    while policy.evictOne(onEvict: { _, _ in evicted += 1 }) { policy.checkInvariants() }
    #expect(evicted == 25 && policy.count == 0 && policy.usedWeight == 0)
  }
}
