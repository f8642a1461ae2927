import CChunkMatch

/// A cache replacement policy, written once and driven both by the trace
/// simulator and by `MemoryCache` (DESIGN.md, "The one idea").
///
/// The policy owns the only key → entry index and hands out ``Slot`` handles.
/// A request is served in two steps, which is what lets a real cache fetch the
/// value between them:
///
/// 1. ``lookup(_:onEvict:)``: a hit updates the policy's state and returns the slot;
///    a miss returns `nil` (and may update history, e.g. ARC's ghost lists).
/// 2. On a miss, ``admit(_:onEvict:)`` inserts the key, evicting as needed.
///    It must follow a `lookup` of the same key that returned `nil`, with no
///    other request in between.
///
/// ``access(_:)`` composes the two; the simulator and the cache both use it,
/// so a hit in one is a hit in the other.
///
/// Capacity and weights share one unit: objects (every weight 1) or bytes.
/// An object heavier than the whole cache is not admitted and evicts nothing.
public protocol ReplacementPolicy: ~Copyable {
  associatedtype Key: Hashable

  /// The policy's name with its parameters, e.g. `SLRU(segments=4)`.
  var name: String { get }
  /// The most weight the policy keeps resident.
  var capacity: Int64 { get }
  /// The weight of the resident objects; never above ``capacity``.
  var usedWeight: Int64 { get }
  /// The number of resident objects (ghost history not included).
  var count: Int { get }

  /// Looks `request.key` up. A hit records the access and returns the slot.
  /// A few policies evict on a hit (SLRU cascading demotions out of its
  /// bottom segment); `onEvict` hears of those.
  /// - Complexity: O(1) for every policy here except where its file says otherwise.
  mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot?

  /// Admits `request.key` after a missed ``lookup(_:onEvict:)``, evicting until it fits.
  /// `onEvict` is called for every resident entry that leaves, before its slot
  /// is reused. Returns the new entry's slot, or `nil` if the object is not
  /// admitted (it is heavier than the policy accepts).
  mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot?

  /// Removes `key` if it is resident and returns the slot it had.
  mutating func remove(_ key: Key) -> Slot?

  /// Evicts one resident entry, the one the policy would evict next,
  /// telling `onEvict`; returns false if nothing is resident (for trimming
  /// a cache below its capacity).
  mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool

  /// The resident entry ``evictOne(onEvict:)`` would evict next, without
  /// evicting it, or nil if the policy cannot name it beforehand (the
  /// default; see ``PolicyTraits/namesVictims``). Searching may move the
  /// policy's state as evicting would (a CLOCK hand's sweep clears the
  /// reference bits it passes); the entry named stays resident and stays
  /// next until the policy is used again. TinyLFU admission asks it to
  /// compare a missed object with the entry it would replace.
  mutating func nextVictim() -> Slot?

