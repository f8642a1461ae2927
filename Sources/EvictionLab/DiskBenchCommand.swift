import ArgumentParser
import EvictionDisk
import EvictionReports
import EvictionSim
import Foundation

/// `evlab disk-bench`: where files start to beat SQLite on this machine.
struct DiskBenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "disk-bench",
    abstract: "Disk store write, read-hit, read-miss and delete cost per storage mode and value size.",
    discussion: """
      Each (mode, size) runs on a fresh store under --dir: file (every value in a file), sqlite (every \
      value in the manifest) and mixed (inline up to --inline-threshold, by default 20 KiB, YYKVStorage's \
      threshold). Every cell runs --rounds times, the modes interleaved; the figures are medians. Prints \
      the value size from which files beat SQLite on reads and writes here, mixed mode against the better \
      of the two, and the inline threshold that would have served this machine best.
        evlab disk-bench --mode file,sqlite,mixed --value-size 256,1k,4k,16k,64k,256k,1m --ops 2000
      """)

  @Option(help: "Where the scratch stores go (default: the system's temporary folder).")
  var dir: String = FileManager.default.temporaryDirectory.path

  @Option(help: "Storage modes, comma-separated or repeated: file, sqlite, mixed (default: all three).")
  var mode: [String] = []

  @Option(
    help: "Value sizes, comma-separated or repeated; k and m are powers of 1024 (default 256,1k,4k,16k,64k,256k,1m).")
  var valueSize: [String] = []

  @Option(help: "Operations per phase (at most 256 MiB of values per cell).")
  var ops: Int = 2000

  @Option(help: "Runs of every cell, modes interleaved in a rotating order; figures are their medians.")
  var rounds: Int = 3

  @Option(
    help: "The mixed mode's inline threshold: values up to this many bytes stay in SQLite (k, m: powers of 1024).")
  var inlineThreshold: String = String(DiskStore.defaultInlineThreshold)

  @Option(help: "Write the results as JSON to PATH (- for standard output).")
  var json: String?

  @Option(help: "Write the results as CSV to PATH (- for standard output).")
  var csv: String?

  func run() throws {
    var modes: [DiskBench.Mode] = []
    var sizes: [Int] = []
    var threshold = 0
    try oneLineErrors {
      guard !dir.isEmpty else { throw ValidationError("--dir is an empty path; name a folder for the scratch stores") }
      threshold = Int(try parseSize(inlineThreshold))
      for name in try listItems(mode.isEmpty ? ["file,sqlite,mixed"] : mode, option: "--mode") {
        guard let m = DiskBench.Mode(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
          throw ValidationError("--mode '\(name)': use file, sqlite or mixed")
        }
        modes.append(m)
      }
      for text in try listItems(valueSize.isEmpty ? ["256,1k,4k,16k,64k,256k,1m"] : valueSize, option: "--value-size") {
        let size = try parseSize(String(text))
        guard size <= 256 << 20 else { throw ValidationError("--value-size \(text): at most 256m") }
        sizes.append(Int(size))
      }
      guard ops >= 10 else { throw ValidationError("--ops \(ops): at least 10 operations per phase") }
      guard rounds >= 1 else { throw ValidationError("--rounds \(rounds): at least 1") }
      guard !modes.isEmpty && !sizes.isEmpty else { throw ValidationError("name at least one mode and one value size") }
    }
    let results: [DiskBench.Result]
    do throws(DiskError) {
      results = try DiskBench.sweep(
        modes: modes, valueSizes: sizes, ops: ops, rounds: rounds, directory: dir, mixedThreshold: threshold
      ) {
        round, mode, size, count in
        printError(
          "disk-bench: round \(round + 1) of \(rounds): \(mode.rawValue), \(size) bytes, \(count) ops per phase")
      }
    } catch { throw fail(error) }
    if json != "-" && csv != "-" {
      let rows = results.map {
        [
          $0.mode, String($0.valueSize), $0.phase, String(Int($0.opsPerSecond.rounded())),
          ReplayTables.fixed($0.megabytesPerSecond, 1), String($0.p50Ns), String($0.p99Ns),
        ]
      }
      print(
        ReplayTables.render(
          header: ["mode", "value size", "phase", "ops/s", "MB/s", "p50 ns", "p99 ns"], rows: rows, leftColumns: 3),
        terminator: "")
      if Set(modes) == Set(DiskBench.Mode.allCases) {
        for phase in ["read-hit", "write"] {
          if let size = DiskBench.crossover(results, phase: phase) {
            print("\(phase): files beat SQLite from \(size) bytes up on this machine")
          } else {
            print("\(phase): SQLite beats files at the largest size measured")
          }
        }
        let worst = DiskBench.mixedRatios(results).min { $0.ratio < $1.ratio }
        if let worst {
          print(
            "mixed mode (inline up to \(threshold) bytes): at worst \(ReplayTables.fixed(worst.ratio * 100, 1))% of the better mode (\(worst.phase) at \(worst.size) bytes)"
          )
        }
      }
      if modes.contains(.file) && modes.contains(.sqlite), let best = DiskBench.recommendedThreshold(results) {
        print(
          "best threshold measured here: \(DiskBench.describe(threshold: best.threshold)); at worst \(ReplayTables.fixed(best.worst * 100, 1))% of the better mode (\(best.phase) at \(best.size) bytes)"
        )
      }
    }
    try write(DiskBenchTables.json(results), to: json)
    try write(DiskBenchTables.csv(results), to: csv)
  }
}
