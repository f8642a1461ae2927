// The policy families: what the policies of one shape share (removal,
// residency, the structural check, the list report and the steps their
// decisions are made of), so that a policy's file holds only its own
// decisions. Caffeine's simulator groups its policies the same way.

/// A policy whose resident entries are all on one list, ``queue`` (LRU,
/// FIFO, CLOCK, SIEVE, …): removal, the list report and the structural
/// check come from the extension below.
public protocol SingleListPolicy: StoredPolicy, ~Copyable {
  /// The resident entries, tagged 0.
  var queue: EntryList { get set }
}

extension SingleListPolicy where Self: ~Copyable {
  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    // Through the protocol, `store` and `queue` are both accesses to self:
    // take the list out, so the two never overlap.
    var list = queue
    let slot = store.remove(key, from: &list)
    queue = list
    return slot
  }

  public func checkInvariants() {
    store.table.checkList(queue, tag: 0, "queue")
    store.checkTotals([queue])
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("queue", store.table.keys(of: queue))]
  }
}

/// A policy whose resident entries sit in equal segments, tagged by their
/// segment, the bottom one (0) allowed over its share (SLRU, SFIFO,
/// LP-SFIFO): removal, the list report and the structural check come from
/// the extension below.
public protocol SegmentedPolicy: StoredPolicy, ~Copyable {
  /// Segment 0 is the bottom; an entry's tag is its segment.
  var segments: [EntryList] { get set }
  /// The weight each segment above the bottom keeps within.
  var segmentLimit: Int64 { get }
}

extension SegmentedPolicy where Self: ~Copyable {
  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let segment = Int(store.table[slot].list)
    segments[segment] = store.table.unlinking(slot, from: segments[segment])
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    for (i, segment) in segments.enumerated() {
      store.table.checkList(segment, tag: UInt8(i), "segment \(i)")
      precondition(i == 0 || segment.weight <= segmentLimit, "segment \(i) over its share")
    }
    store.checkTotals(segments)
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    return slot < 0 ? nil : "segment \(store.table[slot].list)"
  }

  public func lists() -> [(name: String, keys: [Key])] {
    segments.enumerated().map { ("segment \($0.offset)", store.table.keys(of: $0.element)) }
  }
}

/// A policy with a probationary queue for new objects (tag 1), a main queue
/// for proven ones (tag 2) and a ghost queue remembering keys evicted from
/// probation (tag 3): 2Q, S3-FIFO, S3-FIFO-D, QD-LP, Clock2Q+. Removal,
/// residency (a ghost is indexed but not resident), the report and the
/// lists' structural check come from the extension below; a policy adds
/// its own bounds.
public protocol ProbationGhostPolicy: StoredPolicy, ~Copyable {
  var probation: EntryList { get set }
  var main: EntryList { get set }
  var ghost: EntryList { get set }
  /// Whether the last lookup missed on a ghost (the lookup forgets the
  /// ghost, ``PolicyStorage/forget(_:from:)``, and sets it): the admission
  /// that follows sends the object to the main queue (``takeGhostHit()``).
  var hitOnGhost: Bool { get set }
  /// The three queues' names in the policy's own terms, in that order.
  static var queueNames: (probation: String, main: String, ghost: String) { get }
}

extension ProbationGhostPolicy where Self: ~Copyable {
  @inlinable @inline(__always) static var inProbation: UInt8 { 1 }
  @inlinable @inline(__always) static var inMain: UInt8 { 2 }
  @inlinable @inline(__always) static var inGhost: UInt8 { 3 }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    // Through the protocol, `store` and the queues are all accesses to self:
    // each list is read, then `store` changed, then the list written back.
    switch store.table[slot].list {
    case Self.inProbation:
      probation = store.table.unlinking(slot, from: probation)
    case Self.inMain:
      main = store.table.unlinking(slot, from: main)
    default:
      ghost = store.table.unlinking(slot, from: ghost)
      store.delete(slot, resident: false)
      return nil
    }
    store.delete(slot, resident: true)
    return slot
  }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].list != Self.inGhost
  }

  /// Whether the request being admitted came back from the ghost queue;
  /// reading it clears it.
  @inlinable @inline(__always)
  public mutating func takeGhostHit() -> Bool {
    let hit = hitOnGhost
    hitOnGhost = false
    return hit
  }

  /// The queues' links, tags and totals; a policy's `checkInvariants()`
  /// calls this and adds its own bounds.
  public func checkQueues() {
    let names = Self.queueNames
    store.table.checkList(probation, tag: Self.inProbation, names.probation)
    store.table.checkList(main, tag: Self.inMain, names.main)
    store.table.checkList(ghost, tag: Self.inGhost, names.ghost)
    store.checkTotals([probation, main])
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let names = Self.queueNames
    switch store.table[slot].list {
    case Self.inProbation: return names.probation
    case Self.inMain: return names.main
    default: return names.ghost.contains("ghost") ? names.ghost : "\(names.ghost) (ghost)"
    }
  }

  public func lists() -> [(name: String, keys: [Key])] {
    let names = Self.queueNames
    return [
      (names.probation, store.table.keys(of: probation)), (names.main, store.table.keys(of: main)),
      (names.ghost, store.table.keys(of: ghost)),
    ]
  }
}

