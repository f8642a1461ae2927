import EvictionCache
import EvictionCore
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionExperiments
@testable import EvictionSim

/// The measurement library behind `evlab bench`: what it reports must be
/// right before how fast it is matters.
@Suite struct BenchLibraryTests {
  let zipf = TraceSource(
    path: SharedData.repository.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path,
    format: .oracleGeneral)

  @Test func theBareLoopMissesExactlyAsTheFrameworksLRU() throws {
    var source = zipf
    source.copies = 2
    let benchmark = ReplayBenchmark(
      source: source, policies: [try PolicySpec("lru")], cacheSize: 1000, sizeMode: .count, rounds: 2,
      bareReference: true)
    var lines: [String] = []
    let report = try benchmark.run { lines.append($0) }
    #expect(report.results.map(\.policy) == [ReplayBenchmark.bareName, "lru"])
    let (bare, lru) = (report.results[0], report.results[1])
    #expect(bare.requests == lru.requests && bare.misses == lru.misses)
    #expect(lru.runs == 2 && lru.minRequestsPerSecond <= lru.medianRequestsPerSecond)
    #expect(lru.medianRequestsPerSecond <= lru.maxRequestsPerSecond)
    #expect(lines.count == 4)  // one per timed replay
    #expect(bare.ratioToBareLru == 1)
  }

  /// Copies are tiled by the trace's own stride, as the framework tiles
  /// them: ids at 2⁴⁰ and above do not run into the next copy's.
  @Test func theBareLoopTilesByTheTracesStride() throws {
    let folder = try ScratchFolder()
    var source = TraceSource(path: try folder.file("wide.txt", "0\n1099511627776\n0\n"), format: .txt)
    source.copies = 2
    let report = try ReplayBenchmark(
      source: source, policies: [try PolicySpec("lru")], cacheSize: 4, sizeMode: .count, rounds: 1,
      bareReference: true
    ).run()
    #expect(report.results.map(\.misses) == [4, 4], "two copies of two distinct ids, nothing shared")
  }

  @Test func theBareLoopRefusesByteMode() throws {
    let benchmark = ReplayBenchmark(
      source: zipf, policies: [], cacheSize: 1 << 20, sizeMode: .bytes, rounds: 1, bareReference: true)
    #expect(throws: BenchError.self) { try benchmark.run() }
  }

  /// The clockless GetPut cell (the Benchmarks package's) makes exactly the
  /// operations asked from every thread: every read among them hits, so the
  /// cache's hits grow by the reads at the positions the threads walk, and
  /// under `buffered` every write replaces in place.
  @Test(arguments: ["mutex", "buffered"])
  func aGetPutCellMakesTheOperationsAsked(contender: String) throws {
    let mix = try ConcurrentBenchmark.Mix("75/25")
    let cell = try ConcurrentBenchmark.Cell(contender: contender, mix: mix, policy: try PolicySpec("lru"))
    let writes = ConcurrentBenchmark.writePositions(readPercent: 75)
    let mask = ConcurrentBenchmark.ringSize - 1
    let (threads, perThread) = (2, 4_096)
    var reads = 0
    for t in 0..<threads {
      let start = (t &* 7_919 &* 64) & mask
      reads += (0..<perThread).count { !writes[(start + $0) & mask] }
    }
    let before = try #require(cell.hits)
    let writtenBefore = try #require(cell.writesInPlace)
    cell.run(threads: threads, operationsPerThread: perThread)
    #expect(try #require(cell.hits) - before == reads)
    let written = try #require(cell.writesInPlace) - writtenBefore
    #expect(written == (contender == "buffered" ? threads * perThread - reads : 0))
    #expect(reads > perThread && reads < threads * perThread)
  }

  @Test func cacheContendersReadTheSameSequence() throws {
    let benchmark = CacheBenchmark(
      policies: [try PolicySpec("lru")], capacity: 100, keys: 400, gets: 5_000, rounds: 1, lock: .mutex)
    let report = try benchmark.run()
    #expect(
      report.results.map(\.target) == [
        "MemoryCache lru, Dictionary index", "MemoryCache lru, integer index", "NSCache", "Dictionary+Mutex",
      ])
    // Same policy, same sequence: the index cannot change what hits.
    #expect(report.results[0].hitRatio == report.results[1].hitRatio)
    // Only the last 100 of 400 keys set stay in an LRU of 100: about a quarter of uniform reads hit.
    #expect(abs(report.results[0].hitRatio - 0.25) < 0.05)
    #expect(report.results[3].hitRatio == 1)  // unbounded
    #expect(abs(report.results[3].costVsDictionary - 1) < 1e-12)
  }

  /// The allocator's figures are process-wide, and the test process runs
  /// suites in parallel, so `evlab bench memory` is measured in a process of
  /// its own (`MemoryBenchCommandTests`). Here: a row without ghosts still
  /// has every key.
  @Test func memoryRowsWriteEveryKey() throws {
    let row = MemoryBenchmark.Row(policy: "lru", entries: 10, bytesPerEntry: 48)
    let json = String(decoding: try JSONEncoder().encode(row), as: UTF8.self)
    #expect(json.contains("\"bytesPerGhost\":null") && json.contains("\"ghosts\":null"), "\(json)")
  }

  @Test func throughputComparisonsRefuseDifferentWorkloads() throws {
    var a = ThroughputBenchmark.Samples(trace: "t", cacheSize: 10, sizeMode: .count, copies: 1, policies: ["lru"])
    a.samples["lru"] = [1, 2, 3]
    var b = a
    b.cacheSize = 20
    #expect(throws: BenchError.self) {
      try ThroughputBenchmark.compare(baseline: a, current: b, alpha: 0.05, minimumEffect: 0.05)
    }
    b.cacheSize = 10
    b.samples["lru"] = [1.5, 2, 2.5]
    let verdicts = try ThroughputBenchmark.compare(baseline: a, current: b, alpha: 0.05, minimumEffect: 0.05)
    #expect(verdicts.map(\.policy) == ["lru"])
  }
}
