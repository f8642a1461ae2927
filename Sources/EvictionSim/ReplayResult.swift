import EvictionCore
import EvictionTraces

/// What a cache's capacity counts: objects (every object weighs 1) or bytes.
public enum SizeMode: String, Sendable, Codable, CaseIterable {
  case count, bytes
}

/// The outcome of replaying one trace through one policy at one size: one row
/// of `evlab replay`'s CSV and JSON (the keys are a contract: extend, never rename).
public struct ReplayResult: Sendable, Codable, Equatable {
  public var trace: String
  public var format: String
  /// The policy as specified (`slru:segments=4`).
  public var policy: String
  public var cacheSize: Int64
  public var sizeMode: SizeMode
  public var requests: Int64
  public var hits: Int64
  public var misses: Int64
  public var missRatio: Double
  /// Bytes of all requests and of the missed ones (request sizes as the
  /// trace gives them, in either size mode; 1 per request for formats without sizes).
  public var bytesRequested: Int64
  public var bytesMissed: Int64
  public var byteMissRatio: Double
  /// Wall-clock seconds of the replay, reading included.
  public var seconds: Double
  public var requestsPerSecond: Double
  /// Malformed lines passed over under `--skip-bad-lines` (not a column:
  /// the command reports them on standard error).
  public var skipped = SkippedRecords()
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

  enum CodingKeys: String, CodingKey {
    case trace, format, policy
    case cacheSize = "cache_size"
    case sizeMode = "size_mode"
    case requests, hits, misses
    case missRatio = "miss_ratio"
    case bytesRequested = "bytes_requested"
    case bytesMissed = "bytes_missed"
    case byteMissRatio = "byte_miss_ratio"
    case seconds
    case requestsPerSecond = "requests_per_second"
    case skippedZeroSize = "skipped_zero_size"
    case maxOccupancy = "max_occupancy"
    case exceedsCapacity = "exceeds_capacity"
  }

  /// The column order of CSV output.
  public static let columns = [
    "trace", "format", "policy", "cache_size", "size_mode", "requests", "hits", "misses", "miss_ratio",
    "bytes_requested", "bytes_missed", "byte_miss_ratio", "seconds", "requests_per_second", "skipped_zero_size",
    "max_occupancy", "exceeds_capacity",
  ]
}

/// Hit and byte counts of a replay.
public struct ReplayCounts: Sendable, Equatable {
  public var requests: Int64 = 0
  public var hits: Int64 = 0
  public var bytesRequested: Int64 = 0
  public var bytesMissed: Int64 = 0
  public var skipped = SkippedRecords()
  public var maxOccupancy: Int64 = 0
  public var misses: Int64 { requests - hits }
  public init() {}
}
