import EvictionCache
import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import EvictionWorkloads
import Foundation
import Synchronization
import Testing

/// The trace's time as a cache's clock.
final class TraceClock: Sendable {
  let nanos = Atomic<UInt64>(0)
  func set(seconds: Int64) { nanos.store(UInt64(seconds) * 1_000_000_000, ordering: .relaxed) }
  func now() -> UInt64 { nanos.load(ordering: .relaxed) }
}

/// Key-value semantics (``KVRule``): gets, sets and deletes of a lookaside cache.
@Suite struct KVSemanticsTests {
  func replay(
    _ records: [TraceRecord], _ policy: String = "lru", size: Int64 = 10, sizeMode: SizeMode = .count,
    kv: KVRule? = KVRule(), ttl: TTLRule? = nil
  ) throws -> ReplayResult {
    let scratch = try ScratchFolder()
    let path = scratch.url.path + "/t.lcs"
    let writer = try TraceWriter(path: path, format: .lcs)
    try writer.write(records)
    try writer.finish()
    return try TraceReplay.run(
      TraceSource(path: path, format: .lcs), policy: PolicySpec(policy), cacheSize: size, sizeMode: sizeMode,
      ttl: ttl, kv: kv)
  }

  func get(_ key: UInt64, _ time: Int64 = 0, size: Int64 = 1) -> TraceRecord {
    TraceRecord(key: key, size: size, time: time)
  }
  func set(_ key: UInt64, _ time: Int64 = 0, size: Int64 = 1, ttl: UInt32 = 0) -> TraceRecord {
    TraceRecord(key: key, size: size, time: time, ttl: ttl, op: .set)
  }
  func delete(_ key: UInt64, _ time: Int64 = 0) -> TraceRecord { TraceRecord(key: key, time: time, op: .delete) }

  @Test func aGetAfterADeleteMissesAndOnlyASetFills() throws {
    let result = try replay([set(1), get(1), delete(1), get(1), get(1), set(1), get(1)])
    // Gets: hit, miss (deleted), miss (no fill without a set), hit.
    #expect(result.requests == 4 && result.hits == 2)
    let counts = try #require(result.semantics)
    #expect(counts.semantics == "kv" && counts.gets == 4 && counts.getHits == 2)
    #expect(counts.sets == 2 && counts.deletes == 1)
    #expect(counts.gets! + counts.sets! + counts.deletes! == 7)
    // With --fill-on-miss the first miss admits it: the next get hits.
    let filled = try replay([set(1), get(1), delete(1), get(1), get(1)], kv: KVRule(fillOnMiss: true))
    #expect(filled.hits == 2 && filled.misses == 1)
  }

  /// Sets and deletes apply whatever their size; only zero-size gets are
  /// skipped. A zero-byte DELETE was skipped as a "zero-size request", so
  /// the next get hit an object the trace had deleted.
  @Test(arguments: [SizeMode.count, .bytes])
  func zeroByteSetsAndDeletesApplyAndOnlyZeroByteGetsAreSkipped(sizeMode: SizeMode) throws {
    let records = [
      set(1, size: 10), get(1, size: 10),  // hit
      TraceRecord(key: 1, size: 0, op: .delete), get(1, size: 10),  // miss: deleted
      set(2, size: 0), get(2, size: 0),  // an empty value is stored; a zero-size get is skipped
      get(2, size: 1),  // hit: the empty value
    ]
    let result = try replay(records, size: 100, sizeMode: sizeMode)
    #expect(result.requests == 3 && result.hits == 2 && result.misses == 1)
    #expect(result.fields.skippedZeroSize == 1)
    let counts = try #require(result.semantics)
    #expect(counts.sets == 2 && counts.deletes == 1)
    // The same records in a CSV trace with an op column read alike.
    let scratch = try ScratchFolder()
    let lines = records.map { "\($0.time),\($0.key),\($0.size),\($0.op)" }
    let path = try scratch.file("t.csv", Data(("time,key,size,op\n" + lines.joined(separator: "\n") + "\n").utf8))
    let csv = try TraceReplay.run(
      TraceSource(path: path, format: .csv), policy: PolicySpec("lru"), cacheSize: 100, sizeMode: sizeMode,
      kv: KVRule())
    #expect(csv.hits == result.hits && csv.misses == result.misses && csv.semantics == result.semantics)
    // Under libCacheSim's semantics every zero-size record is skipped, as libCacheSim skips it.
    let plain = try TraceReplay.run(
      TraceSource(path: path, format: .csv), policy: PolicySpec("lru"), cacheSize: 100, sizeMode: sizeMode)
    #expect(plain.fields.skippedZeroSize == 3 && plain.requests == 4)
  }

