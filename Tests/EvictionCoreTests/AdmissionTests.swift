import EvictionCore
import EvictionTestSupport
import Testing

/// Runs `keys` (weights as given, else 1) through `policy` behind `admission`.
func admittedRun(
  _ policy: String, _ admission: String, capacity: Int64, _ keys: [UInt64], weights: [UInt64: Int64] = [:]
)
  throws -> [Bool]
{
  var driver = AdmissionVisitor(
    ScenarioDriver(requests: keys.enumerated().map { Request(key: $1, weight: weights[$1] ?? 1, time: Int64($0 + 1)) }),
    admission: try AdmissionSpec(admission))
  return try PolicySpec(policy).withPolicy(capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &driver)
    .hits
}

@Suite struct AdmissionTests {
  @Test func specsParseAsLibCacheSimNamesThemAndSayWhatIsWrong() throws {
    #expect(try AdmissionSpec("Bloom_Filter").description == "bloom-filter")
    #expect(try AdmissionSpec("prob").description == "prob:p=0.5")
    #expect(try AdmissionSpec("prob:seed=1,p=0.5") == AdmissionSpec("prob"))
    #expect(try AdmissionSpec("size:max=64k").description == "size:max=65536")
    #expect(
      try AdmissionSpec.list("none,prob:p=0.25,seed=3,size:max=1m").map(\.description) == [
        "none", "prob:p=0.25,seed=3", "size:max=1048576",
      ])
    for (bad, says) in [
      ("lfu", "unknown admission 'lfu'"), ("size", "needs max=BYTES"), ("prob:p=2", "in (0, 1]"),
      ("bloom-filter:x=1", "it takes none"), ("size:max=0", "positive size"), ("prob:p=0.5,p=0.2", "gives p twice"),
    ] {
      #expect(throws: AdmissionError.self) { try AdmissionSpec(bad) }
      do { _ = try AdmissionSpec(bad) } catch { #expect(error.description.contains(says), "\(bad): \(error)") }
    }
    #expect(throws: AdmissionError.self) { try AdmissionSpec.list("none,none") }
    #expect(throws: AdmissionError.self) { try AdmissionSpec.list("none,,prob") }
  }

  @Test func bloomFilterAdmitsOnTheSecondMiss() throws {
    // 1 misses twice before it is cached; then it hits.
    #expect(
      try admittedRun("lru", "bloom-filter", capacity: 4, [1, 1, 1, 2, 2, 1]) == [
        false, false, true, false, false, true,
      ])
  }

  @Test func sizeAdmitsUpToItsMaximum() throws {
    let weights: [UInt64: Int64] = [1: 10, 2: 11]
    #expect(
      try admittedRun("lru", "size:max=10", capacity: 100, [1, 1, 2, 2], weights: weights) == [
        false, true, false, false,
      ])
  }

  @Test func probabilityAdmitsAboutItsShareAndRepeatsPerSeed() throws {
    let keys = (0..<20_000).map { UInt64($0 % 100) }
    let hits = try admittedRun("lru", "prob:p=0.25,seed=7", capacity: 1_000, keys)
    // Each object misses until admitted: about 1/0.25 = 4 misses per object.
    let misses = hits.filter { !$0 }.count
    #expect((300...500).contains(misses), "\(misses) misses for 100 objects at p = 0.25")
    #expect(try hits == admittedRun("lru", "prob:p=0.25,seed=7", capacity: 1_000, keys))
    #expect(try hits != admittedRun("lru", "prob:p=0.25,seed=8", capacity: 1_000, keys))
  }

  @Test func noneIsThePolicyAlone() throws {
    var state: UInt64 = 5
    let keys = (0..<5_000).map { _ -> UInt64 in
      state = state &* 6_364_136_223_846_793_005 &+ 1
      return (state >> 33) % 500
    }
    for policy in ["lru", "arc", "s3fifo", "wtinylfu"] {
      #expect(try admittedRun(policy, "none", capacity: 100, keys) == scenario(policy, capacity: 100, keys).hits)
    }
  }

  /// Every online policy behind every admission keeps its invariants
  /// (ScenarioDriver checks them after each request) and its capacity.
  @Test func everyPolicyComposesWithEveryAdmission() throws {
    var state: UInt64 = 11
    let keys = (0..<3_000).map { _ -> UInt64 in
      state = state &* 6_364_136_223_846_793_005 &+ 1
      return (state >> 33) % 300
    }
    let weights = Dictionary(uniqueKeysWithValues: (0..<300).map { (UInt64($0), Int64(1 + $0 % 7)) })
    for entry in PolicyCatalog.entries where !entry.isOffline && !entry.trimsOnATimer {
      for admission in ["bloom-filter", "prob:p=0.5", "size:max=5"] + (entry.approvesVictims ? ["tinylfu"] : []) {
        let hits = try admittedRun(entry.name, admission, capacity: 120, keys, weights: weights)
        #expect(hits.count == keys.count)
        #expect(hits.contains(true), "\(entry.name) behind \(admission) never hit")
      }
    }
  }
}

@Suite struct MissedKeysTests {
  /// The open-addressing table answers as a `Set` does, through growth,
  /// for the key 0, negative `Int`s and keys that collide in the low bits;
  /// other keys go through a `Set`.
  @Test func answersAsASetDoes() {
    var keys = MissedKeys<Int>()
    var oracle = Set<Int>()
    var state: UInt64 = 7
    for i in 0..<60_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      let key: Int =
        switch i % 4 {
        case 0: Int(state >> 50)  // small: repeats often
        case 1: -Int(state >> 40)
        case 2: Int(state >> 50) << 20  // equal low bits
        default: i % 1000 == 3 ? 0 : Int(bitPattern: UInt(state))
        }
      #expect(keys.insert(key) == oracle.insert(key).inserted, "\(key) at \(i)")
    }
    for probe in oracle.prefix(500) { #expect(keys.contains(probe)) }
    #expect(!keys.contains(123_456_789_012))
    var words = MissedKeys<String>()
    #expect(words.insert("a") && !words.insert("a") && words.insert("b") && words.contains("b"))
  }
}
