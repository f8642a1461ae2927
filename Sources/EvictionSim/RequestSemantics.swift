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
  /// When expired objects leave (lazily, as libCacheSim's, by default).
  public var expiration: Expiration
  /// Seconds an object lives past its last hit or admission (0: hits do not
  /// extend it), never past its TTL: `MemoryCache`'s `timeToIdle`.
  public var idleTTL: Int64

  public init(defaultTTL: Int64 = 0, expiration: Expiration = .lazy, idleTTL: Int64 = 0) {
    self.defaultTTL = defaultTTL
    self.expiration = expiration
    self.idleTTL = idleTTL
  }
}

extension TraceReplay {
  /// ``replay(_:through:sizeMode:needsNextAccess:progress:observe:)`` with
  /// objects expiring by `rule`. The expiry of each resident object with one
  /// is kept beside the policy (an eviction drops it), so memory follows
  /// the residents, not the trace. Returns the counts, and the requests
  /// that found their object expired with the objects that expired while
  /// resident (``ExpiryTable``).
  @inlinable
  public static func replayExpiring<Policy: ReplacementPolicy & ~Copyable>(
    _ trace: TraceSource, through policy: inout Policy, sizeMode: SizeMode, rule: TTLRule,
    needsNextAccess: Bool = false, progress: ReplayProgress? = nil
  ) throws(TraceError) -> (counts: ReplayCounts, semantics: SemanticsCounts) where Policy.Key == UInt64 {
    var counts = ReplayCounts()
    var semantics = SemanticsCounts(semantics: "libcachesim", useTtl: true, expiredRequests: 0)
    let countMode = sizeMode == .count
    var table = ExpiryTable(rule.expiration)
    counts.skipped = try trace.forEachBatch(withNextAccess: needsNextAccess, progress: progress) {
      records, tile throws(TraceError) in
      var time = counts.requests
      for i in records.indices {
        let record = records.base[i]
        time &+= 1
        let now = record.time
        table.advance(to: now)
        if table.scanDue(at: now) {
          for key in table.sweep(at: now) { _ = policy.remove(key) }
        }
        let request = record.request(in: tile, time: time, countMode: countMode)
        if table.takeIfExpired(request.key, at: now) {
          _ = policy.remove(request.key)
          semantics.expiredRequests &+= 1
        }
        let hit = policy.lookup(request, onEvict: { _, key in table.leave(key, at: now) }) != nil
        if hit {
          counts.hits &+= 1
          if rule.idleTTL != 0 { table.touch(request.key, at: now) }
        } else {
          counts.bytesMissed &+= record.size
          if policy.admit(request, onEvict: { _, key in table.leave(key, at: now) }) != nil {
            let ttl = record.ttl != 0 ? Int64(record.ttl) : rule.defaultTTL
            table.insert(request.key, at: now, ttl: ttl, idle: rule.idleTTL, size: record.size)
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
    table.finish()
    table.report(into: &semantics, expiration: rule.expiration)
    if rule.idleTTL != 0 { semantics.idleTtl = rule.idleTTL }
    counts.flashWrites = policy.flashWrites
    counts.learning = policy.learning
    return (counts, semantics)
  }
}

/// Key-value semantics (`--semantics kv`): records are operations of a
/// lookaside cache, as CacheBench and memcached's clients issue them.
///
/// - A get that hits is a hit. A get that misses is a miss, and the object
///   enters the cache only when the trace sets it (the client's fill), or at
///   once with ``fillOnMiss``.
/// - A set (and what reads as one: add, replace, cas, append, …) replaces
///   the object: a resident one is removed and the object admitted anew at
///   the set's size, as memcached and CacheLib replace an item; its TTL is
///   the set's (none when 0). The admission follows a lookup, as every
///   admission does, except for a set that fills the get that just missed
///   the key (nothing in between changed the policy): that get's lookup
///   stands, as a memory cache's `get` then `set` would have it.
/// - A delete removes the object.
/// - Sets and deletes apply whatever their size: a set of 0 bytes stores
///   an empty value, weighed as 1 byte (an entry takes room however small
///   its value); only zero-size gets are skipped, as every zero-size
///   request is under libCacheSim's semantics.
/// - TTLs always hold: an object past its expiry is removed by the next
///   operation on it (before the operation, so a get misses), or by a scan
///   (``Expiration``); otherwise it keeps its room until evicted.
///
/// The row's requests, hits and bytes are the gets'; ``SemanticsCounts``
/// adds the sets and deletes.
public struct KVRule: Sendable, Hashable {
  /// Whether a get's miss admits the object at once (else only a set does).
  public var fillOnMiss: Bool
  /// When expired objects leave.
  public var expiration: Expiration
  /// Seconds an object lives past its last hit or set (0: hits do not
  /// extend it), never past its TTL (``TTLRule/idleTTL``).
  public var idleTTL: Int64

  public init(fillOnMiss: Bool = false, expiration: Expiration = .lazy, idleTTL: Int64 = 0) {
    self.fillOnMiss = fillOnMiss
    self.expiration = expiration
    self.idleTTL = idleTTL
  }
}

extension TraceReplay {
  /// Replays `trace` as key-value operations (``KVRule``).
  @inlinable
  public static func replayKV<Policy: ReplacementPolicy & ~Copyable>(
    _ trace: TraceSource, through policy: inout Policy, sizeMode: SizeMode, rule: KVRule,
    needsNextAccess: Bool = false, progress: ReplayProgress? = nil
  ) throws(TraceError) -> (counts: ReplayCounts, semantics: SemanticsCounts) where Policy.Key == UInt64 {
    var trace = trace
    trace.keepsZeroSizeWrites = true
    var counts = ReplayCounts()
    var semantics = SemanticsCounts(semantics: "kv", useTtl: true, expiredRequests: 0)
    var (sets, deletes): (Int64, Int64) = (0, 0)
    let countMode = sizeMode == .count
    var table = ExpiryTable(rule.expiration)
    var time: Int64 = 0
    /// The key of the last get that missed and filled nothing, while
    /// nothing since has changed the policy: a set of it admits at once.
    var pendingMiss: UInt64? = nil
    counts.skipped = try trace.forEachBatch(withNextAccess: needsNextAccess, progress: progress) {
      records, tile throws(TraceError) in
      for i in records.indices {
        let record = records.base[i]
        time &+= 1
        let now = record.time
        table.advance(to: now)
        if table.scanDue(at: now) {
          let expired = table.sweep(at: now)
          if !expired.isEmpty { pendingMiss = nil }
          for key in expired { _ = policy.remove(key) }
        }
        var request = record.request(in: tile, time: time, countMode: countMode)
        request.weight = max(request.weight, 1)  // a set of an empty value
        let key = request.key
        if table.takeIfExpired(key, at: now) {
          _ = policy.remove(key)
          pendingMiss = nil
          semantics.expiredRequests &+= 1
        }
        /// Admits the object with `record`'s TTL.
        func admit() {
          if policy.admit(request, onEvict: { _, evicted in table.leave(evicted, at: now) }) != nil {
            table.insert(key, at: now, ttl: Int64(record.ttl), idle: rule.idleTTL, size: record.size)
          }
          counts.maxOccupancy = max(counts.maxOccupancy, policy.usedWeight)
        }
        switch record.op {
        case .get:
          counts.requests &+= 1
          counts.bytesRequested &+= record.size
          pendingMiss = nil
          if policy.lookup(request, onEvict: { _, evicted in table.leave(evicted, at: now) }) != nil {
            counts.hits &+= 1
            if rule.idleTTL != 0 { table.touch(key, at: now) }
          } else {
            counts.bytesMissed &+= record.size
            if rule.fillOnMiss { admit() } else { pendingMiss = key }
          }
        case .set:
          sets &+= 1
          let fills = pendingMiss == key
          pendingMiss = nil
          if policy.remove(key) != nil { table.leave(key, at: now) }
          if fills || policy.lookup(request, onEvict: { _, evicted in table.leave(evicted, at: now) }) == nil {
            admit()
          }
        case .delete:
          deletes &+= 1
          if policy.remove(key) != nil {
            table.leave(key, at: now)
            pendingMiss = nil
          }
        }
      }
      if counts.bytesRequested < 0 {
        throw .invalidOption("\(trace.path): the bytes requested exceed 2^63; replay a shorter trace")
      }
    }
    if time == 0 { throw .emptyTrace(path: trace.path) }
    (semantics.gets, semantics.getHits, semantics.sets, semantics.deletes) = (
      counts.requests, counts.hits, sets, deletes
    )
    table.finish()
    table.report(into: &semantics, expiration: rule.expiration)
    if rule.idleTTL != 0 { semantics.idleTtl = rule.idleTTL }
    counts.flashWrites = policy.flashWrites
    counts.learning = policy.learning
    return (counts, semantics)
  }
}
