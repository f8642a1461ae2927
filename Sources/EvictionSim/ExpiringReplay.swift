import EvictionCore
import EvictionTraces

/// Time-to-live as libCacheSim's TTL build (`-DSUPPORT_TTL=ON`) honours it,
/// the `libcachesim` semantics of `--use-ttl`: every record is a request,
/// whatever its operation; an object admitted by a request with a TTL
/// expires `ttl` seconds after that request's timestamp (a request without
/// one gives it ``defaultTTL``, 0 for never); a hit does not extend it; a
/// request at a time past the expiry (strictly: at the expiry itself the
/// object still serves) finds the object expired, removes it and is a miss
/// that admits it again. Expired objects are otherwise left where they are
/// (lazily), holding their room until evicted or requested.
///
/// libCacheSim 0.3.5 checks expiry in `cache_find_base`, which most of its
/// policies call (LRU, FIFO, CLOCK, SIEVE, LFU, ARC, CAR, Belady, …); a few
/// find objects in their own way and never expire them (S3-FIFO, SLRU,
/// 2Q, W-TinyLFU, LIRS, …). Here every policy expires alike.
public struct TTLRule: Sendable, Hashable {
  /// The TTL of an object admitted by a request without one (0: never expires).
  public var defaultTTL: Int64

  public init(defaultTTL: Int64 = 0) { self.defaultTTL = defaultTTL }
}

extension TraceReplay {
  /// ``replay(_:through:sizeMode:needsNextAccess:progress:observe:)`` with
  /// objects expiring by `rule`. The expiry of each resident object with one
  /// is kept beside the policy (an eviction drops it), so memory follows
  /// the residents, not the trace. Returns the counts and the requests that
  /// found their object expired.
  @inlinable
  public static func replayExpiring<Policy: ReplacementPolicy & ~Copyable>(
    _ trace: TraceSource, through policy: inout Policy, sizeMode: SizeMode, rule: TTLRule,
    needsNextAccess: Bool = false, progress: ReplayProgress? = nil
  ) throws(TraceError) -> (counts: ReplayCounts, expired: Int64) where Policy.Key == UInt64 {
    var counts = ReplayCounts()
    var expired: Int64 = 0
    let countMode = sizeMode == .count
    var expiries: [UInt64: Int64] = [:]
    counts.skipped = try trace.forEachBatch(withNextAccess: needsNextAccess, progress: progress) {
      records, tile throws(TraceError) in
      var time = counts.requests
      for i in records.indices {
        let record = records.base[i]
        time &+= 1
        let request = record.request(in: tile, time: time, countMode: countMode)
        if let expiry = expiries[request.key], expiry < record.time {
          expiries[request.key] = nil
          _ = policy.remove(request.key)
          expired &+= 1
        }
        let hit = policy.lookup(request, onEvict: { _, key in expiries[key] = nil }) != nil
        if hit {
          counts.hits &+= 1
        } else {
          counts.bytesMissed &+= record.size
          if policy.admit(request, onEvict: { _, key in expiries[key] = nil }) != nil {
            let ttl = record.ttl != 0 ? Int64(record.ttl) : rule.defaultTTL
            if ttl != 0 { expiries[request.key] = record.time &+ ttl }
          }
          counts.maxOccupancy = max(counts.maxOccupancy, policy.usedWeight)
        }
        counts.bytesRequested &+= record.size
      }
      counts.requests &+= Int64(records.count)
      if counts.bytesRequested < 0 {
        throw .invalidOption("\(trace.path): the bytes requested exceed 2^63; replay a shorter trace")
      }
    }
    if counts.requests == 0 { throw .emptyTrace(path: trace.path) }
    counts.flashWrites = policy.flashWrites
    return (counts, expired)
  }
}
