import EvictionCache
import EvictionCore
import EvictionDisk
import EvictionRun
import EvictionSim
import EvictionStats
import EvictionTraces
import EvictionWorkloads
import Foundation
import Synchronization

/// A comparison sweep laid out as runs: one row per trace × policy × size (in
/// the configuration's order), and per row one run, or one per seed when the
/// trace is synthetic or the policy randomised. The layout depends only on
/// the configuration and the traces, so every shard of a sweep computes the
/// same one.
public struct ComparePlan: Sendable {
  public struct Row: Sendable, Equatable {
    public var trace: Int
    public var policy: Int
    /// Index into the configuration's admissions.
    public var admission: Int
    public var size: Int
    public var cacheSize: Int64
    public var firstRun: Int
    public var runCount: Int
  }

  /// A trace at a size too small for one of the policies (it would cache
  /// nothing): an error before any replay, or, with `small_sizes = "skip"`,
  /// left out for every policy, so that each (trace, size) compares all of
  /// them or none.
  public struct SmallCell: Sendable, Equatable {
    public var trace: Int
    public var size: Int
    public var cacheSize: Int64
    /// The policy that needs the most, and what it needs.
    public var policy: PolicySpec
    public var minimum: Int64
    /// Where the cell is left out because an earlier size of the list comes
    /// to the same cache size on this trace: that size's position.
    public var sameAs: Int? = nil
  }

  public let config: CompareConfig
  /// Each trace's statistics (a synthetic trace's: its first seed's).
  public let infos: [TraceInfo]
  /// The (trace, size) cells too small for some policy, or coming to the
  /// same cache size as an earlier size on their trace, in sweep order.
  public let tooSmall: [SmallCell]
  public let rows: [Row]
  /// Every run's replay cell, rows' runs contiguous.
  public let cells: [ReplayCell]
  /// Every run's trace (an index into `config.traces`).
  public let traceOfRun: [Int]
  /// A run's expected cost (requests to replay), for balancing shards.
  let costs: [Int64]

  /// Each trace's statistics, read once (`sources[t][s]` is trace t at seed
  /// index s), `parallelism` traces at a time. A trace that does not hold the
  /// requests or objects its catalog entry says is an error.
  public static func measure(
    _ config: CompareConfig, sources: [[TraceSource]], parallelism: Int = 1, progress: ReplayProgress? = nil
  ) throws(TraceError) -> [TraceInfo] {
    let infos = Mutex<[TraceInfo?]>(Array(repeating: nil, count: config.traces.count))
    let failure = Mutex<(Int, TraceError)?>(nil)
    let next = Atomic<Int>(0)
    WorkerThread.pool(min(parallelism, config.traces.count)) {
      while true {
        let t = next.add(1, ordering: .relaxed).oldValue
        if t >= config.traces.count || failure.withLock({ $0 != nil }) { return }
        do throws(TraceError) {
          let info = try measure(config.traces[t], source: sources[t][0], progress: progress)
          infos.withLock { $0[t] = info }
        } catch {
          // The first trace's error, whichever thread found it: runs repeat their messages.
          failure.withLock { if $0 == nil || $0!.0 > t { $0 = (t, error) } }
        }
      }
    }
    if let (_, error) = failure.withLock({ $0 }) { throw error }
    return infos.withLock { $0.map { $0! } }
  }

  static func measure(_ entry: CompareConfig.TraceEntry, source: TraceSource, progress: ReplayProgress?)
    throws(TraceError) -> TraceInfo
  {
    var info = try TraceInfo.measure(source, progress: progress)
    info.trace = entry.name
    if let expected = entry.expectedRequests, expected != info.requests {
      throw .catalogMismatch(path: source.path, reason: "it holds \(info.requests) requests, not \(expected)")
    }
    if let expected = entry.expectedObjects, expected != info.uniqueObjects {
      throw .catalogMismatch(path: source.path, reason: "it holds \(info.uniqueObjects) objects, not \(expected)")
    }
    return info
  }

