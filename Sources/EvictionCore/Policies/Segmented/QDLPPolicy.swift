/// QD-LP, quick demotion and lazy promotion (Yang, Qiu, Zhang, Yue and
/// Rashmi, "FIFO can be Better than LRU: the Power of Lazy Promotion and
/// Quick Demotion", HotOS'23): new objects enter a small probationary FIFO
/// (10%); its oldest entry moves to the main cache if it was hit there, and
/// otherwise leaves, remembered in a ghost FIFO (90% of the capacity); an
/// object found in the ghost enters the main cache directly. The main cache
/// is a CLOCK with a 2-bit counter, so no hit moves anything.
///
/// Follows libCacheSim's `qdlp` (`eviction/QDLP.c`, main cache `Clock2`,
/// move-to-main threshold 1) where the paper leaves details open: shares are
/// truncated products (⌊0.1c⌋, ⌊0.9c⌋, main c − ⌊0.1c⌋); eviction works on
/// the FIFO while it holds anything, else on the main cache; the main cache
/// keeps itself within its share when an object arrives; an object heavier
/// than the FIFO's share is not admitted, and one exactly as heavy is refused
/// only after the eviction it caused (as libCacheSim's insert does).
public struct QDLPPolicy<Index: SlotIndex & ~Copyable>: ProbationGhostPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// In the FIFO, whether the entry was hit (0 or 1); in the main cache, its CLOCK counter.
  public var store: PolicyStorage<Index, UInt8>
  /// The probationary FIFO.
  public var probation = EntryList()
  public var main = EntryList()
  public var ghost = EntryList()
  @usableFromInline let fifoCapacity: Int64
  @usableFromInline let mainCapacity: Int64
  @usableFromInline let ghostCapacity: Int64
  @usableFromInline let shares: (fifo: Double, ghost: Double)
  /// Whether the last lookup found its key in the ghost.
  public var hitOnGhost = false

  public static var queueNames: (probation: String, main: String, ghost: String) { ("FIFO", "main", "ghost") }
  /// The main cache's CLOCK counter saturates here (2 bits).
  @usableFromInline static var counterMaximum: UInt8 { 3 }

  @inlinable
  public init(capacity: Int64, fifoShare: Double = 0.1, ghostShare: Double = 0.9) {
    store = PolicyStorage(capacity: capacity)
    fifoCapacity = Int64(Double(capacity) * fifoShare)
    mainCapacity = capacity - fifoCapacity
    ghostCapacity = Int64(Double(capacity) * ghostShare)
    shares = (fifoShare, ghostShare)
  }

  public var name: String { "QD-LP(fifo=\(shares.fifo),ghost=\(shares.ghost))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    hitOnGhost = false
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
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
      return nil
    }
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
      // Heavier than the main cache (a large fifo share): not admitted.
      guard weight <= mainCapacity else { return nil }
      while main.weight &+ weight > mainCapacity {
        guard evictMain(onEvict, approve) else { return nil }
      }
      return store.insert(request, payload: 0, atFrontOf: &main, tag: Self.inMain)
    }
    guard weight < fifoCapacity else { return nil }
    return store.insert(request, payload: 0, atFrontOf: &probation, tag: Self.inProbation)
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    return evictStep(onEvict) { _ in true }
  }

  /// Works on the FIFO's oldest entry (or the main cache when the FIFO is
  /// empty) until a resident entry has left: a hit entry moving to the main
  /// cache frees nothing unless the main cache has to make room for it.
  /// Returns false, at the first victim `approve` refuses, with that victim
  /// still in place.
  @inlinable @inline(__always)
  mutating func evictStep(_ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    let before = store.count
    while store.count == before {
      if probation.isEmpty {
        guard evictMain(onEvict, approve) else { return false }
        continue
      }
      let slot = probation.back
      let weight = store.table[slot].weight
      if store.table[slot].payload != 0 && weight > mainCapacity {
        // Hit, but heavier than the main cache (a large fifo share): it
        // leaves without a ghost, as libCacheSim's main cache refuses it.
        guard approve(store.table[slot].key) else { return false }
        store.table.unlink(slot, &probation)
        onEvict(slot, store.table[slot].key)
        store.delete(slot, resident: true)
      } else if store.table[slot].payload != 0 {
        while main.weight &+ weight > mainCapacity {
          guard evictMain(onEvict, approve) else { return false }
        }
        store.table.unlink(slot, &probation)
        store.table[slot].payload = 0
        store.table.pushFront(slot, &main, tag: Self.inMain)
      } else {
        guard approve(store.table[slot].key) else { return false }
        store.table.unlink(slot, &probation)
        onEvict(slot, store.table[slot].key)
        store.retire(slot)
        store.remember(slot, in: &ghost, capacity: ghostCapacity, tag: Self.inGhost)
      }
    }
    return true
  }

  /// CLOCK on the main cache: referenced entries lose one count and go back
  /// to the front; the first unreferenced one from the back leaves, if `approve` agrees.
  @inlinable @inline(__always)
  mutating func evictMain(_ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    let slot = store.clockVictim(of: &main)
    guard approve(store.table[slot].key) else { return false }
    store.evict(slot, from: &main, onEvict: onEvict)
    return true
  }

  public func checkInvariants() {
    checkQueues()
    precondition(main.weight <= mainCapacity, "main over its share")
    precondition(ghost.weight <= ghostCapacity, "ghost over its share")
  }
}

/// QD-LP in the catalog.
public enum QDLP: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "qdlp", displayName: "QD-LP", summary: "QD-LP: probationary FIFO, ghost, CLOCK main cache",
    citation: "Yang et al., HotOS'23",
    parameters: [
      PolicyParameter(fraction: "fifo", default: 0.1, help: "the probationary FIFO's share of the capacity"),
      PolicyParameter(fraction: "ghost", default: 0.9, help: "the ghost FIFO's weight as a share of the capacity"),
    ],
    traits: .asksBeforeEvicting, checkedAgainst: "libCacheSim (4 encodings × 2 size modes; seven more traces)",
    libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      QDLPPolicy<Index>(capacity: capacity, fifoShare: spec.fraction("fifo"), ghostShare: spec.fraction("ghost")))
  }

  /// The FIFO admits objects lighter than its share: in count mode it needs 2.
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    Int64(Double(capacity) * spec.fraction("fifo")) >= 2
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; its FIFO (fifo=\(spec.fraction("fifo")) of the capacity) admits only objects lighter than its share: raise the size or qdlp:fifo="
  }
}
