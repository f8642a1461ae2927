import EvictionCore
import EvictionSim
import EvictionTraces
import Foundation

/// The exact-results regression gate: hits, misses and byte misses of every
/// catalog policy on a fixed set of traces and sizes, both size modes,
/// committed as `results/baseline.json`. Any change in any cell is a
/// behaviour change a reviewer must see.
public struct Baseline: Codable, Sendable, Equatable {
  /// One cell: its key and its counts, nothing more. Traces are named by
  /// their path relative to the repository root.
  public typealias Cell = CellRow<NoFields>

  public var version = 1
  public var cells: [Cell]

  public init(cells: [Cell]) { self.cells = cells }

  /// The traces and sizes the gate covers: the bundled traces, and the
  /// shared reference trace and one LIRS trace (paths relative to the
  /// repository root; `../shared` sits beside it).
  public static let plan: [(trace: String, format: TraceFormat, sizes: [(SizeMode, [Int64])])] = [
    ("traces/zipf-0.9.oracleGeneral.zst", .oracleGeneral, [(.count, [100, 1000, 5000])]),
    ("traces/zipf-scan.oracleGeneral.zst", .oracleGeneral, [(.count, [100, 1000, 5000])]),
    ("traces/loop-3000.oracleGeneral.zst", .oracleGeneral, [(.count, [100, 1000, 2999])]),
    (
      "../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin", .oracleGeneral,
      [(.count, [500, 5000, 25000]), (.bytes, [16 << 20, 256 << 20, 1 << 30])]
    ),
    ("../shared/traces/caffeine/lirs/multi2.trace.gz", .txt, [(.count, [100, 500, 2000])]),
  ]

  /// Variants the gate holds beside every catalog entry at its defaults:
  /// parameters that switch on code of their own.
  public static let variants = ["wtinylfu:adaptive=true"]

  /// The cells of the plan for every catalog policy and variant, in a fixed order.
  public static func plannedCells(root: String) -> [ReplayCell] {
    var cells: [ReplayCell] = []
    for entry in plan {
      let source = TraceSource(path: root + "/" + entry.trace, format: entry.format)
      for (mode, sizes) in entry.sizes {
        for name in PolicyCatalog.names + variants {
          for size in sizes {
            cells.append(ReplayCell(trace: source, policy: try! PolicySpec(name), cacheSize: size, sizeMode: mode))
          }
        }
      }
    }
    return cells
  }

  /// Replays `cells` as a ``Sweep`` and returns them as baseline cells
  /// (trace paths made relative to `root`).
  public static func measure(
    _ cells: [ReplayCell], root: String, jobs: Int? = nil, interactive: Bool = false,
    display: (ReplayProgress, Int) -> (any ProgressDisplay)? = { _, _ in nil }
  ) throws(TraceError) -> [Cell] {
    let results = try Sweep.replay(cells, jobs: jobs, interactive: interactive, display: display)
    return zip(cells, results).map { cell, result in
      var trace = cell.trace.path
      if trace.hasPrefix(root + "/") { trace.removeFirst(root.count + 1) }
      var key = result.key
      key.trace = trace
      return Cell(key: key, counts: result.counts)
    }
  }

  /// The differences between `self` (the committed baseline) and `current`,
  /// one line each: changed counts (old → new), cells only in one of them.
  public func differences(from current: [Cell]) -> [String] {
    var lines: [String] = []
    let now = Dictionary(current.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    let before = Set(cells.map(\.id))
    for old in cells {
      guard let new = now[old.id] else {
        lines.append("\(old.id): in the baseline but no longer measured")
        continue
      }
      var changes: [String] = []
      for (name, path) in Self.compared where old.counts[keyPath: path] != new.counts[keyPath: path] {
        changes.append("\(name) \(old.counts[keyPath: path]) → \(new.counts[keyPath: path])")
      }
      if !changes.isEmpty { lines.append("\(old.id): " + changes.joined(separator: ", ")) }
    }
    for new in current where !before.contains(new.id) {
      lines.append("\(new.id): measured but not in the baseline (misses \(new.misses))")
    }
    return lines
  }

  /// The counts a baseline holds, as its differences name them.
  static let compared: [(String, KeyPath<HitCounts, Int64> & Sendable)] = [
    ("requests", \.requests), ("hits", \.hits), ("misses", \.misses), ("bytes requested", \.bytesRequested),
    ("bytes missed", \.bytesMissed),
  ]

  public func encoded() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return String(decoding: try! encoder.encode(self), as: UTF8.self) + "\n"
  }

  public static func decode(_ data: Data) throws -> Baseline {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(Baseline.self, from: data)
  }

  /// The baseline at `path`, or an error that says how to make one.
  public static func load(_ path: String) throws(BaselineError) -> Baseline {
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
      throw BaselineError("cannot read \(path): \(error.localizedDescription); create it with evlab bench update")
    }
    do { return try decode(data) } catch {
      throw BaselineError("\(path) is not a baseline file (\(error)); recreate it with evlab bench update")
    }
  }

  /// The first trace of `cells` that is not there, as an error that says
  /// where to run from.
  public static func checkTracesExist(_ cells: [ReplayCell]) throws(BaselineError) {
    for path in Set(cells.map(\.trace.path)).sorted() where !FileManager.default.fileExists(atPath: path) {
      throw BaselineError("\(path) is missing: run from the repository root, with ../shared (the traces) beside it")
    }
  }

  /// `evlab bench check`'s report on `current` against `self` (read from
  /// `path`), and whether every cell is equal.
  public func checkReport(_ current: [Cell], path: String) -> (text: String, equal: Bool) {
    let differences = differences(from: current)
    if differences.isEmpty { return ("bench check: all \(current.count) cells equal the baseline (\(path))\n", true) }
    let lines =
      [
        "bench check: \(differences.count) of \(Set(cells.map(\.id)).union(current.map(\.id)).count) cells differ from \(path):"
      ]
      + differences.map { "  " + $0 }
      + ["Fix the change, or accept it with `evlab bench update` and commit the baseline's diff."]
    return (lines.joined(separator: "\n") + "\n", false)
  }
}

/// A baseline that cannot be read, or traces it needs that are missing.
public struct BaselineError: Error, CustomStringConvertible, Sendable {
  public let description: String
  public init(_ description: String) { self.description = description }
}
