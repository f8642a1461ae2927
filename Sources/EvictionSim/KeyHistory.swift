import EvictionCore
import EvictionRun
import EvictionTraces

/// The life of one key in one policy: each request for it, and each change
/// the policy made to what it holds of the key at other requests (an
/// eviction, a move between queues, a ghost forgotten), with the policy's
/// own words for its state (``EvictionCore/ReplacementPolicy/explain(_:)``).
public struct KeyHistory: Sendable {
  public struct Event: Sendable, Equatable {
    /// The replay position (1-based) of the request at which it happened.
    public var position: Int64
    /// The key requested there (the key itself, or the one whose request moved it).
    public var requested: UInt64
    /// For a request of the key: whether it hit.
    public var hit: Bool?
    /// What the policy held of the key before and after the request (nil: nothing).
    public var before: String?
    public var after: String?
    /// Whether the policy evicted the key at this request.
    public var evicted: Bool
    /// Whether the request fell in the warm-up (served, not counted).
    public var warmup: Bool

    public var isRequest: Bool { hit != nil }
  }

  public var key: UInt64
  public var policy: String
  public var events: [Event] = []
  /// The requests replayed (the whole trace, or up to `--around`).
  public var requests: Int64 = 0
  /// The policy's lists at the start of request `around`, when asked for.
  public var lists: [(name: String, count: Int, front: [UInt64], back: [UInt64])]? = nil
  /// The key requested at `around`.
  public var requestedAround: UInt64? = nil

  /// Replays `trace` through `policy` (boxed, as attribution does) and
  /// records the life of `key`; with `around`, stops before request
  /// `around` and keeps the policy's lists there (`shown` keys of each end).
  public static func record(
    _ trace: TraceSource, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode,
    admission: AdmissionSpec = .none, window: ReplayWindow = ReplayWindow(), key: UInt64, around: Int64? = nil,
    shown: Int = 5
  ) throws(TraceError) -> KeyHistory {
    try TraceReplay.checkMinimumCapacity(policy, cacheSize)
    do throws(AdmissionError) { try admission.check(composesWith: policy.descriptor) } catch {
      throw .invalidOption(error.description)
    }
    let box = policy.integerBox(capacity: cacheSize, admission: admission)
    var history = KeyHistory(key: key, policy: policy.description)
    let countMode = sizeMode == .count
    var position: Int64 = 0
    var gate = WarmupGate(window.warmup)
    var state: String? = nil
    var evicted = false
    var stopped = false
    var counted: Int64 = 0
    _ = try trace.forEachBatch(withNextAccess: policy.descriptor.isOffline, limit: around) {
      records, tile throws(TraceError) in
      guard !stopped else { return }
      for record in records {
        position &+= 1
        let request = record.request(in: tile, time: position, countMode: countMode)
        if let around, position == around {
          history.requestedAround = request.key
          history.lists = box.lists().map { list in
            let front = Array(list.keys.prefix(shown))
            return (
              list.name, list.keys.count, front, Array(list.keys.suffix(min(shown, list.keys.count - front.count)))
            )
          }
          stopped = true
          return
        }
        let warming = gate.warms(record.time)
        counted += warming ? 0 : 1
        evicted = false
        let hit = box.lookup(request) { _, victim in evicted = evicted || victim == key } != nil
        if !hit { _ = box.admit(request) { _, victim in evicted = evicted || victim == key } }
        let mine = request.key == key
        let after = mine || evicted || state != nil ? box.explain(key) : nil
        if mine || after != state || evicted {
          history.events.append(
            Event(
              position: position, requested: request.key, hit: mine ? hit : nil, before: state, after: after,
              evicted: evicted, warmup: warming))
        }
        state = after
      }
    }
    history.requests = position
    if position == 0 { throw .emptyTrace(path: trace.path) }
    if around == nil, window.warmup != nil, counted == 0 {
      throw window.warmupCoversAll(trace.path, requests: position)
    }
    if let around, around > position {
      throw .invalidOption(
        "the trace has \(position) request\(position == 1 ? "" : "s"); choose a request from 1 to \(position) to look around"
      )
    }
    return history
  }
}
