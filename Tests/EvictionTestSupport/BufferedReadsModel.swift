import EvictionCore
import Testing

/// The hits `MemoryCache` makes under the `buffered` lock strategy on one
/// thread, reading `requests` through (a miss is set at once), derived from
/// the bare policy: a hit on a cached key is served from the read index and
/// reaches the policy later, in order, when the thread next takes the lock
/// (its next miss) or its ring of `ringCapacity` hits fills. So an entry
/// that a replayed hit evicts (``PolicyTraits/evictsOnHit``) can be read
/// until then. For a policy whose hits never evict these are the bare
/// policy's hits, request for request.
public struct BufferedReadsModel: PolicyVisitor {
  public typealias Key = UInt64
  public let requests: [Request<UInt64>]
  public let ringCapacity: Int

  public init(requests: [Request<UInt64>], ringCapacity: Int) {
    self.requests = requests
    self.ringCapacity = ringCapacity
  }

  public mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> [Bool]
  where Policy.Key == UInt64 {
    var policy = policy
    var readable = Set<UInt64>()  // the read index: what was resident at the last drain
    var pending: [Request<UInt64>] = []
    var hits: [Bool] = []
    hits.reserveCapacity(requests.count)
    for request in requests {
      if readable.contains(request.key) {
        hits.append(true)
        pending.append(request)
        if pending.count < ringCapacity { continue }
      } else {
        hits.append(false)
      }
      for hit in pending {
        _ = policy.lookupIfResident(hit) { _, key in readable.remove(key) }
      }
      pending.removeAll(keepingCapacity: true)
      guard !hits.last! else { continue }
      let found = policy.lookup(request) { _, key in readable.remove(key) }
      #expect(found == nil, "key \(request.key) is resident but not in the read index")
      if policy.admit(request, onEvict: { _, key in readable.remove(key) }) != nil {
        readable.insert(request.key)
      }
    }
    return hits
  }
}