/// The payload of a ``SampledPolicy``'s entry: at least its place in
/// `members`.
public protocol MemberPlace {
  /// The entry's index in `members` (a policy may mark entries kept
  /// elsewhere, such as Belady-Size's dead ones, with -1).
  var position: Int32 { get set }
}

/// The payload of a sampled policy that keeps nothing else per entry.
@frozen public struct Membership: MemberPlace {
  public var position: Int32
  @inlinable public init(position: Int32) { self.position = position }
}

/// A policy that draws victims from a random sample of its resident entries
/// (Random, RandomTwo, Hyperbolic, LHD, Belady-Size): the members sit in an
/// array, each entry's payload holding its place there, so a draw is O(1)
/// and removal swaps the last member into the gap. Admission, eviction,
/// removal and the structural check of the members come from the extension
/// below; ``willLeave(_:)`` lets a policy drop its own references first.
public protocol SampledPolicy: StoredPolicy, ~Copyable where Payload: MemberPlace {
  /// The entries victims are drawn from, in no particular order.
  var members: OwnedArray<Slot> { get set }
  /// Called before member `slot` leaves the cache (evicted or removed).
  mutating func willLeave(_ slot: Slot)
}

extension SampledPolicy where Self: ~Copyable {
  @inlinable @inline(__always) public mutating func willLeave(_ slot: Slot) {}

  /// Evicts the member ``ReplacementPolicy/nextVictim()`` draws.
  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    evictMember(victim, onEvict: onEvict)
    return true
  }

  /// Inserts `request`'s object with `payload` as the last member.
  @inlinable @inline(__always)
  public mutating func insertMember(_ request: Request<Key>, payload: Payload) -> Slot {
    var payload = payload
    payload.position = Int32(members.count)
    let slot = store.insert(request.key, weight: request.weight, payload: payload)
    members.append(slot)
    return slot
  }

  /// Takes `slot` out of `members`; the last member moves into its place.
  @inlinable @inline(__always)
  public mutating func detachMember(_ slot: Slot) {
    let position = Int(store.table[slot].payload.position)
    let last = members.removeLast()
    if last != slot {
      members[position] = last
      store.table[last].payload.position = Int32(position)
    }
  }

  /// Evicts member `slot`, telling `onEvict`.
  @inlinable @inline(__always)
  public mutating func evictMember(_ slot: Slot, onEvict: (Slot, Key) -> Void) {
    willLeave(slot)
    detachMember(slot)
    onEvict(slot, store.table[slot].key)
    store.delete(slot, resident: true)
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    willLeave(slot)
    detachMember(slot)
    store.delete(slot, resident: true)
    return slot
  }

  /// Checks that every member is indexed and knows its place, hands each
  /// member's payload to `check`, and returns the members' total weight.
  public func checkMembers(_ check: (Payload) -> Void = { _ in }) -> Int64 {
    var weight: Int64 = 0
    for (position, slot) in members.elements.enumerated() {
      precondition(store.table[slot].payload.position == Int32(position), "member position out of date")
      precondition(store.find(store.table[slot].key) == slot, "member not indexed")
      check(store.table[slot].payload)
      weight += store.table[slot].weight
    }
    precondition(store.used <= store.capacity, "used exceeds capacity")
    return weight
  }

  /// ``checkMembers(_:)`` for a policy whose members are all its residents.
  public func checkAllMembers(_ check: (Payload) -> Void = { _ in }) {
    let weight = checkMembers(check)
    precondition(members.count == store.count && weight == store.used, "member totals differ")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("members", members.elements.map { store.table[$0].key })]
  }
}