  /// ``admit(_:onEvict:)`` with a veto: before evicting an entry to make
  /// room for `request`, the policy passes that entry's key to `approve`
  /// and evicts it only if `approve` returns true. On a refusal the object
  /// is not admitted (the call returns nil): nothing more is evicted,
  /// entries already evicted for it stay evicted, and what the miss taught
  /// the policy's history stays (an ARC ghost hit's move of `p`). With an
  /// `approve` that always agrees, this is `admit(_:onEvict:)` decision for
  /// decision. TinyLFU admission (``AdmittedPolicy``) compares the missed
  /// object with each victim here. The default asks ``nextVictim()`` before
  /// each ``evictOne(onEvict:)``; a policy whose victims depend on the
  /// request (ARC's on a B2 ghost hit) or that evicts in the middle of its
  /// admission implements it, and says so with
  /// ``PolicyTraits/asksBeforeEvicting``.
  mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool) -> Slot?

  /// Whether `key` is resident, without counting as an access.
  func contains(_ key: Key) -> Bool

  /// Whether ``lookup(_:onEvict:)`` of a key that is not resident returns
  /// nil and changes nothing: no clock, no ghost, no sketch moves. Then
  /// ``lookupIfResident(_:onEvict:)`` needs no residency check first.
  /// False by default; a policy that looks its key up before anything else
  /// and returns at once on a miss says true.
  static var missedLookupChangesNothing: Bool { get }

  /// The key stored in a resident `slot`.
  func key(at slot: Slot) -> Key

  /// ``lookup(_:onEvict:)`` for a key that was resident a moment ago and
  /// may have left since (the `buffered` cache replaying hits it served
  /// without the policy's lock): an access if it is still resident, else
  /// nothing at all. The default probes twice unless
  /// ``missedLookupChangesNothing``; a policy whose missed lookups change
  /// nothing only in some configurations (W-TinyLFU without its climber)
  /// implements it to probe once there.
  mutating func lookupIfResident(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot?

  /// ``lookup(_:onEvict:)`` of a key known to be resident at `slot`: the
  /// same access, decision for decision, without finding the key again.
  /// The `buffered` cache replays a hit this way when its read index
  /// recorded the slot and the slot still holds the key, as Caffeine's
  /// drain reaches a node without its map. The default looks the key up;
  /// a policy whose lookup is a find followed by its own moves skips the
  /// find.
  mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot?

  /// Checks every structural invariant (list links and tags, weights, counts,
  /// ghost bounds) and stops the process with a message if one fails.
  func checkInvariants()

  /// The policy's lists, named and in order, for tests and state reports.
  func lists() -> [(name: String, keys: [Key])]

  /// What the policy holds of `key`, in its own terms: the list it sits in
  /// and the figures it decides by (`small, freq 1`; `T2`; `B1 (ghost)`;
  /// `frequency 3`), or nil when it holds nothing of the key. Miss
  /// attribution and `evlab explain` show it; the default says `resident`
  /// or nil, so a plug-in policy is explained without writing it.
  func explain(_ key: Key) -> String?

  /// Memory that a request for `key` will read first (its index bucket), or
  /// nil: the replay loop prefetches it a few requests ahead.
  func indexAddress(of key: Key) -> UnsafeRawPointer?

  /// The entry a request for `key` will probably read, found from its
  /// index bucket without probing, or nil: prefetched after the bucket.
  func entryAddress(of key: Key) -> UnsafeRawPointer?

  /// The memory of resident `slot`'s entry, or nil: a replay of hits
  /// recorded by slot (``lookupResident(_:at:onEvict:)``) prefetches it.
  func entryAddress(at slot: Slot) -> UnsafeRawPointer?

  /// Starts loading what a request for `key` will read outside the index
  /// and the entries (W-TinyLFU's sketch counters, ten lines at random in
  /// 19 MB at 500,000 objects). The replay loop calls it a few requests
  /// ahead of large caches; the default does nothing.
  func prefetchState(of key: Key)

  /// Starts loading the entries a request for `key` will relink (its list
  /// neighbours, which a hit's move writes) and those the next eviction
  /// will touch (the victim's index bucket, the entry that follows it out).
  /// The replay loop calls it a few requests ahead of large caches, after
  /// `key`'s bucket and entry were prefetched, so reading them here does
  /// not wait on memory; the default does nothing.
  func prefetchLinks(of key: Key)

  /// What a two-tier policy has written to its second tier so far (objects
  /// and bytes admitted to flash), or nil for a policy of one tier (the
  /// default). Replay rows report it as `flash_writes` and `flash_write_bytes`.
  var flashWrites: TierWrites? { get }

  /// Tells a policy what a miss of the requests that follow costs, until
  /// the next call: the time or money to fetch the object again, in the
  /// unit of the run's penalty model. Cost-aware policies (``CAMPPolicy``,
  /// ``GDWheelPolicy``) rank an object by the penalty in force when it is
  /// admitted, and take 1 until told otherwise; the default ignores it. A
  /// replay that weighs misses (`--penalty`) calls it before each request.
  /// A call apart from ``Request``, so that no other policy's requests
  /// carry the field (it cost ARC 6 % more instructions a request).
  mutating func willServe(penalty: Float)

  /// What a learned policy's training has cost so far, or nil for a policy
  /// that does not learn (the default). Replay rows report it as
  /// `trainings` and `training_seconds`.
  var learning: LearningCounts? { get }

  /// Bytes the policy holds beside its entries' records, index and ghosts
  /// (W-TinyLFU's frequency sketch), 0 by default: what a
  /// `MemoryCache`'s configuration costs before its first entry.
  var sketchBytes: Int { get }

  /// Writes everything the policy decides by (its slab, lists, counters,
  /// sketch) so that ``restoreState(from:)`` on a policy built with the
  /// same parameters makes the same next decisions: a warm restart. Throws
  /// ``PolicyStateError/unsupported(policy:reason:)`` by default.
  func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError)

  /// Replaces the policy's state by one ``saveState(into:)`` wrote, on a
  /// policy built with the same parameters. Everything is checked, and the
  /// reader found at its end (``PolicyStateReader/finish()``), before
  /// anything changes: a damaged state throws and leaves the policy as it was.
  mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError)
}

