import EvictionCore
import EvictionRun
import EvictionTraces

/// Where two policies part on one trace at one size: for every key, the
/// requests one policy missed and the other hit (`evlab explain --versus`).
/// Both policies replay the trace together, request by request, so each
/// request is judged on the same history.
public struct Divergence: Sendable {
  /// One key on which the policies disagreed at least once.
  public struct KeyCount: Sendable, Equatable {
    public var key: UInt64
    /// Counted requests for the key that the first policy missed and the second hit.
    public var firstMissesSecondHits: Int64
    /// The other way round.
    public var secondMissesFirstHits: Int64
  }

  public var first: String
  public var second: String
  /// Counted requests (the warm-up left out).
  public var requests: Int64 = 0
  public var firstMisses: Int64 = 0
  public var secondMisses: Int64 = 0
  /// Every key where they differ: the most first-policy-only misses first
  /// (then the most second-only ones, then the key).
  public var keys: [KeyCount] = []

  /// Requests the first policy missed and the second hit, over all keys.
  public var firstOnly: Int64 { keys.reduce(0) { $0 + $1.firstMissesSecondHits } }
  /// Requests the second policy missed and the first hit.
  public var secondOnly: Int64 { keys.reduce(0) { $0 + $1.secondMissesFirstHits } }

  /// Replays `trace` through `first` and `second` at `cacheSize`.
  public static func measure(
    _ trace: TraceSource, first: PolicySpec, second: PolicySpec, cacheSize: Int64, sizeMode: SizeMode,
    window: ReplayWindow = ReplayWindow(), progress: ReplayProgress? = nil
  ) throws(TraceError) -> Divergence {
    try TraceReplay.checkMinimumCapacity(first, cacheSize)
    try TraceReplay.checkMinimumCapacity(second, cacheSize)
    let boxes = (first.integerBox(capacity: cacheSize), second.integerBox(capacity: cacheSize))
    var result = Divergence(first: first.description, second: second.description)
    var byKey: [UInt64: (Int64, Int64)] = [:]
    let countMode = sizeMode == .count
    var position: Int64 = 0
    var gate = WarmupGate(window.warmup)
    let offline = first.descriptor.isOffline || second.descriptor.isOffline
    _ = try trace.forEachBatch(withNextAccess: offline, progress: progress) { records, tile throws(TraceError) in
      for record in records {
        position &+= 1
        let warming = gate.warms(record.time)
        let request = record.request(in: tile, time: position, countMode: countMode)
        let a = boxes.0.lookup(request) { _, _ in } != nil
        if !a { _ = boxes.0.admit(request) { _, _ in } }
        let b = boxes.1.lookup(request) { _, _ in } != nil
        if !b { _ = boxes.1.admit(request) { _, _ in } }
        guard !warming else { continue }
        result.requests &+= 1
        result.firstMisses &+= a ? 0 : 1
        result.secondMisses &+= b ? 0 : 1
        if a != b {
          // The table doubles at powers of two: ask before it does.
          if byKey.count > 0 && byKey.count & (byKey.count - 1) == 0 && byKey[request.key] == nil {
            GrowthWatch.willAllocate(
              byKey.count * 2 * 48, "the keys where two policies differ (\(byKey.count) keys)",
              from: GrowthWatch.perObjectThreshold)
          }
          if a { byKey[request.key, default: (0, 0)].1 += 1 } else { byKey[request.key, default: (0, 0)].0 += 1 }
        }
      }
    }
    if position == 0 { throw .emptyTrace(path: trace.path) }
    if window.warmup != nil, result.requests == 0 {
      throw window.warmupCoversAll(trace.path, requests: position)
    }
    result.keys = byKey.map {
      KeyCount(key: $0.key, firstMissesSecondHits: $0.value.0, secondMissesFirstHits: $0.value.1)
    }
    .sorted {
      ($0.firstMissesSecondHits, $0.secondMissesFirstHits, $1.key)
        > ($1.firstMissesSecondHits, $1.secondMissesFirstHits, $0.key)
    }
    return result
  }
}
