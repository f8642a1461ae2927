import EvictionCore
import Testing

/// What one conformance run observed.
public struct ConformanceOutcome: Equatable, Sendable {
  public var hits = 0
  public var misses = 0
  public var admitted = 0
  /// Entries evicted by hits (see `PolicyTraits.evictsOnHit`).
  public var evictionsOnHits = 0
  public var hitSequence: [Bool] = []
}

/// Drives any policy with a request stream and checks, after every request,
/// what every policy must guarantee: the capacity is never exceeded, the
/// invariants hold, an evicted key is really gone, a resident key is found,
/// hits and misses add up, and the resident count matches what was admitted
/// minus what was evicted.
public struct ConformanceDriver: PolicyVisitor {
  public typealias Key = UInt64
  public let requests: [Request<UInt64>]
  public let checkEvery: Int
  /// Models of shipped caches may insert before evicting (see `PolicyCatalog.Entry.isModel`).
  public var insertsBeforeEvicting = false
  /// Models that trim on a timer hold more than their capacity in between.
  public var trimsOnATimer = false
  /// Whether the policy says a hit may evict; one that does not is held to it.
  public var evictsOnHit = true

  public init(requests: [Request<UInt64>], checkEvery: Int, policy: PolicySpec? = nil) {
    self.requests = requests
    self.checkEvery = checkEvery
    let entry = policy.flatMap { PolicyCatalog.entry(named: $0.name) }
    insertsBeforeEvicting = entry?.isModel ?? false
    trimsOnATimer = entry?.trimsOnATimer ?? false
    evictsOnHit = entry.map { $0.evictsOnHit || $0.trimsOnATimer } ?? true
  }

  public mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> ConformanceOutcome
  where Policy.Key == UInt64 {
    var policy = policy
    var outcome = ConformanceOutcome()
    var resident = Set<UInt64>()
    for (i, request) in requests.enumerated() {
      var evicted: [UInt64] = []
      let slot = policy.lookup(request) { _, key in evicted.append(key) }
      let hit = slot != nil
      if hit {
        #expect(resident.contains(request.key), "hit on a key that was never admitted or was evicted")
        let hitKey = policy.key(at: slot!)
        #expect(hitKey == request.key)
        outcome.hits += 1
      } else {
        let missedButResident = policy.contains(request.key)
        #expect(!missedButResident, "a miss on a resident key")
        outcome.misses += 1
        let admitted = policy.admit(request) { _, key in evicted.append(key) }
        if request.weight > policy.capacity && !trimsOnATimer {
          #expect(admitted == nil, "an object heavier than the cache was admitted")
          #expect(evicted.isEmpty || insertsBeforeEvicting, "an object heavier than the cache evicted something")
        }
        for key in evicted {
          #expect(resident.remove(key) != nil, "evicted \(key), which was not resident")
        }
        if let admitted {
          outcome.admitted += 1
          let admittedKey = policy.key(at: admitted)
          #expect(admittedKey == request.key)
          resident.insert(request.key)
        }
        evicted = []
      }
      outcome.evictionsOnHits += evicted.count
      for key in evicted {
        #expect(resident.remove(key) != nil, "evicted \(key) on a hit, but it was not resident")
      }
      for key in evicted {
        let stillThere = policy.contains(key)
        #expect(!stillThere, "evicted key \(key) is still resident")
      }
      let (used, capacity, count) = (policy.usedWeight, policy.capacity, policy.count)
      #expect(used <= capacity || trimsOnATimer)
      #expect(count == resident.count)
      outcome.hitSequence.append(hit)
      if i % checkEvery == 0 {
        policy.checkInvariants()
        for key in resident.prefix(50) {
          let found = policy.contains(key)
          #expect(found)
        }
      }
    }
    policy.checkInvariants()
    #expect(outcome.hits + outcome.misses == requests.count)
    #expect(outcome.evictionsOnHits == 0 || evictsOnHit, "hits evicted, but the policy does not say it may")
    // Trimming empties the cache one victim at a time.
    while policy.evictOne(onEvict: { _, key in #expect(resident.remove(key) != nil) }) {}
    let (finalCount, finalUsed) = (policy.count, policy.usedWeight)
    #expect(finalCount == 0 && finalUsed == 0 && resident.isEmpty)
    policy.checkInvariants()
    return outcome
  }
}

/// A skewed stream with a loop and a scan mixed in, weights 1 or drawn from
/// 1...64; with `weightless`, a third of the weighted objects weigh 0 (a
/// `MemoryCache` entry may cost nothing).
public func conformanceRequests(
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
public func withNextAccess(_ requests: [Request<UInt64>]) -> [Request<UInt64>] {
  var requests = requests
  var next: [UInt64: Int64] = [:]
  for i in requests.indices.reversed() {
    requests[i].nextAccess = next[requests[i].key] ?? Request<UInt64>.never
    next[requests[i].key] = requests[i].time
  }
  return requests
}