/// Writes to a cache's second tier (flash), counted by the policy that
/// makes them: what flash wear depends on.
public struct TierWrites: Sendable, Equatable {
  /// Objects written.
  public var objects: Int64
  /// Their weight: bytes in byte mode, objects in count mode.
  public var bytes: Int64

  @inlinable public init(objects: Int64 = 0, bytes: Int64 = 0) {
    self.objects = objects
    self.bytes = bytes
  }
}

extension ReplacementPolicy where Self: ~Copyable {
  @inlinable public static var missedLookupChangesNothing: Bool { false }

  /// By default, one index probe where ``missedLookupChangesNothing``, two
  /// otherwise.
  @inlinable @inline(__always)
  public mutating func lookupIfResident(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard Self.missedLookupChangesNothing || contains(request.key) else { return nil }
    return lookup(request, onEvict: onEvict)
  }

  /// By default, a lookup: it finds the key resident at `slot`.
  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    lookup(request, onEvict: onEvict)
  }

  /// By default a policy says only whether `key` is resident.
  public func explain(_ key: Key) -> String? { contains(key) ? "resident" : nil }

  /// By default a policy has one tier and writes nowhere else.
  @inlinable public var flashWrites: TierWrites? { nil }
  @inlinable public var learning: LearningCounts? { nil }
  @inlinable public mutating func willServe(penalty: Float) {}
  @inlinable public var sketchBytes: Int { 0 }

  /// By default a policy does not save its state.
  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    throw .unsupported(policy: name, reason: "it has no saved form yet")
  }

  /// By default a policy does not restore a state.
  public mutating func restoreState(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) {
    throw .unsupported(policy: name, reason: "it has no saved form yet")
  }

  /// By default a policy gives no prefetch hints.
  @inlinable public func indexAddress(of key: Key) -> UnsafeRawPointer? { nil }
  @inlinable public func entryAddress(of key: Key) -> UnsafeRawPointer? { nil }
  @inlinable public func entryAddress(at slot: Slot) -> UnsafeRawPointer? { nil }
  @inlinable public func prefetchState(of key: Key) {}
  @inlinable public func prefetchLinks(of key: Key) {}

  /// By default a policy does not name its victim before evicting it.
  @inlinable public mutating func nextVictim() -> Slot? { nil }

  /// By default, the victims ``nextVictim()`` names, each approved before
  /// ``evictOne(onEvict:)`` evicts it, then ``admit(_:onEvict:)`` into the
  /// room made (for the policies with ``PolicyTraits/namesVictims``).
  @inlinable
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    admitApprovingVictims(request, onEvict: onEvict, approve: approve, heaviest: capacity)
  }

  /// The default ``admit(_:onEvict:approve:)`` for a policy whose
  /// ``admit(_:onEvict:)`` refuses, before evicting anything, an object
  /// heavier than `heaviest` (S3-FIFO's and S4-FIFO's small queue): such an
  /// object is refused without a victim asked for, as without a veto.
  @inlinable
  public mutating func admitApprovingVictims(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool, heaviest: Int64
  ) -> Slot? {
    if request.weight <= heaviest {
      while usedWeight &+ request.weight > capacity {
        guard let victim = nextVictim() else {
          preconditionFailure("\(name) neither names its victims nor asks before evicting")
        }
        guard approve(key(at: victim)) else { return nil }
        _ = evictOne(onEvict: onEvict)
      }
    }
    return admit(request, onEvict: onEvict)
  }

  /// Serves one request: ``lookup(_:onEvict:)``, then ``admit(_:onEvict:)`` on a miss.
  /// Returns whether it was a hit.
  @inlinable @inline(__always)
  public mutating func access(_ request: Request<Key>) -> Bool {
    if lookup(request, onEvict: { _, _ in }) != nil { return true }
    _ = admit(request) { _, _ in }
    return false
  }

  /// Evicts with ``evictOne(onEvict:)`` until `weight` more fits; returns
  /// false, evicting nothing, when `weight` exceeds the whole capacity.
  /// The common first half of ``admit(_:onEvict:)``.
  @inlinable @inline(__always)
  public mutating func makeRoom(for weight: Int64, onEvict: (Slot, Key) -> Void) -> Bool {
    guard weight <= capacity else { return false }
    while usedWeight &+ weight > capacity {
      _ = evictOne(onEvict: onEvict)
    }
    return true
  }
}

