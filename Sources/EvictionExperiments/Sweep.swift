import EvictionSim
import EvictionTraces
import Foundation

/// What shows a sweep's progress while it runs (the command line's progress
/// line): started before the first cell, ended when the last is done or the
/// sweep fails.
public protocol ProgressDisplay {
  func begin()
  func end()
}

/// The one way a set of replay cells is run: `evlab replay`'s grid, the
/// exact-results baseline, anything a library user plans. The work each
/// cell will do is measured first (so a display can estimate the time
/// left), then the cells run `jobs` at a time, each on its own trace reader.
/// Comparisons run their cells through it too, inside ``CompareShard``,
/// which adds seeds, shards and partial results around them; miss-ratio
/// curves, one pass per policy over all sizes, through
/// ``MissRatioCurves/curves(_:plans:sizes:sizeMode:warmup:progress:)``.
public enum Sweep {
  /// Replays `cells`, `jobs` at a time (default: every core), and returns
  /// their rows in the cells' order. `display` is handed the run's progress
  /// and its number of cells, and is shown while the cells run; `interactive`
  /// says whether anyone watches (a trace is sized up front only then).
  public static func replay(
    _ cells: [ReplayCell], jobs: Int? = nil, interactive: Bool = false,
    display: (ReplayProgress, Int) -> (any ProgressDisplay)? = { _, _ in nil }
  ) throws(TraceError) -> [ReplayResult] {
    let progress = try ReplayCell.expectedWork(cells, interactive: interactive)
    let shown = display(progress, cells.count)
    shown?.begin()
    defer { shown?.end() }
    return try replay(cells, jobs: jobs, progress: progress)
  }

  /// Replays `cells`, `jobs` at a time (default: every core), counting into
  /// `progress`, which the caller sized and shows (a comparison's shard
  /// knows its work from the traces' statistics).
  public static func replay(
    _ cells: [ReplayCell], jobs: Int?, progress: ReplayProgress?
  ) throws(TraceError) -> [ReplayResult] {
    try TraceReplay.runAll(
      cells, parallelism: jobs ?? ProcessInfo.processInfo.activeProcessorCount, progress: progress)
  }
}
