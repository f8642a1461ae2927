import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionSim
import EvictionTraces
import Foundation

/// Options shared by `bench check` and `bench update`.
struct BaselineOptions: ParsableArguments {
  @Option(help: "The baseline file.")
  var baseline: String = "results/baseline.json"

  @Option(help: "The repository root the baseline's trace paths are relative to.")
  var root: String = "."

  @Option(help: "Cells replayed at once (default: the number of cores).")
  var jobs: Int?

  func validate() throws {
    if let jobs, jobs < 1 { throw ArgumentError("--jobs \(jobs): at least one job is needed") }
  }

  /// Replays every planned cell, with progress on a terminal.
  func measure() throws -> [Baseline.Cell] {
    let root = URL(fileURLWithPath: root).standardizedFileURL.path
    let cells = Baseline.plannedCells(root: root)
    try failing { () throws(BaselineError) in try Baseline.checkTracesExist(cells) }
    return try failing { () throws(TraceError) in
      try Baseline.measure(cells, root: root, jobs: jobs, interactive: isatty(2) == 1) {
        ProgressLine($0, total: $1, label: "baseline")
      }
    }
  }
}

/// `evlab bench check`: the exact-results gate.
struct BenchCheck: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Recompute the baseline's exact results and list every cell that changed (exit 1 if any did).",
    discussion: """
      The baseline holds hits, misses and byte misses of every catalog policy on the bundled traces, \
      the shared cloudPhysicsIO trace (both size modes) and the LIRS multi2 trace. A change in any \
      cell is a behaviour change: fix it, or accept it with `evlab bench update` and commit the diff.
      """)

  @OptionGroup var options: BaselineOptions

  func run() throws {
    let baseline = try failing { () throws(BaselineError) in try Baseline.load(options.baseline) }
    let report = baseline.checkReport(try options.measure(), path: options.baseline)
    print(report.text, terminator: "")
    if !report.equal { throw ExitCode(1) }
  }
}

/// `evlab bench update`: rewrites the baseline.
struct BenchUpdate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "update",
    abstract: "Rewrite the baseline from the current code (review its diff before committing).")

  @OptionGroup var options: BaselineOptions

  func run() throws {
    let root = URL(fileURLWithPath: options.root).standardizedFileURL.path
    try OutputCheck.notAnInput(
      [("--baseline", options.baseline)], inputs: Baseline.plannedCells(root: root).map(\.trace.path))
    try OutputCheck.file(options.baseline, option: "--baseline")
    // It replaces a baseline, never another file (a trace, a CSV) named by mistake.
    if FileManager.default.fileExists(atPath: options.baseline) {
      let held = FileManager.default.contents(atPath: options.baseline).flatMap {
        try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
      }
      guard held?["cells"] is [Any] else {
        throw fail(
          "--baseline \(options.baseline) exists and is not a baseline (a JSON object with its cells); name a new file, or the baseline to rewrite"
        )
      }
    }
    let cells = try options.measure()
    try write(Baseline(cells: cells).encoded(), to: options.baseline)
  }
}
