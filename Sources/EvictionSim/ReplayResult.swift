import EvictionCore
import EvictionTraces

/// What a cache's capacity counts: objects (every object weighs 1) or bytes.
public enum SizeMode: String, Sendable, Codable, CaseIterable {
  case count, bytes
}

/// What identifies a cell of every results table: which trace, through
/// which policy, at which size. Embedded by ``ReplayResult``,
/// ``CompareRow`` and ``Baseline/Cell``; its fields are their first columns.
public struct CellKey: Sendable, Codable, Hashable {
  public var trace: String
  public var format: String
  /// The policy as specified (`slru:segments=4`).
  public var policy: String
  public var cacheSize: Int64
  public var sizeMode: SizeMode
  /// The admission policy in front of it (`none`, `bloom-filter`, `prob:p=0.5,seed=1`).
  public var admission: String

  public init(
    trace: String, format: String, policy: String, cacheSize: Int64, sizeMode: SizeMode, admission: String = "none"
  ) {
    self.trace = trace
    self.format = format
    self.policy = policy
    self.cacheSize = cacheSize
    self.sizeMode = sizeMode
    self.admission = admission
  }

  enum CodingKeys: String, CodingKey {
    case trace, format, policy, cacheSize, sizeMode, admission
  }

  /// Rows written before admission existed read as `none`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    trace = try container.decode(String.self, forKey: .trace)
    format = try container.decode(String.self, forKey: .format)
    policy = try container.decode(String.self, forKey: .policy)
    cacheSize = try container.decode(Int64.self, forKey: .cacheSize)
    sizeMode = try container.decode(SizeMode.self, forKey: .sizeMode)
    admission = try container.decodeIfPresent(String.self, forKey: .admission) ?? "none"
  }

  /// The cell in words, for messages: `arc on zipf.bin at 1000 (count)`,
  /// with `behind bloom-filter` when an admission policy is in front.
  public var id: String {
    let behind = admission == "none" ? "" : " behind \(admission)"
    return "\(policy)\(behind) on \(trace) at \(cacheSize) (\(sizeMode.rawValue))"
  }
}

/// What a replay counted, embedded by every row that reports one.
public struct HitCounts: Sendable, Codable, Equatable {
  public var requests: Int64
  public var hits: Int64
  public var misses: Int64
  /// Bytes of all requests and of the missed ones (request sizes as the
  /// trace gives them, in either size mode; 1 per request for formats without sizes).
  public var bytesRequested: Int64
  public var bytesMissed: Int64

  public init(requests: Int64, hits: Int64, bytesRequested: Int64, bytesMissed: Int64) {
    self.requests = requests
    self.hits = hits
    self.misses = requests - hits
    self.bytesRequested = bytesRequested
    self.bytesMissed = bytesMissed
  }

  public var missRatio: Double { TraceReplay.ratio(misses, requests) }
  public var byteMissRatio: Double { TraceReplay.ratio(bytesMissed, bytesRequested) }
}

/// A results row made of parts (a ``CellKey``, ``HitCounts``, the row's
/// own fields) whose fields sit side by side: one JSON object, one CSV
/// line, each part's fields readable on the row itself (`row.hits`).
public protocol FlatRow: Codable {
  associatedtype Fields: Codable
  var key: CellKey { get set }
  var counts: HitCounts { get set }
  /// The row's own fields, beyond the key and the counts.
  var fields: Fields { get set }
  /// Why the row's misses happened, when the run attributed them: its
  /// columns (``MissAttribution/columns``) follow the row's own.
  var attribution: MissAttribution? { get set }
  init(key: CellKey, counts: HitCounts, fields: Fields)
}

extension FlatRow {
  /// A row type that never attributes misses has none.
  public var attribution: MissAttribution? {
    get { nil }
    set {}
  }