/// A policy kept in a ``PolicyStorage``: the protocol extension below
/// forwards the bookkeeping every such policy shares
/// (``ReplacementPolicy/capacity``, ``ReplacementPolicy/usedWeight``,
/// ``ReplacementPolicy/count``, ``ReplacementPolicy/contains(_:)``,
/// ``ReplacementPolicy/key(at:)``), so a policy's file holds only its own
/// decisions. A policy with ghost entries overrides `contains(_:)` (a ghost
/// is indexed but not resident).
public protocol StoredPolicy: ReplacementPolicy, ~Copyable {
  associatedtype Index: SlotIndex & ~Copyable where Index.Key == Key
  associatedtype Payload
  /// The index, the entry slab and the resident totals.
  var store: PolicyStorage<Index, Payload> { get set }
}

extension StoredPolicy where Self: ~Copyable {
  @inlinable public var capacity: Int64 { store.capacity }
  @inlinable public var usedWeight: Int64 { store.used }
  @inlinable public var count: Int { store.count }
  // Always inlined: called on a policy held in a class (the memory cache's
  // replay of buffered hits), an outlined call copied the whole policy
  // struct to the stack first (W-TinyLFU: 314 bytes a replayed hit).
  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }
  @inlinable @inline(__always) public func key(at slot: Slot) -> Key { store.table[slot].key }
  @inlinable @inline(__always)
  public func indexAddress(of key: Key) -> UnsafeRawPointer? { store.index.homeAddress(of: key) }
  @inlinable @inline(__always)
  public func entryAddress(of key: Key) -> UnsafeRawPointer? {
    let slot = store.index.likelySlot(of: key)
    return slot >= 0 ? store.table.address(of: slot) : nil
  }
  @inlinable @inline(__always)
  public func entryAddress(at slot: Slot) -> UnsafeRawPointer? { store.table.address(of: slot) }

  /// Prefetches the list neighbours of the entry `key`'s bucket names (a
  /// hit's move to another place writes both), for
  /// ``ReplacementPolicy/prefetchLinks(of:)``. A tag that names another
  /// key's entry costs two useless prefetches, never a wrong answer.
  @inlinable @inline(__always)
  public func prefetchNeighbours(of key: Key) {
    let slot = store.index.likelySlot(of: key)
    guard slot >= 0 else { return }
    let (prev, next) = (store.table[slot].prev, store.table[slot].next)
    if prev >= 0 { evictionlab_chunk_prefetch(store.table.address(of: prev)) }
    if next >= 0 { evictionlab_chunk_prefetch(store.table.address(of: next)) }
  }

  /// Prefetches what evicting `victim` will touch beyond its entry: its
  /// key's index bucket and the entry before it on its list (the next
  /// victim, whose own bucket the next call then prefetches). Read one
  /// call after the entry itself was prefetched, so evictions in a row
  /// run down the list without waiting on each entry in turn.
  @inlinable @inline(__always)
  public func prefetchEviction(of victim: Slot) {
    guard victim >= 0 else { return }
    if let home = store.index.homeAddress(of: store.table[victim].key) { evictionlab_chunk_prefetch(home) }
    let prev = store.table[victim].prev
    if prev >= 0 { evictionlab_chunk_prefetch(store.table.address(of: prev)) }
  }
}

/// What every policy stores: the index, the entry slab, and the resident
/// weight and count. Policies add their lists and parameters around it.
public struct PolicyStorage<Index: SlotIndex & ~Copyable, Payload>: ~Copyable {
  public typealias Key = Index.Key
  public var index: Index
  public var table: EntryTable<Key, Payload>
  public let capacity: Int64
  public var used: Int64 = 0
  public var count: Int = 0

