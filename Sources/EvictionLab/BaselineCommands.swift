import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
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

  @Flag(
    help: """
      Write the baseline although evlab's sources have uncommitted changes (its provenance then names \
      the commit with "+dirty").
      """)
  var allowDirty = false

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
    // The baseline names the commit that made it: a build with uncommitted
    // changes is not that commit.
    let dirty = EvlabVersion.uncommittedOwnSources ?? []
    if !dirty.isEmpty && !allowDirty {
      let shown = dirty.prefix(5).map { "  " + $0 }.joined(separator: "\n")
      throw fail(
        """
        evlab's sources have uncommitted changes, so the baseline would name a commit that did not make it:
        \(shown)\(dirty.count > 5 ? "\n  … and \(dirty.count - 5) more" : "")
        Commit them and rebuild, or pass --allow-dirty to record the commit as dirty.
        """)
    }
    let earlier = FileManager.default.fileExists(atPath: options.baseline) ? try? Baseline.load(options.baseline) : nil
    let cells = try options.measure()
    var provenance = runProvenance()
    if !dirty.isEmpty { provenance.commit = (provenance.commit ?? "unknown") + "+dirty" }
    do throws(OutputFile.Failure) {
      if let message = try OutputFile.write(
        Baseline(cells: cells).encoded(), to: options.baseline, provenance: provenance)
      {
        printError(message)
      }
    } catch { throw fail(error) }
    print(Self.summary(of: cells, against: earlier, path: options.baseline), terminator: "")
  }

  /// What an update changed: every cell that differs from the earlier
  /// baseline (old → new), or that there was none.
  static func summary(of cells: [Baseline.Cell], against earlier: Baseline?, path: String) -> String {
    guard let earlier else { return "bench update: wrote \(cells.count) cells to \(path) (a new baseline)\n" }
    let changes = earlier.differences(from: cells)
    if changes.isEmpty { return "bench update: wrote \(cells.count) cells to \(path); none changed\n" }
    let head = "bench update: wrote \(cells.count) cells to \(path); \(changes.count) changed (review, then commit):"
    return ([head] + changes.map { "  " + $0 }).joined(separator: "\n") + "\n"
  }
}
