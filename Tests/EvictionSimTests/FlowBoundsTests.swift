import EvictionCore
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionSim

/// FOO and PFOO (`evlab bounds`): the authors' own tool's figures, Belady's
/// where sizes are equal, the order the bounds must keep, and schedules
/// that fit the cache at every moment.
@Suite struct FlowBoundsTests {
  /// A trace's first `requests` requests, written as CSV (key, size, time).
  static func prefix(_ relative: String, format: TraceFormat, requests: Int, in folder: ScratchFolder) throws
    -> TraceSource
  {
    let records = try openTrace(SharedData.trace(relative), format: format).readAll().prefix(requests)
    let path = folder.url.path + "/\(relative.replacingOccurrences(of: "/", with: "_")).csv"
    let writer = try TraceWriter(path: path, format: .csv)
    try writer.write(Array(records))
    try writer.finish()
    return TraceSource(path: path, format: .csv)
  }

  /// Whether a schedule's whole cached intervals fit `capacity` over every gap between requests.
  static func fits(_ hits: [Bool], _ intervals: FlowIntervals, capacity: Int64) -> Bool {
    var ending = [Int64](repeating: 0, count: intervals.count)
    var held: Int64 = 0
    for i in 0..<intervals.count {
      held -= ending[i]
      let next = Int(intervals.next[i])
      if next >= 0 && hits[next] {
        held += intervals.sizes[i]
        ending[next] += intervals.sizes[i]
      }
      if held > capacity { return false }
    }
    return true
  }

  /// Two objects of 2 bytes requested in turn, in a cache of 3: the flow
  /// caches 3 of their 4 bytes (FOO-L 2.5 misses), a schedule of whole
  /// objects only one of them (FOO-U 3), and space-time alone would fit
  /// both (PFOO-L 2).
  @Test func aFractionalFlowSitsBetweenTheBounds() throws {
    let intervals = FlowIntervals(keys: [1, 2, 1, 2], sizes: [2, 2, 2, 2])
    #expect(intervals.next == [2, 3, -1, -1] && intervals.objects == 2)
    let foo = try FlowBound.foo(intervals, capacity: 3)
    #expect(abs(foo.lower - 2.5) < 1e-9)
    #expect(foo.misses == 3 && Self.fits(foo.hits, intervals, capacity: 3))
    #expect(FlowBound.pfooLower(intervals, capacity: 3) == 2)
    let pfoo = try FlowBound.pfooUpper(intervals, capacity: 3, step: 2)
    #expect(pfoo.misses == 3 && Self.fits(pfoo.hits, intervals, capacity: 3))
    // A key at another size is another object: its next request misses.
    let resized = FlowIntervals(keys: [1, 1, 1], sizes: [2, 3, 3])
    #expect(resized.next == [-1, 2, -1] && resized.objects == 2)
    #expect(try FlowBound.foo(resized, capacity: 10).misses == 2)
  }

