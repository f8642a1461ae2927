import EvictionCore
import EvictionTraces
import Foundation

/// The traces of a sweep ready to read: files as configured, synthetic
/// workloads generated once per seed into a scratch folder that is removed
/// with the workspace.
public final class CompareWorkspace {
  public let sources: [[TraceSource]]
  let scratch: String?
  let scratchToken: Int?

  public init(_ config: CompareConfig) throws(TraceError) {
    var sources: [[TraceSource]] = []
    var scratch: String? = nil
    var scratchToken: Int? = nil
    // A failure halfway (a full disk) removes what was generated: deinit does not run for an init that throws.
    func abandon() {
      if let scratch { try? FileManager.default.removeItem(atPath: scratch) }
      if let scratchToken { ScratchPaths.shared.unregister(scratchToken) }
    }
    do throws(TraceError) {
      for entry in config.traces {
        switch entry.origin {
        case .file(let source):
          sources.append([source])
        case .synthetic(let template):
          if scratch == nil {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
              "evlab-compare-\(UUID().uuidString)"
            ).path
            scratchToken = ScratchPaths.shared.register(dir)
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
              throw .unreadable(path: dir, reason: "cannot create a scratch folder for generated traces")
            }
            scratch = dir
          }
          var instances: [TraceSource] = []
          for seed in config.seeds {
            var workload = template
            workload.seed = seed
            let path = "\(scratch!)/\(Self.fileName(entry.name))-seed\(seed).oracleGeneral"
            let writer = try TraceWriter(path: path, format: .oracleGeneral)
            try writer.write(workload.generate())
            try writer.finish()
            instances.append(TraceSource(path: path, format: .oracleGeneral))
          }
          sources.append(instances)
        }
      }
    } catch {
      abandon()
      throw error
    }
    self.sources = sources
    self.scratch = scratch
    self.scratchToken = scratchToken
  }

  deinit {
    if let scratch { try? FileManager.default.removeItem(atPath: scratch) }
    if let scratchToken { ScratchPaths.shared.unregister(scratchToken) }
  }

  static func fileName(_ name: String) -> String {
    String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
  }

  /// Stand-ins with the configured paths, for laying out a sweep whose
  /// traces are not read (`evlab merge`).
  public static func placeholders(_ config: CompareConfig) -> [[TraceSource]] {
    config.traces.map { entry in
      switch entry.origin {
      case .file(let source): [source]
      case .synthetic:
        config.seeds.map {
          TraceSource(path: "\(fileName(entry.name))-seed\($0).oracleGeneral", format: .oracleGeneral)
        }
      }
    }
  }
}

/// One shard's results, written by `evlab compare --shard I/N` and joined by
/// `evlab merge`. It carries the configuration it ran, so shards of
/// different sweeps are told apart.
public struct ComparePartial: Codable, Sendable {
  /// The format these files are written in (2: with each result's intervals).
  public static let currentFormat = 2
  public var evlabPartial = currentFormat
  public var configFormat: String
  public var config: String
  public var shard: Int
  public var shards: Int
  public var totalRuns: Int
  public var traces: [TraceInfo]
  public var runs: [Int]
  public var results: [ReplayResult]
  /// Each result's intervals (its own field, which the row encoding leaves out).
  public var intervals: [[IntervalCounts]]
  public var stress: [StressResult]
  public var disk: [DiskBench.Result]

  public init(
    config: CompareConfig, shard: Int, shards: Int, plan: ComparePlan, runs: [Int], results: [ReplayResult],
    stress: [StressResult], disk: [DiskBench.Result]
  ) {
    configFormat = config.sourceFormat
    self.config = config.source
    self.shard = shard
    self.shards = shards
    totalRuns = plan.cells.count
    traces = plan.infos
    self.runs = runs
    self.results = results
    intervals = results.map(\.intervals)
    self.stress = stress
    self.disk = disk
  }

  /// The file name a shard writes into its output folder.
  public static func fileName(shard: Int, of shards: Int) -> String { "partial-\(shard)-of-\(shards).json" }

  /// Joins the partial results of every shard of one sweep into its outcome.
  /// Each shard must appear exactly once, all from the same configuration.
  public static func merge(_ parts: [(path: String, partial: ComparePartial)]) throws(CompareError) -> (
    CompareConfig, CompareOutcome
  ) {
    guard let first = parts.first else {
      throw .merge("no partial results found; name the folders evlab compare --shard wrote")
    }
    let shards = first.partial.shards
    var seen: [Int: String] = [:]
    for (path, part) in parts {
      guard part.evlabPartial == 2 else { throw .merge("\(path): a partial result of another evlab version") }
      guard part.config == first.partial.config && part.shards == shards && part.totalRuns == first.partial.totalRuns
      else {
        throw .merge(
          "\(path) and \(first.path) are shards of different sweeps (their configurations or shard counts differ)")
      }
      if let other = seen[part.shard] {
        throw .merge("shard \(part.shard)/\(shards) appears twice: \(other) and \(path)")
      }
      seen[part.shard] = path
    }
    let missing = (1...shards).filter { seen[$0] == nil }
    guard missing.isEmpty else {
      throw .merge(
        "shards \(missing.map { "\($0)/\(shards)" }.joined(separator: ", ")) are missing; run them and merge again")
    }
    let config: CompareConfig
    do throws(ConfigError) {
      config = try CompareConfig.parse(
        first.partial.config, format: first.partial.configFormat, file: "the shards' configuration", checkFiles: false)
    } catch {
      throw .config(error)
    }
    var results: [ReplayResult?] = Array(repeating: nil, count: first.partial.totalRuns)
    for (path, part) in parts {
      guard part.runs.count == part.results.count, part.runs.allSatisfy({ results.indices.contains($0) }) else {
        throw .merge("\(path): its runs do not match its results; the file is damaged, run that shard again")
      }
      guard part.intervals.count == part.results.count else {
        throw .merge("\(path): its intervals do not match its results; the file is damaged, run that shard again")
      }
      for (i, (run, result)) in zip(part.runs, part.results).enumerated() {
        guard results[run] == nil else { throw .merge("\(path): run \(run) is in two shards") }
        var result = result
        result.intervals = part.intervals[i]
        results[run] = result
      }
    }
    guard results.allSatisfy({ $0 != nil }) else {
      throw .merge("the shards do not cover every run; they were not cut from one sweep")
    }
    let plan = ComparePlan(config: config, infos: first.partial.traces, sources: CompareWorkspace.placeholders(config))
    let (rows, timings, timeseries) = CompareRun.rows(plan, results: results.map { $0! })
    let ordered = parts.sorted { $0.partial.shard < $1.partial.shard }
    var outcome = CompareOutcome(
      rows: rows, timings: timings, infos: plan.infos, stress: ordered.flatMap(\.partial.stress),
      disk: ordered.flatMap(\.partial.disk))
    outcome.timeseries = timeseries
    return (config, outcome)
  }
}
