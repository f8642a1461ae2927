import EvictionCore
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionExperiments
@testable import EvictionSim

/// Warm-up and intervals: exactly the requests asked for are left out, and
/// the intervals add up to the whole.
@Suite struct ReplayWindowTests {
  static let trace = TraceSource(
    path: SharedData.repository.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path,
    format: .oracleGeneral)

  /// Every request's hit or miss and timestamp, from a plain replay.
  static func outcomes(_ policy: PolicySpec, size: Int64) throws -> [(time: Int64, hit: Bool, size: Int64)] {
    var seen: [(time: Int64, hit: Bool, size: Int64)] = []
    var visitor = Observer(trace: trace) { record, hit in seen.append((record.time, hit, record.size)) }
    _ = try policy.withPolicy(capacity: size, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor).get()
    return seen
  }

  struct Observer: PolicyVisitor {
    typealias Key = UInt64
    let trace: TraceSource
    let observe: (TraceRecord, Bool) -> Void
    mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Result<
      ReplayCounts, TraceError
    > where Policy.Key == UInt64 {
      var policy = policy
      do throws(TraceError) {
        return .success(try TraceReplay.replay(trace, through: &policy, sizeMode: .count, observe: observe))
      } catch { return .failure(error) }
    }
  }

  @Test(arguments: ["lru", "s3fifo", "arc"])
  func aWarmupOfNRequestsLeavesOutExactlyTheFirstN(policy: String) throws {
    let spec = try PolicySpec(policy)
    let all = try Self.outcomes(spec, size: 500)
    let n = 12_345
    let result = try TraceReplay.run(
      Self.trace, policy: spec, cacheSize: 500, sizeMode: .count,
      window: ReplayWindow(warmup: .requests(Int64(n))))
    #expect(result.warmupRequests == Int64(n))
    #expect(result.requests == Int64(all.count - n))
    // The policy saw the warm-up: the counted hits are the plain replay's after request N.
    #expect(result.hits == Int64(all.dropFirst(n).filter(\.hit).count))
    #expect(result.bytesMissed == all.dropFirst(n).filter { !$0.hit }.map(\.size).reduce(0, +))
  }

  @Test func aWarmupDurationEndsOnTheTracesClock() throws {
    let all = try Self.outcomes(try PolicySpec("lru"), size: 500)
    let first = all[0].time
    let result = try TraceReplay.run(
      Self.trace, policy: try PolicySpec("lru"), cacheSize: 500, sizeMode: .count,
      window: ReplayWindow(warmup: .duration(30)))
    let warm = all.prefix { $0.time < first + 30 }.count
    #expect(warm > 0 && warm < all.count)
    #expect(result.warmupRequests == Int64(warm))
    #expect(result.hits == Int64(all.dropFirst(warm).filter(\.hit).count))
  }

  @Test func intervalsSumToTheWholeCounts() throws {
    for interval in [ReplayWindow.Span.requests(7_000), .duration(13)] {
      let result = try TraceReplay.run(
        Self.trace, policy: try PolicySpec("sieve"), cacheSize: 300, sizeMode: .count,
        window: ReplayWindow(warmup: .requests(1_000), interval: interval))
      let sum = result.intervals.map(\.counts)
      #expect(sum.map(\.requests).reduce(0, +) == result.requests)
      #expect(sum.map(\.hits).reduce(0, +) == result.hits)
      #expect(sum.map(\.bytesMissed).reduce(0, +) == result.bytesMissed)
      #expect(result.intervals.first?.firstRequest == 1_001)
      #expect(result.intervals.map(\.index) == result.intervals.map(\.index).sorted())
      // `--timeseries` rows: one per interval, named by the cell, one run.
      let rows = result.timeseries
      #expect(rows.map(\.interval) == result.intervals.map(\.index))
      #expect(rows.map(\.hits).reduce(0, +) == result.hits)
      #expect(rows.allSatisfy { $0.policy == result.policy && $0.cacheSize == 300 && $0.sizeLabel == "300" })
      #expect(rows.allSatisfy { $0.run == 1 && $0.trace == result.trace && $0.admission == "none" })
      if case .requests(let n) = interval {
        #expect(result.intervals.dropLast().allSatisfy { $0.counts.requests == n })
        #expect(result.intervals.count == Int((result.requests + n - 1) / n))
      }
    }
    // Without a window the replay is the plain one.
    let plain = try TraceReplay.run(Self.trace, policy: try PolicySpec("sieve"), cacheSize: 300, sizeMode: .count)
    let windowed = try TraceReplay.run(
      Self.trace, policy: try PolicySpec("sieve"), cacheSize: 300, sizeMode: .count,
      window: ReplayWindow(interval: .requests(1 << 40)))
    #expect(plain.counts == windowed.counts && windowed.intervals.count == 1)
  }