  @inlinable
  public init(capacity: Int64, expectedEntries: Int = 1024) {
    precondition(capacity > 0, "capacity must be positive")
    self.capacity = capacity
    index = Index(minimumCapacity: expectedEntries)
    table = EntryTable(minimumCapacity: expectedEntries)
  }

  /// Writes the slab, each entry's payload by `payload`.
  public func save(into writer: inout PolicyStateWriter<Key>, payload: (inout PolicyStateWriter<Key>, Payload) -> Void)
  {
    writer.table(table, key: { $0.key($1) }, payload: payload)
  }

  /// Reads a slab ``save(into:payload:)`` wrote, each payload by `payload`
  /// (not yet the policy's: ``adopt(_:resident:)``).
  public static func read(
    from reader: inout PolicyStateReader<Key>,
    payload: (inout PolicyStateReader<Key>) throws(PolicyStateError) -> Payload
  ) throws(PolicyStateError) -> SavedTable<Key, Payload> {
    try reader.table(
      key: { (r: inout PolicyStateReader<Key>) throws(PolicyStateError) in try r.key() }, payload: payload)
  }

  /// Checks that the `resident` lists, already checked against `saved`,
  /// weigh no more than the capacity.
  public func checkResident(_ resident: [EntryList]) throws(PolicyStateError) {
    var weight: Int64 = 0
    for list in resident {
      let (sum, overflow) = weight.addingReportingOverflow(list.weight)
      guard !overflow else { throw .malformed("the resident entries weigh more than 2^63") }
      weight = sum
    }
    guard weight <= capacity else {
      throw .malformed("the resident entries weigh \(weight), above the capacity \(capacity)")
    }
  }

  /// Makes `saved` the slab, indexes its keys, and counts the entries on
  /// the `resident` lists (the others are ghosts).
  public mutating func adopt(_ saved: SavedTable<Key, Payload>, resident: [EntryList]) {
    table.adopt(saved)
    index.removeAll()
    var indexed = 0
    for s in 0..<saved.slots {
      guard let entry = saved.entry(Slot(s)) else { continue }
      indexed = s + 1
      index.insert(entry.key, slot: Slot(s)) { body in
        for t in 0..<indexed { if let e = saved.entry(Slot(t)) { body(e.key, Slot(t)) } }
      }
    }
    used = resident.reduce(0) { $0 + $1.weight }
    count = resident.reduce(0) { $0 + $1.count }
  }

  /// Creates a resident entry for `key` (on no list yet).
  @inlinable @inline(__always)
  public mutating func insert(_ key: Key, weight: Int64, payload: Payload) -> Slot {
    let slot = table.allocate(key: key, weight: weight, payload: payload)
    index.insert(key, slot: slot) { table.forEachEntry($0) }
    used &+= weight
    count &+= 1
    return slot
  }

  /// Marks a resident entry as no longer resident (it stays indexed, as a ghost).
  @inlinable @inline(__always)
  public mutating func retire(_ slot: Slot) {
    used &-= table[slot].weight
    count &-= 1
  }

  /// Deletes an entry, already off every list, from the index and the slab.
  @inlinable @inline(__always)
  public mutating func delete(_ slot: Slot, resident: Bool) {
    if resident { retire(slot) }
    index.remove(table[slot].key, slot: slot)
    table.release(slot)
  }

  /// Evicts the resident entry `slot` from `list`: unlinks it, tells
  /// `onEvict`, and deletes it.
  @inlinable @inline(__always)
  public mutating func evict(_ slot: Slot, from list: inout EntryList, onEvict: (Slot, Key) -> Void) {
    table.unlink(slot, &list)
    onEvict(slot, table[slot].key)
    delete(slot, resident: true)
  }

  /// Evicts the resident entry `victim` from `list` and admits `key` in
  /// its slot, at the front of `list`: ``evict(_:from:onEvict:)`` followed
  /// by ``insert(_:weight:payload:)`` and ``EntryTable/pushFront(_:_:tag:)``
  /// in one step, with the same result (the slab's free list would hand the
  /// victim's slot straight back), minus the free-list round trip and half
  /// the relinking. The miss of a full single-queue cache.
  @inlinable @inline(__always)
  public mutating func replace(
    _ victim: Slot, in list: inout EntryList, with key: Key, weight: Int64, payload: Payload,
    onEvict: (Slot, Key) -> Void
  ) {
    let old = table[victim].key
    onEvict(victim, old)
    index.remove(old, slot: victim)
    let change = weight &- table[victim].weight
    used &+= change
    list.weight &+= change
    table[victim].key = key
    table[victim].weight = weight
    table[victim].payload = payload
    index.insert(key, slot: victim) { table.forEachEntry($0) }
    table.moveToFront(victim, &list)
  }