/// A policy whose resident entries sit in one ``SlotHeap``, the top leaving
/// first (Belady, GDSF, SIZE, the timed-trim model): eviction of the top,
/// removal, the heap's structural check and the report in eviction order
/// come from the extension below; a policy ranks its entries and may add
/// to an eviction (GDSF raises its inflation first).
public protocol HeapPolicy: StoredPolicy, ~Copyable {
  associatedtype Priority: Comparable & BitwiseCopyable
  /// The resident entries; the greatest priority leaves first.
  var heap: SlotHeap<Priority> { get set }
  /// The heap's order in words, for ``ReplacementPolicy/lists()``
  /// (`by size, next victim first`).
  static var heapOrder: String { get }
  /// Whether resident weight stays within the capacity (a model of a
  /// cache that trims late need not).
  static var staysWithinCapacity: Bool { get }
}

extension HeapPolicy where Self: ~Copyable {
  @inlinable @inline(__always) public static var staysWithinCapacity: Bool { true }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool { evictTop(onEvict: onEvict) }

  /// Evicts the heap's top, if any: the default ``ReplacementPolicy/evictOne(onEvict:)``,
  /// and the end of one that does more first (GDSF and CAMP raise L to the victim's priority).
  @inlinable @inline(__always)
  public mutating func evictTop(onEvict: (Slot, Key) -> Void) -> Bool {
    guard heap.count > 0 else { return false }
    let victim = heap.pop()
    onEvict(victim, store.table[victim].key)
    store.delete(victim, resident: true)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    heap.remove(slot)
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.checkHeap(heap)
    precondition(!Self.staysWithinCapacity || store.used <= store.capacity, "used exceeds capacity")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [(Self.heapOrder, store.keysInEvictionOrder(heap))]
  }
}

/// A policy with ARC's directory: resident lists T1 (entries seen once
/// recently) and T2 (seen at least twice), ghost lists B1 and B2 (what each
/// evicted), tagged 1 to 4 (ARC, LP-ARC, CAR). Removal, residency, the
/// lists' structural check, the report and the explanation come from the
/// extension below; a policy adds its bounds and its own moves.
public protocol ARCDirectoryPolicy: StoredPolicy, ~Copyable {
  var t1: EntryList { get set }
  var t2: EntryList { get set }
  var b1: EntryList { get set }
  var b2: EntryList { get set }
}

extension ARCDirectoryPolicy where Self: ~Copyable {
  @inlinable @inline(__always) static var inT1: UInt8 { 1 }
  @inlinable @inline(__always) static var inT2: UInt8 { 2 }
  @inlinable @inline(__always) static var inB1: UInt8 { 3 }
  @inlinable @inline(__always) static var inB2: UInt8 { 4 }

  /// Takes `key` out of whichever list holds it; its slot if it was
  /// resident, nil if it was a ghost or unknown.
  @inlinable
  public mutating func removeFromDirectory(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    // Through the protocol, `store` and the lists are all accesses to self:
    // each list is read, then `store` changed, then the list written back.
    let tag = store.table[slot].list
    switch tag {
    case Self.inT1:
      t1 = store.table.unlinking(slot, from: t1)
    case Self.inT2:
      t2 = store.table.unlinking(slot, from: t2)
    case Self.inB1:
      b1 = store.table.unlinking(slot, from: b1)
    default:
      b2 = store.table.unlinking(slot, from: b2)
    }
    store.delete(slot, resident: tag <= Self.inT2)
    return tag <= Self.inT2 ? slot : nil
  }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].list <= Self.inT2
  }

  /// The four lists' links and tags; a policy's `checkInvariants()` calls
  /// this and adds its totals and bounds.
  public func checkDirectory() {
    store.table.checkList(t1, tag: Self.inT1, "T1")
    store.table.checkList(t2, tag: Self.inT2, "T2")
    store.table.checkList(b1, tag: Self.inB1, "B1")
    store.table.checkList(b2, tag: Self.inB2, "B2")
  }

  /// Whether the directory holds exactly one unit of weight an entry, so
  /// that the paper's bounds on list lengths apply as written.
  public var directoryIsUnweighted: Bool {
    [t1, t2, b1, b2].allSatisfy { $0.weight == Int64($0.count) }
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inT1: return "T1"
    case Self.inT2: return "T2"
    case Self.inB1: return "B1 (ghost)"
    default: return "B2 (ghost)"
    }
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("T1", store.table.keys(of: t1)), ("T2", store.table.keys(of: t2)),
      ("B1", store.table.keys(of: b1)), ("B2", store.table.keys(of: b2)),
    ]
  }
}
