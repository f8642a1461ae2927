import EvictionCore
import EvictionSim
import EvictionTestSupport
import Foundation
import Testing

/// S4-FIFO with fixed knobs against libCacheSim's `S4FIFO.c` (pull request
/// #335 grafted onto 0.3.5, `scripts/reference-s4fifo.sh`), and its
/// defaults against S3-FIFO.
@Suite struct S4FIFOTests {
  /// libCacheSim's knob names → the catalog's.
  static let knobNames = [
    "small-size-ratio": "small", "ghost-size-ratio": "ghost", "move-to-main-threshold": "threshold",
    "ghost-to-main-threshold": "ghost-threshold", "small-skip-ratio": "skip",
  ]

  static func referenceRows() throws -> [[String: String]] {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/libcachesim_035_s4fifo.tsv"),
      encoding: .utf8)
    var lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
      .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    let header = lines.removeFirst()
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
  }

  static func spec(libCacheSimParameters: String) -> String {
    let knobs = libCacheSimParameters.split(separator: ",").map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1)
      return "\(knobNames[String(parts[0])]!)=\(parts[1])"
    }
    return "s4fifo:" + knobs.joined(separator: ",")
  }

  @Test func fixedKnobsAgreeWithLibCacheSimToTheMiss() throws {
    let rows = try Self.referenceRows().map { row in
      var row = row
      row["spec"] = Self.spec(libCacheSimParameters: row["eviction_params"]!)
      row["renumber_ids"] = "false"
      return row
    }
    // 2 traces × 2 size modes × 7 knob settings × 3 sizes.
    #expect(rows.count == 84)
    #expect(Set(rows.map { $0["eviction_params"]! }).count == 7)
    let wrong = try MoreTracesReferenceTests.disagreements(rows)
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }

  /// The rows with S3-FIFO's knobs are libCacheSim 0.3.5's own `s3fifo`
  /// rows: the graft changed nothing else.
  @Test func defaultKnobsAreTheReleasesS3FIFO() throws {
    let rows = try Self.referenceRows().filter { $0["cache_name"]! == "S4FIFO-0.1000-2-0-0.00" }
    #expect(rows.count == 12)
    for row in rows {
      var cell = row
      cell["spec"] = "s3fifo"
      cell["renumber_ids"] = "false"
      #expect(try MoreTracesReferenceTests.disagreements([cell]).isEmpty, "s3fifo vs \(row)")
    }
  }

  /// What `spec` does with each request; with `penalties`, told each
  /// request's penalty first (``EvictionCore/ReplacementPolicy/willServe(penalty:)``).
  static func replayLog(
    _ spec: String, _ requests: [Request<UInt64>], capacity: Int64, penalties: [Float]? = nil
  ) throws -> [String] {
    var visitor = BoxingVisitor<UInt64>()
    let policy = try PolicySpec(spec).withPolicy(
      capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
    var log: [String] = []
    for (n, request) in requests.enumerated() {
      if let penalties { policy.willServe(penalties[n]) }
      var evicted: [UInt64] = []
      if policy.lookup(request, { evicted.append($1) }) != nil {
        log.append("hit \(request.key)")
      } else {
        let slot = policy.admit(request) { evicted.append($1) }
        log.append("miss \(request.key) \(slot == nil ? "refused" : "admitted") \(evicted)")
      }
      if n % 997 == 0 { policy.checkInvariants() }
    }
    policy.checkInvariants()
    return log
  }

  /// Decision for decision, evictions included: S4-FIFO at its defaults is
  /// S3-FIFO, at several sizes and in both modes.
  @Test(arguments: [false, true])
  func defaultsAreS3FIFODecisionForDecision(weighted: Bool) throws {
    let requests = conformanceRequests(seed: 11, weighted: weighted, count: 20_000)
    for capacity: Int64 in weighted ? [900, 4_000, 20_000] : [20, 150, 600] {
      #expect(
        try Self.replayLog("s4fifo", requests, capacity: capacity)
          == Self.replayLog("s3fifo", requests, capacity: capacity), "capacity \(capacity)")
    }
  }

  /// Every knob setting of the paper's table runs with its invariants kept
  /// (ghost weights, queue links, totals) and changes what is missed.
  @Test func everyCandidateSettingKeepsItsInvariants() throws {
    let requests = conformanceRequests(seed: 4, weighted: true, count: 12_000)
    var logs = Set<[String]>()
    for knobs in S4FIFOKnobs.candidates {
      logs.insert(try Self.replayLog("s4fifo:\(knobs)", requests, capacity: 6_000))
    }
    #expect(logs.count > 15, "only \(logs.count) distinct behaviours among 20 settings")
  }

  /// With a ghost threshold above zero, a returning object enters small and
  /// its ghost entry stays: it is in both.
  @Test func aGhostEntryOutlivesTheObjectsReturnWhenGhostsDoNotPromote() throws {
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(
      capacity: 10, knobs: S4FIFOKnobs(small: 0.2, ghost: 1, threshold: 2, ghostThreshold: 1))
    for key: UInt64 in 1...12 { _ = policy.access(Request(key: key)) }
    // The first fill's overflow went to main; eviction has begun since, so
    // each new key enters small and pushes small's oldest into the ghost.
    let ghosts = policy.lists().first { $0.name == "ghost" }!.keys
    #expect(ghosts == [2, 1])
    let hit = policy.access(Request(key: 1))
    let explained = policy.explain(1)
    #expect(!hit && explained == "small, freq 0 (also in ghost)")
    policy.checkInvariants()
    // At threshold 0 the same return goes to main and leaves the ghost.
    var promoting = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(
      capacity: 10, knobs: S4FIFOKnobs(small: 0.2, ghost: 1, threshold: 2, ghostThreshold: 0))
    for key: UInt64 in 1...12 { _ = promoting.access(Request(key: key)) }
    let promotedHit = promoting.access(Request(key: 1))
    let promoted = promoting.explain(1)
    #expect(!promotedHit && promoted == "main, freq 0")
  }

  /// The skip window: a hit on one of small's newest ⌊skip × count⌋
  /// objects is not counted.
  @Test func hitsInTheSkipWindowAreNotCounted() throws {
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(
      capacity: 100, knobs: S4FIFOKnobs(small: 0.5, ghost: 1, threshold: 2, skip: 0.5))
    for key: UInt64 in 1...10 { _ = policy.access(Request(key: key)) }
    // Ten objects in small: the newest four (ages 1–4 < 5) earn nothing.
    let newest = policy.access(Request(key: 10))
    let newestState = policy.explain(10)
    #expect(newest && newestState == "small, freq 0")
    let older = policy.access(Request(key: 6))
    let olderState = policy.explain(6)
    #expect(older && olderState == "small, freq 1")
  }

  @Test func theGhostFIFOKeepsItsWeightAndOrder() {
    var ghost = GhostFIFO<Int>(capacity: 10)
    for key in 1...5 { ghost.insert(key, weight: 2) }
    #expect(ghost.keys == [5, 4, 3, 2, 1] && ghost.weight == 10)
    ghost.insert(3, weight: 2)  // held already: nothing moves
    #expect(ghost.keys == [5, 4, 3, 2, 1])
    let removed = ghost.remove(2)
    let removedAgain = ghost.remove(2)
    #expect(removed && !removedAgain)
    ghost.insert(6, weight: 4)  // 8 + 4 > 10: drops 1, the oldest
    #expect(ghost.keys == [6, 5, 4, 3] && ghost.weight == 10)
    ghost.insert(7, weight: 11)  // heavier than the whole FIFO: kept nowhere
    #expect(!ghost.contains(7) && ghost.weight == 10)
    ghost.checkInvariants()
    // Many removals: the ring is compacted and stays consistent.
    var churned = GhostFIFO<Int>(capacity: 5)
    churned.insert(1, weight: 1)
    churned.insert(2, weight: 1)
    for key in 100..<1_100 {
      churned.insert(key, weight: 3)
      let removed = churned.remove(key)
      #expect(removed)
    }
    churned.checkInvariants()
    #expect(churned.keys == [2, 1] && churned.weight == 2)
    // Entries that age out (no removal at all) leave no slots behind either.
    var aging = GhostFIFO<Int>(capacity: 10)
    for key in 0..<100_000 { aging.insert(key, weight: 1) }
    aging.checkInvariants()
    #expect(aging.count == 10 && aging.slots <= 64)
    // A FIFO of no weight keeps nothing, not even weightless keys.
    var none = GhostFIFO<Int>(capacity: 0)
    none.insert(1, weight: 0)
    #expect(!none.contains(1))
  }

  /// With a veto, an object heavier than small is refused before any
  /// victim is asked for: what `admit` alone does (S3-FIFO and S4-FIFO).
  @Test(arguments: ["s3fifo", "s4fifo"])
  func anObjectHeavierThanSmallEvictsNothingWithAVeto(spec: String) throws {
    var visitor = BoxingVisitor<UInt64>()
    let policy = try PolicySpec(spec).withPolicy(
      capacity: 60, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
    for key: UInt64 in 1...12 { _ = policy.admit(Request(key: key, weight: 5)) { _, _ in } }
    #expect(policy.usedWeight() == 60)
    var asked = 0
    var evicted: [UInt64] = []
    let slot = policy.admitApproving(
      Request(key: 99, weight: 7), { evicted.append($1) },
      { _ in
        asked += 1
        return true
      })
    #expect(slot == nil && asked == 0 && evicted.isEmpty && policy.usedWeight() == 60)
  }

  /// `ghost=0` keeps no ghost: a returning object is a new one.
  @Test func noGhostMeansNoReturnToMain() throws {
    let requests = conformanceRequests(seed: 6, weighted: false, count: 5_000)
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(capacity: 100, knobs: S4FIFOKnobs(ghost: 0))
    for request in requests { _ = policy.access(request) }
    policy.checkInvariants()
    #expect(policy.lists().first { $0.name == "ghost" }!.keys.isEmpty)
  }

  @Test(arguments: ["s4fifo:small=1", "s4fifo:small=0", "s4fifo:ghost=21", "s4fifo:skip=1.5", "s4fifo:skip=nan"])
  func impossibleKnobsAreRefused(spec: String) {
    #expect(throws: PolicyError.self) { try PolicySpec(spec) }
  }
}