  @Test func aSetReplacesTheObjectAtItsNewSize() throws {
    // 350 bytes: 1 (100) and 2 (200) fit; 1 set again at 300 leaves no room for 2.
    let records = [set(1, size: 100), set(2, size: 200), set(1, size: 300), get(2, size: 200), get(1, size: 300)]
    let result = try replay(records, size: 350, sizeMode: .bytes)
    #expect(result.hits == 1 && result.misses == 1 && result.bytesMissed == 200)
    #expect(result.fields.maxOccupancy == 300)
  }

  @Test func anExpiredObjectIsRemovedAndMisses() throws {
    let records = [set(1, 0, ttl: 5), get(1, 5), get(1, 6), get(1, 7), set(1, 8), get(1, 100)]
    let result = try replay(records)
    // Gets: hit (at its expiry), miss (expired, removed), miss (no fill), hit (no TTL after the set).
    #expect(result.hits == 2 && result.misses == 2 && result.semantics?.expiredRequests == 1)
  }

  /// On a trace of gets alone, kv with fills on misses is libCacheSim's
  /// semantics with TTLs: the two loops agree request for request.
  @Test func getsWithFillsAreLibCacheSimsSemantics() throws {
    var workload = SyntheticWorkload(kind: .zipf, objects: 1000, requests: 30_000)
    workload.seed = 11
    workload.ttls = .uniform(low: 2, high: 20)
    workload.sizes = .uniform(low: 10, high: 1000)
    let records = try workload.generate()
    for policy in ["lru", "sieve", "s3fifo", "arc", "wtinylfu"] {
      for (size, mode) in [(Int64(200), SizeMode.count), (50_000, .bytes)] {
        let kv = try replay(records, policy, size: size, sizeMode: mode, kv: KVRule(fillOnMiss: true))
        let lcs = try replay(records, policy, size: size, sizeMode: mode, kv: nil, ttl: TTLRule())
        #expect(kv.counts == lcs.counts, "\(policy) \(size)")
        #expect(kv.semantics?.expiredRequests == lcs.semantics?.expiredRequests && lcs.semantics!.expiredRequests > 0)
      }
    }
  }

  /// A KV trace with TTLs and deletes through the simulator and through a
  /// real `MemoryCache` on the trace's clock (a get is `value(forKey:)`,
  /// filled by `setValue` when asked; a set is `removeValue` then
  /// `setValue`, a replacement as the kv rule has it; a delete is
  /// `removeValue`): the same hits, get for get, and the same expirations;
  /// a scan every second of trace time is `trimExpired()` at each new second.
  @Test(arguments: ["lru", "fifo", "clock", "sieve", "s3fifo", "arc", "wtinylfu", "lfu", "2q", "lirs"])
  func aMemoryCacheHitsWhereTheSimulatorDoes(policy: String) throws {
    var workload = SyntheticWorkload(kind: .zipf, objects: 1000, requests: 40_000)
    workload.seed = 5
    workload.ttls = .uniform(low: 1, high: 6)
    workload.sizes = .uniform(low: 10, high: 1000)
    workload.operations = try SyntheticWorkload.OperationMix("get:0.75,set:0.2,delete:0.05")
    let records = try workload.generate()
    let spec = try PolicySpec(policy)
    let locks: [LockStrategy] = spec.descriptor.evictsOnHit ? [.mutex] : [.mutex, .buffered]
    var expired: Int64 = 0
    for (fill, scans) in [(false, false), (true, false), (true, true)] {
      for (size, mode) in [(Int64(250), SizeMode.count), (120_000, .bytes)] {
        let rule = KVRule(fillOnMiss: fill, expiration: scans ? .scan(interval: 1) : .lazy)
        let simulated = try replay(records, policy, size: size, sizeMode: mode, kv: rule)
        let counts = try #require(simulated.semantics)
        #expect(counts.deletes! > 1000)
        expired += counts.expiredRequests
        for lock in locks {
          let time = TraceClock()
          let cache = try MemoryCache<UInt64, Int64>(
            policy: CachePolicy(policy), countLimit: mode == .count ? Int(size) : nil,
            costLimit: mode == .bytes ? Int(size) : nil, lock: lock, clock: { time.now() }, heavyEntries: .refuse)
          var hits: Int64 = 0
          var second: Int64 = -1
          for record in records {
            time.set(seconds: record.time)
            if scans && record.time != second {
              cache.trimExpired()
              second = record.time
            }
            let ttl: Duration? = record.ttl == 0 ? nil : .seconds(record.ttl)
            let cost = mode == .bytes ? Int(record.size) : nil
            switch record.op {
            case .get:
              if cache.value(forKey: record.key) != nil {
                hits += 1
              } else if fill {
                cache.setValue(record.size, forKey: record.key, cost: cost, ttl: ttl)
              }
            case .set:
              cache.removeValue(forKey: record.key)
              cache.setValue(record.size, forKey: record.key, cost: cost, ttl: ttl)
            case .delete:
              cache.removeValue(forKey: record.key)
            }
          }
          let label = "\(policy), \(mode), fill \(fill), \(rule.expiration), \(lock)"
          #expect(hits == simulated.hits, "\(label)")
          if !scans {
            #expect(Int64(cache.statistics.evictions[.expired] ?? 0) == counts.expiredRequests, "\(label)")
          }
          cache.checkInvariants()
        }
      }
    }
    #expect(expired > 100, "the trace exercises expiry")
  }

