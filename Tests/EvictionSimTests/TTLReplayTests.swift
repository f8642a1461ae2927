import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import EvictionWorkloads
import Foundation
import Testing

/// Time-to-live as libCacheSim's TTL build honours it (``TTLRule``).
@Suite struct TTLReplayTests {
  /// Replays `records` (written as lcs) through `policy` of `size` with TTLs.
  func replay(
    _ records: [TraceRecord], _ policy: String = "lru", size: Int64 = 10, sizeMode: SizeMode = .count,
    ttl: TTLRule? = TTLRule()
  ) throws -> ReplayResult {
    let scratch = try ScratchFolder()
    let path = scratch.url.path + "/t.lcs"
    let writer = try TraceWriter(path: path, format: .lcs)
    try writer.write(records)
    try writer.finish()
    return try TraceReplay.run(
      TraceSource(path: path, format: .lcs), policy: PolicySpec(policy), cacheSize: size, sizeMode: sizeMode, ttl: ttl)
  }

  @Test func anExpiredObjectMissesAndIsAdmittedAgain() throws {
    let records = [
      TraceRecord(key: 1, time: 1, ttl: 5),  // miss: expires after 6
      TraceRecord(key: 1, time: 6),  // hit: at its expiry it still serves
      TraceRecord(key: 1, time: 7),  // expired: a miss that admits it again, with this request's TTL (none)
      TraceRecord(key: 1, time: 1_000),  // hit: no TTL now
    ]
    let result = try replay(records)
    #expect(result.hits == 2 && result.misses == 2)
    #expect(result.semantics == SemanticsCounts(semantics: "libcachesim", useTtl: true, expiredRequests: 1))
    // The row round-trips through JSON with its two columns.
    var row = result
    row.skipped = SkippedRecords()
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let data = try encoder.encode(row)
    #expect(String(decoding: data, as: UTF8.self).contains(#""use_ttl":true"#))
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    #expect(try decoder.decode(ReplayResult.self, from: data) == row)
    let without = try replay(records, ttl: nil)
    #expect(without.hits == 3 && without.semantics == nil)
  }

  @Test func aHitDoesNotExtendTheTTLAndADefaultApplies() throws {
    let records = [
      TraceRecord(key: 1, time: 0, ttl: 10), TraceRecord(key: 1, time: 9, ttl: 100),  // hit; still expires after 10
      TraceRecord(key: 1, time: 11, ttl: 100),  // expired; admitted again until 111
      TraceRecord(key: 2, time: 11), TraceRecord(key: 2, time: 20),  // the default: 5 s
      TraceRecord(key: 1, time: 111), TraceRecord(key: 1, time: 112),
    ]
    let result = try replay(records, ttl: TTLRule(defaultTTL: 5))
    // Misses: 1@0, 1@11 (expired), 2@11, 2@20 (expired), 1@112 (expired).
    #expect(result.misses == 5 && result.semantics?.expiredRequests == 3)
  }

  @Test func anEvictedObjectIsNotCountedExpired() throws {
    let records = [
      TraceRecord(key: 1, time: 0, ttl: 5), TraceRecord(key: 2, time: 1),  // evicts 1 (one slot)
      TraceRecord(key: 1, time: 50, ttl: 5),  // an ordinary miss
      TraceRecord(key: 1, time: 54),
    ]
    let result = try replay(records, size: 1)
    #expect(result.misses == 3 && result.hits == 1 && result.semantics?.expiredRequests == 0)
  }

  @Test func ttlsAreRefusedWithAWindowOrAttribution() throws {
    let scratch = try ScratchFolder()
    let path = scratch.url.path + "/t.lcs"
    let writer = try TraceWriter(path: path, format: .lcs)
    try writer.write([TraceRecord(key: 1)])
    try writer.finish()
    #expect {
      try TraceReplay.run(
        TraceSource(path: path, format: .lcs), policy: PolicySpec("lru"), cacheSize: 1, sizeMode: .count,
        window: ReplayWindow(warmup: .requests(1)), ttl: TTLRule())
    } throws: { "\($0)".contains("not yet replayed with a warm-up") }
  }

  /// The rows of scripts/reference/libcachesim_035_ttl.tsv (libCacheSim 0.3.5's
  /// TTL build), on the trace its header names, regenerated here: exact.
  @Test func agreesWithLibCacheSimsTTLBuildMissForMiss() throws {
    var workload = SyntheticWorkload(kind: .zipf, objects: 2000, requests: 100_000)
    (workload.alpha, workload.seed) = (0.9, 7)
    workload.ttls = .uniform(low: 5, high: 60)
    workload.sizes = .uniform(low: 100, high: 10_000)
    let scratch = try ScratchFolder()
    let path = scratch.url.path + "/ttl.lcs"
    let writer = try TraceWriter(path: path, format: .lcs)
    try writer.write(try workload.generate())
    try writer.finish()
    let table = try String(
      contentsOf: SharedData.repository.appendingPathComponent("scripts/reference/libcachesim_035_ttl.tsv"),
      encoding: .utf8)
    #expect(table.contains("--objects 2000 --requests 100000 --alpha 0.9 --seed 7 --ttl uniform:5-60"))
    let lines = table.split(separator: "\n").filter { !$0.hasPrefix("#") }.dropFirst()
    #expect(lines.count == 42)
    var expired: Int64 = 0
    for line in lines {
      let f = line.split(separator: "\t").map(String.init)
      let mode: SizeMode = f[1] == "count" ? .count : .bytes
      let result = try TraceReplay.run(
        TraceSource(path: path, format: .lcs), policy: PolicySpec(f[0]), cacheSize: Int64(f[2])!, sizeMode: mode,
        ttl: TTLRule(defaultTTL: 300 * 86_400))
      #expect(result.requests == Int64(f[3])! && result.misses == Int64(f[4])!, "\(line)")
      // In count mode libCacheSim's bytes are its sizes of 1; ours stay the trace's.
      if mode == .bytes {
        #expect(result.bytesRequested == Int64(f[5])! && result.bytesMissed == Int64(f[6])!, "\(line)")
      }
      expired += result.semantics?.expiredRequests ?? 0
    }
    // The trace exercises expiry: thousands of requests found their object expired.
    #expect(expired > 10_000)
  }
}
