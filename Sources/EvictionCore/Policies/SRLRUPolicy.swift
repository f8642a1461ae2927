/// SR-LRU, the recency half of Cacheus (Rodriguez, Yusuf, Lyons, Paz,
/// Rangaswami, Liu, Zhao and Narasimhan, "Learning Cache Replacement with
/// CACHEUS", FAST'21): a scan-resistant LRU. New objects enter SR, an LRU of
/// their own; a hit in SR, or a request for a key SR evicted recently (kept in
/// a history H), moves the object to R, the LRU of proven objects, whose
/// oldest entries are demoted to the front of SR. So a scan of one-time
/// objects churns through SR and leaves R alone.
///
/// Follows libCacheSim's `sr_lru` (`eviction/SR_LRU.c`), which differs from
/// the paper in one respect, reproduced here:
/// - the paper moves the SR/R boundary (by the ratio of demoted to new
///   objects); libCacheSim sets the flags that drive the move on an object's
///   old copy, and tests them on its new, zeroed copy, so the boundary never
///   moves: SR and R keep ⌊N/2⌋ each (N−1 together for an odd N);
/// - H remembers SR's evictions, newest first, and stays below N (it is
///   trimmed while it weighs N or more);
/// - an object heavier than its list (R if H knows it, SR otherwise) is not
///   admitted, and a known one stays in H;
/// - SR may hold more than its half between a hit, whose promotion to R
///   demotes R's oldest entries into SR, and the next admission, which trims
///   SR into H; SR and R together never exceed N.
///
/// A removal deletes the key (a ghost in H too): it is not an eviction, so it
/// leaves no history, where libCacheSim's remove files it in H.
public struct SRLRUPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  @inlinable @inline(__always) static var inR: UInt8 { 1 }
  @inlinable @inline(__always) static var inSR: UInt8 { 2 }
  @inlinable @inline(__always) static var inHistory: UInt8 { 3 }

  public var store: PolicyStorage<Index, Void>
  /// Proven objects, most recently used first.
  @usableFromInline var recent = EntryList()
  /// New and demoted objects, most recently used first.
  @usableFromInline var scanResistant = EntryList()
  /// Ghosts of SR's evictions, newest first.
  @usableFromInline var history = EntryList()
  /// The weight R and SR each keep (SR between admissions aside).
  public let half: Int64

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
    half = capacity / 2
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "SR-LRU" }

  @inlinable public func contains(_ key: Key) -> Bool {
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
  /// oldest), so each victim can be approved before anything enters.
  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    let known = store.find(request.key)
    guard request.weight <= half else { return nil }
    let slot: Slot
    if known >= 0 {
      store.table.unlink(known, &history)
      store.delete(known, resident: false)
      demote(above: request.weight)
      guard trimScanResistant(making: 0, onEvict, approve) else { return nil }
      slot = store.insert(request.key, weight: request.weight, payload: ())
      store.table.pushFront(slot, &recent, tag: Self.inR)
    } else {
      guard trimScanResistant(making: request.weight, onEvict, approve) else { return nil }
      slot = store.insert(request.key, weight: request.weight, payload: ())
      store.table.pushFront(slot, &scanResistant, tag: Self.inSR)
    }
    return slot
  }

  /// Evicts SR's oldest entries into H until `room` more fits SR's half;
  /// false when `approve` refuses one.
  @inlinable @inline(__always)
  mutating func trimScanResistant(
    making room: Int64, _ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool
  ) -> Bool {
    while scanResistant.weight &+ room > half {
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
    case Self.inSR: store.table.unlink(slot, &scanResistant)
    default:
      store.table.unlink(slot, &history)
      store.delete(slot, resident: false)
      return nil
    }
    store.delete(slot, resident: true)
    return slot
  }

  /// Demotes R's oldest entries to the front of SR until R, with `incoming`
  /// more weight, fits its half.
  @inlinable @inline(__always)
  mutating func demote(above incoming: Int64) {
    while recent.weight &+ incoming > half {
      let slot = recent.back
      store.table.unlink(slot, &recent)
      store.table.pushFront(slot, &scanResistant, tag: Self.inSR)
    }
  }

  /// Evicts the oldest entry of R or SR (`list`) into H, then trims H below N.
  @inlinable @inline(__always)
  mutating func evictBack(of list: UInt8, _ onEvict: (Slot, Key) -> Void) {
    let slot: Slot
    if list == Self.inSR {
      slot = scanResistant.back
      store.table.unlink(slot, &scanResistant)
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
    precondition(recent.weight <= half, "R over its half")
    precondition(history.weight < store.capacity, "H not below the capacity")
    store.checkTotals([recent, scanResistant])
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("R", store.table.keys(of: recent)), ("SR", store.table.keys(of: scanResistant)),
      ("H", store.table.keys(of: history)),
    ]
  }
}

/// SR-LRU in the catalog.
public enum SRLRU: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "sr-lru", summary: "scan-resistant LRU: new objects wait in SR, proven ones live in R",
    citation: "Rodriguez et al., FAST'21", traits: .asksBeforeEvicting,
    checkedAgainst: "libCacheSim (4 encodings × 2 size modes)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(SRLRUPolicy<Index>(capacity: capacity))
  }

  /// Each half admits objects up to its weight: in count mode it needs 2.
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool { capacity / 2 >= 1 }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; SR-LRU keeps two halves of the capacity and admits only what fits one: raise the size"
  }
}
