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
    var expected = SemanticsCounts(semantics: "libcachesim", useTtl: true, expiredRequests: 1)
    // Expired after 6, found at 7: one object, one byte for one second of 999.
    (expected.expiration, expected.expiredObjects, expected.meanExpiredBytes) = ("lazy", 1, 1.0 / 999)
    #expect(result.semantics == expected)
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

  @Test func aScanFreesTheRoomThatExpiredObjectsHold() throws {
    let records = [
      TraceRecord(key: 1, size: 100, time: 0),  // no TTL
      TraceRecord(key: 2, size: 300, time: 0, ttl: 1),  // expires at 1: expired at any later time
      TraceRecord(key: 3, size: 100, time: 10),  // lazily, FIFO evicts 1; a scan at 10 removes 2 first
      TraceRecord(key: 1, size: 100, time: 11),  // lazily a miss that evicts 2, expired for 10 s; scanned, a hit
    ]
    let lazy = try replay(records, "fifo", size: 2)
    #expect(lazy.hits == 0 && lazy.semantics?.expiredRequests == 0)
    #expect(lazy.semantics?.expiration == "lazy" && lazy.semantics?.expiredObjects == 1)
    #expect(lazy.semantics?.meanExpiredBytes == 300.0 * 10 / 11)
    let scan = try replay(records, "fifo", size: 2, ttl: TTLRule(expiration: .scan(interval: 5)))
    #expect(scan.hits == 1 && scan.semantics?.expiredObjects == 1)
    // Scans at 0, 5, 10: the one at 5 removes it (the next request, at 10, sees it gone).
    #expect(scan.semantics?.expiration == "scan:interval=5" && scan.semantics?.meanExpiredBytes == 300.0 * 4 / 11)
    // Scanning before every request removes it at the first request after its expiry.
    let eager = try replay(records, "fifo", size: 2, ttl: TTLRule(expiration: .scan(interval: 0)))
    #expect(eager.hits == 1 && eager.semantics?.meanExpiredBytes == 300.0 * 9 / 11)
    // An object still resident and expired at the end counts to the end.
    let resting = try replay(records + [TraceRecord(key: 9, time: 20)], "fifo", size: 3)
    #expect(resting.semantics?.expiredObjects == 1 && resting.semantics?.meanExpiredBytes == 300.0 * 19 / 20)
  }

  /// A scan removes an object at the first scan after its expiry, whenever
  /// the next request comes; the span is the clock's, even if it goes back.
  @Test func scansFallOnTheirOwnTimes() throws {
    let records = [
      TraceRecord(key: 1, size: 100, time: 0, ttl: 5),  // expires at 5
      TraceRecord(key: 2, size: 1, time: 10), TraceRecord(key: 3, size: 1, time: 20),
    ]
    func mean(_ expiration: Expiration) throws -> Double? {
      try replay(records, size: 1000, sizeMode: .bytes, ttl: TTLRule(expiration: expiration)).semantics?
        .meanExpiredBytes
    }
    // Scans at 0, 1, …, 6: gone at 6, 1 s expired of 20. At 0, 7, 14: 2 s. At 0, 10: 5 s. Lazily: to the end, 15 s.
    #expect(try mean(.scan(interval: 1)) == 5 && mean(.scan(interval: 7)) == 10)
    #expect(try mean(.scan(interval: 10)) == 25 && mean(.lazy) == 75)
    #expect(try mean(.scan(interval: 0)) == 25, "before every request: at 10")
    // A clock that goes back: the span is 120 s, and the object expired at 101 stays to 120.
    let back = [
      TraceRecord(key: 1, size: 60, time: 100, ttl: 1), TraceRecord(key: 2, size: 1, time: 120),
      TraceRecord(key: 3, size: 1, time: 0),
    ]
    let result = try replay(back, size: 1000, sizeMode: .bytes)
    #expect(result.semantics?.expiredObjects == 1 && result.semantics?.meanExpiredBytes == 60.0 * 19 / 120)
  }

  /// Scans remove in an order of their own, so a policy that evicts at
  /// random makes the same choices in every run.
  @Test func aRandomPolicyScannedIsReproducible() throws {
    var workload = SyntheticWorkload(kind: .zipf, objects: 2000, requests: 30_000)
    workload.seed = 3
    workload.ttls = .uniform(low: 1, high: 4)
    let records = try workload.generate()
    let runs = try (0..<3).map { _ in
      try replay(records, "random:seed=42", size: 300, ttl: TTLRule(expiration: .scan(interval: 2)))
    }
    #expect(runs.allSatisfy { $0.counts == runs[0].counts && $0.semantics == runs[0].semantics })
    #expect(runs[0].semantics!.expiredObjects! > 100)
  }

  @Test func expirationReadsWhatItWrites() throws {
    for text in ["lazy", "scan:interval=1", "scan:interval=0", "scan:interval=3600"] {
      #expect(try Expiration(parsing: text).description == text)
    }
    #expect(try Expiration(parsing: "scan") == .scan(interval: Expiration.defaultScanInterval))
    for bad in ["", "eager", "scan:", "scan:interval=", "scan:interval=-1", "scan:interval=1.5", "scan:5"] {
      #expect(throws: TraceError.self) { try Expiration(parsing: bad) }
    }
  }

  /// On the reference trace, LRU loses no hit when expired objects leave
  /// early (they would miss anyway), and wastes less memory on them; a scan
  /// every second of a trace timed in seconds leaves no request to find
  /// its object expired.
  @Test func scanningNeverCostsLRUAHit() throws {
    var workload = SyntheticWorkload(kind: .zipf, objects: 2000, requests: 100_000)
    (workload.alpha, workload.seed) = (0.9, 7)
    workload.ttls = .uniform(low: 5, high: 60)
    workload.sizes = .uniform(low: 100, high: 10_000)
    let records = try workload.generate()
    for (size, mode) in [(Int64(1500), SizeMode.count), (5_000_000, .bytes)] {
      let lazy = try replay(records, size: size, sizeMode: mode)
      #expect(lazy.semantics!.expiredObjects! > 500 && lazy.semantics!.expiredRequests > 500)
      var previous = lazy
      for interval: Int64 in [60, 10, 1, 0] {
        let scan = try replay(records, size: size, sizeMode: mode, ttl: TTLRule(expiration: .scan(interval: interval)))
        #expect(scan.hits >= previous.hits, "\(mode) scan:interval=\(interval)")
        #expect(scan.semantics!.meanExpiredBytes! <= previous.semantics!.meanExpiredBytes!)
        if interval <= 1 { #expect(scan.semantics!.expiredRequests == 0) }
        previous = scan
      }
      #expect(previous.hits > lazy.hits)
    }
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
    } throws: { "\($0)".contains("useTtl is not yet replayed with warmup") }
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
  /// Replays `csv` (a `time,key,size,ttl` trace) with TTLs by `rule`, or
  /// under key-value semantics with `kv`.
  func replayCSV(_ csv: String, ttl: TTLRule? = TTLRule(), kv: KVRule? = nil) throws -> ReplayResult {
    let scratch = try ScratchFolder()
    let path = scratch.url.path + "/t.csv"
    try csv.write(toFile: path, atomically: true, encoding: .utf8)
    return try TraceReplay.run(
      TraceSource(path: path, format: .csv), policy: PolicySpec("lru"), cacheSize: 10, sizeMode: .count,
      ttl: kv == nil ? ttl : nil, kv: kv)
  }

  /// Times are signed 64-bit seconds: an expiry past 2^63 − 1 is the latest
  /// time (the object outlives the trace), and expired waste, scans and the
  /// trace's span are worked out without overflow. These replays trapped.
  @Test(arguments: [Expiration.lazy, .scan(interval: 1), .scan(interval: 1_000)])
  func timesNearTheEndsOfSixtyFourBitsDoNotTrap(expiration: Expiration) throws {
    let late = """
      time,key,size,ttl
      1,1,10,5
      9223372036854775806,2,10,5
      9223372036854775807,2,10,0
      9223372036854775807,1,10,0

      """
    // 2 expires at the latest time, so still serves; 1 expired long ago.
    let result = try replayCSV(late, ttl: TTLRule(expiration: expiration))
    #expect(result.hits == 1 && result.misses == 3)
    let semantics = try #require(result.semantics)
    #expect(semantics.expiredObjects == 1)
    #expect(semantics.expiredRequests == (expiration == .lazy ? 1 : 0))
    // Lazily, ten bytes stay expired for nearly the whole span (a mean of
    // ten); a scan removes them within an interval of their expiry.
    let wasted = try #require(semantics.meanExpiredBytes)
    #expect(abs(wasted - (expiration == .lazy ? 10 : 0)) < 1e-6)

    // A trace spanning more than 2^63 s: from the earliest time to the latest.
    let wide = """
      time,key,size,ttl
      -9223372036854775807,1,10,5
      9223372036854775806,1,10,5

      """
    let across = try replayCSV(wide, ttl: TTLRule(expiration: expiration))
    #expect(across.misses == 2 && across.semantics?.expiredObjects == 1)
    let kv = try replayCSV(wide, kv: KVRule(fillOnMiss: true, expiration: expiration))
    #expect(kv.misses == 2 && kv.semantics?.expiredObjects == 1)
    let scratch = try ScratchFolder()
    let path = scratch.url.path + "/wide.csv"
    try wide.write(toFile: path, atomically: true, encoding: .utf8)
    let info = try TraceInfo.measure(TraceSource(path: path, format: .csv))
    #expect(info.timeSpanOverflows && info.timeSpan == .max)
  }
}
