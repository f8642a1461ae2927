import EvictionCore
import EvictionRun
import EvictionSim
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
/// `evlab merge`. It carries what `merge` checks before it joins anything:
/// the configuration (and its digest), the identity of every trace the
/// shard read (``TraceInfo``, with its stream digest), the evlab that ran it,
/// and a digest of what it reports, so an edited figure is refused.
public struct ComparePartial: Codable, Sendable {
  /// The format these files are written in (3: with the traces' digests,
  /// evlab's version and the content's digest; 2 had none of them).
  public static let currentFormat = 3
  public var evlabPartial = currentFormat
  /// The evlab that ran the shard: its version and commit (set by the
  /// command that writes the file; "" and nil outside it).
  public var evlabVersion = ""
  public var evlabCommit: String? = nil
  public var configFormat: String
  public var config: String
  /// ``ComparePartial/digest(ofConfiguration:)`` of `config`.
  public var configDigest: String
  public var shard: Int
  public var shards: Int
  public var totalRuns: Int
  public var traces: [TraceInfo]
  public var runs: [Int]
  public var results: [ReplayResult]
  /// Each result's intervals (its own field, which the row encoding leaves out).
  public var intervals: [[IntervalCounts]]
  /// ``countsDigest(runs:results:intervals:traces:stress:disk:)`` as written.
  public var countsDigest: String
  public var stress: [StressResult]
  public var disk: [DiskBench.Result]

  public init(
    config: CompareConfig, shard: Int, shards: Int, plan: ComparePlan, runs: [Int], results: [ReplayResult],
    stress: [StressResult], disk: [DiskBench.Result]
  ) {
    configFormat = config.sourceFormat
    self.config = config.source
    configDigest = Self.digest(ofConfiguration: config.source)
    self.shard = shard
    self.shards = shards
    totalRuns = plan.cells.count
    traces = plan.infos
    self.runs = runs
    self.results = results
    intervals = results.map(\.intervals)
    self.stress = stress
    self.disk = disk
    countsDigest = ""
    countsDigest = computedDigest
  }

  /// The file name a shard writes into its output folder.
  public static func fileName(shard: Int, of shards: Int) -> String { "partial-\(shard)-of-\(shards).json" }

  /// The digest of a configuration's text.
  public static func digest(ofConfiguration text: String) -> String {
    var digest = StreamDigest()
    digest.add(text)
    return "config:" + digest.hex
  }

  /// The digest of everything a merge reports from the part: each run's
  /// number and every column of its result, each interval's counts, and
  /// the traces' statistics and the stress and disk rows (as the file
  /// encodes them). Ratios are computed again from the counts; a file
  /// edited by hand no longer matches.
  public static func countsDigest(
    runs: [Int], results: [ReplayResult], intervals: [[IntervalCounts]], traces: [TraceInfo],
    stress: [StressResult], disk: [DiskBench.Result]
  ) -> String {
    var digest = StreamDigest()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    func add(_ counts: HitCounts) {
      for value in [counts.requests, counts.hits, counts.misses, counts.bytesRequested, counts.bytesMissed] {
        digest.add(value)
      }
    }
    for (i, (run, result)) in zip(runs, results).enumerated() {
      digest.add(Int64(run))
      // Every column the file holds for the run (cell, counts, fields, the
      // causes of its misses, its operations' counts), as the file encodes
      // them: a column added later is digested with no change here.
      digest.add((try? encoder.encode(result)).map { String(decoding: $0, as: UTF8.self) } ?? "unencodable")
      for interval in i < intervals.count ? intervals[i] : [] {
        digest.add(Int64(interval.index))
        digest.add(interval.firstRequest)
        digest.add(interval.startTime)
        add(interval.counts)
      }
    }
    // The rows the counts do not cover, as the file holds them.
    for part in [try? encoder.encode(traces), try? encoder.encode(stress), try? encoder.encode(disk)] {
      digest.add(part.map { String(decoding: $0, as: UTF8.self) } ?? "unencodable")
    }
    return "counts:" + digest.hex
  }

  /// This part's digest as ``countsDigest(runs:results:intervals:traces:stress:disk:)`` computes it.
  var computedDigest: String {
    Self.countsDigest(
      runs: runs, results: results, intervals: intervals, traces: traces, stress: stress, disk: disk)
  }

