import EvictionCache
import EvictionCore
import EvictionTestSupport
import Testing

/// What every learned policy's tests put it through: `requests` as a cache
/// serves them (a lookup, an admission on a miss), a resident key removed
/// every 97th request, the invariants checked every 50th. The residents the
/// policy reports must be the ones its hits, admissions and evictions imply.
/// `afterwards` sees its learning; then trimming empties it, every victim
/// resident.
func exercise<Policy: ReplacementPolicy & ~Copyable>(
  _ policy: inout Policy, with requests: [Request<UInt64>], afterwards: (LearningCounts?) -> Void = { _ in }
) where Policy.Key == UInt64 {
  let capacity = policy.capacity
  var resident = Set<UInt64>()
  for (i, request) in requests.enumerated() {
    if policy.lookup(request, onEvict: { _, _ in }) != nil {
      #expect(resident.contains(request.key))
    } else {
      #expect(!resident.contains(request.key))
      let admitted = policy.admit(request) { _, key in resident.remove(key) }
      if admitted != nil { resident.insert(request.key) }
      #expect((admitted != nil) == (request.weight <= capacity), "capacity \(capacity), request \(i)")
    }
    if i % 97 == 0, let victim = resident.first {
      #expect(policy.remove(victim) != nil)
      resident.remove(victim)
    }
    if i % 50 == 0 { policy.checkInvariants() }
    #expect(policy.usedWeight <= capacity)
  }
  policy.checkInvariants()
  #expect(policy.count == resident.count)
  #expect(Set(policy.lists()[0].keys) == resident)
  afterwards(policy.learning)
  while policy.evictOne(onEvict: { _, key in #expect(resident.remove(key) != nil) }) {}
  #expect(policy.count == 0 && policy.usedWeight == 0 && resident.isEmpty)
  policy.checkInvariants()
}

/// A `MemoryCache` of 300 entries over a learned policy, served 30,000
/// skewed reads (a third over 2,000 keys, the rest over 200), a miss
/// filled; every seventh request also sets a key without reading it first.
/// Values come back while resident, the count stays within the limit,
/// evictions are reported, and the cache ends nearly full.
func serveSkewedReads(
  _ cache: MemoryCache<UInt64, String>, evicted: () -> Int, beforeEach: (Int) -> Void = { _ in }
) {
  var rng = SeededGenerator(seed: 3)
  for i in 0..<30_000 {
    beforeEach(i)
    let key = UInt64(rng.below(i % 3 == 0 ? 2_000 : 200))
    if i % 7 == 0 { cache.setValue("v\(key &+ 1)", forKey: key &+ 1) }
    if let value = cache.value(forKey: key) {
      #expect(value == "v\(key)")
    } else {
      cache.setValue("v\(key)", forKey: key)
    }
    #expect(cache.count <= 300)
  }
  #expect(evicted() > 1_000)
  #expect(cache.count > 250)
}
