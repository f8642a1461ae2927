/// CLOCK-Pro (Jiang, Chen and Zhang, "CLOCK-Pro: An Effective Improvement
/// of the CLOCK Replacement", USENIX ATC'05): LIRS's reuse-distance test
/// on one clock, so a hit only sets a reference bit. Pages are hot (small
/// reuse distance) or cold; a new page enters cold, in a test period, and a
/// re-access within its test period (while resident, or after eviction as a
/// non-resident page the clock still remembers) makes it hot. Three hands
/// sweep one ring: HAND_cold evicts resident cold pages, HAND_hot turns the
/// oldest unreferenced hot page cold, HAND_test ends test periods and
/// forgets non-resident pages.
///
/// From the paper's description (its Section 4), in its adaptive form:
/// - a hit sets the reference bit; a miss runs HAND_cold until the object
///   fits. At a resident cold page with its bit set, HAND_cold clears it
///   and moves the page to the head: hot if it was in its test period,
///   otherwise cold in a new test period; an unset page is evicted and stays
///   in the ring as non-resident while in its test period;
/// - HAND_hot runs while the hot pages exceed the capacity less the cold
///   target m_c: it clears set bits and turns the first unset hot page cold
///   (not in test); it pushes HAND_test ahead when it reaches it, so the
///   cold pages it passes leave their test periods (and the ring, if
///   non-resident);
/// - HAND_test also runs while non-resident pages exceed the capacity,
///   ending test periods until a non-resident page has left;
/// - m_c adapts within [max(1, 1%), capacity − max(1, 1%)] of the
///   capacity: one page more when a non-resident page is requested in its
///   test period, one less when one's test period runs out;
/// - the head, where new and moved pages go, is just behind HAND_hot (the
///   ring's oldest end), so "moving HAND_hot forward" leaves the page it
///   passes at the head, as the paper says.
///
/// Where the paper leaves a choice, this follows the authors' simulator
/// (`clock-pro.c`, 2005): m_c starts at its minimum and the first pages
/// enter hot until the hot share is reached; a miss on a page in its test
/// period turns it hot at once; m_c counts the outcomes of non-resident
/// pages' tests only (a resident cold page HAND_cold finds re-accessed in
/// its test turns hot without moving m_c). With weights (byte mode) pages weigh their
/// size, m_c moves by the page's weight, and HAND_hot demotes until the
/// hot weight fits; on equal weights each is the paper's step.
///
/// libCacheSim 0.3.5's `clockpro` (new in that release) fills the cache once
/// and then never evicts, so past that point it is not CLOCK-Pro: its
/// admission test refuses an object unless the cold pages plus the object
/// fit within m_c, which starts at the whole capacity (`init-ratio-cold=1`),
/// and it enters every new page cold. The first pages fill the cache, all
/// cold; from then on an object is admitted only into room left over, and
/// its hands, which only an eviction would start, never move (nor does m_c).
/// With
/// `libcachesim=true` this does the same (the same admission test, m_c
/// starting at the capacity, new pages cold) and reproduces all 13
/// `clockpro` rows of libcachesim_035.tsv exactly; the default reproduces
/// none. On twitter_cluster52 at 1,000 objects it keeps the first 1,000 keys
/// for good and misses 576,662 times, this CLOCK-Pro 381,732: they part at
/// request 2,417, the first miss on a full cache (refused there, HAND_cold
/// evicts here) and first differ in outcome at request 2,435 (cloudPhysicsIO
/// at 100 objects: 103,171 misses against 97,780, apart from request 203,
/// in outcome from 233). In that mode only a trim from outside (`evictOne`,
/// a `MemoryCache` limit) starts the hands, which libCacheSim's replays never
/// do.
///
/// No reference figures exist here. Checked: the clock's invariants after
/// every request (resident weight within the capacity, hot weight within
/// capacity − m_c after every miss, non-resident weight within the capacity,
/// non-resident pages cold and in test, hot pages never in test), the
/// conformance suite, and the paper's findings that CLOCK-Pro resists scans
/// and loops where CLOCK does not and comes close to LIRS
/// (`LiteraturePolicyTests`).
public struct ClockProPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  @inlinable @inline(__always) static var hot: UInt8 { 1 }
  @inlinable @inline(__always) static var inTest: UInt8 { 2 }
  @inlinable @inline(__always) static var referenced: UInt8 { 4 }
  @inlinable @inline(__always) static var resident: UInt8 { 8 }
  @inlinable @inline(__always) static var inRing: UInt8 { 1 }

  /// Entries carry their flags: hot, in test, referenced, resident.
  public var store: PolicyStorage<Index, UInt8>
  /// The clock. Hands move towards the back and wrap to the front.
  @usableFromInline var ring = EntryList()
  @usableFromInline var handHot: Slot = -1
  @usableFromInline var handCold: Slot = -1
  @usableFromInline var handTest: Slot = -1
  @usableFromInline var hotWeight: Int64 = 0
  @usableFromInline var coldWeight: Int64 = 0
  @usableFromInline var nonResidentWeight: Int64 = 0
  /// Resident hot and cold pages by number: a page may weigh nothing (a
  /// `MemoryCache` entry of cost 0), so weights cannot tell whether any is left.
  @usableFromInline var hotCount = 0
  @usableFromInline var coldCount = 0
  /// m_c, the weight the cold resident pages aim at.
  @usableFromInline var coldTarget: Int64
  @usableFromInline let minimumCold: Int64
  @usableFromInline let maximumCold: Int64
  /// libCacheSim 0.3.5's `clockpro`: a new page is admitted only while the
  /// cold pages stay within m_c, which starts at the whole capacity.
  @usableFromInline let coldGate: Bool

  @inlinable
  public init(capacity: Int64, libCacheSim: Bool = false) {
    store = PolicyStorage(capacity: capacity)
    coldGate = libCacheSim
    minimumCold = max(1, capacity / 100)
    maximumCold = libCacheSim ? capacity : max(minimumCold, capacity - minimumCold)
    coldTarget = libCacheSim ? capacity : minimumCold
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { coldGate ? "CLOCK-Pro(libcachesim)" : "CLOCK-Pro" }

  /// The weight of the hot pages.
  public var hotPages: Int64 { hotWeight }
  /// m_c, the weight the cold resident pages aim at.
  public var coldAllocation: Int64 { coldTarget }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].payload & Self.resident != 0
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0, store.table[slot].payload & Self.resident != 0 else { return nil }
    store.table[slot].payload |= Self.referenced
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let weight = request.weight
    guard weight <= store.capacity else { return nil }
    if coldGate {
      // libCacheSim refuses a page the cold target cannot take and enters
      // every page cold. Until a trim from outside, the cold pages are all
      // that is resident, so the cache fills once and never evicts.
      guard coldWeight &+ weight <= coldTarget else { return nil }
      if store.used &+ weight <= store.capacity && store.find(request.key) < 0 {
        let slot = store.insert(request.key, weight: weight, payload: Self.resident | Self.inTest)
        coldWeight &+= weight
        coldCount &+= 1
        insertAtHead(slot)
        return slot
      }
    }
    while store.used &+ weight > store.capacity { runHandCold(onEvict) }
    let known = store.find(request.key)
    let slot: Slot
    if known >= 0 {
      // Re-accessed in its test period: it comes back hot.
      nonResidentWeight &-= store.table[known].weight
      unlinkFromRing(known)
      store.delete(known, resident: false)
      grow(by: weight)
      slot = store.insert(request.key, weight: weight, payload: Self.resident | Self.hot)
      hotWeight &+= weight
      hotCount &+= 1
    } else if store.used == hotWeight && hotWeight &+ weight <= store.capacity - coldTarget {
      // Filling up: hot until the hot share is reached.
      slot = store.insert(request.key, weight: weight, payload: Self.resident | Self.hot)
      hotWeight &+= weight
      hotCount &+= 1
    } else {
      slot = store.insert(request.key, weight: weight, payload: Self.resident | Self.inTest)
      coldWeight &+= weight
      coldCount &+= 1
    }
    insertAtHead(slot)
    balanceHot()
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    runHandCold(onEvict)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let flags = store.table[slot].payload
    let weight = store.table[slot].weight
    unlinkFromRing(slot)
    if flags & Self.resident == 0 {
      nonResidentWeight &-= weight
      store.delete(slot, resident: false)
      return nil
    }
    if flags & Self.hot != 0 {
      hotWeight &-= weight
      hotCount &-= 1
    } else {
      coldWeight &-= weight
      coldCount &-= 1
    }
    store.delete(slot, resident: true)
    return slot
  }

  /// HAND_cold: works through resident cold pages until one is evicted.
  @inlinable
  mutating func runHandCold(_ onEvict: (Slot, Key) -> Void) {
    evictCold(coldVictim(), onEvict)
  }

  /// The next victim is the resident cold page `coldVictim()` stops at.
  @inlinable
  public mutating func nextVictim() -> Slot? { store.count > 0 ? coldVictim() : nil }

  /// Moves HAND_cold to the first resident cold page whose bit is clear and
  /// returns it, still resident: the referenced cold pages it passes are
  /// promoted or start a new test period, as the paper's HAND_cold does.
  @inlinable
  mutating func coldVictim() -> Slot {
    while true {
      if coldCount == 0 {
        // Everything resident is hot (weights can leave no cold page):
        // demote one so there is something to evict.
        demoteOneHotPage()
        continue
      }
      if handCold < 0 { handCold = ring.front }
      while store.table[handCold].payload & (Self.resident | Self.hot) != Self.resident {
        handCold = successor(handCold)
      }
      let slot = handCold
      let flags = store.table[slot].payload
      guard flags & Self.referenced != 0 else { return slot }
      if flags & Self.inTest != 0 {
        store.table[slot].payload = Self.resident | Self.hot
        coldWeight &-= store.table[slot].weight
        hotWeight &+= store.table[slot].weight
        coldCount &-= 1
        hotCount &+= 1
      } else {
        store.table[slot].payload = Self.resident | Self.inTest
      }
      moveToHead(slot)
      balanceHot()
    }
  }

  /// Evicts the cold page HAND_cold stopped at (`coldVictim()`); in its
  /// test period it stays on the ring as a non-resident page.
  @inlinable
  mutating func evictCold(_ slot: Slot, _ onEvict: (Slot, Key) -> Void) {
    let flags = store.table[slot].payload
    let weight = store.table[slot].weight
    handCold = successor(slot)
    onEvict(slot, store.table[slot].key)
    store.retire(slot)
    coldWeight &-= weight
    coldCount &-= 1
    if flags & Self.inTest != 0 {
      store.table[slot].payload = Self.inTest
      nonResidentWeight &+= weight
      while nonResidentWeight > store.capacity { runHandTest() }
    } else {
      unlinkFromRing(slot)
      store.delete(slot, resident: false)
    }
  }

  /// HAND_hot, while the hot pages exceed their share.
  @inlinable @inline(__always)
  mutating func balanceHot() {
    while hotWeight > store.capacity - coldTarget { demoteOneHotPage() }
  }

  /// HAND_hot: clears set bits and turns the first unset hot page cold.
  /// Cold pages it passes are left to HAND_test, which it pushes ahead
  /// whenever it reaches it, so a test period ends at the latest when
  /// HAND_hot passes the page.
  @inlinable
  mutating func demoteOneHotPage() {
    guard hotCount > 0 else { return }
    if handHot < 0 { handHot = ring.front }
    while true {
      let slot = handHot
      // A step that removes `slot` has moved HAND_hot on already.
      if handTest == slot && stepHandTest() { continue }
      handHot = successor(slot)
      let flags = store.table[slot].payload
      guard flags & Self.hot != 0 else { continue }
      if flags & Self.referenced != 0 {
        store.table[slot].payload = flags & ~Self.referenced
        continue
      }
      store.table[slot].payload = Self.resident
      hotWeight &-= store.table[slot].weight
      coldWeight &+= store.table[slot].weight
      hotCount &-= 1
      coldCount &+= 1
      return
    }
  }

  /// HAND_test, until a non-resident page has left.
  @inlinable
  mutating func runHandTest() {
    if handTest < 0 { handTest = ring.front }
    while !stepHandTest() {}
  }

  /// One step of HAND_test: a cold page in its test period leaves it, and
  /// leaves the ring if not resident, which costs m_c its weight (the test
  /// ran out unused). Returns whether it removed a page.
  @inlinable @inline(__always)
  mutating func stepHandTest() -> Bool {
    let slot = handTest
    handTest = successor(slot)
    let flags = store.table[slot].payload
    guard flags & (Self.hot | Self.inTest) == Self.inTest else { return false }
    guard flags & Self.resident == 0 else {
      store.table[slot].payload = flags & ~Self.inTest
      return false
    }
    let weight = store.table[slot].weight
    coldTarget = max(minimumCold, coldTarget &- weight)
    nonResidentWeight &-= weight
    unlinkFromRing(slot)
    store.delete(slot, resident: false)
    return true
  }

  @inlinable @inline(__always)
  mutating func grow(by weight: Int64) {
    coldTarget = min(maximumCold, coldTarget &+ weight)
  }

  /// The next slot in sweep order (the ring's front after its back).
  @inlinable @inline(__always)
  func successor(_ slot: Slot) -> Slot {
    let next = store.table[slot].next
    return next >= 0 ? next : ring.front
  }

  /// Inserts at the head: just behind HAND_hot in sweep order.
  @inlinable @inline(__always)
  mutating func insertAtHead(_ slot: Slot) {
    if handHot < 0 {
      store.table.pushBack(slot, &ring, tag: Self.inRing)
      handHot = slot
      return
    }
    let before = store.table[handHot].prev
    if before >= 0 {
      store.table.insert(slot, after: before, &ring, tag: Self.inRing)
    } else {
      store.table.pushBack(slot, &ring, tag: Self.inRing)
    }
  }

  @inlinable @inline(__always)
  mutating func moveToHead(_ slot: Slot) {
    unlinkFromRing(slot)
    insertAtHead(slot)
  }

  /// Takes `slot` off the ring, moving any hand on it to its successor.
  @inlinable @inline(__always)
  mutating func unlinkFromRing(_ slot: Slot) {
    let next = ring.count > 1 ? successor(slot) : -1
    if handHot == slot { handHot = next }
    if handCold == slot { handCold = next }
    if handTest == slot { handTest = next }
    store.table.unlink(slot, &ring)
  }

  public func checkInvariants() {
    store.table.checkList(ring, tag: Self.inRing, "clock")
    var hot: Int64 = 0
    var cold: Int64 = 0
    var nonResident: Int64 = 0
    var hotPages = 0
    var coldPages = 0
    var slot = ring.front
    while slot >= 0 {
      let flags = store.table[slot].payload
      let weight = store.table[slot].weight
      if flags & Self.resident == 0 {
        precondition(flags == Self.inTest, "a non-resident page that is hot, referenced or out of test")
        nonResident += weight
      } else if flags & Self.hot != 0 {
        precondition(flags & Self.inTest == 0, "a hot page in a test period")
        hot += weight
        hotPages += 1
      } else {
        cold += weight
        coldPages += 1
      }
      slot = store.table[slot].next
    }
    precondition(hot == hotWeight && cold == coldWeight, "hot \(hot)/\(hotWeight), cold \(cold)/\(coldWeight)")
    precondition(nonResident == nonResidentWeight, "non-resident \(nonResident)/\(nonResidentWeight)")
    precondition(hotPages == hotCount && coldPages == coldCount, "hot and cold pages miscounted")
    precondition(nonResidentWeight <= store.capacity, "non-resident pages over the capacity")
    precondition(hotWeight + coldWeight == store.used, "resident weight \(hotWeight + coldWeight)/\(store.used)")
    precondition(store.used <= store.capacity, "used exceeds capacity")
    precondition(coldTarget >= minimumCold && coldTarget <= maximumCold, "m_c \(coldTarget) out of its bounds")
    precondition(hotWeight <= store.capacity - coldTarget, "hot pages over their share")
    for hand in [handHot, handCold, handTest] where hand >= 0 {
      precondition(store.table[hand].list == Self.inRing, "a hand off the ring")
    }
    precondition(store.index.count == store.table.live && store.table.live == ring.count, "the ring and index disagree")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    var hot: [Key] = []
    var cold: [Key] = []
    var test: [Key] = []
    var slot = ring.front
    while slot >= 0 {
      let flags = store.table[slot].payload
      if flags & Self.resident == 0 {
        test.append(store.table[slot].key)
      } else if flags & Self.hot != 0 {
        hot.append(store.table[slot].key)
      } else {
        cold.append(store.table[slot].key)
      }
      slot = store.table[slot].next
    }
    return [("hot", hot), ("cold", cold), ("non-resident", test)]
  }
}

/// CLOCK-Pro in the catalog.
public enum ClockPro: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "clock-pro", displayName: "CLOCK-Pro", summary: "LIRS's reuse-distance test on one clock with three hands",
    citation: "Jiang, Chen and Zhang, USENIX ATC'05",
    parameters: [
      PolicyParameter(
        switch: "libcachesim", default: false,
        help: "libCacheSim 0.3.5's clockpro: admits only while the cold pages fit m_c (the capacity), so never evicts")
    ],
    traits: .namesVictims,
    checkedAgainst:
      "the paper's invariants; resists a scan and a loop that defeat CLOCK (no reference figures); "
      + "libCacheSim 0.3.5 with libcachesim=true (both size modes)", libCacheSim: "0.3.5 with libcachesim=true")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(ClockProPolicy<Index>(capacity: capacity, libCacheSim: spec.isOn("libcachesim")))
  }
}