  /// Every row of `results/reference/foo_optimalwebcaching.tsv`, made by the
  /// authors' tool (`scripts/reference-foo.sh`): FOO-L to 1e-6 misses, FOO-U exactly.
  @Test func agreesWithTheAuthorsTool() throws {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/foo_optimalwebcaching.tsv"),
      encoding: .utf8)
    var lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
      $0.split(separator: "\t").map(String.init)
    }
    let header = lines.removeFirst()
    let rows = lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    #expect(rows.count >= 10 && Set(rows.map { $0["size_mode"]! }) == ["bytes", "count"])
    let formats = [
      "libcachesim/cloudPhysicsIO.oracleGeneral.bin": TraceFormat.oracleGeneral,
      "caffeine/adapt_size/request.trace.xz": try TraceFormat(name: "adapt-size"),
      "caffeine/lirs/multi3.trace.gz": try TraceFormat(name: "lirs"),
    ]
    for (key, group) in Dictionary(grouping: rows, by: { "\($0["trace"]!)|\($0["size_mode"]!)" }) {
      let trace = group[0]["trace"]!
      let source = TraceSource(path: SharedData.trace(trace), format: try #require(formats[trace]))
      let intervals = try FlowIntervals.read(source, sizeMode: SizeMode(rawValue: group[0]["size_mode"]!)!)
      for row in group {
        let size = Int64(row["cache_size"]!)!
        #expect(intervals.count == Int(row["requests"]!)!, "\(key)")
        // The authors' flow keeps objects larger than the cache in it.
        let foo = try FlowBound.foo(intervals, capacity: size, cachesPartOfLargerObjects: true)
        let lower = foo.lower
        #expect(abs(lower - Double(row["foo_lower_misses"]!)!) < 1e-6, "\(key) \(size): FOO-L \(lower)")
        #expect(foo.misses == Int64(row["foo_upper_misses"]!)!, "\(key) \(size): FOO-U \(foo.misses)")
      }
    }
  }

  /// With equal sizes the flow is whole: FOO-L = FOO-U = Belady with
  /// bypass, to the miss, on the first 20,000 requests of every shared
  /// trace; libCacheSim's Belady, which must admit, never misses less.
  @Test func equalSizesGiveBeladyWithBypass() throws {
    let folder = try ScratchFolder()
    let traces: [(String, String)] =
      [
        ("libcachesim/cloudPhysicsIO.oracleGeneral.bin", "oracleGeneral"),
        ("libcachesim/twitter_cluster52.oracleGeneral.zst", "oracleGeneral"),
        ("caffeine/adapt_size/request.trace.xz", "adapt-size"),
      ]
      + ["OLTP", "P2", "P3", "P6", "P12"].map { ("arc/\($0).lis.zst", "arc") }
      + [
        "2_pools", "backf", "cpp", "cs", "gli", "loop", "multi1", "multi2", "multi3", "ps", "scan", "sprite", "zigzag",
      ]
      .map { ("caffeine/lirs/\($0).trace.gz", "lirs") }
    for (trace, format) in traces {
      let source = try Self.prefix(trace, format: try TraceFormat(name: format), requests: 20_000, in: folder)
      let intervals = try FlowIntervals.read(source, sizeMode: .count)
      for size: Int64 in [50, 500] {
        let foo = try FlowBound.foo(intervals, capacity: size)
        let bypass = try TraceReplay.run(
          source, policy: PolicySpec("belady:bypass=true"), cacheSize: size, sizeMode: .count)
        let belady = try TraceReplay.run(source, policy: PolicySpec("belady"), cacheSize: size, sizeMode: .count)
        #expect(abs(foo.lower - Double(foo.misses)) < 1e-6, "\(trace) \(size)")
        #expect(foo.misses == bypass.misses, "\(trace) \(size): FOO \(foo.misses), Belady with bypass \(bypass.misses)")
        #expect(belady.misses >= foo.misses, "\(trace) \(size)")
      }
    }
  }

  /// With sizes: PFOO-L ≤ FOO-L ≤ FOO-U, FOO-L ≤ PFOO-U, both schedules fit
  /// the cache at every moment, and no catalog policy bound by its
  /// capacity (online, a model, or the Belady heuristics) misses less than
  /// FOO-L. (The disk models that trim on a timer hold more than the
  /// capacity between trims: no bound applies to them.)
  @Test(arguments: [
    ("libcachesim/cloudPhysicsIO.oracleGeneral.bin", "oracleGeneral"),
    ("libcachesim/twitter_cluster52.oracleGeneral.zst", "oracleGeneral"),
    ("caffeine/adapt_size/request.trace.xz", "adapt-size"),
  ])
  func byteBoundsKeepTheirOrderAndNoPolicyBeatsThem(trace: String, format: String) throws {
    let folder = try ScratchFolder()
    let source = try Self.prefix(trace, format: try TraceFormat(name: format), requests: 20_000, in: folder)
    let intervals = try FlowIntervals.read(source, sizeMode: .bytes)
    let footprint = try TraceInfo.footprint(source).bytes
    for share in [0.0001, 0.01, 0.1] {
      let size = max(1, Int64(Double(footprint) * share))
      let what = "\(trace) at \(size) bytes"
      let foo = try FlowBound.foo(intervals, capacity: size)
      let fooLower = foo.lower
      let loose = try FlowBound.foo(intervals, capacity: size, cachesPartOfLargerObjects: true)
      #expect(loose.lower <= fooLower + 1e-9, "\(what): FOO-L with part of larger objects cached is looser")
      let pfooLower = FlowBound.pfooLower(intervals, capacity: size)
      let pfoo = try FlowBound.pfooUpper(intervals, capacity: size, step: 2_000)
      #expect(pfooLower <= fooLower + 1e-9 && fooLower <= Double(foo.misses) + 1e-9, "\(what)")
      #expect(fooLower <= Double(pfoo.misses) + 1e-9, "\(what)")
      #expect(Self.fits(foo.hits, intervals, capacity: size), "\(what): FOO-U overfills")
      #expect(Self.fits(pfoo.hits, intervals, capacity: size), "\(what): PFOO-U overfills")
      #expect(pfoo.misses == Int64(pfoo.hits.count { !$0 }))
      for entry in PolicyCatalog.entries where !entry.trimsOnATimer {
        let spec = try PolicySpec(entry.name)
        guard spec.minimumCapacity <= size else { continue }
        let result = try TraceReplay.run(source, policy: spec, cacheSize: size, sizeMode: .bytes)
        #expect(Double(result.misses) >= fooLower - 1e-9, "\(what): \(entry.name) misses \(result.misses) < FOO-L")
      }
    }
  }
}

/// What PFOO-U refuses rather than run for hours.
@Suite struct FlowBoundsLimitTests {
  @Test func aStepThatMakesThousandsOfBandsIsRefused() throws {
    let keys = (0..<10_000).map { UInt64($0 % 2_000) }
    let intervals = FlowIntervals(keys: keys, sizes: keys.map { _ in 1 })
    #expect(throws: TraceError.self) { try FlowBound.pfooUpper(intervals, capacity: 100, step: 2) }
    #expect(try FlowBound.pfooUpper(intervals, capacity: 100, step: 8).misses >= 2_000)
  }
}
