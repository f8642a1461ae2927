import ArgumentParser
import EvictionDisk
import EvictionExperiments
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

  @Option(help: "Where the scratch stores go.")
  var dir: String = FileManager.default.temporaryDirectory.path

  @Option(help: "Storage modes, comma-separated or repeated: file, sqlite, mixed.")
  var mode: [Checked<ListOf<DiskBench.Mode>>] = ["file,sqlite,mixed"]

  @Option(help: "Value sizes, comma-separated or repeated; k and m are powers of 1024.")
  var valueSize: [Checked<ListOf<ValueSize>>] = ["256,1k,4k,16k,64k,256k,1m"]

  @Option(help: "Operations per phase (at most 256 MiB of values per cell).")
  var ops: Int = 2000

  @Option(help: "Runs of every cell, modes interleaved in a rotating order; figures are their medians.")
  var rounds: Int = 3

  @Option(
    help: "The mixed mode's inline threshold: values up to this many bytes stay in SQLite (k, m: powers of 1024).")
  var inlineThreshold: Checked<AbsoluteSize> = Checked(argument: String(DiskStore.defaultInlineThreshold))

  @OptionGroup var output: OutputOptions

  func validate() throws {
    guard !dir.isEmpty else { throw ArgumentError("--dir is an empty path; name a folder for the scratch stores") }
    try mode.check()
    try valueSize.check()
    try inlineThreshold.check()
    guard ops >= 10 else { throw ArgumentError("--ops \(ops): at least 10 operations per phase") }
    guard rounds >= 1 else { throw ArgumentError("--rounds \(rounds): at least 1") }
  }

  func run() throws {
    let modes: [DiskBench.Mode] = mode.values()
    let sizes = valueSize.values().map(\.bytes)
    let threshold = Int(inlineThreshold.bytes)
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
    try output.emit(
      table: DiskBenchTables.table(results, threshold: threshold), json: DiskBenchTables.json(results),
      csv: DiskBenchTables.csv(results))
  }
}

/// A disk store mode: file, sqlite or mixed.
extension DiskBench.Mode: ListItem {
  static var option: String { "--mode" }
  init(item: String) throws(ArgumentError) {
    guard let mode = Self(rawValue: item.lowercased()) else {
      throw ArgumentError("--mode '\(item)': use file, sqlite or mixed")
    }
    self = mode
  }
}

/// A value size up to 256 MiB: `256`, `1k`, `4k`.
struct ValueSize: ListItem, Hashable, CustomStringConvertible {
  static var option: String { "--value-size" }
  var bytes: Int
  var description: String { String(bytes) }
  init(item: String) throws(ArgumentError) {
    let size = try AbsoluteSize(parsing: item).value
    guard size <= 256 << 20 else { throw ArgumentError("--value-size \(item): at most 256m") }
    bytes = Int(size)
  }
}