  /// Lays the sweep out. `sources` are the traces to read; `evlab merge`,
  /// which reads none, passes its placeholders (``CompareWorkspace/placeholders``).
  public init(config: CompareConfig, infos: [TraceInfo], sources: [[TraceSource]]) {
    self.config = config
    self.infos = infos
    var rows: [Row] = []
    var cells: [ReplayCell] = []
    var costs: [Int64] = []
    let minimums = config.policies.map(\.minimumCapacity)
    let neediest = minimums.indices.max { minimums[$0] < minimums[$1] }!
    var tooSmall: [SmallCell] = []
    for t in config.traces.indices {
      var first: [Int64: Int] = [:]
      for (z, size) in config.sizes.enumerated() {
        let cacheSize = size.resolve(infos[t], sizeMode: config.sizeMode)
        if cacheSize < minimums[neediest] {
          tooSmall.append(
            SmallCell(
              trace: t, size: z, cacheSize: cacheSize, policy: config.policies[neediest],
              minimum: minimums[neediest]))
        } else if let earlier = first[cacheSize] {
          // The same cache under another label (shares of a small footprint).
          tooSmall.append(
            SmallCell(
              trace: t, size: z, cacheSize: cacheSize, policy: config.policies[neediest],
              minimum: minimums[neediest], sameAs: earlier))
        } else {
          first[cacheSize] = z
        }
      }
    }
    self.tooSmall = tooSmall
    let skip = config.smallSizes == .skip
    for (t, entry) in config.traces.enumerated() {
      for (p, policy) in config.policies.enumerated() {
        for (a, admission) in config.admissions.enumerated() {
          let randomPolicy = CompareConfig.isRandomised(policy)
          let runs = entry.isSynthetic || randomPolicy || admission.isRandomized ? config.seeds.count : 1
          for (z, size) in config.sizes.enumerated() {
            if skip && tooSmall.contains(where: { $0.trace == t && $0.size == z }) { continue }
            let cacheSize = size.resolve(infos[t], sizeMode: config.sizeMode)
            rows.append(
              Row(
                trace: t, policy: p, admission: a, size: z, cacheSize: cacheSize, firstRun: cells.count,
                runCount: runs))
            for s in 0..<runs {
              cells.append(
                ReplayCell(
                  trace: sources[t][entry.isSynthetic ? s : 0],
                  policy: randomPolicy ? policy.withSeed(config.seeds[s]) : policy, cacheSize: cacheSize,
                  sizeMode: config.sizeMode,
                  admission: admission.isRandomized ? admission.withSeed(config.seeds[s]) : admission,
                  window: config.window))
              cells[cells.count - 1].attribution = config.attribution
              cells[cells.count - 1].attributionReference = config.attributionReference
              cells[cells.count - 1].penalty = config.penalty
              costs.append(infos[t].requests * (policy.descriptor.isOffline ? 2 : 1))
            }
          }
        }
      }
    }
    self.rows = rows
    self.cells = cells
    self.costs = costs
    traceOfRun = rows.flatMap { row in repeatElement(row.trace, count: row.runCount) }
  }

  /// The runs of shard `index` (1-based) of `count`: longest-first greedy
  /// assignment to the least-loaded shard (ties to the lower shard), so
  /// shards take about equal time. Deterministic.
  public func runs(ofShard index: Int, of count: Int) -> [Int] {
    precondition(index >= 1 && index <= count)
    let order = costs.indices.sorted { costs[$0] != costs[$1] ? costs[$0] > costs[$1] : $0 < $1 }
    var load = Array(repeating: Int64(0), count: count)
    var mine: [Int] = []
    for run in order {
      var least = 0
      for s in 1..<count where load[s] < load[least] { least = s }
      load[least] += costs[run]
      if least == index - 1 { mine.append(run) }
    }
    return mine.sorted()
  }
}

extension PolicySpec {
  /// This spec with `seed=N` added.
  public func withSeed(_ seed: UInt64) -> PolicySpec {
    var text = description
    text += parameters.isEmpty ? ":seed=\(seed)" : ",seed=\(seed)"
    return try! PolicySpec(text)
  }
}

/// One row of `evlab compare`'s results: the replay columns (means over the
/// runs where there are several) plus the runs and 95% confidence intervals.
/// Timings are kept apart (``CompareTiming``) so that these rows are exactly
/// reproducible: a sharded sweep merges into the same bytes.
/// Its attribution is the mean over the runs, when the sweep attributed misses.
public typealias CompareRow = CellRow<CompareFields>

