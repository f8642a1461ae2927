/// Multi-Queue (Zhou, Philbin and Li, "The Multi-Queue Replacement Algorithm
/// for Second Level Buffer Caches", USENIX ATC'01): `m` LRU queues Q0…Qm−1;
/// an object referenced f times lives in Q⌊log2 f⌋ (capped at Qm−1), so the
/// frequently used sit higher and the victim is the LRU end of the lowest
/// non-empty queue. Every object carries an expiry time, a lifetime after its
/// last reference; at each tick the LRU end of each queue above Q0 that has
/// expired drops one queue (to the MRU end, with a fresh lifetime), so an
/// object once hot but no longer used sinks and leaves. Evicted objects' keys
/// and frequencies are kept in Qout, a FIFO history; an object requested while
/// in Qout comes back with its remembered frequency plus one, otherwise with 1.
///
/// Reproduces libCacheSim 0.3.5's `mq` (`MQ.c`, cache name `MQ-8`), new in that
/// release (the 2024 snapshot had only an unfinished private draft,
/// `priv/myMQv1.c`, not built into `cachesim`), with its defaults: 8 queues, a
/// lifetime of 10,000 ticks, Qout weighing 4 × the capacity (`qout=400`,
/// percent; libCacheSim's `Qout-size-ratio=4.00`). Where it departs from the
/// paper, this follows libCacheSim:
/// - Time ticks once per hit and once per admission, not once per request: a
///   miss on an object heavier than the cache moves no clock (in the paper
///   every request is a hit or a load, so only such objects tell the two apart).
/// - On a miss, Qout is consulted (and the key's record dropped from it)
///   before the victims are evicted into Qout; in the paper's order the
///   eviction comes first, so a key at Qout's old end could be pushed out by
///   its own victim and come back with frequency 1 instead of its record + 1.
/// - The lifetime is a fixed parameter; the paper sets it from the workload's
///   temporal distance (and lets it adapt).
/// - Byte mode: queues and Qout are bounded by weight (Qout keeps the evicted
///   entry's admitted weight and drops its oldest records until a new one
///   fits; a record heavier than Qout is not kept); an object heavier than
///   the cache is not admitted and evicts nothing (but its Qout record is
///   still consumed, as in libCacheSim). The paper counts blocks.
/// - Frequencies saturate at 2³¹ − 1.
///
/// Qout's records are ghost entries in the same index and slab (tag
/// `Self.inQout`); a key is either resident or in Qout, never both.
///
/// - Complexity: O(m) per request (the demotion check looks at each queue's
///   LRU end), O(1) in the number of objects.
public struct MQPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// What an entry carries: its reference count (resident) or the count it
  /// left with (in Qout), and when it stops being safe at its queue's LRU end.
  @frozen public struct State: BitwiseCopyable {
    @usableFromInline var frequency: Int32
    @usableFromInline var expiry: Int64
    @inlinable init(frequency: Int32, expiry: Int64) {
      self.frequency = frequency
      self.expiry = expiry
    }
  }

  public var store: PolicyStorage<Index, State>
  /// Q0…Qm−1, each with its MRU end at the front; an entry's tag is its queue.
  @usableFromInline var queues: [EntryList]
  /// The history of evicted keys, newest at the front.
  @usableFromInline var qout = EntryList()
  @usableFromInline let qoutCapacity: Int64
  @usableFromInline let qoutPercent: Int64
  @usableFromInline let lifetime: Int64
  /// The clock: one tick per hit and per admission.
  @usableFromInline var now: Int64 = 0
  /// The frequency the last lookup found in Qout for its key, or 0 if it found none.
  @usableFromInline var recalled: Int32 = 0

  /// The tag of Qout's records (above every queue's).
  @usableFromInline static var inQout: UInt8 { 64 }

  /// An MQ of `queues` queues (1...64) whose entries drop a queue after
  /// `lifetime` ticks unreferenced, with a history of `qoutPercent` percent
  /// of the capacity.
  @inlinable
  public init(capacity: Int64, queues: Int = 8, lifetime: Int64 = 10_000, qoutPercent: Int64 = 400) {
    precondition(queues >= 1 && queues <= 64, "queues must be in 1...64")
    precondition(lifetime >= 1, "lifetime must be positive")
    precondition(qoutPercent >= 1, "Qout must be positive")
    store = PolicyStorage(capacity: capacity)
    self.queues = Array(repeating: EntryList(), count: queues)
    self.lifetime = lifetime
    self.qoutPercent = qoutPercent
    // libCacheSim scales the capacity by a double ratio and truncates.
    qoutCapacity = Int64(Double(capacity) * (Double(qoutPercent) / 100))
  }

  public var name: String { "MQ(queues=\(queues.count),lifetime=\(lifetime),qout=\(qoutPercent)%)" }

  /// The queue of an object referenced `frequency` (≥ 1) times: ⌊log2 f⌋, capped.
  @inlinable @inline(__always)
  func queue(for frequency: Int32) -> Int {
    min(31 &- frequency.leadingZeroBitCount, queues.count &- 1)
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    recalled = 0
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    let tag = store.table[slot].list
    if tag == Self.inQout {
      recalled = store.table[slot].payload.frequency
      store.forget(slot, from: &qout)
      return nil
    }
    store.table.unlink(slot, &queues[Int(tag)])
    place(slot, frequency: Self.increment(store.table[slot].payload.frequency))
    tick()
    return slot
  }

  @inlinable @inline(__always)
  static func increment(_ frequency: Int32) -> Int32 { frequency < Int32.max ? frequency &+ 1 : frequency }

  /// Puts `slot` at the MRU end of its frequency's queue with a fresh lifetime.
  @inlinable @inline(__always)
  mutating func place(_ slot: Slot, frequency: Int32) {
    let target = queue(for: frequency)
    store.table[slot].payload = State(frequency: frequency, expiry: now &+ lifetime)
    store.table.pushFront(slot, &queues[target], tag: UInt8(truncatingIfNeeded: target))
  }

  /// One tick: then the LRU end of each queue above Q0, if expired, drops
  /// one queue (bottom-up, so an entry drops at most once a tick).
  @inlinable @inline(__always)
  mutating func tick() {
    now &+= 1
    for k in queues.indices.dropFirst() {
      let slot = queues[k].back
      guard slot >= 0, store.table[slot].payload.expiry < now else { continue }
      store.table.unlink(slot, &queues[k])
      store.table.pushFront(slot, &queues[k &- 1], tag: UInt8(truncatingIfNeeded: k &- 1))
      store.table[slot].payload.expiry = now &+ lifetime
    }
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let remembered = recalled
    recalled = 0
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: State(frequency: 0, expiry: 0))
    place(slot, frequency: remembered > 0 ? Self.increment(remembered) : 1)
    tick()
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    store.table.unlink(victim, &queues[Int(store.table[victim].list)])
    onEvict(victim, store.table[victim].key)
    store.retire(victim)
    // The record keeps the entry's weight and frequency.
    store.remember(victim, in: &qout, capacity: qoutCapacity, tag: Self.inQout)
    return true
  }

  /// The LRU end of the lowest non-empty queue.
  @inlinable @inline(__always)
  public func nextVictim() -> Slot? {
    for queue in queues where !queue.isEmpty { return queue.back }
    return nil
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let tag = store.table[slot].list
    if tag == Self.inQout {
      store.forget(slot, from: &qout)
      return nil
    }
    store.table.unlink(slot, &queues[Int(tag)])
    store.delete(slot, resident: true)
    return slot
  }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].list != Self.inQout
  }

  public func checkInvariants() {
    for (k, list) in queues.enumerated() {
      store.table.checkList(list, tag: UInt8(k), "Q\(k)")
      var slot = list.front
      while slot >= 0 {
        let state = store.table[slot].payload
        precondition(state.frequency >= 1, "Q\(k): entry \(slot) with frequency \(state.frequency)")
        // Demotion only lowers an entry below its frequency's queue.
        precondition(k <= queue(for: state.frequency), "Q\(k): entry \(slot) above its frequency's queue")
        precondition(state.expiry <= now &+ lifetime, "Q\(k): entry \(slot) expires too late")
        slot = store.table[slot].next
      }
    }
    store.table.checkList(qout, tag: Self.inQout, "Qout")
    store.checkTotals(queues)
    precondition(qout.weight <= qoutCapacity, "Qout over its capacity")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    queues.enumerated().map { ("Q\($0.offset)", store.table.keys(of: $0.element)) }
      + [("Qout", store.table.keys(of: qout))]
  }
}

/// MQ in the catalog.
public enum MQ: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "mq", displayName: "MQ",
    summary: "Multi-Queue: LRU queues by log2 frequency, expiry demotes, Qout remembers frequencies",
    citation: "Zhou, Philbin and Li, USENIX ATC'01",
    parameters: [
      PolicyParameter("queues", default: 8, range: 1...64, help: "number of LRU queues (libCacheSim's n-queue)"),
      PolicyParameter(
        "lifetime", default: 10_000, range: 1...(Int64(1) << 48),
        help: "ticks (hits and admissions) unreferenced before an entry drops a queue"),
      PolicyParameter(
        "qout", default: 400, range: 1...6400,
        help: "Qout's (history) weight, percent of the capacity (libCacheSim's Qout-size-ratio x 100)"),
    ],
    traits: .namesVictims,
    checkedAgainst: "libCacheSim 0.3.5 (cloudPhysicsIO and Twitter, count and bytes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      MQPolicy<Index>(
        capacity: capacity, queues: Int(spec.integer("queues")), lifetime: spec.integer("lifetime"),
        qoutPercent: spec.integer("qout")))
  }
}
