/// SR-LRU, the recency half of Cacheus (Rodriguez, Yusuf, Lyons, Paz,
/// Rangaswami, Liu, Zhao and Narasimhan, "Learning Cache Replacement with
/// CACHEUS", FAST'21): a scan-resistant LRU. New objects enter SR, an LRU of
/// their own; a hit in SR, or a request for a key SR evicted recently (kept in
/// a history H), moves the object to R, the LRU of proven objects, whose
/// oldest entries are demoted to the front of SR. So a scan of one-time
/// objects churns through SR and leaves R alone.
///
/// Two definitions, both libCacheSim's (`eviction/SR_LRU.c`; its command line
/// does not offer it: `results/reference/libcachesim_035_sr_lru.tsv` holds
/// 0.3.5's counts, from a driver linked to its library). By default the one
/// of its 2024 snapshot (aa0fc40), which keeps the capacity; with
/// `grow-sr=true` the one of release 0.3.5, which holds up to a few objects
/// more than the capacity (below), as no default policy here may. In 0.3.5:
/// - SR and R start with ⌊N/2⌋ each; H remembers SR's evictions, newest
///   first, and stays below N (it is trimmed while it weighs N or more);
/// - a request for a key in H whose ghost left SR as a *new* object (one that
///   entered on a miss, not one demoted from R) grows SR's limit, after the
///   object has entered R, to min(SR + max(1, ⌊D/C⌋), U − 1), where D counts
///   demotions from R not yet evicted from SR, C every new object SR has
///   evicted (never decreased), and U the weight resident with the newcomer;
///   R's limit becomes N − SR. The step is counted in objects in both size
///   modes, so in byte mode SR moves by a few bytes at a time. libCacheSim
///   computes it in floating point (⌊D/C⌋ + 0.5, at least 1.0, truncated when
///   added); the result is the same integer;
/// - the paper's other move, shrinking SR when a demoted object is hit in SR,
///   never happens in libCacheSim, which tests the demoted mark on the fresh,
///   unmarked copy it makes in R; nor does a hit take the object out of D;
/// - an object heavier than its list's limit (R's if H knows it, SR's
///   otherwise) is not admitted, and a known one stays in H;
/// - R is trimmed only when something enters it, SR only on admissions: SR may
///   hold more than its limit between a hit, whose promotion to R demotes R's
///   oldest entries into SR, and the next admission; and when SR's limit grows,
///   R keeps its entries until the next move into R, so the two together may
///   exceed N by the last step (cloudPhysicsIO, count mode, 500 objects: 501
///   resident after 30,964 of the 113,872 requests, as in libCacheSim).
///
/// The 2024 libCacheSim (aa0fc40), the default here, dropped the ghost's mark
/// when the object re-entered R, so neither move ever happened: SR and R keep
/// ⌊N/2⌋ each and never exceed N together (the older reference rows agree
/// with it). On cloudPhysicsIO at 500 objects it misses 94,428 times, 0.3.5
/// (`grow-sr=true`) 94,942 times.
///
/// Where libCacheSim's lists would run dry (R's limit below 0, reachable only
/// once the cache holds more than N, or SR's below 0 with weightless objects)
/// it would dereference a missing victim; here the trimming stops.
/// A removal deletes the key (a ghost in H too): it is not an eviction, so it
/// leaves no history, where libCacheSim's remove files it in H; a removed
/// demoted object leaves D.
public struct SRLRUPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  @inlinable @inline(__always) static var inR: UInt8 { 1 }
  @inlinable @inline(__always) static var inSR: UInt8 { 2 }
  @inlinable @inline(__always) static var inHistory: UInt8 { 3 }

  /// The payload marks an SR entry that entered on a miss (true) rather than
  /// by demotion from R, and a ghost that left SR so; R's entries carry false.
  public var store: PolicyStorage<Index, Bool>
  /// Proven objects, most recently used first.
  @usableFromInline var recent = EntryList()
  /// New and demoted objects, most recently used first.
  @usableFromInline var scanResistant = EntryList()
  /// Ghosts of SR's evictions, newest first.
  @usableFromInline var history = EntryList()
  /// SR's limit: the most it keeps after an admission.
  @usableFromInline var scanResistantLimit: Int64
  /// R's limit: the most it keeps after something enters it.
  @usableFromInline var recentLimit: Int64
  /// Demotions from R whose object SR has not evicted since (libCacheSim's `C_demoted`).
  @usableFromInline var demotions: Int64 = 0
  /// New objects SR has evicted into H, ever (libCacheSim's `C_new`).
  @usableFromInline var newEvictions: Int64 = 0
  /// Whether SR's limit grows on a return of a new object (0.3.5,
  /// `grow-sr=true`), or the halves stay fixed (the 2024 libCacheSim).
  public let movesBoundary: Bool

  @inlinable
  public init(capacity: Int64, growsSR: Bool = false) {
    store = PolicyStorage(capacity: capacity)
    scanResistantLimit = capacity / 2
    recentLimit = capacity / 2
    movesBoundary = growsSR
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { movesBoundary ? "SR-LRU(grow-sr)" : "SR-LRU" }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].list != Self.inHistory
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inR:
      store.table.moveToFront(slot, &recent)
    case Self.inSR:
      store.table.unlink(slot, &scanResistant)
      store.table[slot].payload = false
      store.table.pushFront(slot, &recent, tag: Self.inR)
      demote(above: 0)
    default:
      return nil
    }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  /// SR's trim, which libCacheSim makes after inserting, runs before the
  /// insertion here (it evicts the same entries: the newcomer is never SR's
  /// oldest, and one returning from H enters R), so each victim can be
  /// approved before anything enters.
  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    let known = store.find(request.key)
    let slot: Slot
    if known >= 0 {
      guard request.weight <= recentLimit else { return nil }
      let returnsNew = store.table[known].payload
      store.forget(known, from: &history)
      demote(above: request.weight)
      if returnsNew && movesBoundary { growScanResistant(admitting: request.weight) }
      guard trimScanResistant(making: 0, onEvict, approve) else { return nil }
      slot = store.insert(request.key, weight: request.weight, payload: false)
      store.table.pushFront(slot, &recent, tag: Self.inR)
    } else {
      guard request.weight <= scanResistantLimit else { return nil }
      guard trimScanResistant(making: request.weight, onEvict, approve) else { return nil }
      slot = store.insert(request.key, weight: request.weight, payload: true)
      store.table.pushFront(slot, &scanResistant, tag: Self.inSR)
    }
    return slot
  }

  /// Moves the SR/R boundary for a new object returning from H: SR grows by
  /// ⌊demotions / new evictions⌋, at least 1, but stays below the resident
  /// weight with the newcomer (`incoming`); R gets the rest of N.
  @inlinable @inline(__always)
  mutating func growScanResistant(admitting incoming: Int64) {
    // libCacheSim's quotient passes through a C int; it stays far below 2³¹.
    let quotient = Int64(Int32(truncatingIfNeeded: newEvictions > 0 ? demotions / newEvictions : 0))
    let ceiling = store.used &+ incoming &- 1
    scanResistantLimit = min(scanResistantLimit &+ max(quotient, 1), ceiling)
    recentLimit = store.capacity &- scanResistantLimit
  }

  /// Evicts SR's oldest entries into H until `room` more fits SR's limit;
  /// false when `approve` refuses one.
  @inlinable @inline(__always)
  mutating func trimScanResistant(
    making room: Int64, _ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool
  ) -> Bool {
    while scanResistant.weight &+ room > scanResistantLimit && !scanResistant.isEmpty {
      guard approve(store.table[scanResistant.back].key) else { return false }
      evictBack(of: Self.inSR, onEvict)
    }
    return true
  }

  /// Evicts SR's oldest entry into H, or R's when SR is empty.
  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    evictBack(of: scanResistant.isEmpty ? Self.inR : Self.inSR, onEvict)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inR: store.table.unlink(slot, &recent)
    case Self.inSR:
      store.table.unlink(slot, &scanResistant)
      if !store.table[slot].payload { demotions &-= 1 }
    default:
      store.forget(slot, from: &history)
      return nil
    }
    store.delete(slot, resident: true)
    return slot
  }

  /// Demotes R's oldest entries to the front of SR until R, with `incoming`
  /// more weight, fits its limit.
  @inlinable @inline(__always)
  mutating func demote(above incoming: Int64) {
    while recent.weight &+ incoming > recentLimit && !recent.isEmpty {
      let slot = recent.back
      store.table.unlink(slot, &recent)
      store.table[slot].payload = false
      store.table.pushFront(slot, &scanResistant, tag: Self.inSR)
      demotions &+= 1
    }
  }

  /// Evicts the oldest entry of R or SR (`list`) into H, then trims H below N.
  @inlinable @inline(__always)
  mutating func evictBack(of list: UInt8, _ onEvict: (Slot, Key) -> Void) {
    let slot: Slot
    if list == Self.inSR {
      slot = scanResistant.back
      store.table.unlink(slot, &scanResistant)
      if store.table[slot].payload { newEvictions &+= 1 } else { demotions &-= 1 }
    } else {
      slot = recent.back
      store.table.unlink(slot, &recent)
    }
    onEvict(slot, store.table[slot].key)
    store.retire(slot)
    store.table.pushFront(slot, &history, tag: Self.inHistory)
    while history.weight >= store.capacity { store.deleteBack(of: &history) }
  }

  public func checkInvariants() {
    store.table.checkList(recent, tag: Self.inR, "R")
    store.table.checkList(scanResistant, tag: Self.inSR, "SR")
    store.table.checkList(history, tag: Self.inHistory, "H")
    precondition(history.weight < store.capacity, "H not below the capacity")
    precondition(count(marked: true, in: recent) == 0, "an entry of R marked new")
    precondition(demotions >= count(marked: false, in: scanResistant), "SR holds more demoted entries than counted")
    precondition(newEvictions >= count(marked: true, in: history), "H holds more new ghosts than SR evicted")
    if movesBoundary {
      precondition(
        scanResistantLimit + recentLimit == store.capacity
          || (scanResistantLimit == store.capacity / 2 && recentLimit == scanResistantLimit),
        "SR's and R's limits do not share the capacity")
      // SR and R may together exceed N by SR's last step (see the header).
      precondition(recent.weight + scanResistant.weight == store.used, "R and SR do not weigh what is counted")
      precondition(recent.count + scanResistant.count == store.count, "R and SR do not hold what is counted")
      precondition(store.index.count == store.table.live, "index and slab disagree")
    } else {
      precondition(recent.weight <= recentLimit, "R over its half")
      store.checkTotals([recent, scanResistant])
    }
  }

  /// How many entries of `list` carry `mark` (see ``store``).
  func count(marked mark: Bool, in list: EntryList) -> Int {
    var found = 0
    var slot = list.front
    while slot >= 0 {
      if store.table[slot].payload == mark { found += 1 }
      slot = store.table[slot].next
    }
    return found
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("R", store.table.keys(of: recent)), ("SR", store.table.keys(of: scanResistant)),
      ("H", store.table.keys(of: history)),
    ]
  }
}

/// SR-LRU in the catalog.
public enum SRLRU: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "sr-lru", displayName: "SR-LRU", summary: "scan-resistant LRU: new objects wait in SR, proven ones live in R",
    citation: "Rodriguez et al., FAST'21",
    parameters: [
      PolicyParameter(
        switch: "grow-sr", default: false,
        help: "libCacheSim 0.3.5's SR-LRU: SR's limit grows when a new object returns (may exceed the capacity)")
    ],
    traits: .asksBeforeEvicting,
    checkedAgainst: "libCacheSim's 2024 snapshot (4 encodings × 2 size modes); with grow-sr=true, 0.3.5 "
      + "(cloudPhysicsIO and twitter, both size modes)",
    libCacheSim: "aa0fc40 (2024); 0.3.5 with grow-sr=true")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(SRLRUPolicy<Index>(capacity: capacity, growsSR: spec.isOn("grow-sr")))
  }

  /// Each half admits objects up to its weight: in count mode it needs 2.
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool { capacity / 2 >= 1 }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; SR-LRU keeps two halves of the capacity and admits only what fits one: raise the size"
  }
}