  /// Joins the partial results of every shard of one sweep into its outcome.
  /// Each shard must appear exactly once, all from the same configuration,
  /// run by the same evlab (`version`, when given, is the merging one's,
  /// which must be theirs), over the same traces (their digests), with
  /// counts that add up and match their digest; every ratio reported is
  /// computed again from the counts.
  public static func merge(
    _ parts: [(path: String, partial: ComparePartial)], version: String? = nil, commit: String? = nil
  ) throws(CompareError) -> (CompareConfig, CompareOutcome) {
    guard let first = parts.first else {
      throw .merge("no partial results found; name the folders that \(Setting.shard) wrote")
    }
    let shards = first.partial.shards
    var seen: [Int: String] = [:]
    for (path, part) in parts {
      guard part.evlabPartial == currentFormat else {
        throw .merge("\(path): a partial result of another evlab version")
      }
      try part.verify(path: path, against: first, version: version, commit: commit)
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
    /// The file that holds each run.
    var files = Array(repeating: first.path, count: first.partial.totalRuns)
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
        // Ratios are the counts', whatever the file says.
        result.missRatio = result.counts.missRatio
        result.byteMissRatio = result.counts.byteMissRatio
        for seconds in [result.seconds, result.fields.trainingSeconds ?? 0]
        where !(0...Self.longestRun).contains(seconds) {
          throw .merge(
            "\(path): \(result.key.id) took \(seconds) s, which no run takes (negative, not a number, or over a "
              + "year); the file is damaged or edited: run that shard again")
        }
        results[run] = result
        files[run] = path
      }
    }
    guard results.allSatisfy({ $0 != nil }) else {
      throw .merge("the shards do not cover every run; they were not cut from one sweep")
    }
    guard first.partial.traces.count == config.traces.count else {
      throw .merge(
        "\(first.path) holds \(first.partial.traces.count) traces' statistics for a configuration of "
          + "\(config.traces.count) traces; the file was edited or damaged: run that shard again")
    }
    let plan = ComparePlan(config: config, infos: first.partial.traces, sources: CompareWorkspace.placeholders(config))
    // Every run of a trace reads all of it, the same way: its counted and
    // warm-up requests add up to the trace's (zero-size ones, skipped, are
    // not among them), and its warm-up and skipped requests are every other
    // run's of that trace.
    var shared: [Int: (run: Int, warmup: Int64, skipped: Int)] = [:]
    for (run, result) in results.enumerated() {
      let cell = plan.cells[run]
      try Self.check(result!, isRun: run, of: cell, in: files[run])
      let info = plan.infos[plan.traceOfRun[run]]
      let whole = info.requests * Int64(cell.trace.copies)
      let r = result!
      guard r.requests + r.warmupRequests == whole || r.semantics != nil else {
        throw .merge(
          "\(files[run]): \(r.key.id) counts \(r.requests + r.warmupRequests) requests (\(r.requests) counted, "
            + "\(r.warmupRequests) in the warm-up), and its trace holds \(whole); every run reads the whole trace: "
            + "the file was edited or damaged: run that shard again")
      }
      if let other = shared[plan.traceOfRun[run]] {
        guard other.warmup == r.warmupRequests && other.skipped == r.skippedZeroSize else {
          throw .merge(
            "\(files[run]): \(r.key.id) has \(r.warmupRequests) warm-up and \(r.skippedZeroSize) zero-size requests, "
              + "and \(results[other.run]!.key.id) of the same trace \(other.warmup) and \(other.skipped); every run of a "
              + "trace reads it the same way: the file was edited or damaged: run that shard again")
        }
      } else {
        shared[plan.traceOfRun[run]] = (run, r.warmupRequests, r.skippedZeroSize)
      }
      let copies = Int64(cell.trace.copies)
      try Self.checkPossible(
        r, objects: Int64(info.uniqueObjects) * copies,
        traceBytes: info.bytesRequested.multipliedReportingOverflow(by: copies).overflow
          ? .max : info.bytesRequested * copies, in: files[run])
    }
    let (rows, timings, timeseries) = CompareRun.rows(plan, results: results.map { $0! })
    let ordered = parts.sorted { $0.partial.shard < $1.partial.shard }
    var outcome = CompareOutcome(
      rows: rows, timings: timings, infos: plan.infos, stress: ordered.flatMap(\.partial.stress),
      disk: ordered.flatMap(\.partial.disk))
    outcome.timeseries = timeseries
    return (config, outcome)
  }
}