public struct CompareFields: Sendable, Codable, Equatable {
  /// The size as the configuration wrote it (`1%`, `5000`).
  public var sizeLabel: String
  public var missRatio: Double
  public var byteMissRatio: Double
  public var runs: Int
  public var missRatioCi95Low: Double
  public var missRatioCi95High: Double
  public var byteMissRatioCi95Low: Double
  public var byteMissRatioCi95High: Double
  /// Whether the policy needs the future (Belady): a bound, not a contender.
  public var offline: Bool
  /// The most any run held (objects or bytes, as `size_mode`).
  public var maxOccupancy: Int64 = 0
  /// Whether a run held more than `cache_size`: never ranked against
  /// capacity-bound policies.
  public var exceedsCapacity = false
  /// Whether the policy models a shipped cache (``PolicyCatalog/Entry/isModel``):
  /// reported in a section of its own, never ranked or called best.
  public var model = false
  /// The trace's dataset (``CompareConfig/TraceEntry/dataset``).
  public var dataset = ""
  /// (mr_FIFO − mr) / mr_FIFO against FIFO's row at this trace and size
  /// (``AcrossTraces``); nil without one, or for a model.
  public var reductionFromFifo: Double? = nil
  /// The same against LRU.
  public var reductionFromLru: Double? = nil
  /// Requests served before counting began (``CompareConfig/window``), mean over the runs.
  public var warmupRequests: Int64 = 0
  /// The cache size as a share of the trace's footprint (its distinct
  /// objects, or their bytes, as `size_mode`): a number that sorts as the
  /// sizes do (`size_label` is text: "0.1%", "1%", "10%", "3%").
  public var sizeShare: Double = 0
  /// A learned policy's trainings, mean over the runs; nil for a policy that
  /// does not learn. A column only in a table holding such a row (its
  /// seconds are timings: `timings.csv` has the runs' whole time).
  public var trainings: Int64? = nil
  /// What the counted requests cost, when the sweep weighed misses
  /// (`penalty`): the model in its canonical spelling, and the means over
  /// the runs of `evlab replay`'s penalty columns. Columns only in a table
  /// holding such a row (``EvictionSim/ReplayResult/penaltyColumns``).
  public var penaltyModel: String? = nil
  public var totalPenalty: Double? = nil
  public var averagePenalty: Double? = nil
  public var hitPenalty: Double? = nil
  public var missPenalty: Double? = nil
}

extension CellRow where Fields == CompareFields {
  /// The row's name in reports: the policy, with ` + admission` when one is in front.
  public var label: String { key.admission == "none" ? key.policy : "\(key.policy) + \(key.admission)" }

  /// Whether this row competes in the ranking: online, capacity-bound, not a model.
  public var isContender: Bool { !fields.offline && !fields.model && !fields.exceedsCapacity }
  /// Not a model of a shipped cache, yet it held more than its capacity:
  /// a fault in the policy (``PolicyConformance`` finds which).
  public var isFaulty: Bool { !fields.offline && !fields.model && fields.exceedsCapacity }

  public static var columns: [String] {
    [
      "trace", "format", "policy", "size_label", "cache_size", "size_mode", "requests", "hits", "misses", "miss_ratio",
      "bytes_requested", "bytes_missed", "byte_miss_ratio", "runs", "miss_ratio_ci95_low", "miss_ratio_ci95_high",
      "byte_miss_ratio_ci95_low", "byte_miss_ratio_ci95_high", "offline", "max_occupancy", "exceeds_capacity", "model",
      "admission", "dataset", "reduction_from_fifo", "reduction_from_lru", "warmup_requests", "size_share",
    ]
  }

  /// The columns of `rows`: ``columns``, then `trainings` when a learned
  /// policy's row is among them, then the penalties' when the sweep weighed
  /// misses, then the attribution's.
  public static func columns(of rows: [CompareRow]) -> [String] {
    let trainings = rows.contains { $0.fields.trainings != nil } ? ["trainings"] : []
    let penalties = rows.contains { $0.fields.penaltyModel != nil } ? ReplayResult.penaltyColumns : []
    return columns(columns + trainings + penalties, of: rows)
  }

  /// Whether the two rows' miss-ratio intervals are disjoint: only then are
  /// the policies called different.
  public func differs(from other: CompareRow) -> Bool {
    fields.missRatioCi95High < other.missRatioCi95Low || other.missRatioCi95High < fields.missRatioCi95Low
  }
}

/// Wall-clock figures of a row's runs (`timings.csv`): they vary run to
/// run, so they are kept apart from the row (``CompareRow``), whose cell
/// and counts it repeats.
public typealias CompareTiming = CellRow<CompareTimingFields>