  public init(from decoder: any Decoder) throws {
    self.init(key: try CellKey(from: decoder), counts: try HitCounts(from: decoder), fields: try Fields(from: decoder))
    attribution = try MissAttribution.decodeIfPresent(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try key.encode(to: encoder)
    try counts.encode(to: encoder)
    try fields.encode(to: encoder)
    try attribution?.encode(to: encoder)
  }

  /// The columns of `rows`: `columns`, then the attribution's when the rows carry one.
  public static func columns(_ columns: [String], of rows: [Self]) -> [String] {
    rows.contains { $0.attribution != nil } ? columns + MissAttribution.columns : columns
  }

  public subscript<T>(dynamicMember path: WritableKeyPath<CellKey, T>) -> T {
    get { key[keyPath: path] }
    set { key[keyPath: path] = newValue }
  }
  public subscript<T>(dynamicMember path: WritableKeyPath<HitCounts, T>) -> T {
    get { counts[keyPath: path] }
    set { counts[keyPath: path] = newValue }
  }
  public subscript<T>(dynamicMember path: WritableKeyPath<Fields, T>) -> T {
    get { fields[keyPath: path] }
    set { fields[keyPath: path] = newValue }
  }
}

/// A results row that is a cell and its counts, plus `Fields` of its own:
/// the one row type of comparisons (``CompareRow``), baselines, time series
/// (``TimeseriesRow``), timings and curve points (``CurveRow``).
/// ``ReplayResult`` is the one row type apart: it also carries what a
/// replay saw but writes elsewhere (skipped lines, intervals, regret).
@dynamicMemberLookup
public struct CellRow<Fields: Codable & Sendable & Equatable>: FlatRow, Sendable, Equatable {
  public var key: CellKey
  public var counts: HitCounts
  public var fields: Fields
  /// Why the row's misses happened, when its run attributed them.
  public var attribution: MissAttribution? = nil

  public init(key: CellKey, counts: HitCounts, fields: Fields) {
    self.key = key
    self.counts = counts
    self.fields = fields
  }

  /// The cell in words, for messages.
  public var id: String { key.id }
}

/// The fields of a row that has none beyond its cell and counts (a
/// baseline's).
public struct NoFields: Codable, Sendable, Equatable {
  public init() {}
}

extension CellRow where Fields == NoFields {
  public init(key: CellKey, counts: HitCounts) { self.init(key: key, counts: counts, fields: NoFields()) }
}

/// The outcome of replaying one trace through one policy at one size: one row
/// of `evlab replay`'s CSV and JSON (the keys are a contract: extend, never rename).
@dynamicMemberLookup
public struct ReplayResult: FlatRow, Sendable, Equatable {
  public var key: CellKey
  public var counts: HitCounts
  public var fields: Fields
  /// Malformed lines passed over under `--skip-bad-lines` (not a column:
  /// the command reports them on standard error).
  public var skipped = SkippedRecords()
  /// The counted requests per interval, when the replay had intervals
  /// (not a column: `timeseries.csv` holds them).
  public var intervals: [IntervalCounts] = []
  public var attribution: MissAttribution? = nil
  /// How the replay read its records, when it honoured TTLs or replayed
  /// key-value operations: its columns (``SemanticsCounts/columns``) follow the row's own.
  public var semantics: SemanticsCounts? = nil
  /// The evictions the optimum would not have made, when the run attributed
  /// its misses (not a column: `regret.json` holds them).
  public var regret: Regret? = nil

  public struct Fields: Sendable, Codable, Equatable {
    public var missRatio: Double
    public var byteMissRatio: Double
    /// Wall-clock seconds of the replay, reading included.
    public var seconds: Double
    public var requestsPerSecond: Double
    /// Requests of size 0 the trace holds, skipped as libCacheSim skips them
    /// (not counted in `requests`).
    public var skippedZeroSize = 0
    /// The most the policy held at any point: objects in count mode, bytes in
    /// byte mode. Above `cacheSize` only for models of shipped caches that
    /// trim on a timer (``PolicyCatalog/Entry/mayExceedCapacity``).
    public var maxOccupancy: Int64 = 0
    /// Whether `maxOccupancy` exceeded `cacheSize`: such a row is no
    /// comparison with capacity-bound policies.
    public var exceedsCapacity = false
    /// Requests served before counting began (``ReplayWindow/warmup``).
    public var warmupRequests: Int64 = 0
    /// A two-tier policy's writes to flash over the whole replay, warm-up
    /// included (``EvictionCore/ReplacementPolicy/flashWrites``): objects,
    /// and their weight (bytes in byte mode); empty for a policy of one tier.
    public var flashWrites: Int64? = nil
    public var flashWriteBytes: Int64? = nil
    /// A learned policy's trainings over the whole replay, and the seconds
    /// its training and predictions took (``EvictionCore/ReplacementPolicy/learning``);
    /// empty for a policy that does not learn. Columns only in a table with
    /// a learned policy's row (``ReplayResult/learningColumns``).
    public var trainings: Int64? = nil
    public var trainingSeconds: Double? = nil
    /// What a tuning policy chose (`s4fifo:tune=true`: the candidate's
    /// number and knobs), empty otherwise; a column only in a table with
    /// such a row.
    public var tuned: String? = nil
    /// What each request cost, when the run weighed misses (`--penalty`,
    /// ``PenaltyModel``, in its canonical spelling), and what the counted
    /// requests paid: hits at their hit penalty, misses at their miss
    /// penalty, both, and both per request (Caffeine's simulator's "average
    /// penalty"). Columns only in a table with such a row (``ReplayResult/penaltyColumns``).
    public var penaltyModel: String? = nil
    public var hitPenalty: Double? = nil
    public var missPenalty: Double? = nil
    public var totalPenalty: Double? = nil
    public var averagePenalty: Double? = nil
    /// The size as the sweep was given it (`1%`, `5000`), as `compare`'s
    /// `size_label`; nil for a row replayed outside a sweep.
    public var sizeLabel: String? = nil
    /// The cache size as a share of the trace's footprint, as `compare`'s
    /// `size_share`: only where the run measured the footprint (a share
    /// size was given for this trace), else empty.
    public var sizeShare: Double? = nil
  }