extension ComparePartial {
  /// Refuses a result whose labels are not its run's cell in the plan that
  /// the configuration makes (the digests prove only that the file is as
  /// written, not that the run is what it says), or whose misses' causes
  /// are negative or do not add up to its misses.
  static func check(_ result: ReplayResult, isRun run: Int, of cell: ReplayCell, in path: String) throws(CompareError) {
    let expected = CellKey(
      trace: cell.trace.name, format: cell.trace.format.rawValue, policy: cell.policy.description,
      cacheSize: cell.cacheSize, sizeMode: cell.sizeMode, admission: cell.admission.description)
    guard result.key == expected else {
      throw .merge(
        "\(path): run \(run) is \(expected.id) in the configuration, but its result is labelled \(result.key.id); "
          + "the file was edited: run that shard again")
    }
    guard (result.attribution != nil) == cell.attribution else {
      throw .merge(
        "\(path): \(result.key.id) \(cell.attribution ? "lacks" : "has") the causes of its misses, and the "
          + "configuration \(cell.attribution ? "asks for" : "does not ask for") them: run that shard again")
    }
    if let a = result.attribution, a.reference != cell.attributionReference.rawValue {
      throw .merge(
        "\(path): \(result.key.id) attributes its misses against \(a.reference), and the configuration against "
          + "\(cell.attributionReference.rawValue): run that shard again")
    }
    try checkPenalties(result, of: cell, in: path)
    if let a = result.attribution {
      let causes = [
        a.compulsoryMisses, a.capacityMisses, a.policyMisses, a.admissionMisses, a.compulsoryBytesMissed,
        a.capacityBytesMissed, a.policyBytesMissed, a.admissionBytesMissed,
      ]
      guard causes.allSatisfy({ $0 >= 0 }), a.misses == result.misses, a.bytesMissed == result.bytesMissed else {
        throw .merge(
          "\(path): \(result.key.id) has causes of misses that are negative or do not add up to its "
            + "\(result.misses) misses and \(result.bytesMissed) bytes: the file was edited: run that shard again")
      }
    }
  }
}

extension ComparePartial {
  /// Refuses a result whose penalties are not its cell's model's, or that
  /// no replay could have paid: negative or not finite, parts that do not
  /// add up to the total or to the average per request, or, under a
  /// constant or size model, sums that are not the hits and misses (and the
  /// bytes missed) at its prices.
  static func checkPenalties(_ result: ReplayResult, of cell: ReplayCell, in path: String) throws(CompareError) {
    let model = cell.penalty?.description
    guard result.penaltyModel == model else {
      let said = result.penaltyModel.map { "weighs its requests by \($0)" } ?? "weighs nothing"
      throw .merge(
        "\(path): \(result.key.id) \(said), and the configuration "
          + "\(model.map { "by \($0)" } ?? "weighs nothing"): run that shard again")
    }
    guard let model = cell.penalty else { return }
    let parts = [result.hitPenalty, result.missPenalty, result.totalPenalty, result.averagePenalty]
    // Sums of millions of prices round: a millionth of the larger is slack enough.
    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1) }
    var possible = parts.allSatisfy { $0.map { $0.isFinite && $0 >= 0 } ?? false }
    if possible, let hit = parts[0], let miss = parts[1], let total = parts[2], let average = parts[3] {
      possible =
        close(hit + miss, total) && close(result.requests > 0 ? total / Double(result.requests) : 0, average)
      switch model {
      case .trace: break
      case .constant(let missPrice, let hitPrice):
        possible =
          possible && close(miss, missPrice * Double(result.misses)) && close(hit, hitPrice * Double(result.hits))
      case .size(let base, let perByte, let hitPrice):
        let paid = base * Double(result.misses) + perByte * Double(result.bytesMissed)
        possible = possible && close(miss, paid) && close(hit, hitPrice * Double(result.hits))
      }
    }
    guard possible else {
      throw .merge(
        "\(path): \(result.key.id) has penalties that no replay pays (negative, missing, or parts that do not "
          + "add up to its total and its \(result.requests) requests): the file was edited: run that shard again")
    }
  }
}

extension ComparePartial {
  /// The longest wall-clock time a shard's row may say it took: a year.
  static let longestRun = 366.0 * 86_400