public struct CompareTimingFields: Sendable, Codable, Equatable {
  public var sizeLabel: String
  public var runs: Int
  public var seconds: Double
  public var requestsPerSecond: Double
}

extension CellRow where Fields == CompareTimingFields {
  /// The column order of `timings.csv`.
  public static var columns: [String] {
    ["trace", "policy", "size_label", "runs", "seconds", "requests_per_second", "admission"]
  }
}

/// What a sweep (or one shard of it) produced.
public struct CompareOutcome: Sendable {
  public var rows: [CompareRow]
  public var timings: [CompareTiming]
  /// Each run's miss ratio per interval, when the sweep had `interval`.
  public var timeseries: [TimeseriesRow] = []
  public var infos: [TraceInfo]
  public var stress: [StressResult]
  public var disk: [DiskBench.Result]

  public init(
    rows: [CompareRow], timings: [CompareTiming], infos: [TraceInfo], stress: [StressResult],
    disk: [DiskBench.Result] = []
  ) {
    self.rows = rows
    self.timings = timings
    self.infos = infos
    self.stress = stress
    self.disk = disk
  }
}

public enum CompareRun {
  /// Folds the runs (all of them, indexed like `plan.cells`) into rows.
  public static func rows(_ plan: ComparePlan, results: [ReplayResult]) -> (
    rows: [CompareRow], timings: [CompareTiming], timeseries: [TimeseriesRow]
  ) {
    precondition(results.count == plan.cells.count)
    var rows: [CompareRow] = []
    var timings: [CompareTiming] = []
    var timeseries: [TimeseriesRow] = []
    for row in plan.rows {
      let runs = Array(results[row.firstRun..<row.firstRun + row.runCount])
      let trace = plan.config.traces[row.trace]
      let policy = plan.config.policies[row.policy]
      let missRatios = SampleSummary(runs.map(\.missRatio))
      let byteMissRatios = SampleSummary(runs.map(\.byteMissRatio))
      func mean(_ values: [Int64]) -> Int64 {
        values.count == 1 ? values[0] : Int64((Double(values.reduce(0, +)) / Double(values.count)).rounded())
      }
      let counts = HitCounts(
        requests: mean(runs.map(\.requests)), hits: mean(runs.map(\.hits)),
        bytesRequested: mean(runs.map(\.bytesRequested)), bytesMissed: mean(runs.map(\.bytesMissed)))
      let admission = plan.config.admissions[row.admission].description
      let key = CellKey(
        trace: trace.name, format: runs[0].format, policy: policy.description, cacheSize: row.cacheSize,
        sizeMode: plan.config.sizeMode, admission: admission)
      let fields = CompareRow.Fields(
        sizeLabel: plan.config.sizes[row.size].description,
        missRatio: runs.count == 1 ? runs[0].missRatio : missRatios.mean,
        byteMissRatio: runs.count == 1 ? runs[0].byteMissRatio : byteMissRatios.mean, runs: runs.count,
        missRatioCi95Low: missRatios.ci95.lowerBound, missRatioCi95High: missRatios.ci95.upperBound,
        byteMissRatioCi95Low: byteMissRatios.ci95.lowerBound, byteMissRatioCi95High: byteMissRatios.ci95.upperBound,
        offline: policy.descriptor.isOffline, maxOccupancy: runs.map(\.maxOccupancy).max() ?? 0,
        exceedsCapacity: runs.contains(where: \.exceedsCapacity),
        model: PolicyCatalog.entry(named: policy.name)?.isModel ?? false, dataset: trace.dataset,
        warmupRequests: mean(runs.map(\.warmupRequests)))
      var compared = CompareRow(key: key, counts: counts, fields: fields)
      let info = plan.infos[row.trace]
      let footprint = plan.config.sizeMode == .count ? Int64(info.uniqueObjects) : info.footprintBytes
      compared.fields.sizeShare = footprint > 0 ? Double(row.cacheSize) / Double(footprint) : 0
      let trainings = runs.compactMap(\.trainings)
      if trainings.count == runs.count { compared.fields.trainings = mean(trainings) }
      if let model = runs[0].penaltyModel {
        func mean(_ field: KeyPath<ReplayResult, Double?>) -> Double {
          runs.map { $0[keyPath: field] ?? 0 }.reduce(0, +) / Double(runs.count)
        }
        compared.fields.penaltyModel = model
        compared.fields.totalPenalty = mean(\.fields.totalPenalty)
        compared.fields.averagePenalty = mean(\.fields.averagePenalty)
        compared.fields.hitPenalty = mean(\.fields.hitPenalty)
        compared.fields.missPenalty = mean(\.fields.missPenalty)
      }
      let attributed = runs.compactMap(\.attribution)
      if attributed.count == runs.count {
        compared.attribution = MissAttribution.mean(attributed, misses: counts.misses, bytesMissed: counts.bytesMissed)
      }
      rows.append(compared)
      for (r, run) in runs.enumerated() {
        for interval in run.intervals {
          timeseries.append(
            TimeseriesRow(cell: key, sizeLabel: fields.sizeLabel, run: r + 1, interval))
        }
      }
      let seconds = runs.map(\.seconds).reduce(0, +)
      timings.append(
        CompareTiming(
          key: key, counts: counts,
          fields: CompareTiming.Fields(
            sizeLabel: fields.sizeLabel, runs: runs.count, seconds: seconds,
            requestsPerSecond: seconds > 0 ? (Double(runs.map(\.requests).reduce(0, +)) / seconds).rounded() : 0)))
    }
    return (AcrossTraces.withReductions(rows), timings, timeseries)
  }

