import EvictionCore
import EvictionTestSupport
import Testing

/// Asks a policy for its next victim every few requests and evicts it,
/// recording where the named entry and the evicted one differ.
struct VictimProbe: PolicyVisitor {
  typealias Key = UInt64
  let requests: [Request<UInt64>]

  mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> (
    named: Int, problems: [String]
  ) where Policy.Key == UInt64 {
    var policy = policy
    var named = 0
    var problems: [String] = []
    for (i, request) in requests.enumerated() {
      if policy.lookup(request, onEvict: { _, _ in }) == nil { _ = policy.admit(request) { _, _ in } }
      guard i % 7 == 6, let victim = policy.nextVictim() else { continue }
      named += 1
      let key = policy.key(at: victim)
      if policy.nextVictim() != victim { problems.append("request \(i): asked twice, named two victims") }
      policy.checkInvariants()
      var evicted: [(slot: Slot, key: UInt64)] = []
      _ = policy.evictOne { evicted.append(($0, $1)) }
      if evicted.count != 1 || evicted[0].slot != victim || evicted[0].key != key {
        problems.append("request \(i): named \(key), evicted \(evicted.map(\.key))")
      }
      policy.checkInvariants()
    }
    return (named, problems)
  }
}

@Suite struct TinyLFUAdmissionTests {
  /// The trait is the promise: a policy with it names the entry `evictOne`
  /// then evicts, every time; one without it names none (TinyLFU refuses it).
  @Test func policiesThatClaimToNameTheirVictimNameTheOneTheyEvict() throws {
    var state: UInt64 = 3
    let requests = (0..<2_000).map { i -> Request<UInt64> in
      state = state &* 6_364_136_223_846_793_005 &+ 1
      let key = (state >> 33) % 90
      return Request(key: key, weight: Int64(1 + key % 4), time: Int64(i + 1))
    }
    var naming: [String] = []
    for entry in PolicyCatalog.entries where !entry.isOffline && !entry.trimsOnATimer {
      var probe = VictimProbe(requests: requests)
      let (named, problems) = try PolicySpec(entry.name).withPolicy(
        capacity: 40, index: IntegerSlotIndex<UInt64>.self, visitor: &probe)
      if entry.namesVictims {
        naming.append(entry.name)
        #expect(named > 200, "\(entry.name) named \(named) victims")
        #expect(problems.isEmpty, "\(entry.name): \(problems.prefix(3))")
      } else {
        #expect(named == 0, "\(entry.name) names victims but does not say so in its traits")
      }
    }
    #expect(naming.count >= 21, "\(naming)")
  }

  /// a and b are requested 3 times each; c enters only when the sketch
  /// counts it strictly above LRU's victim a, on its 4th request.
  @Test func aMissEntersOnlyWhenRatedAboveTheVictim() throws {
    let (a, b, c): (UInt64, UInt64, UInt64) = (1, 2, 3)
    let hits = try admittedRun("lru", "tinylfu", capacity: 2, [a, a, a, b, b, b, c, c, c, c, c, b, a])
    #expect(hits == [false, true, true, false, true, true, false, false, false, false, true, true, false])
    // Without the gate, c enters at once and the scan of c pushes a out earlier.
    #expect(try admittedRun("lru", "none", capacity: 2, [a, a, a, b, b, b, c, c]).suffix(2) == [false, true])
  }

  /// In byte mode a heavy object may need several victims: it must beat each
  /// in turn; where it loses, it is refused, and the victims it already beat
  /// stay evicted (Caffeine's simulator does the same).
  @Test func aHeavyMissMustBeatEveryVictimItNeeds() throws {
    let (x, y, z): (UInt64, UInt64, UInt64) = (1, 2, 3)
    let weights: [UInt64: Int64] = [x: 4, y: 4, z: 8]
    // x once, y five times, z twice: z (2) beats x (1), loses to y (5).
    let keys = [x, y, y, y, y, y, z, z, y, x]
    let hits = try admittedRun("fifo", "tinylfu", capacity: 10, keys, weights: weights)
    #expect(hits == [false, false, true, true, true, true, false, false, true, false])
  }

  /// A hot set of 40 keys among scans of keys seen once: LRU alone loses the
  /// hot set to every scan; behind TinyLFU a key seen once never displaces a
  /// hot one.
  @Test func scansDoNotFlushTheHotSetBehindTinyLFU() throws {
    var keys: [UInt64] = []
    var next: UInt64 = 1_000
    for _ in 0..<50 {
      keys += (0..<40).map { UInt64($0) }
      for _ in 0..<80 {
        keys.append(next)
        next += 1
      }
    }
    for policy in ["lru", "clock", "sieve", "fifo"] {
      let alone = try admittedRun(policy, "none", capacity: 50, keys).filter { $0 }.count
      let gated = try admittedRun(policy, "tinylfu", capacity: 50, keys).filter { $0 }.count
      // 49 rounds of 40 hot hits are possible; the gate should keep nearly all.
      #expect(gated > 1_800, "\(policy) behind tinylfu: \(gated) hits")
      #expect(alone < 200, "\(policy) alone: \(alone) hits")
    }
  }

  @Test func tinyLFUIsRefusedInFrontOfPoliciesThatDoNotNameAVictim() throws {
    #expect(try AdmissionSpec("TinyLFU").description == "tinylfu")
    #expect(throws: AdmissionError.self) { try AdmissionSpec("tinylfu:window=1") }
    let arc = try #require(PolicyCatalog.entry(named: "arc"))
    #expect(throws: AdmissionError.self) { try AdmissionSpec("tinylfu").check(composesWith: arc) }
    do { try AdmissionSpec("tinylfu").check(composesWith: arc) } catch {
      #expect(error.description.contains("arc does not name its victim"))
      #expect(error.description.contains("lru, fifo"))
    }
    try AdmissionSpec("tinylfu").check(composesWith: #require(PolicyCatalog.entry(named: "sieve")))
    try AdmissionSpec("bloom-filter").check(composesWith: arc)
  }

  @Test func theSketchCountsUpToFifteenAndAgesByHalving() {
    var sketch = FrequencySketch(entries: 4)
    #expect(sketch.estimate(7) == 0)
    for _ in 0..<20 { sketch.increment(7) }
    #expect(sketch.estimate(7) == 15)
    sketch.halve()
    #expect(sketch.estimate(7) == 7)
    // 40 increments of other keys (10 per key sized for) halve it again.
    for key: UInt64 in 100..<140 { sketch.increment(key) }
    #expect(sketch.estimate(7) <= 4)
    sketch.grow(toFit: 100)
    #expect(sketch.entries == 128 && sketch.estimate(7) == 0)
  }
}
