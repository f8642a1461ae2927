/// Segmented FIFO with lazy promotion: `n` equal FIFO segments; a hit only
/// counts (in the bottom segment it marks the entry once, above it adds one),
/// and the promotion is decided at eviction time: the bottom segment's oldest
/// entry, if it was hit, moves to the front of segment min(count, n − 1) with
/// its count cleared, and a segment over its share passes its oldest entries
/// down, cascading, counts kept. An entry never hit is evicted. (Yang, Qiu,
/// Zhang, Yue and Rashmi, "FIFO can be Better than LRU: the Power of Lazy
/// Promotion and Quick Demotion", HotOS'23.)
///
/// Follows libCacheSim's `lp-sfifo` (`eviction/fifo/LP_SFIFO.c`), where the
/// paper gives no detail: each segment's share is ⌊c/n⌋ computed in floating
/// point; a new object enters the lowest segment with room for it, or the
/// bottom segment (over its share) when none has; eviction always starts at
/// the bottom segment; an object heavier than one share is not admitted.
public struct LPSFIFOPolicy<Index: SlotIndex & ~Copyable>: SegmentedPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry their hit count since they last moved up.
  public var store: PolicyStorage<Index, UInt32>
  /// Segment 0 is the bottom; an entry's tag is its segment.
  public var segments: [EntryList]
  public let segmentLimit: Int64

  @inlinable
  public init(capacity: Int64, segments: Int = 4) {
    precondition(segments >= 1 && segments <= 16, "segments must be in 1...16")
    store = PolicyStorage(capacity: capacity)
    self.segments = Array(repeating: EntryList(), count: segments)
    segmentLimit = Self.share(of: capacity, segments: segments)
  }

  /// One segment's share, as libCacheSim computes it: (1/n)·c in floating point, truncated.
  @inlinable
  public static func share(of capacity: Int64, segments: Int) -> Int64 {
    Int64(1.0 / Double(segments) * Double(capacity))
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "LP-SFIFO(segments=\(segments.count))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == 0 {
      // The bottom segment marks a hit; a count brought down by demotion stays.
      if store.table[slot].payload == 0 { store.table[slot].payload = 1 }
    } else {
      store.table[slot].payload &+= 1
    }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let weight = request.weight
    guard weight <= segmentLimit, makeRoom(for: weight, onEvict: onEvict) else { return nil }
    var target = 0
    for i in segments.indices where segments[i].weight &+ weight <= segmentLimit {
      target = i
      break
    }
    let slot = store.insert(request.key, weight: weight, payload: 0)
    store.table.pushFront(slot, &segments[target], tag: UInt8(target))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    store.evict(victim, from: &segments[Int(store.table[victim].list)], onEvict: onEvict)
    return true
  }

  /// The entry eviction takes: the bottom segment's oldest, after promoting
  /// the oldest entries that were hit (each up as many segments as its hits,
  /// demoting what overflows), or the oldest of the lowest segment that
  /// holds any once the bottom is empty. The promotions are eviction's own,
  /// so the entry named is the one ``evictOne(onEvict:)`` then takes.
  @inlinable @inline(__always)
  public mutating func nextVictim() -> Slot? {
    guard store.count > 0 else { return nil }
    while true {
      // The bottom segment is empty only after trims from outside admission.
      let bottom = segments.firstIndex { !$0.isEmpty }!
      let victim = segments[bottom].back
      let hits = store.table[victim].payload
      if hits == 0 || bottom != 0 { return victim }
      let up = Int(min(hits, UInt32(segments.count - 1)))
      store.table.unlink(victim, &segments[0])
      store.table[victim].payload = 0
      store.table.pushFront(victim, &segments[up], tag: UInt8(up))
      if segments[up].weight > segmentLimit { demote(from: up) }
    }
  }

  /// Passes the oldest entries of `segment` down one segment, counts kept,
  /// until it is within its share; then the segment below, down to segment 1.
  @inlinable
  mutating func demote(from segment: Int) {
    var s = segment
    while s > 0 && segments[s].weight > segmentLimit {
      while segments[s].weight > segmentLimit {
        let slot = segments[s].back
        store.table.unlink(slot, &segments[s])
        store.table.pushFront(slot, &segments[s - 1], tag: UInt8(s - 1))
      }
      s -= 1
    }
  }
}

/// LP-SFIFO in the catalog.
public enum LPSFIFO: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lp-sfifo", displayName: "LP-SFIFO", summary: "segmented FIFO with lazy promotion at eviction",
    citation: "Yang et al., HotOS'23",
    parameters: [
      PolicyParameter("segments", default: 4, range: 1...16, help: "number of segments")
    ],
    traits: .namesVictims,
    checkedAgainst: "libCacheSim (cloudPhysicsIO, count and bytes; seven more traces)", libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LPSFIFOPolicy<Index>(capacity: capacity, segments: Int(spec.integer("segments"))))
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    LPSFIFOPolicy<IntegerSlotIndex<UInt64>>.share(of: capacity, segments: Int(spec.integer("segments"))) >= 1
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; each of its \(spec.integer("segments")) segments needs one: raise the size or lower lp-sfifo:segments="
  }
}