  /// The `[disk]` experiment: every mode at every value size, in scratch stores under `directory`.
  public static func disk(
    _ section: CompareConfig.DiskSection, directory: String, log: (String) -> Void = { _ in }
  ) throws(CompareError) -> [DiskBench.Result] {
    do throws(DiskError) {
      return try DiskBench.sweep(
        modes: section.modes, valueSizes: section.valueSizes, ops: section.ops, rounds: section.rounds,
        directory: directory, mixedThreshold: section.inlineThreshold
      ) { round, mode, size, _ in
        log("disk round \(round + 1)/\(section.rounds): \(mode.rawValue), \(size)-byte values")
      }
    } catch {
      throw .stress("[disk]: \(error)")
    }
  }

  /// The `[stress]` experiment: every lock at every thread count.
  public static func stress(
    _ section: CompareConfig.StressSection, plan: ComparePlan, sources: [[TraceSource]],
    log: (String) -> Void = { _ in }
  ) throws(CompareError) -> [StressResult] {
    guard let t = plan.config.traces.firstIndex(where: { $0.name == section.trace }) else { return [] }
    let workload: StressRun.Workload
    do throws(TraceError) { workload = try StressRun.Workload(sources[t][0]) } catch { throw .trace(error) }
    let cacheSize = section.size.resolve(plan.infos[t], sizeMode: plan.config.sizeMode)
    var results: [StressResult] = []
    for lock in section.locks {
      for threads in section.threads {
        do throws(CacheError) {
          var result = try StressRun.run(
            workload, target: .cache(lock), policy: section.policy, cacheSize: cacheSize,
            sizeMode: plan.config.sizeMode, threads: threads, ops: section.ops)
          result.trace = section.trace
          results.append(result)
          log(
            "stress \(results.count)/\(section.locks.count * section.threads.count): \(lock), \(threads) threads, \(Int(result.opsPerSecond)) ops/s"
          )
        } catch {
          throw .stress(error.description)
        }
      }
    }
    return results
  }
}

/// Why a comparison could not run or merge.
public enum CompareError: Error, CustomStringConvertible {
  case config(ConfigError)
  case trace(TraceError)
  case stress(String)
  case merge(String)

  public var description: String {
    switch self {
    case .config(let e): e.description
    case .trace(let e): e.description
    case .stress(let message): "[stress]: \(message)"
    case .merge(let message): message
    }
  }
}

/// One shard of a sweep, run: its replays, and the stress experiment (in
/// the first shard) and disk experiment (in the last), so a job array
/// spreads the work and a single run is shard 1 of 1.
public struct CompareShard: Sendable {
  public var plan: ComparePlan
  public var index: Int
  public var count: Int
  public var parallelism: Int

  public init(plan: ComparePlan, index: Int = 1, of count: Int = 1, parallelism: Int) {
    self.plan = plan
    self.index = index
    self.count = count
    self.parallelism = parallelism
  }

  /// The runs (indices into `plan.cells`) this shard replays.
  public var runs: [Int] { plan.runs(ofShard: index, of: count) }

