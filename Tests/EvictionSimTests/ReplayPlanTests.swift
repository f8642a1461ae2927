import EvictionCore
import EvictionExperiments
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// What a replay command plans before it runs: the cells and the work expected.
@Suite struct ReplayPlanTests {
  /// Cells come trace by trace, policy by policy, size by size; a share of
  /// the footprint is resolved against each trace. Sizes that come to one
  /// cache size on a trace are refused: the rows would be one cache twice.
  @Test func theGridResolvesSharesPerTraceInOrder() throws {
    let folder = try ScratchFolder()
    let small = TraceSource(path: try folder.file("small.txt", (1...10).map { "\($0)\n" }.joined()), format: .txt)
    let large = TraceSource(path: try folder.file("large.txt", (1...200).map { "\($0)\n" }.joined()), format: .txt)
    let cells = try ReplayCell.grid(
      [small, large], policies: [PolicySpec("lru"), PolicySpec("arc")],
      sizes: [.absolute(3), .fraction(0.5), .fraction(0.025)], sizeMode: .count)
    #expect(
      cells.map(\.trace.name) == Array(repeating: "small.txt", count: 6) + Array(repeating: "large.txt", count: 6))
    #expect(
      cells.map(\.policy.name) == ["lru", "lru", "lru", "arc", "arc", "arc", "lru", "lru", "lru", "arc", "arc", "arc"])
    // Of 10 objects: 3, 50% = 5, 2.5% = 1 (at least one object); of 200: 3, 100, 5.
    #expect(cells.map(\.cacheSize) == [3, 5, 1, 3, 5, 1, 3, 100, 5, 3, 100, 5])
    // Of 10 objects, 5 and 50% are both 5.
    let refused = #expect(throws: TraceError.self) {
      try ReplayCell.grid(
        [large, small], policies: [PolicySpec("lru")], sizes: [.absolute(5), .fraction(0.5)], sizeMode: .count)
    }
    #expect(
      refused?.description.hasPrefix("sizes 5 and 50% both come to 5 on small.txt") == true,
      "\(String(describing: refused))")
  }

  /// The progress estimate counts requests: the work it expects is the work done
  /// (counted only for a terminal, and only where a trace is read more than once or counting is free).
  @Test func expectedWorkCountsEveryCellsRequests() throws {
    let path = SharedData.repository.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path
    var source = TraceSource(path: path, format: .oracleGeneral)
    source.copies = 2
    let cells = try [100, 1000].flatMap { size in
      try ["lru", "fifo"].map {
        ReplayCell(trace: source, policy: try PolicySpec($0), cacheSize: size, sizeMode: .count)
      }
    }
    #expect(try ReplayCell.expectedWork(cells, interactive: false).expectedRequests.load(ordering: .relaxed) == 0)
    let progress = try ReplayCell.expectedWork(cells, interactive: true)
    _ = try TraceReplay.runAll(cells, parallelism: 2, progress: progress)
    #expect(progress.requests.load(ordering: .relaxed) == progress.expectedRequests.load(ordering: .relaxed))
  }
}
