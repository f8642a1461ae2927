import EvictionCore
import EvictionSim

/// The checks every built-in policy passes, as a product: run them on a
/// policy of your own (`PolicyConformance.check(PolicySpec("mine"))`, in a
/// test or with `evlab check-policy mine`) and read what it broke.
///
/// A run drives the policy with a request stream and checks, after every
/// request, what every replacement policy must guarantee: the capacity is
/// never exceeded, an object heavier than the cache is refused without
/// evicting anything, an evicted key is gone and a resident key is found,
/// a hit is on a resident key and a miss on an absent one, hits and misses
/// add up, the resident count is what was admitted minus what was
/// evicted, only a policy that says so evicts on a hit, and trimming one
/// victim at a time empties the cache. The policy's own invariants
/// (``ReplacementPolicy/checkInvariants()``) run every few requests.
public enum PolicyConformance {
  /// One broken guarantee: in which run, at which request, and what.
  public struct Violation: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The run's stream and capacity (`unit weights at capacity 10`).
    public var run: String
    /// The 0-based request at which it was seen; nil for a check at the end of the run.
    public var request: Int?
    public var message: String

    public var description: String {
      "\(run), " + (request.map { "request \($0)" } ?? "at the end") + ": \(message)"
    }
  }

  /// Hears a battery as it runs, so that a policy that stops the process
  /// (a trap in its own invariant check) still leaves its findings:
  /// `evlab check-policy` runs each policy in a child process that streams
  /// them to the parent.
  public struct Observer: Sendable {
    /// A run starts (its name, as ``Violation/run`` gives it).
    public var runStarted: @Sendable (String) -> Void
    /// The run reaches request `i` (0-based), before the policy sees it;
    /// -1 for the checks at the end of the run.
    public var request: @Sendable (Int) -> Void
    /// A guarantee is broken (the first ``Driver/mostViolations`` of a run).
    public var violation: @Sendable (Violation) -> Void

    public init(
      runStarted: @escaping @Sendable (String) -> Void, request: @escaping @Sendable (Int) -> Void,
      violation: @escaping @Sendable (Violation) -> Void
    ) {
      (self.runStarted, self.request, self.violation) = (runStarted, request, violation)
    }
  }

  /// What one run observed.
  public struct Run: Sendable, Equatable {
    public var name: String
    public var hits = 0
    public var misses = 0
    public var admitted = 0
    /// Entries evicted by hits (see ``PolicyTraits/evictsOnHit``).
    public var evictionsOnHits = 0
    public var hitSequence: [Bool] = []
    /// The first ``Driver/mostViolations`` guarantees broken, in order.
    public var violations: [Violation] = []
    /// How many were broken in all.
    public var violationCount = 0
  }

  /// The standard battery's outcome for one policy.
  public struct Report: Sendable {
    public var policy: String
    public var runs: [Run]
    /// Every run's violations, and the battery's own (a policy that admits
    /// nothing at 64 objects, or differs between two runs of one seed).
    public var violations: [Violation]
    public var passed: Bool { violations.isEmpty }
  }

  /// Drives one policy (as a ``PolicyVisitor``: hand it to
  /// ``PolicySpec/withPolicy(capacity:index:visitor:)``) over `requests`
  /// and returns what it saw.
  public struct Driver: PolicyVisitor {
    public typealias Key = UInt64
    public let requests: [Request<UInt64>]
    public let name: String
    /// The policy's invariants run every this many requests (and at the end).
    public let checkEvery: Int
    /// Models of shipped caches may insert before evicting (see ``PolicyTraits/model``).
    public var insertsBeforeEvicting = false
    /// Models that trim on a timer hold more than their capacity in between.
    public var trimsOnATimer = false
    /// Whether the policy says a hit may evict; one that does not is held to it.
    public var evictsOnHit = true
    /// The capacity the policy was built with, when known: it is held to
    /// that, not to the capacity it reports.
    public var capacity: Int64? = nil
    /// The most violations a run keeps (it counts them all).
    public static let mostViolations = 20
    /// Hears the run as it goes (see ``Observer``).
    public var observer: Observer? = nil

    /// `policy`'s traits decide which guarantees are relaxed for it.
    public init(requests: [Request<UInt64>], checkEvery: Int, policy: PolicySpec? = nil, name: String = "") {
      self.requests = requests
      self.checkEvery = checkEvery
      self.name = name
      let entry = policy.flatMap { PolicyCatalog.entry(named: $0.name) }
      insertsBeforeEvicting = entry?.isModel ?? false
      trimsOnATimer = entry?.trimsOnATimer ?? false
      evictsOnHit = entry.map { $0.evictsOnHit || $0.trimsOnATimer } ?? true
    }

    public mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Run
    where Policy.Key == UInt64 {
      var policy = policy
      var run = Run(name: name)
      func fail(_ message: @autoclosure () -> String, at request: Int?) {
        run.violationCount += 1
        if run.violations.count < Self.mostViolations {
          run.violations.append(Violation(run: name, request: request, message: message()))
          observer?.violation(run.violations[run.violations.count - 1])
        }
      }
      observer?.runStarted(name)
      var resident = Set<UInt64>()
      let limit = capacity ?? policy.capacity
      if policy.capacity != limit {
        fail("reports a capacity of \(policy.capacity), but was built with \(limit)", at: nil)
      }
      for (i, request) in requests.enumerated() {
        observer?.request(i)
        var evicted: [UInt64] = []
        let slot = policy.lookup(request) { _, key in evicted.append(key) }
        let hit = slot != nil
        if let slot {
          if !resident.contains(request.key) {
            fail("a hit on key \(request.key), which was never admitted or was evicted", at: i)
          }
          let hitKey = policy.key(at: slot)
          if hitKey != request.key { fail("a hit on key \(request.key) returned the slot of key \(hitKey)", at: i) }
          run.hits += 1
        } else {
          if policy.contains(request.key) { fail("a miss on key \(request.key), which is resident", at: i) }
          run.misses += 1
          let admitted = policy.admit(request) { _, key in evicted.append(key) }
          if request.weight > limit && !trimsOnATimer {
            if admitted != nil {
              fail("key \(request.key), weighing \(request.weight), was admitted to a cache of \(limit)", at: i)
            }
            if !evicted.isEmpty && !insertsBeforeEvicting {
              fail("key \(request.key), heavier than the cache, evicted \(evicted.count) entries", at: i)
            }
          }
          for key in evicted where resident.remove(key) == nil {
            fail("evicted key \(key), which was not resident", at: i)
          }
          if let admitted {
            run.admitted += 1
            let admittedKey = policy.key(at: admitted)
            if admittedKey != request.key {
              fail("admitting key \(request.key) returned the slot of key \(admittedKey)", at: i)
            }
            resident.insert(request.key)
          }
          evicted = []
        }
        run.evictionsOnHits += evicted.count
        for key in evicted where resident.remove(key) == nil {
          fail("a hit evicted key \(key), which was not resident", at: i)
        }
        for key in evicted where policy.contains(key) { fail("evicted key \(key) is still resident", at: i) }
        let (used, count) = (policy.usedWeight, policy.count)
        if used > limit && !trimsOnATimer { fail("holds \(used) of a capacity of \(limit)", at: i) }
        if count != resident.count {
          fail("says it holds \(count) entries; admitted minus evicted is \(resident.count)", at: i)
        }
        run.hitSequence.append(hit)
        if i % checkEvery == 0 {
          // A trap in the policy's own check is reported at this request.
          policy.checkInvariants()
          for key in resident.prefix(50) where !policy.contains(key) {
            fail("resident key \(key) is not found", at: i)
          }
        }
      }
      observer?.request(-1)
      policy.checkInvariants()
      if run.evictionsOnHits > 0 && !evictsOnHit {
        fail(
          "hits evicted \(run.evictionsOnHits) entries, but the policy does not say it may (PolicyTraits.evictsOnHit)",
          at: nil)
      }
      // Trimming empties the cache one victim at a time.
      var trimmed = 0
      while policy.evictOne(onEvict: { _, key in
        if resident.remove(key) == nil { fail("trimming evicted key \(key), which was not resident", at: nil) }
      }) {
        trimmed += 1
        if trimmed > requests.count + 1 {
          fail("trimming does not end: evictOne keeps returning true", at: nil)
          break
        }
      }
      let (finalCount, finalUsed) = (policy.count, policy.usedWeight)
      if finalCount != 0 || finalUsed != 0 || !resident.isEmpty {
        fail(
          "after trimming it holds \(finalCount) entries of weight \(finalUsed); \(resident.count) keys were never evicted",
          at: nil)
      }
      policy.checkInvariants()
      return run
    }
  }

  /// A skewed stream with a loop and a scan mixed in, weights 1 or drawn
  /// from 1...64; with `weightless`, a third of the weighted objects weigh 0
  /// (a `MemoryCache` entry may cost nothing). Each request knows its next
  /// access, for offline policies.
  public static func requests(
    seed: UInt64, weighted: Bool, weightless: Bool = false, count: Int = 6_000
  ) -> [Request<UInt64>] {
    var rng = SeededGenerator(seed: seed)
    var sizes: [UInt64: Int64] = [:]
    let requests = (0..<count).map { i in
      let key: UInt64
      switch rng.below(10) {
      case 0...5: key = UInt64(rng.below(40))  // hot set
      case 6, 7: key = UInt64(100 + i % 150)  // loop
      case 8: key = UInt64(1_000 + i)  // scan: never seen again
      default: key = UInt64(rng.below(2_000))
      }
      let weight: Int64 =
        weighted
        ? sizes[key, default: weightless && rng.below(3) == 0 ? 0 : Int64(1 + rng.below(64))] : 1
      sizes[key] = weight
      // 50 requests a second: the timed models clean up twice a run.
      return Request(key: key, weight: weight, time: Int64(i + 1), timestamp: Int64(i / 50))
    }
    return withNextAccess(requests)
  }

  /// Fills in each request's next-access time (a backward pass), for the offline policies.
  public static func withNextAccess(_ requests: [Request<UInt64>]) -> [Request<UInt64>] {
    var requests = requests
    var next: [UInt64: Int64] = [:]
    for i in requests.indices.reversed() {
      requests[i].nextAccess = next[requests[i].key] ?? Request<UInt64>.never
      next[requests[i].key] = requests[i].time
    }
    return requests
  }

  /// The standard battery on a catalog policy (a registered one included):
  /// unit weights at capacities from 1 to 5,000 objects (the invariants
  /// checked after every request), weights of 1 to 64 at capacities from
  /// below the heaviest object up, weights with zeros, and the same seed
  /// twice. At 64 objects and up, a policy must admit something.
  /// With an `observer`, it hears each run, request and violation as they come.
  public static func check(_ spec: PolicySpec, requests count: Int = 6_000, observer: Observer? = nil) -> Report {
    var runs: [Run] = []
    var extra: [Violation] = []
    func run(_ name: String, _ requests: [Request<UInt64>], capacity: Int64, checkEvery: Int) -> Run {
      var driver = Driver(
        requests: requests, checkEvery: checkEvery, policy: spec, name: "\(name) at capacity \(capacity)")
      driver.capacity = capacity
      driver.observer = observer
      // Boxed, as the simulator's multi-size runner holds it: one driver for every policy.
      let run = driver.visit(BoxedPolicy(spec.integerBox(capacity: capacity)))
      runs.append(run)
      return run
    }
    let unit = requests(seed: 11, weighted: false, count: count)
    for capacity: Int64 in [1, 2, 3, 10, 64, 500, 5_000] {
      let outcome = run("unit weights", unit, capacity: capacity, checkEvery: capacity <= 64 ? 1 : 7)
      if capacity >= 64 && outcome.admitted == 0 {
        extra.append(Violation(run: outcome.name, request: nil, message: "admitted nothing"))
      }
      if (outcome.hits > 0) != (outcome.admitted > 0) {
        extra.append(
          Violation(
            run: outcome.name, request: nil,
            message: "\(outcome.hits) hits after admitting \(outcome.admitted) objects (a hot set of 40 keys)"))
      }
    }
    let weighted = requests(seed: 5, weighted: true, count: count)
    for capacity: Int64 in [40, 300, 2_000] {
      _ = run("weights 1 to 64", weighted, capacity: capacity, checkEvery: 7)
    }
    let weightless = requests(seed: 9, weighted: true, weightless: true, count: count)
    for capacity: Int64 in [1, 40, 300] {
      _ = run("weights 0 to 64", weightless, capacity: capacity, checkEvery: 3)
    }
    let repeated = requests(seed: 3, weighted: true, count: count)
    let first = run("the same seed, first", repeated, capacity: 500, checkEvery: 1_000)
    let second = run("the same seed, second", repeated, capacity: 500, checkEvery: 1_000)
    if first.hitSequence != second.hitSequence {
      let at = zip(first.hitSequence, second.hitSequence).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      extra.append(
        Violation(
          run: "the same seed twice at capacity 500", request: at,
          message: "two runs of one stream differ (a randomised policy must take its seed from its parameters)"))
    }
    return Report(policy: spec.description, runs: runs, violations: runs.flatMap(\.violations) + extra)
  }
}
