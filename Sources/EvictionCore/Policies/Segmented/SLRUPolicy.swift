/// Segmented LRU (Karedla, Love and Wherry, IEEE Computer 1994) with `n` equal
/// segments (default 4, libCacheSim's `S4LRU(25:25:25:25)`).
///
/// Follows libCacheSim's `slru`: each segment may hold capacity/n (integer
/// division); a new object enters the lowest segment with room for it, or the
/// lowest segment when none has room; a hit moves an object to the front of
/// the next segment up (the top segment just refreshes), and a segment over
/// its share passes its LRU end down, cascading, with the bottom segment's
/// overflow evicted. Eviction takes the LRU end of the lowest non-empty
/// segment. An object heavier than one segment is not admitted.
public struct SLRUPolicy<Index: SlotIndex & ~Copyable>: SegmentedPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  /// Segment 0 is the probationary (bottom) segment; the tag of an entry is its segment.
  public var segments: [EntryList]
  public let segmentLimit: Int64
  /// Whether a hit in the top segment moves the entry to its front: true for
  /// SLRU; false makes every segment a FIFO (``SFIFO``).
  @usableFromInline let refreshesTop: Bool

  /// Creates an SLRU of `segments` equal segments; with `refreshesTop`
  /// false, the segmented FIFO of ``SFIFO``.
  @inlinable
  public init(capacity: Int64, segments: Int = 4, refreshesTop: Bool = true) {
    precondition(segments >= 1 && segments <= 64, "segments must be in 1...64")
    store = PolicyStorage(capacity: capacity)
    self.segments = Array(repeating: EntryList(), count: segments)
    segmentLimit = capacity / Int64(segments)
    self.refreshesTop = refreshesTop
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "\(refreshesTop ? "SLRU" : "SFIFO")(segments=\(segments.count))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    return lookupResident(request, at: slot, onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    let segment = Int(store.table[slot].list)
    if segment == segments.count - 1 {
      if refreshesTop { store.table.moveToFront(slot, &segments[segment]) }
    } else {
      store.table.unlink(slot, &segments[segment])
      store.table.pushFront(slot, &segments[segment + 1], tag: UInt8(segment + 1))
      while segments[segment + 1].weight > segmentLimit {
        cool(segment + 1, onEvict)
      }
    }
    return slot
  }

  /// Passes the LRU end of `segment` down one segment (evicting from the
  /// bottom), then cools the segment below if it overflows.
  @inlinable
  mutating func cool(_ segment: Int, _ onEvict: (Slot, Key) -> Void) {
    if segment == 0 {
      _ = evictOne(onEvict: onEvict)
      return
    }
    let slot = segments[segment].back
    store.table.unlink(slot, &segments[segment])
    store.table.pushFront(slot, &segments[segment - 1], tag: UInt8(segment - 1))
    while segments[segment - 1].weight > segmentLimit {
      cool(segment - 1, onEvict)
    }
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard request.weight <= segmentLimit, makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    var target = 0
    for i in segments.indices where segments[i].weight &+ request.weight <= segmentLimit {
      target = i
      break
    }
    let slot = store.insert(request.key, weight: request.weight, payload: ())
    store.table.pushFront(slot, &segments[target], tag: UInt8(target))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    store.evict(victim, from: &segments[Int(store.table[victim].list)], onEvict: onEvict)
    return true
  }

  /// The least recent entry of the lowest segment that holds any.
  @inlinable @inline(__always)
  public func nextVictim() -> Slot? {
    for segment in segments where !segment.isEmpty { return segment.back }
    return nil
  }
}

/// SLRU in the catalog.
public enum SLRU: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "slru", displayName: "SLRU", summary: "segmented LRU with equal segments",
    citation: "Karedla, Love and Wherry, IEEE Computer 1994",
    parameters: [
      PolicyParameter("segments", default: 4, range: 1...64, help: "number of segments")
    ],
    traits: [.namesVictims, .evictsOnHit],
    checkedAgainst: "libCacheSim (4 and 5 segments)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(SLRUPolicy<Index>(capacity: capacity, segments: Int(spec.integer("segments"))))
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    capacity / spec.integer("segments") >= 1
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; each of its \(spec.integer("segments")) segments needs one: raise the size or lower slru:segments="
  }
}