  public init(key: CellKey, counts: HitCounts, fields: Fields) {
    self.key = key
    self.counts = counts
    self.fields = fields
  }

  public init(from decoder: any Decoder) throws {
    self.init(key: try CellKey(from: decoder), counts: try HitCounts(from: decoder), fields: try Fields(from: decoder))
    semantics = try SemanticsCounts.decodeIfPresent(from: decoder)
    attribution = try MissAttribution.decodeIfPresent(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try key.encode(to: encoder)
    try counts.encode(to: encoder)
    try fields.encode(to: encoder)
    try semantics?.encode(to: encoder)
    try attribution?.encode(to: encoder)
  }

  /// `intervals` as rows of `--timeseries`' CSV (one run, labelled as the size was given).
  public var timeseries: [TimeseriesRow] {
    intervals.map { TimeseriesRow(cell: key, sizeLabel: fields.sizeLabel ?? String(key.cacheSize), run: 1, $0) }
  }

  /// The columns of `rows`: ``columns``, then the TTL's when a row
  /// replayed with one, then the attribution's when a row carries one.
  public static func columns(_ columns: [String], of rows: [ReplayResult]) -> [String] {
    let ttl = rows.contains { $0.semantics != nil } ? SemanticsCounts.columns : []
    let learning = rows.contains { $0.trainings != nil } ? learningColumns : []
    let tuned = rows.contains { $0.tuned != nil } ? tunedColumns : []
    let penalty = rows.contains { $0.penaltyModel != nil } ? penaltyColumns : []
    return columns + learning + tuned + penalty + ttl
      + (rows.contains { $0.attribution != nil } ? MissAttribution.columns : [])
  }

  /// A learned policy's columns, after ``columns`` in a table holding one.
  public static let learningColumns = ["trainings", "training_seconds"]

  /// A tuning policy's column (`s4fifo:tune=true`), after the learning
  /// columns in a table holding one.
  public static let tunedColumns = ["tuned"]

  /// A weighed run's columns (`--penalty`), after the tuning column in a
  /// table holding one.
  public static let penaltyColumns = [
    "penalty_model", "total_penalty", "average_penalty", "hit_penalty", "miss_penalty",
  ]

  /// The column order of CSV output.
  public static let columns = [
    "trace", "format", "policy", "cache_size", "size_mode", "requests", "hits", "misses", "miss_ratio",
    "bytes_requested", "bytes_missed", "byte_miss_ratio", "seconds", "requests_per_second", "skipped_zero_size",
    "max_occupancy", "exceeds_capacity", "admission", "warmup_requests", "flash_writes", "flash_write_bytes",
    "size_label", "size_share",
  ]
}

/// How a replay read its records, when not as a plain stream of gets:
/// with TTLs (`--use-ttl`) or as key-value operations (`--semantics kv`).
/// Present only on such rows, so every other row keeps exactly its columns;
/// a row without them was replayed with libCacheSim's semantics and no TTLs.
public struct SemanticsCounts: Sendable, Codable, Equatable {
  /// `libcachesim` or `kv` (``KVRule``).
  public var semantics: String
  /// Whether TTLs expired objects (always, under `kv`).
  public var useTtl: Bool
  /// Requests that found their object expired (under libCacheSim's
  /// semantics each is also a miss; under `kv`, a get's miss or a set's
  /// or delete's removal).
  public var expiredRequests: Int64
  /// Under `kv`: the gets (the row's `requests`) and their hits, the sets
  /// and the deletes; empty under libCacheSim's semantics.
  public var gets: Int64? = nil
  public var getHits: Int64? = nil
  public var sets: Int64? = nil
  public var deletes: Int64? = nil
  /// When expired objects left (``Expiration``: `lazy` or `scan:interval=S`).
  public var expiration: String? = nil
  /// Objects whose expiry passed while they were resident, however they
  /// left (found expired, scanned, evicted, removed, replaced) or if they
  /// stayed to the trace's end.
  public var expiredObjects: Int64? = nil
  /// Bytes that expired objects held, averaged over the trace's duration
  /// (bytes in either size mode): memory wasted on expired data.
  public var meanExpiredBytes: Double? = nil
  /// Seconds an object lived past its last hit (`--idle-ttl`), when hits
  /// extended lifetimes; empty otherwise.
  public var idleTtl: Int64? = nil

