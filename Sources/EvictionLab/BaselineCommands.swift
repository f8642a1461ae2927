import ArgumentParser
import EvictionCore
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
    for path in Set(cells.map(\.trace.path)) where !FileManager.default.fileExists(atPath: path) {
      throw fail("\(path) is missing: run from the repository root, with ../shared (the traces) beside it")
    }
    let progress = ReplayProgress()
    let display = ProgressLine(progress, total: cells.count, label: "baseline")
    display.begin()
    defer { display.end() }
    do throws(TraceError) {
      return try Baseline.measure(
        cells, root: root, parallelism: jobs ?? ProcessInfo.processInfo.activeProcessorCount, progress: progress)
    } catch {
      throw fail(error)
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
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: options.baseline)) } catch {
      throw fail("cannot read \(options.baseline): \(error.localizedDescription); create it with evlab bench update")
    }
    let baseline: Baseline
    do { baseline = try Baseline.decode(data) } catch {
      throw fail("\(options.baseline) is not a baseline file (\(error)); recreate it with evlab bench update")
    }
    let current = try options.measure()
    let differences = baseline.differences(from: current)
    if differences.isEmpty {
      print("bench check: all \(current.count) cells equal the baseline (\(options.baseline))")
      return
    }
    print(
      "bench check: \(differences.count) of \(max(current.count, baseline.cells.count)) cells differ from \(options.baseline):"
    )
    for line in differences { print("  " + line) }
    print("Fix the change, or accept it with `evlab bench update` and commit the baseline's diff.")
    throw ExitCode(1)
  }
}

/// `evlab bench update`: rewrites the baseline.
struct BenchUpdate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "update",
    abstract: "Rewrite the baseline from the current code (review its diff before committing).")

  @OptionGroup var options: BaselineOptions

  func run() throws {
    let cells = try options.measure()
    try write(Baseline(cells: cells).encoded(), to: options.baseline)
  }
}
