/// One request as a policy sees it.
///
/// Policies read only what they need: most read `key` and `weight`; Belady's
/// optimum reads `nextAccess`; age- and time-aware policies read `time`.
@frozen
public struct Request<Key: Hashable> {
  /// The object requested.
  public var key: Key
  /// What the object weighs against the capacity: 1 in count mode, its size in
  /// bytes in byte mode (or a cost the caller chooses).
  public var weight: Int64
  /// The request's logical time (its position in the stream, or a timestamp).
  public var time: Int64
  /// The logical time of the next request for the same key, or `Request.never`.
  public var nextAccess: Int64
  /// Wall-clock seconds of the request, as the trace records them (0 when it
  /// has none); the models of disk caches that trim on a timer read it.
  public var timestamp: Int64
  /// Whether `weight` is what the object weighs now, so that a hit may
  /// re-weigh a resident entry. A trace replay always knows (the default); a
  /// cache does not on a read (it passes weight 1) and handles a new cost on
  /// a write itself, so its lookups pass false. Most policies keep an entry's
  /// admitted weight on a hit either way; the few where libCacheSim 0.3.5
  /// takes the request's size instead (``SizePolicy`` re-keys its heap,
  /// LP-ARC re-inserts an entry it moves from T1 to T2) do so only when this
  /// is true.
  public var carriesWeight: Bool

  /// Marks an object that is not requested again.
  public static var never: Int64 { Int64.max }

  @inlinable @inline(__always)
  public init(
    key: Key, weight: Int64 = 1, time: Int64 = 0, nextAccess: Int64 = Int64.max, timestamp: Int64 = 0,
    carriesWeight: Bool = true
  ) {
    self.key = key
    self.weight = weight
    self.time = time
    self.nextAccess = nextAccess
    self.timestamp = timestamp
    self.carriesWeight = carriesWeight
  }
}

/// A compact handle to a policy's entry; `MemoryCache` indexes its value
/// storage with it. Valid until the entry is evicted or removed.
public typealias Slot = Int32