  public init(semantics: String, useTtl: Bool, expiredRequests: Int64) {
    self.semantics = semantics
    self.useTtl = useTtl
    self.expiredRequests = expiredRequests
  }

  public static let columns = [
    "semantics", "use_ttl", "expired_requests", "gets", "get_hits", "sets", "deletes", "expiration",
    "expired_objects", "mean_expired_bytes", "idle_ttl",
  ]

  /// The counts of a row read back, or nil for a row without them.
  static func decodeIfPresent(from decoder: any Decoder) throws -> SemanticsCounts? {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guard container.contains(.semantics), try !container.decodeNil(forKey: .semantics) else { return nil }
    return try SemanticsCounts(from: decoder)
  }
}

/// Hit and byte counts of a replay.
public struct ReplayCounts: Sendable, Equatable {
  public var requests: Int64 = 0
  public var hits: Int64 = 0
  public var bytesRequested: Int64 = 0
  public var bytesMissed: Int64 = 0
  public var skipped = SkippedRecords()
  public var maxOccupancy: Int64 = 0
  /// Requests of the warm-up: served, not counted (``ReplayWindow``).
  public var warmupRequests: Int64 = 0
  /// The counted requests per interval, when intervals were asked for.
  public var intervals: [IntervalCounts] = []
  /// A two-tier policy's writes to flash (``EvictionCore/ReplacementPolicy/flashWrites``).
  public var flashWrites: TierWrites? = nil
  /// A learned policy's trainings (``EvictionCore/ReplacementPolicy/learning``).
  public var learning: LearningCounts? = nil
  /// The counted requests' penalties, when the run weighed misses (``PenaltyModel``).
  public var penalties: PenaltyTotals? = nil
  public var misses: Int64 { requests - hits }
  public init() {}
  public var hitCounts: HitCounts {
    HitCounts(requests: requests, hits: hits, bytesRequested: bytesRequested, bytesMissed: bytesMissed)
  }
}

/// One interval of one run (`timeseries.csv`): the miss ratio over time.
/// Its cell is the run's; its counts are the interval's.
public typealias TimeseriesRow = CellRow<TimeseriesFields>

public struct TimeseriesFields: Sendable, Codable, Equatable {
  /// The size as the sweep named it (`1%`, `1000`).
  public var sizeLabel: String
  /// 1-based: which of the row's runs (seeds) this is.
  public var run: Int
  public var interval: Int
  public var firstRequest: Int64
  public var startTime: Int64
  public var missRatio: Double
  public var byteMissRatio: Double
}

extension CellRow where Fields == TimeseriesFields {
  /// Interval `interval` of run `run` of `cell`.
  public init(cell: CellKey, sizeLabel: String, run: Int, _ interval: IntervalCounts) {
    self.init(
      key: cell, counts: interval.counts,
      fields: Fields(
        sizeLabel: sizeLabel, run: run, interval: interval.index, firstRequest: interval.firstRequest,
        startTime: interval.startTime, missRatio: interval.counts.missRatio,
        byteMissRatio: interval.counts.byteMissRatio))
  }

  public static var columns: [String] {
    [
      "trace", "policy", "admission", "size_label", "cache_size", "run", "interval", "first_request", "start_time",
      "requests", "hits", "misses", "miss_ratio", "bytes_requested", "bytes_missed", "byte_miss_ratio",
    ]
  }
}
