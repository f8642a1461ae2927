import EvictionCore
import EvictionExperiments
import EvictionSim
import EvictionTraces
import Foundation
import Synchronization
import Testing

/// The one entry point of a sweep: the same rows as replaying each cell,
/// in the cells' order, with its display shown around the run.
@Suite struct SweepTests {
  final class Recorder: ProgressDisplay, @unchecked Sendable {
    let events = Mutex<[String]>([])
    let cells: Int
    init(cells: Int) { self.cells = cells }
    func begin() { events.withLock { $0.append("begin") } }
    func end() { events.withLock { $0.append("end") } }
  }

  @Test func aSweepGivesEachCellsOwnReplayInOrder() throws {
    let specs = try ["lru", "s3fifo", "arc", "gdsf"].map { try PolicySpec($0) }
    let cells = try ReplayCell.grid(
      [ReplayWindowTests.trace], policies: specs, sizes: [.absolute(200), .absolute(1500)], sizeMode: .count,
      admissions: [.none], settings: ReplaySettings())
    var shown: Recorder?
    let rows = try Sweep.replay(cells, jobs: 2) { progress, count in
      let recorder = Recorder(cells: count)
      shown = recorder
      return recorder
    }
    #expect(shown?.cells == cells.count)
    #expect(shown?.events.withLock { $0 } == ["begin", "end"])
    #expect(rows.count == cells.count)
    for (cell, row) in zip(cells, rows) {
      let alone = try TraceReplay.run(
        cell.trace, policy: cell.policy, cacheSize: cell.cacheSize, sizeMode: cell.sizeMode)
      #expect(row.key == alone.key && row.counts == alone.counts, "\(row.key.id)")
    }
  }

  @Test func aFailingSweepStillEndsItsDisplay() throws {
    let missing = TraceSource(path: "/nonexistent/trace.oracleGeneral.bin", format: .oracleGeneral)
    let cells = [ReplayCell(trace: missing, policy: try PolicySpec("lru"), cacheSize: 10, sizeMode: .count)]
    let recorder = Recorder(cells: 1)
    #expect(throws: TraceError.self) { try Sweep.replay(cells) { _, _ in recorder } }
    #expect(recorder.events.withLock { $0 }.last != "begin")
  }

  /// The curves entry point gives each plan's curve as computing it alone
  /// does, and counts a finished curve as a finished cell.
  @Test func curvesAreEachPlansCurve() throws {
    let sizes: [Int64] = [100, 1000]
    let plans = try ["lru", "arc"].map { name in
      let spec = try PolicySpec(name)
      return (
        policy: spec, admission: AdmissionSpec.none,
        plan: try MissRatioCurves.plan(for: spec, method: nil, rate: 1, maxObjects: nil)
      )
    }
    let progress = ReplayProgress()
    let curves = try MissRatioCurves.curves(
      ReplayWindowTests.trace, plans: plans, sizes: sizes, sizeMode: .count, progress: progress)
    #expect(progress.cellsDone.load(ordering: .relaxed) == 2)
    for (plan, curve) in zip(plans, curves) {
      let alone = try MissRatioCurves.curve(
        ReplayWindowTests.trace, policy: plan.policy, plan: plan.plan, sizes: sizes, sizeMode: .count)
      #expect(curve.points == alone.points && curve.policy == alone.policy)
    }
  }
}