  /// The requests this shard replays, from the traces' statistics.
  public var expectedRequests: Int {
    runs.reduce(0) { total, run in
      let cell = plan.cells[run]
      return total + Int(plan.infos[plan.traceOfRun[run]].requests) * cell.trace.copies
    }
  }

  /// The outcome of a sweep run whole (shard 1 of 1): its runs folded into rows.
  public func outcome(_ partial: ComparePartial) -> CompareOutcome {
    precondition(count == 1 && partial.results.count == plan.cells.count)
    let (rows, timings, timeseries) = CompareRun.rows(plan, results: partial.results)
    var outcome = CompareOutcome(
      rows: rows, timings: timings, infos: plan.infos, stress: partial.stress, disk: partial.disk)
    outcome.timeseries = timeseries
    return outcome
  }

  /// Runs the shard; `log` hears when an experiment starts.
  public func run(
    sources: [[TraceSource]], scratch: String, progress: ReplayProgress? = nil, log: (String) -> Void = { _ in }
  ) throws(CompareError) -> ComparePartial {
    let runs = self.runs
    let results: [ReplayResult]
    do throws(TraceError) {
      results = try Sweep.replay(runs.map { plan.cells[$0] }, jobs: parallelism, progress: progress)
    } catch { throw .trace(error) }
    var stress: [StressResult] = []
    if let section = plan.config.stress, index == 1 {
      log("memory cache under \(section.threads.map(String.init).joined(separator: ", ")) threads")
      stress = try CompareRun.stress(section, plan: plan, sources: sources, log: log)
    }
    var disk: [DiskBench.Result] = []
    if let section = plan.config.disk, index == count {
      log("the disk store, \(section.modes.count) modes × \(section.valueSizes.count) value sizes")
      disk = try CompareRun.disk(section, directory: scratch, log: log)
    }
    return ComparePartial(
      config: plan.config, shard: index, shards: count, plan: plan, runs: runs, results: results, stress: stress,
      disk: disk)
  }
}

extension ComparePartial {
  /// Writes the partial result into `directory` (made if missing) as
  /// ``fileName(shard:of:)``; returns its path.
  public func write(into directory: String) throws(CompareError) -> String {
    let path = (directory as NSString).appendingPathComponent(Self.fileName(shard: shard, of: shards))
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      encoder.keyEncodingStrategy = .convertToSnakeCase
      try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw .merge("cannot write \(path): \(error.localizedDescription)")
    }
    return path
  }
}

extension ComparePartial {
  /// The partial results in `inputs`: folders (every `partial-*.json` in
  /// each, sorted) or files, as `evlab merge` takes them.
  public static func load(_ inputs: [String]) throws(CompareError) -> [(path: String, partial: ComparePartial)] {
    var parts: [(path: String, partial: ComparePartial)] = []
    for input in inputs {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
        throw .merge("\(input): no such folder or file")
      }
      let files =
        isDirectory.boolValue
        ? ((try? FileManager.default.contentsOfDirectory(atPath: input)) ?? [])
          .filter { $0.hasPrefix("partial-") && $0.hasSuffix(".json") }.sorted()
          .map { (input as NSString).appendingPathComponent($0) }
        : [input]
      if files.isEmpty {
        throw .merge("\(input): holds no partial-I-of-N.json; was it written by \(Setting.shard)?")
      }
      for file in files {
        var info = stat()
        if stat(file, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
          throw .merge("\(file): not a regular file (a FIFO or a device); name the partial-I-of-N.json a shard wrote")
        }
        do {
          let data = try Data(contentsOf: URL(fileURLWithPath: file))
          let decoder = JSONDecoder()
          decoder.keyDecodingStrategy = .convertFromSnakeCase
          // The version first, so an older shard's file is named as such.
          struct Version: Decodable { var evlabPartial: Int? }
          if let version = (try? decoder.decode(Version.self, from: data))?.evlabPartial,
            version != ComparePartial.currentFormat
          {
            throw CompareError.merge(
              "\(file): a partial result in format \(version), from another version of evlab; this one reads "
                + "format \(ComparePartial.currentFormat): run that shard again with this evlab")
          }
          parts.append((file, try decoder.decode(ComparePartial.self, from: data)))
        } catch let error as CompareError {
          throw error
        } catch {
          throw .merge(
            "\(file): not a partial result of evlab compare, or a damaged one (\(error.localizedDescription)); "
              + "run that shard again")
        }
      }
    }
    return parts
  }
}
