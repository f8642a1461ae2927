import EvictionCache
import EvictionConformance
import EvictionCore
import EvictionSim
import EvictionTraces
import Foundation
import LRU2
import Testing

/// The repository's bundled Zipf trace (200,000 requests, 4 KiB objects).
let zipf = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path

/// The trace's requests as (key, size).
func requests(limit: Int = .max) throws -> [(key: UInt64, size: Int64)] {
  let reader = try TraceSource(path: zipf, format: .oracleGeneral).open()
  let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 4096)
  defer { buffer.deallocate() }
  var out: [(key: UInt64, size: Int64)] = []
  while out.count < limit {
    let n = try reader.read(into: buffer)
    if n == 0 { break }
    for record in buffer[..<min(n, limit - out.count)] { out.append((record.key, record.size)) }
  }
  return out
}

/// LRU-2 by definition, as slowly as it reads: on every eviction scan all
/// residents for the oldest (penultimate, last) request times.
func bruteForceHits(_ trace: [(key: UInt64, size: Int64)], capacity: Int64, bytes: Bool) -> Int {
  var history: [UInt64: (penultimate: Int, last: Int, weight: Int64)] = [:]
  var used: Int64 = 0
  var hits = 0
  for (time, request) in trace.enumerated() {
    if let seen = history[request.key] {
      hits += 1
      history[request.key] = (seen.last, time, seen.weight)
      continue
    }
    let weight = bytes ? request.size : 1
    guard weight <= capacity else { continue }
    while used + weight > capacity {
      let victim = history.min { ($0.value.penultimate, $0.value.last) < ($1.value.penultimate, $1.value.last) }!
      used -= victim.value.weight
      history[victim.key] = nil
    }
    history[request.key] = (-1, time, weight)
    used += weight
  }
  return hits
}

/// Registers LRU-2 once per test process (a second registration is refused).
let registered: Void = { try! PolicyCatalog.register([LRU2.self]) }()

@Suite struct LRU2Tests {
  @Test(
    arguments: [(1, false), (2, false), (10, false), (100, false), (500, false), (40_000, true), (1_000_000, true)]
      as [(Int64, Bool)])
  func agreesWithTheDefinition(capacity: Int64, bytes: Bool) throws {
    let trace = try requests(limit: 20_000)
    var policy = LRU2Policy<IntegerSlotIndex<UInt64>>(capacity: capacity)
    var hits = 0
    for (time, request) in trace.enumerated() {
      if policy.access(Request(key: request.key, weight: bytes ? request.size : 1, time: Int64(time))) { hits += 1 }
      if time % 997 == 0 { policy.checkInvariants() }
    }
    policy.checkInvariants()
    #expect(hits == bruteForceHits(trace, capacity: capacity, bytes: bytes))
  }

  /// The whole trace through the catalog, as `lru2-evlab replay` runs it.
  /// The figures come from an independent LRU-2 (Python, a heap with lazy
  /// deletion) over the same 200,000 requests; the README shows the script.
  @Test(arguments: [(100, 131_755), (1000, 88_100), (5000, 50_185)] as [(Int64, Int64)])
  func replaysTheBundledTraceThroughTheCatalog(size: Int64, misses: Int64) throws {
    _ = registered
    let result = try TraceReplay.run(
      TraceSource(path: zipf, format: .oracleGeneral), policy: PolicySpec("lru2"), cacheSize: size, sizeMode: .count)
    #expect(result.requests == 200_000)
    #expect(result.misses == misses)
    #expect(!result.exceedsCapacity)
  }

  /// The checks every built-in policy passes (the EvictionConformance product).
  @Test func keepsTheGuaranteesOfEveryBuiltInPolicy() throws {
    _ = registered
    let report = PolicyConformance.check(try PolicySpec("lru2"))
    #expect(report.passed, "\(report.violations.prefix(5))")
  }

  @Test func parsesAndListsLikeABuiltInPolicy() throws {
    _ = registered
    #expect(try PolicySpec("LRU2").name == "lru2")
    #expect(PolicyCatalog.names.last == "lru2")
    #expect(throws: PolicyError.unknownParameter(policy: "lru2", parameter: "k", known: [])) {
      try PolicySpec("lru2:k=3")
    }
    #expect(throws: PolicyError.alreadyRegistered("lru2")) { try PolicyCatalog.register([LRU2.self]) }
  }

  /// The same policy serves a real cache: a key read twice outlives one read once.
  @Test func drivesAMemoryCache() throws {
    _ = registered
    let cache = try MemoryCache<String, Int>(policy: "lru2", countLimit: 3)
    cache.setValue(1, forKey: "a")
    cache.setValue(2, forKey: "b")
    cache.setValue(3, forKey: "c")
    #expect(cache.value(forKey: "a") == 1)
    cache.setValue(4, forKey: "d")
    #expect(cache.value(forKey: "b") == nil)
    #expect(cache.value(forKey: "a") == 1)
    #expect(cache.value(forKey: "c") == 3)
  }
}