  /// `--idle-ttl`: an object expires once unread that long; a hit extends
  /// it, never past its own TTL.
  @Test func anIdleObjectExpiresAndAHitExtendsItUpToItsTTL() throws {
    let gets = [get(1, 0), get(1, 2), get(1, 5), get(2, 5), get(2, 6), get(2, 7), get(2, 8), get(2, 9)]
    let idle = try replay(gets, kv: nil, ttl: TTLRule(idleTTL: 2))
    // Key 1: admitted at 0 (until 2), hit at 2 (until 4), expired at 5.
    // Key 2: admitted at 5, hits at 6, 7 and 8 extend it; never idle 2 s.
    #expect(idle.hits == 5 && idle.semantics?.expiredRequests == 1 && idle.semantics?.idleTtl == 2)
    let plain = try replay(gets, kv: nil, ttl: TTLRule())
    #expect(plain.hits == 6 && plain.semantics?.idleTtl == nil)
    // A TTL binds however often the object is hit: key 2 set with 3 s to live.
    let bounded = try replay(
      [set(2, 5, ttl: 3), get(2, 6), get(2, 7), get(2, 8), get(2, 9)], kv: KVRule(idleTTL: 2))
    #expect(bounded.hits == 3 && bounded.semantics?.expiredRequests == 1)
  }

  /// The memory cache's `timeToIdle` is the simulator's `--idle-ttl`: the
  /// same hits, get for get, on a key-value trace with TTLs.
  @Test(arguments: ["lru", "s3fifo", "wtinylfu", "arc"])
  func aMemoryCacheExpiresIdleEntriesWhereTheSimulatorDoes(policy: String) throws {
    var workload = SyntheticWorkload(kind: .zipf, objects: 1000, requests: 30_000)
    workload.seed = 9
    workload.ttls = .uniform(low: 2, high: 12)
    workload.operations = try SyntheticWorkload.OperationMix("get:0.8,set:0.2")
    let records = try workload.generate()
    for lock in [LockStrategy.mutex, .buffered] {
      // A cache of most objects: entries stay long enough to idle out.
      let rule = KVRule(fillOnMiss: true, idleTTL: 2)
      let simulated = try replay(records, policy, size: 800, kv: rule)
      let time = TraceClock()
      let cache = try MemoryCache<UInt64, Int64>(
        policy: CachePolicy(policy), countLimit: 800, lock: lock, clock: { time.now() })
      var hits: Int64 = 0
      for record in records {
        time.set(seconds: record.time)
        let ttl: Duration? = record.ttl == 0 ? nil : .seconds(record.ttl)
        switch record.op {
        case .get:
          if cache.value(forKey: record.key) != nil {
            hits += 1
          } else {
            cache.setValue(record.size, forKey: record.key, ttl: ttl, timeToIdle: .seconds(2))
          }
        default:
          cache.removeValue(forKey: record.key)
          cache.setValue(record.size, forKey: record.key, ttl: ttl, timeToIdle: .seconds(2))
        }
      }
      #expect(hits == simulated.hits, "\(policy), \(lock)")
      let expired = try #require(simulated.semantics?.expiredRequests)
      #expect(expired > 100, "the trace exercises idle expiry")
      #expect(Int64(cache.statistics.evictions[.expired] ?? 0) == expired, "\(policy), \(lock)")
      cache.checkInvariants()
    }
  }

  @Test func generatedOperationsFollowTheirMix() throws {
    var workload = SyntheticWorkload(kind: .zipf, objects: 100, requests: 20_000)
    workload.operations = try SyntheticWorkload.OperationMix("get:0.7,set:0.2,delete:0.1")
    let ops = try workload.generate().map(\.op)
    let sets = ops.filter { $0 == .set }.count
    let deletes = ops.filter { $0 == .delete }.count
    #expect(abs(sets - 4000) < 300 && abs(deletes - 2000) < 250)
    // The keys are those of the same workload without operations.
    var plain = workload
    plain.operations = .getsOnly
    #expect(try plain.generate().map(\.key) == workload.generate().map(\.key))
    #expect(throws: TraceError.self) { try SyntheticWorkload.OperationMix("get:1,put:1") }
    #expect(throws: TraceError.self) { try SyntheticWorkload.OperationMix("get:0") }
  }
}
