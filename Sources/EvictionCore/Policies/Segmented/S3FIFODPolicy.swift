/// S3-FIFO-D, S3-FIFO whose FIFO share moves: the structure of S3-FIFO
/// (Yang, Zhang, Qiu, Yue and Rashmi, "FIFO queues are all you need for cache
/// eviction", SOSP'23) and of QD-LP, with the probationary FIFO's share set by
/// where evicted objects come back from. The paper describes S3-FIFO with a
/// fixed 10%; this dynamic variant is libCacheSim's (`eviction/S3FIFOd.c`,
/// `S3FIFOd-Clock2-1`), and everything below follows that file.
///
/// - New objects enter the probationary FIFO (10% at first). Its oldest entry
///   moves to the main cache if it was hit there, and otherwise leaves into a
///   ghost FIFO whose share starts as the main cache's. An object found in the
///   ghost enters the main cache directly. The main cache is a CLOCK with a
///   2-bit counter.
/// - Two more FIFOs, each of a tenth of the capacity, remember the objects
///   the FIFO and the main cache evicted last. A request for one of them
///   counts as an eviction hit for its side. Once the two sides have more than
///   100 such hits between them (and the main cache's FIFO is not empty), the
///   side with more than twice the other's hits gains `step` = max(1,
///   min(fifo, main) ÷ 1000) of capacity from the other, as long as the loser
///   keeps more than 1% of the whole; the ghost moves with the FIFO; both
///   counts then decay to ⌊0.8 n⌋. This runs before every request.
/// - As in libCacheSim, the FIFO's share limits only admission (an object up
///   to its share is admitted); eviction works on the FIFO while it holds
///   anything, else on the main cache. A promotion joins the main cache first
///   and the main cache then evicts down to its share, so CLOCK may pick the
///   newcomer; an object back from the ghost makes room in the main cache
///   before it joins. Only the first kind of main-cache eviction is
///   remembered as an eviction of the main cache (libCacheSim's ghost path
///   evicts inside the main cache's own `get`, unseen). A share that shrinks
///   evicts nothing at once: the main cache and the ghost shed the excess at
///   their next insertion.
public struct S3FIFODPolicy<Index: SlotIndex & ~Copyable>: ProbationGhostPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// In the FIFO, whether the entry was hit (0 or 1); in the main cache, its CLOCK counter.
  public var store: PolicyStorage<Index, UInt8>
  /// The probationary FIFO.
  public var probation = EntryList()
  public var main = EntryList()
  public var ghost = EntryList()
  /// The keys the FIFO and the main cache evicted last (never resident).
  @usableFromInline var recent: PolicyStorage<Index, UInt8>
  @usableFromInline var evictedFromFIFO = EntryList()
  @usableFromInline var evictedFromMain = EntryList()
  @usableFromInline let recentCapacity: Int64
  @usableFromInline var fifoCapacity: Int64
  @usableFromInline var mainCapacity: Int64
  @usableFromInline var ghostCapacity: Int64
  @usableFromInline var fifoEvictionHits = 0
  @usableFromInline var mainEvictionHits = 0
  @usableFromInline let fifoShare: Double
  /// Whether the last lookup found its key in the ghost.
  public var hitOnGhost = false

  public static var queueNames: (probation: String, main: String, ghost: String) { ("FIFO", "main", "ghost") }
  @usableFromInline static var counterMaximum: UInt8 { 3 }
  @usableFromInline static var fromFIFO: UInt8 { 1 }
  @usableFromInline static var fromMain: UInt8 { 2 }

  @inlinable
  public init(capacity: Int64, fifoShare: Double = 0.1) {
    store = PolicyStorage(capacity: capacity)
    fifoCapacity = Int64(Double(capacity) * fifoShare)
    mainCapacity = capacity - fifoCapacity
    ghostCapacity = mainCapacity
    recentCapacity = capacity / 10
    recent = PolicyStorage(capacity: max(1, recentCapacity))
    self.fifoShare = fifoShare
  }

  public var name: String { "S3-FIFO-D(fifo=\(fifoShare))" }

  /// The FIFO's current share of the capacity.
  public var currentFIFOCapacity: Int64 { fifoCapacity }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    adaptShares()
    hitOnGhost = false
    let slot = store.find(request.key)
    if slot >= 0 {
      switch store.table[slot].list {
      case Self.inProbation:
        store.table[slot].payload = 1
        return slot
      case Self.inMain:
        if store.table[slot].payload < Self.counterMaximum { store.table[slot].payload &+= 1 }
        return slot
      default:
        store.forget(slot, from: &ghost)
        hitOnGhost = true
      }
    }
    if recent.count > 0 { countEvictionHit(request.key) }
    return nil
  }

  /// A missed key the FIFO or the main cache evicted lately counts for that side, once.
  @inlinable
  mutating func countEvictionHit(_ key: Key) {
    let slot = recent.find(key)
    guard slot >= 0 else { return }
    if recent.table[slot].list == Self.fromFIFO {
      fifoEvictionHits += 1
      recent.table.unlink(slot, &evictedFromFIFO)
    } else {
      mainEvictionHits += 1
      recent.table.unlink(slot, &evictedFromMain)
    }
    recent.delete(slot, resident: true)
  }

  /// Moves `step` of capacity towards the side whose evictions come back
  /// more than twice as often, once over 100 such returns have been seen.
  @inlinable @inline(__always)
  mutating func adaptShares() {
    guard evictedFromMain.count > 0 else {
      fifoEvictionHits = 0
      mainEvictionHits = 0
      return
    }
    guard fifoEvictionHits + mainEvictionHits > 100 else { return }
    let step = max(1, min(fifoCapacity, mainCapacity) / 1000)
    let floor = store.capacity / 100
    if fifoEvictionHits > mainEvictionHits * 2 {
      if mainCapacity > floor { move(step) }
    } else if mainEvictionHits > fifoEvictionHits * 2 {
      if fifoCapacity > floor { move(-step) }
    }
    fifoEvictionHits = Int(Double(fifoEvictionHits) * 0.8)
    mainEvictionHits = Int(Double(mainEvictionHits) * 0.8)
  }

  /// Gives `weight` of capacity to the FIFO and its ghost, from the main cache.
  @inlinable
  mutating func move(_ weight: Int64) {
    fifoCapacity += weight
    ghostCapacity += weight
    mainCapacity -= weight
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    admit(request, onEvict: onEvict) { _ in true }
  }

  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    let weight = request.weight
    let ghostHit = takeGhostHit()
    guard weight <= fifoCapacity, weight <= store.capacity else { return nil }
    while store.used &+ weight > store.capacity {
      guard evictStep(onEvict, approve) else { return nil }
    }
    if ghostHit {
      guard weight <= mainCapacity else { return nil }
      while main.weight &+ weight > mainCapacity {
        // Evictions to take a key back from the ghost are not remembered (see the header).
        let victim = store.clockVictim(of: &main)
        guard approve(store.table[victim].key) else { return nil }
        store.evict(victim, from: &main, onEvict: onEvict)
      }
      return store.insert(request, payload: 0, atFrontOf: &main, tag: Self.inMain)
    }
    return store.insert(request, payload: 0, atFrontOf: &probation, tag: Self.inProbation)
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    return evictStep(onEvict) { _ in true }
  }

  /// Works on the FIFO's oldest entry (or the main cache when the FIFO is
  /// empty) until a resident entry has left. Returns false, at the first
  /// victim `approve` refuses, with that victim still in place (a promotion
  /// already made may leave the main cache over its share until the next).
  @inlinable @inline(__always)
  mutating func evictStep(_ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    let before = store.count
    while store.count == before {
      if probation.isEmpty {
        guard evictMain(onEvict, approve) else { return false }
        continue
      }
      let slot = probation.back
      if store.table[slot].payload != 0 {
        store.table.unlink(slot, &probation)
        store.table[slot].payload = 0
        store.table.pushFront(slot, &main, tag: Self.inMain)
        while main.weight > mainCapacity {
          guard evictMain(onEvict, approve) else { return false }
        }
      } else {
        let key = store.table[slot].key
        let weight = store.table[slot].weight
        guard approve(key) else { return false }
        store.table.unlink(slot, &probation)
        onEvict(slot, key)
        store.retire(slot)
        store.remember(slot, in: &ghost, capacity: ghostCapacity, tag: Self.inGhost)
        recent.file(key, weight: weight, in: &evictedFromFIFO, capacity: recentCapacity, tag: Self.fromFIFO)
      }
    }
    return true
  }

  /// CLOCK on the main cache, the victim (if `approve` agrees) remembered as the main cache's.
  @inlinable @inline(__always)
  mutating func evictMain(_ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    let slot = store.clockVictim(of: &main)
    guard approve(store.table[slot].key) else { return false }
    recent.file(
      store.table[slot].key, weight: store.table[slot].weight, in: &evictedFromMain, capacity: recentCapacity,
      tag: Self.fromMain)
    store.evict(slot, from: &main, onEvict: onEvict)
    return true
  }

  public func checkInvariants() {
    checkQueues()
    precondition(fifoCapacity + mainCapacity == store.capacity, "the FIFO's and the main cache's shares do not sum")
    precondition(
      ghostCapacity - fifoCapacity == store.capacity - 2 * Int64(Double(store.capacity) * fifoShare),
      "the ghost's share no longer moves with the FIFO's")
    recent.table.checkList(evictedFromFIFO, tag: Self.fromFIFO, "evicted from the FIFO")
    recent.table.checkList(evictedFromMain, tag: Self.fromMain, "evicted from the main cache")
    precondition(evictedFromFIFO.weight <= recentCapacity && evictedFromMain.weight <= recentCapacity)
    precondition(recent.count == evictedFromFIFO.count + evictedFromMain.count, "a recent eviction on no list")
    for key in recent.table.keys(of: evictedFromFIFO) + recent.table.keys(of: evictedFromMain) {
      precondition(!contains(key), "a resident key is remembered as evicted")
    }
  }
}

