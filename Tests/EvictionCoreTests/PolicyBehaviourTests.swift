import EvictionCore
import EvictionTestSupport
import Testing

/// Runs `keys` (weight 1, or the given weights) and returns the hit sequence and the lists.
struct ScenarioDriver: PolicyVisitor {
  typealias Key = UInt64
  let requests: [Request<UInt64>]
  var evicted: [UInt64] = []
  mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> (
    hits: [Bool], lists: [String: [UInt64]]
  ) where Policy.Key == UInt64 {
    var policy = policy
    var hits: [Bool] = []
    for request in requests {
      if policy.lookup(request, onEvict: { _, key in evicted.append(key) }) != nil {
        hits.append(true)
      } else {
        hits.append(false)
        _ = policy.admit(request) { _, key in evicted.append(key) }
      }
      policy.checkInvariants()
    }
    return (hits, Dictionary(uniqueKeysWithValues: policy.lists().map { ($0.name, $0.keys) }))
  }
}

func scenario(_ spec: String, capacity: Int64, _ keys: [UInt64], weights: [UInt64: Int64] = [:]) throws -> (
  hits: [Bool], lists: [String: [UInt64]], evicted: [UInt64]
) {
  let requests = withNextAccess(
    keys.enumerated().map { Request(key: $1, weight: weights[$1] ?? 1, time: Int64($0 + 1)) })
  var driver = ScenarioDriver(requests: requests)
  let result = try PolicySpec(spec).withPolicy(
    capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &driver)
  return (result.hits, result.lists, driver.evicted)
}

@Suite struct PolicyBehaviourTests {
  @Test func lruEvictsTheLeastRecentlyUsed() throws {
    let r = try scenario("lru", capacity: 3, [1, 2, 3, 1, 4, 2, 1])
    #expect(r.hits == [false, false, false, true, false, false, true])
    #expect(r.evicted == [2, 3])
    #expect(r.lists["queue"] == [1, 2, 4])
  }

  @Test func fifoIgnoresHits() throws {
    let r = try scenario("fifo", capacity: 3, [1, 2, 3, 1, 4, 1])
    #expect(r.hits == [false, false, false, true, false, false])
    #expect(r.evicted == [1, 2])
    #expect(r.lists["queue"] == [1, 4, 3])
  }

  @Test func mruEvictsTheMostRecentlyUsed() throws {
    let r = try scenario("MRU", capacity: 3, [1, 2, 3, 1, 4, 2])
    #expect(r.evicted == [1])
    #expect(r.hits == [false, false, false, true, false, true])
    #expect(r.lists["queue"] == [2, 4, 3])
  }

  @Test func lfuBreaksTiesByWhoReachedTheFrequencyFirst() throws {
    // 2 reaches frequency 2 before 1 does; 3 and 4 have frequency 1.
    let r = try scenario("lfu", capacity: 3, [1, 2, 2, 1, 3, 4, 5])
    #expect(r.evicted == [3, 4])
    #expect(r.lists["frequency 2"] == [2, 1])
    #expect(r.lists["frequency 1"] == [5])
    // Among equal frequencies, the older one goes: evict 2 (reached 2 first).
    let s = try scenario("lfu", capacity: 2, [1, 2, 2, 1, 3])
    #expect(s.evicted == [2])
  }

  @Test func lfuForgetsFrequencyOnEviction() throws {
    let r = try scenario("lfu", capacity: 1, [1, 1, 1, 2, 1])
    #expect(r.evicted == [1, 2])
    #expect(r.lists["frequency 1"] == [1])
  }

  @Test func slruPromotesOneSegmentPerHitAndDemotesOnOverflow() throws {
    // Two segments of 2: hits move entries up; the top segment's overflow comes down.
    let r = try scenario("slru:segments=2", capacity: 4, [1, 2, 1, 2, 3, 3, 4, 5])
    // 1 and 2 climb to segment 1; 3's hit overflows it and pushes 1 down;
    // 5 finds the cache full and evicts the bottom segment's LRU end (1).
    #expect(r.hits == [false, false, true, true, false, true, false, false])
    #expect(r.lists["segment 1"] == [3, 2])
    #expect(r.lists["segment 0"] == [5, 4])
    #expect(r.evicted == [1])
  }

