import EvictionCore
import EvictionTestSupport
import Testing

/// A policy's saved state restores a policy that makes the same decisions,
/// and a damaged one is refused without changing the policy.
@Suite struct PolicyStateTests {
  /// Every catalog spelling whose policy has a saved form.
  static let restorable = [
    "lru", "fifo", "mru", "clock", "clock:bits=3", "sieve", "slru", "slru:segments=1", "sfifo", "s3fifo",
    "s3fifo-v0", "2q", "lp-twoq", "arc", "lp-arc", "lfu", "cr-lfu", "wtinylfu", "wtinylfu-v0",
    "wtinylfu:adaptive=true",
  ]

  static func box(_ spec: String, capacity: Int64) throws -> AnyCachePolicy<UInt64> {
    var visitor = BoxingVisitor<UInt64>()
    return try PolicySpec(spec).withPolicy(capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
  }

  /// Serves `requests`, recording each hit and each eviction.
  static func serve(_ policy: AnyCachePolicy<UInt64>, _ requests: ArraySlice<Request<UInt64>>) -> [String] {
    var log: [String] = []
    for request in requests {
      var evicted: [UInt64] = []
      if policy.lookup(request, { evicted.append($1) }) != nil {
        log.append("hit \(request.key) \(evicted)")
      } else {
        let slot = policy.admit(request) { evicted.append($1) }
        log.append("miss \(request.key) -> \(slot.map(String.init) ?? "refused") \(evicted)")
      }
    }
    return log
  }

  static func snapshotOf(_ policy: AnyCachePolicy<UInt64>) -> [String] {
    policy.lists().map { "\($0.name): \($0.keys)" } + ["count \(policy.count())", "used \(policy.usedWeight())"]
  }

  @Test(arguments: restorable, [false, true])
  func aRestoredPolicyMakesTheSameDecisions(spec: String, weighted: Bool) throws {
    let requests = conformanceRequests(seed: 3, weighted: weighted, count: 8_000)
    let capacity: Int64 = weighted ? 3_000 : 120
    for cut in [0, 1, 700, 5_000] {
      let original = try Self.box(spec, capacity: capacity)
      _ = Self.serve(original, requests[..<cut])
      let state = try original.saveState()
      let restored = try Self.box(spec, capacity: capacity)
      // Something in it first: a restore replaces what was there.
      _ = Self.serve(restored, requests[..<50])
      try restored.restoreState(state)
      restored.checkInvariants()
      #expect(Self.snapshotOf(restored) == Self.snapshotOf(original), "\(spec) after \(cut)")
      #expect(Self.serve(restored, requests[cut...]) == Self.serve(original, requests[cut...]), "\(spec) after \(cut)")
      original.checkInvariants()
      restored.checkInvariants()
    }
  }

  @Test func aStateSavedByAnotherPolicyOrCapacityIsRefused() throws {
    let lru = try Self.box("lru", capacity: 100)
    _ = Self.serve(lru, conformanceRequests(seed: 1, weighted: false, count: 500)[...])
    let state = try lru.saveState()
    #expect(throws: PolicyStateError.self) { try Self.box("fifo", capacity: 100).restoreState(state) }
    #expect(throws: PolicyStateError.self) { try Self.box("lru", capacity: 101).restoreState(state) }
  }

  @Test func aPolicyWithoutASavedFormSaysSo() throws {
    let lirs = try Self.box("lirs", capacity: 100)
    #expect {
      _ = try lirs.saveState()
    } throws: { error in
      guard case .unsupported(let policy, _) = error as? PolicyStateError else { return false }
      return policy == lirs.name
    }
  }

  /// Damage of every kind is refused, and the policy keeps what it held.
  @Test(arguments: ["lru", "sieve", "s3fifo", "arc", "lfu", "wtinylfu", "slru", "2q"])
  func aDamagedStateIsRefusedAndChangesNothing(spec: String) throws {
    let requests = conformanceRequests(seed: 8, weighted: false, count: 3_000)
    let source = try Self.box(spec, capacity: 60)
    _ = Self.serve(source, requests[..<2_000])
    let state = try source.saveState()
    var damaged: [PolicyState<UInt64>] = []
    var truncated = state
    truncated.words.removeLast()
    damaged.append(truncated)
    var longer = state
    longer.words.append(0)
    damaged.append(longer)
    var fewerKeys = state
    fewerKeys.keys.removeLast()
    damaged.append(fewerKeys)
    // Every word of the slab's header and of the first entries, changed in
    // turn to values a damaged file would hold.
    for i in 0..<min(state.words.count, 80) {
      for value: UInt64 in [.max, 1 << 40, 0, 7] where state.words[i] != value {
        var changed = state
        changed.words[i] = value
        damaged.append(changed)
      }
    }
    var twice = state
    twice.keys[1] = twice.keys[0]
    damaged.append(twice)

    let target = try Self.box(spec, capacity: 60)
    _ = Self.serve(target, requests[2_000...])
    let before = Self.snapshotOf(target)
    var refused = 0
    for state in damaged {
      do {
        try target.restoreState(state)
        // A change that leaves a consistent state (a counter from 0 to 7)
        // is restored; the policy must then hold together.
        target.checkInvariants()
        try target.restoreState(try Self.box(spec, capacity: 60).saveState())
        _ = Self.serve(target, requests[2_000...])
      } catch {
        refused += 1
        #expect(Self.snapshotOf(target) == before, "\(spec): a refused state changed the policy")
      }
    }
    #expect(refused >= damaged.count / 2, "\(spec): \(refused) of \(damaged.count) refused")
  }
}
