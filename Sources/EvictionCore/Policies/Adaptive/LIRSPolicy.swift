/// LIRS (Jiang and Zhang, "LIRS: an efficient low inter-reference recency
/// set replacement policy to improve buffer cache performance",
/// SIGMETRICS'02). Blocks with a low inter-reference recency (LIR) hold most
/// of the cache; the rest (1%, at least 2 objects) holds resident HIR blocks
/// in queue Q. Stack S orders blocks by recency and keeps non-resident HIR
/// blocks as history; a block re-referenced while in S becomes LIR, and the
/// LIR block at the bottom of S is demoted to Q.
///
/// Follows the authors' reference code (`lirs.c`, Song Jiang, 2002) rather
/// than libCacheSim's `lirs`, deliberately: it is the source the paper's
/// figures come from, and it agrees with the authors' hit ratios in
/// `traces/caffeine/lirs/REFERENCE_hit_ratios.csv`. Its particulars, kept
/// here: a request for the key requested just before counts as a hit and
/// changes nothing; a new block becomes LIR while more than the HIR share of
/// the cache is free; S holds at most 2500 × the resident count entries.
/// Generalised to weights: the HIR share and free space are weights, misses
/// evict Q's front until the object fits, and demotion runs until LIR weight
/// is within its share. S below its last LIR block is dropped at once (the
/// reference code leaves such blocks linked but never visits them again).
public struct LIRSPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// An entry's Q links and flags; S uses the entry's own links.
  @frozen public struct State {
    @usableFromInline var qPrev: Slot = -1
    @usableFromInline var qNext: Slot = -1
    @usableFromInline var isHIR = true
    @usableFromInline var resident = true
    @inlinable init() {}
  }

  public var store: PolicyStorage<Index, State>
  /// Stack S, top = front; its back is always an LIR block.
  @usableFromInline var stack = EntryList()
  /// Queue Q of resident HIR blocks, newest at `qFront`, evicted from `qBack`.
  @usableFromInline var qFront: Slot = -1
  @usableFromInline var qBack: Slot = -1
  @usableFromInline var qWeight: Int64 = 0
  @usableFromInline var lirWeight: Int64 = 0
  @usableFromInline let hirShare: Int64
  @usableFromInline var lastKey: Key? = nil

  @usableFromInline static var inStack: UInt8 { 1 }
  @usableFromInline static var historyBound: Int { 2500 }

  /// Creates a LIRS cache whose HIR share is `hirPercent`% of the capacity (at least 2).
  @inlinable
  public init(capacity: Int64, hirPercent: Int = 1) {
    store = PolicyStorage(capacity: capacity)
    hirShare = max(Int64(Double(hirPercent) / 100 * Double(capacity)), 2)
  }

  public var name: String { "LIRS" }

  @inlinable
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    let repeated = lastKey == request.key
    lastKey = request.key
    guard slot >= 0, store.table[slot].payload.resident else { return nil }
    if repeated { return slot }  // the reference code's duplicate rule
    if store.table[slot].payload.isHIR { unlinkQ(slot) }
    let inS = store.table[slot].list == Self.inStack
    if inS { unlinkS(slot) }
    promote(slot, wasInS: inS)
    return slot
  }

  @inlinable
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  @inlinable
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    let weight = request.weight
    guard weight <= store.capacity else { return nil }
    var becomesLIR = false
    if store.capacity &- store.used < weight {
      while store.capacity &- store.used < weight {
        let victim = victimInQ()
        guard approve(store.table[victim].key) else { return nil }
        evict(victim, onEvict)
      }
    } else if store.capacity &- store.used &- weight >= hirShare {
      becomesLIR = true
    }
    var slot = store.find(request.key)
    var inS = false
    if slot >= 0 {
      // A non-resident HIR block still in S: resident again at the new weight.
      inS = store.table[slot].list == Self.inStack
      if inS { unlinkS(slot) }
      store.table[slot].weight = weight
      store.table[slot].payload.resident = true
      store.used &+= weight
      store.count &+= 1
    } else {
      slot = store.insert(request.key, weight: weight, payload: State())
    }
    if becomesLIR {
      store.table[slot].payload.isHIR = false
      lirWeight &+= weight
    }
    promote(slot, wasInS: inS)
    return slot
  }

  /// Puts a referenced, resident block (already off S) on top of S and
  /// settles its status: an HIR block that was still in S becomes LIR.
  @inlinable
  mutating func promote(_ slot: Slot, wasInS: Bool) {
    store.table.pushFront(slot, &stack, tag: Self.inStack)
    if store.table[slot].payload.isHIR {
      if wasInS {
        // Its recency beats the bottom LIR block's: it becomes LIR.
        store.table[slot].payload.isHIR = false
        lirWeight &+= store.table[slot].weight
        dropHIRBottom()
        while lirWeight > store.capacity &- hirShare && stack.back != slot { demoteBottom() }
      } else {
        pushFrontQ(slot)
      }
    }
    // In caches too small for an LIR set (the reference code refuses fewer
    // than 10 objects) S may start with HIR blocks; keep its bottom LIR.
    if lirWeight > 0 { dropHIRBottom() }
    if stack.count > Self.historyBound &* max(store.count, 1) { pruneHistory() }
  }

  /// Takes `slot` off S and marks it as off every S list.
  @inlinable @inline(__always)
  mutating func leaveS(_ slot: Slot) {
    store.table.unlink(slot, &stack)
    store.table[slot].list = Entry<Key, State>.free
  }

  /// The LIR block at the bottom of S becomes a resident HIR block in Q.
  @inlinable
  mutating func demoteBottom() {
    let bottom = stack.back
    assert(bottom >= 0 && !store.table[bottom].payload.isHIR, "demoting a block that is not LIR")
    leaveS(bottom)
    store.table[bottom].payload.isHIR = true
    lirWeight &-= store.table[bottom].weight
    pushFrontQ(bottom)
    dropHIRBottom()
  }

  /// Removes the HIR blocks below the last LIR block of S; non-resident ones are forgotten.
  @inlinable
  mutating func dropHIRBottom() {
    while stack.back >= 0 && store.table[stack.back].payload.isHIR {
      let slot = stack.back
      leaveS(slot)
      if !store.table[slot].payload.resident { store.delete(slot, resident: false) }
    }
  }

  /// Takes `slot` out of S, keeping its back an LIR block.
  @inlinable
  mutating func unlinkS(_ slot: Slot) {
    let wasBottom = stack.back == slot
    leaveS(slot)
    if wasBottom { dropHIRBottom() }
  }

  /// S grew past its bound: the lowest HIR block above the bottom leaves S.
  @usableFromInline
  mutating func pruneHistory() {
    var slot = stack.back
    while slot >= 0 && !store.table[slot].payload.isHIR { slot = store.table[slot].prev }
    guard slot >= 0 else { return }
    leaveS(slot)
    if !store.table[slot].payload.resident { store.delete(slot, resident: false) }
  }

  /// Q's oldest block, the next to be evicted (demoting S's bottom LIR
  /// block first if Q is empty, which with weights can happen: every
  /// resident block is LIR).
  @inlinable
  mutating func victimInQ() -> Slot {
    if qBack < 0 {
      // Q is empty, so every HIR block in S is history: clear the bottom of
      // them and demote the last LIR block.
      dropHIRBottom()
      demoteBottom()
    }
    return qBack
  }

  /// Evicts `victim` (``victimInQ()``); it stays in S as history if it is there.
  @inlinable
  mutating func evict(_ victim: Slot, _ onEvict: (Slot, Key) -> Void) {
    unlinkQ(victim)
    onEvict(victim, store.table[victim].key)
    store.table[victim].payload.resident = false
    if store.table[victim].list == Self.inStack {
      store.retire(victim)  // stays in S as history
    } else {
      store.delete(victim, resident: true)
    }
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    evict(victimInQ(), onEvict)
    return true
  }

  @inlinable
  mutating func pushFrontQ(_ slot: Slot) {
    store.table[slot].payload.qPrev = -1
    store.table[slot].payload.qNext = qFront
    if qFront >= 0 { store.table[qFront].payload.qPrev = slot } else { qBack = slot }
    qFront = slot
    qWeight &+= store.table[slot].weight
  }

  @inlinable
  mutating func unlinkQ(_ slot: Slot) {
    let prev = store.table[slot].payload.qPrev
    let next = store.table[slot].payload.qNext
    if prev >= 0 { store.table[prev].payload.qNext = next } else { qFront = next }
    if next >= 0 { store.table[next].payload.qPrev = prev } else { qBack = prev }
    store.table[slot].payload.qPrev = -1
    store.table[slot].payload.qNext = -1
    qWeight &-= store.table[slot].weight
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let resident = store.table[slot].payload.resident
    if resident {
      if store.table[slot].payload.isHIR { unlinkQ(slot) } else { lirWeight &-= store.table[slot].weight }
    }
    if store.table[slot].list == Self.inStack { unlinkS(slot) }
    if lastKey == key { lastKey = nil }
    store.delete(slot, resident: resident)
    return resident ? slot : nil
  }

  @inlinable @inline(__always) public func contains(_ key: Key) -> Bool {
    let slot = store.find(key)
    return slot >= 0 && store.table[slot].payload.resident
  }

  public func checkInvariants() {
    store.table.checkList(stack, tag: Self.inStack, "S")
    precondition(
      stack.back < 0 || !store.table[stack.back].payload.isHIR || lirWeight == 0, "S does not end in an LIR block")
    var qCount = 0
    var qTotal: Int64 = 0
    var slot = qFront
    var previous: Slot = -1
    while slot >= 0 {
      let state = store.table[slot].payload
      precondition(state.isHIR && state.resident, "Q holds a block that is not a resident HIR block")
      precondition(state.qPrev == previous, "Q's back links are broken")
      qCount += 1
      qTotal += store.table[slot].weight
      previous = slot
      slot = state.qNext
    }
    precondition(previous == qBack && qTotal == qWeight, "Q's totals are off")
    var lir: Int64 = 0
    slot = stack.front
    while slot >= 0 {
      if !store.table[slot].payload.isHIR {
        precondition(store.table[slot].payload.resident, "a non-resident LIR block")
        lir += store.table[slot].weight
      }
      slot = store.table[slot].next
    }
    precondition(lir == lirWeight, "LIR weight \(lir), counted \(lirWeight)")
    precondition(lirWeight + qWeight == store.used, "LIR and Q do not add up to the resident weight")
    precondition(store.used <= store.capacity, "used exceeds capacity")
    precondition(store.index.count == store.table.live, "index and slab differ")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    var q: [Key] = []
    var slot = qFront
    while slot >= 0 {
      q.append(store.table[slot].key)
      slot = store.table[slot].payload.qNext
    }
    return [("S", store.table.keys(of: stack)), ("Q", q)]
  }
}

/// LIRS in the catalog.
public enum LIRS: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lirs", displayName: "LIRS", summary: "LIRS, as its authors' code",
    citation: "Jiang and Zhang, SIGMETRICS'02",
    parameters: [
      PolicyParameter("hir", default: 1, range: 1...99, help: "HIR share of the capacity, percent (at least 2 objects)")
    ],
    traits: .asksBeforeEvicting,
    checkedAgainst: "the LIRS authors' own code (`lirs.c`), on the LIRS paper's traces")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LIRSPolicy<Index>(capacity: capacity, hirPercent: Int(spec.integer("hir"))))
  }
}