extension PolicyStorage where Index: ~Copyable, Payload == UInt8 {
  /// Files a key, not resident, in a FIFO of keys that keeps at most
  /// `capacity` weight, forgetting its oldest keys to make room; a key
  /// heavier than the whole FIFO is not filed.
  @inlinable
  mutating func file(_ key: Key, weight: Int64, in list: inout EntryList, capacity: Int64, tag: UInt8) {
    guard weight <= capacity else { return }
    while list.weight &+ weight > capacity {
      let oldest = list.back
      table.unlink(oldest, &list)
      delete(oldest, resident: true)
    }
    let slot = insert(key, weight: weight, payload: 0)
    table.pushFront(slot, &list, tag: tag)
  }
}

/// S3-FIFO-D in the catalog.
public enum S3FIFOD: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "s3fifod", displayName: "S3-FIFO-D",
    summary: "S3-FIFO-D: S3-FIFO whose FIFO share follows returning evictions",
    citation: "Yang et al., SOSP'23; libCacheSim's S3FIFOd",
    parameters: [
      PolicyParameter(fraction: "fifo", default: 0.1, help: "the probationary FIFO's starting share of the capacity")
    ],
    traits: .asksBeforeEvicting, checkedAgainst: "libCacheSim (2 size modes; seven more traces)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(S3FIFODPolicy<Index>(capacity: capacity, fifoShare: spec.fraction("fifo")))
  }

  /// The FIFO admits objects up to its share: in count mode it needs 1.
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    Int64(Double(capacity) * spec.fraction("fifo")) >= 1
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; its FIFO (fifo=\(spec.fraction("fifo")) of the capacity) admits only objects up to its share: raise the size or s3fifod:fifo="
  }
}
