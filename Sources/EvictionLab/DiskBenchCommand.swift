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
      plist is the seeds' plist file cache (one file rewritten per change, its serial design; a write \
      is timed until its rewrite is done, at most sqrt(2 * 256 MiB / size) writes per cell, and at \
      least 10). With it, the plist experiment runs too, on values of the smallest --value-size: \
      updates lost by concurrent writers with atomic rewrites alone against a serial write queue \
      (for each of --plist-writers, 5 trials of 50 writes per writer on a store of 1,000 entries, the \
      file read back after the writers; set p50 is the time until set returns, which in the serial \
      design is before the rewrite), and a write's time until it is on disk at each of \
      --plist-entries (20 writes of new keys) beside the SQLite/file store's. Its rows go to \
      --plist-csv and --plist-json; its tables to standard output (standard error when --csv or \
      --json is -).
        evlab disk-bench --mode plist --value-size 256 --plist-csv plist.csv
      """)

  @Option(help: "Where the scratch stores go.")
  var dir: String = FileManager.default.temporaryDirectory.path

  @Option(help: "Storage modes, comma-separated or repeated: file, sqlite, mixed, plist.")
  var mode: [Checked<ListOf<DiskBench.Mode>>] = ["file,sqlite,mixed"]

  @Option(help: "Value sizes, comma-separated or repeated; k and m are powers of 1024.")
  var valueSize: [Checked<ListOf<ValueSize>>] = ["256,1k,4k,16k,64k,256k,1m"]

  @Option(help: "Operations per phase (at most 256 MiB of values per cell).")
  var ops: Int = 2000

  @Option(help: "Runs of every cell, modes interleaved in a rotating order; figures are their medians.")
  var rounds: Int = 3

  @Option(
    help:
      "The mixed mode's inline threshold: values up to this many bytes stay in SQLite (k, m: powers of 1024; default \(DiskStore.defaultInlineThreshold)). Only with mixed in --mode."
  )
  var inlineThreshold: Checked<AbsoluteSize>?

  @Option(help: "plist experiment: concurrent writer counts, comma-separated or repeated (default 1,2,4,8).")
  var plistWriters: [Checked<ListOf<WriterCount>>] = []

  @Option(
    help: "plist experiment: entries in the store when a write is timed, comma-separated (default 100,1000,10000).")
  var plistEntries: [Checked<ListOf<EntryCount>>] = []

  @Option(help: "Write the plist experiment's rows as CSV to PATH.")
  var plistCsv: String?

  @Option(help: "Write the plist experiment's rows as JSON to PATH.")
  var plistJson: String?

  @OptionGroup var output: OutputOptions

  func validate() throws {
    guard !dir.isEmpty else { throw ArgumentError("--dir is an empty path; name a folder for the scratch stores") }
    try OutputCheck.folder(dir, option: "--dir")
    try mode.check()
    try valueSize.check()
    try inlineThreshold?.check()
    if inlineThreshold != nil && !mode.values().contains(DiskBench.Mode.mixed) {
      throw ArgumentError(
        "--inline-threshold is the mixed mode's; it would change nothing in --mode \(mode.values().map { "\($0)" }.joined(separator: ",")): add mixed or leave it out"
      )
    }
    guard ops >= 10 else { throw ArgumentError("--ops \(ops): at least 10 operations per phase") }
    guard rounds >= 1 else { throw ArgumentError("--rounds \(rounds): at least 1") }
    guard rounds <= maximumRuns else { throw ArgumentError("--rounds \(rounds): at most \(maximumRuns)") }
    try plistWriters.check()
    try plistEntries.check()
    if let plistCsv { try OutputCheck.file(plistCsv, option: "--plist-csv") }
    if let plistJson { try OutputCheck.file(plistJson, option: "--plist-json") }
    try OutputCheck.distinct([
      ("--csv", output.csv), ("--json", output.json), ("--plist-csv", plistCsv), ("--plist-json", plistJson),
    ])
    let plistOptions = [
      ("--plist-csv", plistCsv != nil), ("--plist-json", plistJson != nil), ("--plist-writers", !plistWriters.isEmpty),
      ("--plist-entries", !plistEntries.isEmpty),
    ].filter(\.1).map(\.0)
    if let first = plistOptions.first, !mode.values().contains(DiskBench.Mode.plist) {
      throw ArgumentError("\(first) belongs to the plist experiment, which runs with plist in --mode: add it")
    }
  }

  func run() throws {
    let modes: [DiskBench.Mode] = mode.values()
    let sizes = valueSize.values().map(\.bytes)
    let threshold = inlineThreshold.map { Int($0.bytes) } ?? DiskStore.defaultInlineThreshold
    do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
      throw fail("--dir \(dir): cannot create it (\(error.localizedDescription)); choose another folder")
    }
    // The stores open their folders without following links: give them the real path.
    let directory =
      realpath(dir, nil).map { resolved in
        defer { free(resolved) }
        return String(cString: resolved)
      } ?? dir
    let results: [DiskBench.Result]
    do throws(DiskError) {
      results = try DiskBench.sweep(
        modes: modes, valueSizes: sizes, ops: ops, rounds: rounds, directory: directory, mixedThreshold: threshold
      ) {
        round, mode, size, count in
        let capped =
          count < ops ? " (--ops \(ops) capped at 256 MiB of \(mode == .plist ? "rewrites" : "values") a phase)" : ""
        printError(
          "disk-bench: round \(round + 1) of \(rounds): \(mode.rawValue), \(size) bytes, \(count) ops per phase\(capped)"
        )
      }
    } catch { throw scratchFailure(error) }
    var plist: [DiskBench.PlistResult] = []
    if modes.contains(.plist) {
      let writers = plistWriters.isEmpty ? [1, 2, 4, 8] : plistWriters.values().map(\.count)
      let entries = plistEntries.isEmpty ? [100, 1_000, 10_000] : plistEntries.values().map(\.count)
      do throws(DiskError) {
        plist = try DiskBench.plistExperiment(
          writers: writers, entries: entries, valueSize: sizes.min() ?? 256, directory: directory
        ) { printError("disk-bench: \($0)") }
      } catch { throw scratchFailure(error) }
    }
    let mainToStandardOutput = output.csv == "-" || output.json == "-"
    if mainToStandardOutput && plistCsv == nil && plistJson == nil { printError(DiskBenchTables.plistTable(plist)) }
    try output.emit(
      table: DiskBenchTables.table(results, threshold: threshold) + DiskBenchTables.plistTable(plist),
      json: DiskBenchTables.json(results), csv: DiskBenchTables.csv(results))
    if let plistCsv { try write(DiskBenchTables.plistCSV(plist), to: plistCsv) }
    if let plistJson { try write(DiskBenchTables.plistJSON(plist), to: plistJson) }
  }
}

/// A scratch store's failure, in the benchmark's words: a full disk under
/// `--dir` is the folder's, not a cache limit's.
func scratchFailure(_ error: DiskError) -> ArgumentError {
  let advice = "the disk under --dir is full; free space, choose another --dir, or measure less (--ops, --value-size)"
  switch error {
  case .io(let path, let operation, let code, _) where code == ENOSPC:
    return fail("\(path): \(operation) failed: \(advice)")
  case .manifest(let path, _, let code) where code == 13:  // SQLITE_FULL
    return fail("\(path): SQLite could not write: \(advice)")
  default:
    return fail(error)
  }
}

/// A disk store mode: file, sqlite, mixed or plist.
extension DiskBench.Mode: ListItem {
  static var option: String { "--mode" }
  init(item: String) throws(ArgumentError) {
    guard let mode = Self(rawValue: item.lowercased()) else {
      throw ArgumentError("--mode '\(item)': use file, sqlite, mixed or plist")
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
    guard CacheSize.parseAbsolute(item) != .size(0) else {
      throw ArgumentError("--value-size \(item): a value of 0 bytes stores nothing to read back; give at least 1")
    }
    let size = try AbsoluteSize(parsing: item).value
    guard size <= 256 << 20 else { throw ArgumentError("--value-size \(item): at most 256m") }
    bytes = Int(size)
  }
}

/// Dictionary sizes of the plist experiment.
enum PlistEntries: CountKind {
  static let rule = CountRule(
    option: "--plist-entries", range: 1...1_000_000, noun: "numbers of entries", example: "100,1000,10000")
}
typealias EntryCount = Count<PlistEntries>

/// Concurrent writer counts of the plist experiment.
enum PlistWriters: CountKind {
  static let rule = CountRule(option: "--plist-writers", range: 1...256, noun: "writer counts", example: "1,2,4,8")
}
typealias WriterCount = Count<PlistWriters>
