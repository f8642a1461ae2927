import EvictionCore
import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionExperiments
@testable import EvictionSim
@testable import EvictionTraces

@Suite struct MissRatioCurveTests {
  static let cloudPhysics = TraceSource(
    path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)

  /// The one-pass LRU curve equals `evlab replay` at every size, in both size modes.
  @Test(arguments: [(SizeMode.count, "100..60000:log14"), (.bytes, "1m..4g:log14")])
  func exactCurveEqualsReplayAtEverySize(mode: SizeMode, sizes: String) throws {
    let cacheSizes = try CacheSize.list(sizes).map { $0.resolve(footprint: 0) }
    let curve = try MissRatioCurves.exactLRU(Self.cloudPhysics, sizes: cacheSizes, sizeMode: mode)
    #expect(curve.points.count == cacheSizes.count && curve.simulatedSizes.isEmpty)
    let cells = cacheSizes.map {
      ReplayCell(trace: Self.cloudPhysics, policy: try! PolicySpec("lru"), cacheSize: $0, sizeMode: mode)
    }
    let replays = try TraceReplay.runAll(cells, parallelism: 2)
    for (point, replay) in zip(curve.points, replays) {
      #expect(point.cacheSize == replay.cacheSize)
      #expect(point.misses == replay.misses, "\(mode) at \(point.cacheSize)")
      #expect(point.bytesMissed == replay.bytesMissed, "\(mode) at \(point.cacheSize)")
    }
    // The curve never rises with the size (LRU is a stack algorithm).
    for (a, b) in zip(curve.points, curve.points.dropFirst()) { #expect(b.misses <= a.misses) }
  }

  /// Objects heavier than a size, or whose size changes, break the
  /// stack-distance rule in byte mode: those sizes are simulated, and the
  /// curve still equals the replay.
  @Test func sizesTheRuleCannotAnswerAreSimulated() throws {
    var lines = ["id,size"]
    var generator = SeededGenerator(seed: 9)
    for i in 0..<20_000 {
      let key = generator.below(400)
      // Object 7 changes size; objects 0...3 are 5,000 bytes, heavier than the small caches.
      let size = key < 4 ? 5_000 : (key == 7 ? 10 + i % 3 : 100 + key)
      lines.append("\(key),\(size)")
    }
    let path = Scratch.path("mrc", suffix: ".csv")
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    let trace = TraceSource(path: path, format: .csv)
    let sizes: [Int64] = [1_000, 4_000, 10_000, 40_000, 100_000]
    let curve = try MissRatioCurves.exactLRU(trace, sizes: sizes, sizeMode: .bytes)
    #expect(curve.simulatedSizes == sizes, "a changing size makes every byte size simulated")
    // Each simulated point says so, though the curve asked for was exact.
    #expect(curve.method == .exact && sizes.allSatisfy { curve.method(at: $0) == .simulate })
    for point in curve.points {
      let replay = try TraceReplay.run(trace, policy: PolicySpec("lru"), cacheSize: point.cacheSize, sizeMode: .bytes)
      #expect(point.misses == replay.misses && point.bytesMissed == replay.bytesMissed, "\(point.cacheSize)")
    }
  }

  /// Memory follows the distinct objects, not the trace: positions are renumbered.
  @Test func stackDistanceMemoryIsBoundedByDistinctObjects() {
    var tree = StackDistanceTree()
    var generator = SeededGenerator(seed: 2)
    for _ in 0..<500_000 { _ = tree.access(UInt64(generator.below(3_000)), weight: 1) }
    #expect(tree.latest.count == 3_000)
    #expect(tree.capacity <= 8_192, "capacity \(tree.capacity) grew with the trace")
  }

  /// SHARDS at rate 0.01 on the ARC paper's P3 trace, against the exact
  /// curves (stack distances for LRU, one cache per size for ARC).
  @Test func shardsAtOnePercentIsWithinAHundredthOfTheExactCurve() throws {
    let p3 = TraceSource(path: SharedData.path("traces/arc/P3.lis.zst"), format: .arc)
    let sizes = try CacheSize.list("8192..262144:log6").map { $0.resolve(footprint: 0) }
    for policy in ["lru", "arc"] {
      let spec = try PolicySpec(policy)
      let exact =
        policy == "lru"
        ? try MissRatioCurves.exactLRU(p3, sizes: sizes, sizeMode: .count)
        : try MissRatioCurves.simulate(p3, policy: spec, sizes: sizes, sizeMode: .count)
      let sampled = try MissRatioCurves.shards(p3, policy: spec, sizes: sizes, sizeMode: .count, rate: 0.01)
      #expect(sampled.method == .shards && sampled.rate == 0.01)
      #expect(sampled.points[0].requests < exact.points[0].requests / 50, "about 1% of the requests are kept")
      let errors = zip(exact.points, sampled.points).map { abs($0.missRatio - $1.missRatio) }
      let mean = errors.reduce(0, +) / Double(errors.count)
      #expect(mean < 0.01, "\(policy): mean absolute error \(mean)")
    }
  }

  /// Fixed-size SHARDS keeps at most N objects, reports the rate it ended
  /// at, and stays within a hundredth of the exact LRU curve on P3.
  @Test func fixedSizeShardsIsBoundedAndClose() throws {
    let p3 = TraceSource(path: SharedData.path("traces/arc/P3.lis.zst"), format: .arc)
    let sizes = try CacheSize.list("8192..262144:log6").map { $0.resolve(footprint: 0) }
    let exact = try MissRatioCurves.exactLRU(p3, sizes: sizes, sizeMode: .count)
    let sampled = try MissRatioCurves.shardsFixedSize(p3, sizes: sizes, sizeMode: .count, maxObjects: 8_192)
    #expect(sampled.method == .shards && sampled.rate > 0.005 && sampled.rate < 0.02, "rate \(sampled.rate)")
    let errors = zip(exact.points, sampled.points).map { abs($0.missRatio - $1.missRatio) }
    #expect(errors.reduce(0, +) / Double(errors.count) < 0.01, "\(errors)")
  }

  /// In byte mode, a size SHARDS scales below the largest sampled object is
  /// flagged, in every method that samples: the scaled cache cannot hold
  /// what the full one does. Sizes it scales above it are not.
  @Test func shardsFlagsSizesScaledBelowTheLargestSampledObject() throws {
    let sizes: [Int64] = [1_000_000, 4_000_000_000]
    let rate = 0.01
    let spec = try PolicySpec("lru")
    let curves = [
      try MissRatioCurves.shards(Self.cloudPhysics, policy: spec, sizes: sizes, sizeMode: .bytes, rate: rate),
      try MissRatioCurves.shards(
        Self.cloudPhysics, policy: try PolicySpec("fifo"), sizes: sizes, sizeMode: .bytes, rate: rate),
      try MissRatioCurves.shardsFixedSize(Self.cloudPhysics, sizes: sizes, sizeMode: .bytes, maxObjects: 2_000),
    ]
    for curve in curves {
      // cloudPhysicsIO's sampled objects reach tens of kilobytes: 1 MB at 1% is 10 kB.
      #expect(curve.largestSampledObject > Int64(Double(sizes[0]) * curve.rate), "\(curve.largestSampledObject)")
      #expect(curve.belowLargestObject == [sizes[0]], "\(curve.method) \(curve.policy): \(curve.belowLargestObject)")
    }
    let counted = try MissRatioCurves.shards(
      Self.cloudPhysics, policy: spec, sizes: sizes, sizeMode: .count, rate: rate)
    #expect(counted.belowLargestObject.isEmpty && counted.largestSampledObject == 0)
    let exact = try MissRatioCurves.exactLRU(Self.cloudPhysics, sizes: sizes, sizeMode: .bytes)
    #expect(exact.belowLargestObject.isEmpty)
  }

  @Test func sizeRangesParse() throws {
    #expect(try CacheSize.list("100..100000:log4") == [100, 1000, 10000, 100000].map { .absolute($0) })
    #expect(try CacheSize.list("5,7") == [.absolute(5), .absolute(7)])
    #expect(throws: SizeError.self) { try CacheSize.list("100..10:log4") }
    #expect(throws: SizeError.self) { try CacheSize.list("100..1000:lin4") }
  }
}