  @Test func slruRefusesObjectsLargerThanASegment() throws {
    let r = try scenario("slru", capacity: 100, [1, 2, 3], weights: [2: 26])
    #expect(r.lists.values.flatMap { $0 }.sorted() == [1, 3])
  }

  @Test func arcRemembersEvictedKeysAndAdapts() throws {
    // c = 2: 1 moves to T2 on its hit; 3 demotes 2 to B1; the request for 2
    // is a ghost hit: a miss that grows p to 1, demotes T2's LRU (1) to B2
    // and readmits 2 straight into T2.
    let r = try scenario("arc", capacity: 2, [1, 2, 1, 3, 2])
    #expect(r.hits == [false, false, true, false, false])
    #expect(r.lists["T1"] == [3])
    #expect(r.lists["T2"] == [2])
    #expect(r.lists["B1"] == [])
    #expect(r.lists["B2"] == [1])
  }

  @Test func arcEvictsWithoutGhostWhenT1FillsTheCache() throws {
    // Case IV with |T1| = c and B1 empty: T1's LRU end leaves without a ghost.
    let r = try scenario("arc", capacity: 2, [1, 2, 3, 1])
    #expect(r.hits == [false, false, false, false])
    #expect(r.lists["B1"]!.count + r.lists["B2"]!.count <= 1)
    #expect(r.evicted.first == 1)
  }

  @Test func arcPromotesOnSecondHit() throws {
    let r = try scenario("arc", capacity: 4, [1, 2, 1])
    #expect(r.lists["T1"] == [2])
    #expect(r.lists["T2"] == [1])
  }

  @Test func tooHeavyObjectsAreMissesThatEvictNothing() throws {
    for spec in PolicyCatalog.entries.filter({ !$0.isModel }).map(\.name) {
      // At 10, or the least capacity at which the policy caches anything (QD-LP: 20).
      let capacity = max(10, try PolicySpec(spec).minimumCapacity)
      let r = try scenario(spec, capacity: capacity, [1, 2, 9, 9, 1], weights: [9: capacity + 1])
      #expect(r.evicted.isEmpty, "\(spec) evicted for an object it cannot hold")
      #expect(r.hits == [false, false, false, false, true], "\(spec)")
    }
  }
}

@Suite struct PolicyCatalogTests {
  @Test func namesAreCaseInsensitiveAndParametersValidated() throws {
    #expect(try PolicySpec("LRU").name == "lru")
    #expect(try PolicySpec("SLRU:Segments=5").description == "slru:segments=5")
    #expect(try PolicySpec("random:seed=42").integer("seed") == 42)
    #expect(try PolicySpec("slru").integer("segments") == 4)
  }

  @Test func badSpecsSayWhatIsWrong() {
    #expect(throws: PolicyError.unknownPolicy("lruu")) { try PolicySpec("lruu") }
    #expect(throws: PolicyError.unknownParameter(policy: "lru", parameter: "x", known: [])) {
      try PolicySpec("lru:x=1")
    }
    #expect(throws: PolicyError.self) { try PolicySpec("slru:segments=0") }
    #expect(throws: PolicyError.self) { try PolicySpec("slru:segments") }
    #expect(PolicyError.unknownPolicy("lruu").description.contains("known policies: lru, fifo"))
    // A slip names the policy meant; a name far from every policy does not guess.
    #expect(PolicyError.unknownPolicy("s3fif").description.contains("did you mean s3fifo? known policies"))
    #expect(PolicyError.unknownPolicy("S3_FlFO").description.contains("did you mean s3fifo?"))
    #expect(PolicyError.unknownPolicy("W-TinyLRU").description.contains("did you mean wtinylfu?"))
    #expect(!PolicyError.unknownPolicy("quantum").description.contains("did you mean"))
    #expect(PolicyCatalog.nearestName(to: "ark") == "arc" && PolicyCatalog.nearestName(to: "xyzzy") == nil)
  }
}
