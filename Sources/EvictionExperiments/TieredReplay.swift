import EvictionCache
import EvictionCore
import EvictionDisk
import EvictionRun
import EvictionSim
import EvictionTraces
import Foundation
import Histogram

/// `evlab replay --tier memory+disk`: a trace through a real ``TieredCache``
/// (a `MemoryCache` over a `DiskCache` in a scratch folder), read-through:
/// each request reads; a miss writes a value of the request's size. Counts
/// where requests were served and times each class of request.
public enum TieredReplay {
  /// One (trace, policy, sizes) cell; CSV/JSON keys are the snake_case names.
  public struct Result: Sendable, Codable, Equatable {
    public var trace: String
    public var policy: String
    public var memorySize: Int64
    public var diskSize: Int64
    public var sizeMode: SizeMode
    public var requests: Int64
    public var memoryHits: Int64
    public var diskHits: Int64
    public var misses: Int64
    public var bytesReadFromDisk: Int64
    public var memoryHitP50Ns: UInt64, memoryHitP99Ns: UInt64
    public var diskHitP50Ns: UInt64, diskHitP99Ns: UInt64
    public var missP50Ns: UInt64, missP99Ns: UInt64
    public var seconds: Double

    public static let columns = [
      "trace", "policy", "memory_size", "disk_size", "size_mode", "requests", "memory_hits", "disk_hits", "misses",
      "bytes_read_from_disk", "memory_hit_p50_ns", "memory_hit_p99_ns", "disk_hit_p50_ns", "disk_hit_p99_ns",
      "miss_p50_ns", "miss_p99_ns", "seconds",
    ]
  }

  /// Every trace × policy × memory size, in that order; `log` hears of each
  /// replay before it starts.
  public static func runAll(
    _ traces: [TraceSource], policies: [PolicySpec], memorySizes: [Int64], diskSize: Int64, sizeMode: SizeMode,
    directory: String, limit: Int? = nil, log: (String) -> Void
  ) throws -> [Result] {
    var results: [Result] = []
    for source in traces {
      for policy in policies {
        for memory in memorySizes {
          log("tiered replay: \(source.name), \(policy), memory \(memory), disk \(diskSize)")
          results.append(
            try run(
              source, policy: policy, memorySize: memory, diskSize: diskSize, sizeMode: sizeMode,
              directory: directory, limit: limit))
        }
      }
    }
    return results
  }

  /// Replays `trace` (its first `limit` requests, if given); the disk tier
  /// lives under `directory` and is removed afterwards.
  public static func run(
    _ trace: TraceSource, policy: PolicySpec, memorySize: Int64, diskSize: Int64, sizeMode: SizeMode,
    directory: String, limit: Int? = nil
  ) throws -> Result {
    let path = directory + "/evlab-tier-\(UUID().uuidString)"
    let token = ScratchPaths.shared.register(path)
    defer {
      try? FileManager.default.removeItem(atPath: path)
      ScratchPaths.shared.unregister(token)
    }
    let bytes = sizeMode == .bytes
    let tiered = try TieredCache.bytes(
      directory: path, policy: CachePolicy(policy), memoryCountLimit: bytes ? nil : Int(memorySize),
      memoryCostLimit: bytes ? Int(memorySize) : nil, diskCountLimit: bytes ? nil : Int(diskSize),
      diskCostLimit: bytes ? Int(diskSize) : nil)
    func histogram() -> Histogram<UInt64> {
      Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }
    var memoryHits = histogram()
    var diskHits = histogram()
    var misses = histogram()
    var requests: Int64 = 0
    let start = monotonicNanoseconds()
    var failure: Error? = nil
    try trace.forEachBatch(limit: limit.map(Int64.init)) { records, tile in
      for record in records where failure == nil {
        requests += 1
        let key = String(record.key &+ tile.idOffset)  // copies of a repeated trace share no key
        let t0 = monotonicNanoseconds()
        do {
          switch try tiered.lookup(key)?.tier {
          case .memory?: memoryHits.record(monotonicNanoseconds() &- t0)
          case .disk?: diskHits.record(monotonicNanoseconds() &- t0)
          case nil:
            let size = Int(min(max(record.size, 0), 64 << 20))
            try tiered.setValue([UInt8](repeating: UInt8(truncatingIfNeeded: record.key), count: size), forKey: key)
            misses.record(monotonicNanoseconds() &- t0)
          }
        } catch {
          failure = error
        }
      }
    }
    if let failure { throw failure }
    let seconds = Double(monotonicNanoseconds() &- start) / 1e9
    let s = tiered.statistics
    return Result(
      trace: trace.name, policy: policy.description, memorySize: memorySize, diskSize: diskSize, sizeMode: sizeMode,
      requests: requests, memoryHits: Int64(s.memoryHits), diskHits: Int64(s.diskHits), misses: Int64(s.misses),
      bytesReadFromDisk: s.bytesReadFromDisk,
      memoryHitP50Ns: memoryHits.valueAtPercentile(50), memoryHitP99Ns: memoryHits.valueAtPercentile(99),
      diskHitP50Ns: diskHits.valueAtPercentile(50), diskHitP99Ns: diskHits.valueAtPercentile(99),
      missP50Ns: misses.valueAtPercentile(50), missP99Ns: misses.valueAtPercentile(99), seconds: seconds)
  }
}