  /// Timestamps that go back (0, 10, 20, 30, 5, 15, 40): a request counts at
  /// the latest time so far, so intervals of 10 s are 0, 1, 2, 3, 4, none
  /// reopened, and the ones stamped 5 and 15 fall in interval 3.
  @Test func timestampsThatGoBackNeverReopenAnInterval() throws {
    let scratch = try ScratchFolder()
    let times = [0, 10, 20, 30, 5, 15, 40]
    let path = try scratch.file(
      "back.csv", "time,key,size\n" + times.enumerated().map { "\($1),\($0),1\n" }.joined())
    let result = try TraceReplay.run(
      TraceSource(path: path, format: .csv), policy: try PolicySpec("lru"), cacheSize: 10, sizeMode: .count,
      window: ReplayWindow(interval: .duration(10)))
    #expect(result.intervals.map(\.index) == [0, 1, 2, 3, 4])
    #expect(result.intervals.map(\.counts.requests) == [1, 1, 1, 3, 1])
    #expect(result.intervals.map(\.startTime) == [0, 10, 20, 30, 40])
  }

  @Test func spansParseRequestsAndDurations() throws {
    #expect(try ReplayWindow.Span(parsing: "100000", option: "--warmup") == .requests(100_000))
    #expect(try ReplayWindow.Span(parsing: "90m", option: "--warmup") == .duration(5400))
    #expect(try ReplayWindow.Span(parsing: "2d", option: "--warmup") == .duration(172_800))
    for bad in ["", "0", "-5", "1.5h", "h", "10x"] {
      #expect(throws: TraceError.self) { try ReplayWindow.Span(parsing: bad, option: "--warmup") }
    }
    #expect {
      try TraceReplay.run(
        Self.trace, policy: try PolicySpec("lru"), cacheSize: 10, sizeMode: .count,
        window: ReplayWindow(warmup: .requests(1 << 40)))
    } throws: { "\($0)".contains("covers all") }
  }
}

/// A curve with a warm-up counts at every size what a replay with that
/// warm-up counts.
@Suite struct CurveWarmupTests {
  @Test(arguments: ["lru", "arc"])
  func everyPointEqualsTheWarmedUpReplay(policy: String) throws {
    let spec = try PolicySpec(policy)
    let sizes: [Int64] = [50, 400, 3000]
    for warmup in [ReplayWindow.Span.requests(25_000), .duration(40)] {
      let plan = try MissRatioCurves.plan(for: spec, method: nil, rate: 1, maxObjects: nil)
      let curve = try MissRatioCurves.curve(
        ReplayWindowTests.trace, policy: spec, plan: plan, sizes: sizes, sizeMode: .count, warmup: warmup)
      for (size, point) in zip(sizes, curve.points) {
        let replay = try TraceReplay.run(
          ReplayWindowTests.trace, policy: spec, cacheSize: size, sizeMode: .count,
          window: ReplayWindow(warmup: warmup))
        #expect(point.requests == replay.requests && point.misses == replay.misses, "\(policy) \(size) \(warmup)")
      }
    }
  }
}
