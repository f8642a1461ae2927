/// The order a single-queue policy keeps: what a hit does and which end is
/// evicted. ``LRUPolicy``, ``FIFOPolicy`` and ``MRUPolicy`` are this one
/// queue with different disciplines, so their list logic exists once.
public protocol QueueDiscipline {
  /// The policy's display name.
  static var name: String { get }
  /// Whether a hit moves the entry to the front.
  static var promotesOnHit: Bool { get }
  /// Whether eviction takes the front (most recent) rather than the back.
  static var evictsFront: Bool { get }
}

/// One queue of resident entries; new entries enter at the front.
public struct QueuePolicy<Index: SlotIndex & ~Copyable, Discipline: QueueDiscipline>:
  SingleListPolicy, ~Copyable
{
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  public var queue = EntryList()

  /// Creates an empty policy holding at most `capacity` weight.
  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { Discipline.name }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    return lookupResident(request, at: slot, onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    if Discipline.promotesOnHit { store.table.moveToFront(slot, &queue) }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    // A full cache where one eviction makes room: the newcomer takes the
    // victim's slot and goes to the front (in count mode, every miss once full).
    if store.used &+ request.weight > store.capacity, let victim = nextVictim(),
      store.used &- store.table[victim].weight &+ request.weight <= store.capacity
    {
      store.replace(victim, in: &queue, with: request.key, weight: request.weight, payload: (), onEvict: onEvict)
      return victim
    }
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request, payload: (), atFrontOf: &queue, tag: 0)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    store.evict(victim, from: &queue, onEvict: onEvict)
    return true
  }

  @inlinable @inline(__always)
  public func nextVictim() -> Slot? {
    let victim = Discipline.evictsFront ? queue.front : queue.back
    return victim >= 0 ? victim : nil
  }
}