  /// Refuses counts no replay can produce, which a digest recomputed after
  /// an edit would let through: every object's first request misses (so,
  /// under libCacheSim's semantics, where no set fills the cache, at least
  /// `objects` less the warm-up's requests miss, and as many are
  /// compulsory, never more than `objects`); a row exceeds its capacity
  /// exactly when its greatest occupancy is above its cache size; every
  /// counted request carries a byte at least, and no more bytes than the
  /// trace's (`traceBytes`); a row with hits held something, and never more
  /// than the trace's objects or bytes; no count is negative.
  static func checkPossible(
    _ result: ReplayResult, objects: Int64, traceBytes: Int64, in path: String
  ) throws(CompareError) {
    func refuse(_ what: String) -> CompareError {
      .merge("\(path): \(result.key.id) \(what), which no replay can count: the file was edited: run that shard again")
    }
    guard result.maxOccupancy >= 0, result.exceedsCapacity == (result.maxOccupancy > result.key.cacheSize) else {
      throw refuse(
        "held at most \(result.maxOccupancy) in a cache of \(result.key.cacheSize) and says it "
          + (result.exceedsCapacity ? "exceeded" : "kept within") + " its capacity")
    }
    // Every request counted has at least one byte (zero-size ones are
    // skipped, and counted as such).
    guard result.skippedZeroSize >= 0, result.bytesRequested >= result.requests,
      result.bytesMissed >= result.misses, result.warmupRequests >= 0
    else {
      throw refuse(
        "counts \(result.requests) requests of \(result.bytesRequested) bytes, \(result.misses) misses of "
          + "\(result.bytesMissed) bytes, \(result.warmupRequests) warm-up requests and \(result.skippedZeroSize) "
          + "skipped ones (every counted request has a byte at least, and no count is negative)")
    }
    guard result.semantics == nil else { return }
    guard result.hits == 0 || result.maxOccupancy >= 1 else {
      throw refuse("has \(result.hits) hits but never held anything (max_occupancy 0)")
    }
    guard result.bytesRequested <= traceBytes else {
      throw refuse("counts \(result.bytesRequested) bytes requested, more than its trace's \(traceBytes)")
    }
    guard result.maxOccupancy <= max(objects, traceBytes) else {
      throw refuse(
        "held \(result.maxOccupancy) at most, more than its trace's \(objects) objects and \(traceBytes) bytes")
    }
    let firstRequests = max(0, objects - result.warmupRequests)
    guard result.misses >= firstRequests else {
      throw refuse(
        "has \(result.misses) misses on a trace of \(objects) objects with \(result.warmupRequests) warm-up requests (at least \(firstRequests) first requests miss)"
      )
    }
    if let a = result.attribution, a.compulsoryMisses < firstRequests || a.compulsoryMisses > objects {
      throw refuse(
        "has \(a.compulsoryMisses) compulsory misses on a trace of \(objects) objects with \(result.warmupRequests) warm-up requests"
      )
    }
  }

  /// Refuses a part that does not belong with `first` (the first file
  /// named), was run by another evlab than `version`, or whose counts were
  /// edited or do not add up.
  func verify(
    path: String, against first: (path: String, partial: ComparePartial), version: String?, commit: String?
  ) throws(CompareError) {
    let other = first.partial
    guard shards >= 1, (1...shards).contains(shard), totalRuns >= 0 else {
      throw .merge(
        "\(path): shard \(shard) of \(shards) (\(totalRuns) runs) is no shard of a sweep: a shard is I/N with "
          + "1 ≤ I ≤ N; the file was edited or damaged: run that shard again")
    }
    guard !evlabVersion.isEmpty else {
      throw .merge("\(path): the partial result names no evlab version; run that shard again with this evlab")
    }
    if let version, evlabVersion != version {
      throw .merge(
        "\(path) was written by evlab \(evlabVersion), and this is evlab \(version): run the shards and the merge "
          + "with one evlab")
    }
    if let commit, evlabCommit != commit {
      throw .merge(
        "\(path) was run by evlab \(evlabVersion) at commit \(evlabCommit ?? "unknown"), and this evlab is at commit "
          + "\(commit): run the shards and the merge with one build")
    }
    guard evlabVersion == other.evlabVersion && evlabCommit == other.evlabCommit else {
      func build(_ p: ComparePartial) -> String { p.evlabVersion + (p.evlabCommit.map { " (commit \($0))" } ?? "") }
      throw .merge(
        "\(path) was run by evlab \(build(self)) and \(first.path) by evlab \(build(other)): run every shard "
          + "with one build")
    }
    guard configDigest == Self.digest(ofConfiguration: config) else {
      throw .merge("\(path): its configuration does not match its digest; the file was edited: run that shard again")
    }
    guard config == other.config && shards == other.shards && totalRuns == other.totalRuns else {
      throw .merge(
        "\(path) and \(first.path) are shards of different sweeps (their configurations or shard counts differ)")
    }
    guard traces.count == other.traces.count else {
      throw .merge("\(path) and \(first.path) read different numbers of traces; they are not shards of one sweep")
    }
    for (mine, theirs) in zip(traces, other.traces) where mine != theirs {
      func identity(_ info: TraceInfo) -> String {
        "\(info.requests) requests, \(info.uniqueObjects) objects, \(info.digest)"
      }
      throw .merge(
        "\(path) and \(first.path) read different files as trace '\(mine.trace)' (\(identity(mine)) against "
          + "\(identity(theirs))): a path that names another file on another machine or folder; give the shards "
          + "the same files")
    }
    guard countsDigest == computedDigest else {
      throw .merge(
        "\(path): its counts do not match their digest; the file was edited or damaged: run that shard again")
    }
    for result in results {
      let c = result.counts
      guard c.requests >= 0, c.hits >= 0, c.hits <= c.requests, c.misses == c.requests - c.hits,
        c.bytesMissed >= 0, c.bytesMissed <= c.bytesRequested
      else {
        throw .merge(
          "\(path): \(result.key.id) has counts that do not add up (requests \(c.requests), hits \(c.hits), "
            + "misses \(c.misses), bytes \(c.bytesMissed) of \(c.bytesRequested)): run that shard again")
      }
    }
  }
}