  /// Inserts `request`'s object at the front (the newest end) of `list`.
  @inlinable @inline(__always)
  public mutating func insert(
    _ request: Request<Key>, payload: Payload, atFrontOf list: inout EntryList, tag: UInt8
  ) -> Slot {
    let slot = insert(request.key, weight: request.weight, payload: payload)
    table.pushFront(slot, &list, tag: tag)
    return slot
  }

  /// Forgets ghost `slot`, kept on `list`: a lookup found it there.
  @inlinable @inline(__always)
  public mutating func forget(_ slot: Slot, from list: inout EntryList) {
    table.unlink(slot, &list)
    delete(slot, resident: false)
  }

  /// Deletes the entry at the back of `list`, a list of non-resident
  /// (ghost) entries.
  @inlinable @inline(__always)
  public mutating func deleteBack(of list: inout EntryList) {
    let slot = list.back
    table.unlink(slot, &list)
    delete(slot, resident: false)
  }

  /// Files a just-evicted (retired) entry at the front of a ghost FIFO that
  /// keeps at most `capacity` weight, forgetting its oldest entries to make
  /// room; an entry heavier than the whole FIFO is forgotten at once.
  @inlinable @inline(__always)
  public mutating func remember(_ slot: Slot, in ghost: inout EntryList, capacity: Int64, tag: UInt8) {
    let weight = table[slot].weight
    guard weight <= capacity else {
      delete(slot, resident: false)
      return
    }
    while ghost.weight &+ weight > capacity { deleteBack(of: &ghost) }
    table.pushFront(slot, &ghost, tag: tag)
  }

  /// Removes resident `key`, kept on `list` (a single-list policy's only
  /// list); its slot, or nil.
  @inlinable
  public mutating func remove(_ key: Key, from list: inout EntryList) -> Slot? {
    let slot = find(key)
    guard slot >= 0 else { return nil }
    table.unlink(slot, &list)
    delete(slot, resident: true)
    return slot
  }

  /// The resident slot of `key`, or -1.
  @inlinable @inline(__always)
  public func find(_ key: Key) -> Slot { index.find(key) { table[$0].key == key } }

  /// Checks the resident totals against the lists that hold resident
  /// entries, and (`capped`) that they fit the capacity.
  public func checkTotals(_ resident: [EntryList], capped: Bool = true) {
    let weight = resident.reduce(Int64(0)) { $0 + $1.weight }
    let count = resident.reduce(0) { $0 + $1.count }
    precondition(weight == used, "resident lists weigh \(weight), counted \(used)")
    precondition(count == self.count, "resident lists hold \(count), counted \(self.count)")
    precondition(!capped || used <= capacity, "used \(used) exceeds capacity \(capacity)")
    precondition(index.count == table.live, "index holds \(index.count) keys, slab \(table.live)")
  }
}

extension PolicyStorage where Index: ~Copyable, Payload == UInt8 {
  /// CLOCK's hand over `list`, whose entries carry a reference counter: from
  /// the back, an entry with a nonzero counter loses one and goes to the
  /// front; the first entry found at zero is returned, still on the list.
  @inlinable @inline(__always)
  public mutating func clockVictim(of list: inout EntryList) -> Slot {
    var slot = list.back
    while table[slot].payload > 0 {
      table[slot].payload -= 1
      table.moveToFront(slot, &list)
      slot = list.back
    }
    return slot
  }
}

/// What a learned policy's learning cost over a run: how often it trained
/// its model, and the seconds training and predicting took (wall clock).
public struct LearningCounts: Sendable, Equatable {
  public var trainings: Int64
  public var seconds: Double
  /// What a tuner chose (S4-FIFO's knobs), for the row's `tuned` column; nil otherwise.
  public var choice: String?
  @inlinable public init(trainings: Int64 = 0, seconds: Double = 0, choice: String? = nil) {
    self.trainings = trainings
    self.seconds = seconds
    self.choice = choice
  }
}
