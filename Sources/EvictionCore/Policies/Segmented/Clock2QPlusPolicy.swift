/// Clock2Q+ (Zhai, Marthen, Balivada, Bojji, Knauft, Rohilla, Zuo, Liu,
/// Austruy, Wang and Yang, "Clock2Q+: A Simple and Efficient Replacement
/// Algorithm for Metadata Cache in VMware vSAN", VLDB 2026 industrial track,
/// arXiv:2511.21958): S3-FIFO's three queues (a small probationary FIFO, a
/// main CLOCK, a ghost FIFO of keys that left probation unused) plus a
/// correlation window. Metadata caches see correlated references, several
/// requests for one block in quick succession (the paper finds them in
/// B-tree leaves, among others), which make a block look hot when it is
/// not; so a hit on an entry that entered the FIFO fewer than `window` FIFO
/// admissions ago does not count.
///
/// Follows libCacheSim 0.3.5's `clock2qplus` (`eviction/Clock2QPlus.c`, new
/// in that release; the 2024 snapshot has no such policy), cache name
/// `Clock2QPlus-0.1000-1-0.50`:
/// - shares are truncated weights: FIFO ⌊0.1c⌋, ghost ⌊0.9c⌋, main c − FIFO;
///   the window is 0.5 × the FIFO's share, counted in admissions to the FIFO
///   and kept fixed (the file declares bounds for adapting it but never
///   moves it);
/// - a FIFO hit outside the window adds one to the entry's count; a main hit
///   sets its reference (a count, only ever tested for ≥ 1);
/// - a new object enters the FIFO, except that until the first eviction a
///   full FIFO sends it to main; an object found in the ghost enters main;
/// - eviction works on main when main is over its share or the FIFO is
///   empty: its oldest referenced entries go back to the front unreferenced,
///   the first unreferenced one leaves. Otherwise on the FIFO: its oldest
///   entries with at least `threshold` counted hits move to main (not
///   referenced; main may go over its share), the first without leaves into
///   the ghost. When every FIFO entry moves, main evicts;
/// - an object heavier than the FIFO's share is not admitted and evicts
///   nothing; one exactly as heavy is refused after the evictions it caused
///   (libCacheSim's insert checks it after making room), so in count mode
///   the FIFO needs a share of 2.
///
/// libCacheSim's file says the policy is meant for uniform sizes; in byte
/// mode this follows what its code does all the same: the FIFO's share is
/// in bytes and so is the window's length, which still counts admissions.
/// On the reference traces it then outlasts every stay in the FIFO (3.4
/// million admissions for cloudPhysicsIO at 64 MiB), so no FIFO hit counts
/// and nothing is promoted: `threshold=255` gives the same byte-mode
/// results on both traces.
public struct Clock2QPlusPolicy<Index: SlotIndex & ~Copyable>: ProbationGhostPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// In the FIFO, the entry's admission number and counted hits; in main,
  /// its reference count (`hits`); in the ghost, nothing.
  @frozen public struct Mark {
    @usableFromInline var admittedAt: Int64
    @usableFromInline var hits: UInt32
    @inlinable init(admittedAt: Int64, hits: UInt32) {
      self.admittedAt = admittedAt
      self.hits = hits
    }
  }

  public var store: PolicyStorage<Index, Mark>
  /// The small probationary FIFO.
  public var probation = EntryList()
  /// The main CLOCK.
  public var main = EntryList()
  public var ghost = EntryList()
  @usableFromInline let fifoCapacity: Int64
  @usableFromInline let mainCapacity: Int64
  @usableFromInline let ghostCapacity: Int64
  /// FIFO admissions an entry must wait before its hits count.
  @usableFromInline let window: Double
  @usableFromInline let threshold: UInt32
  /// Objects admitted to the FIFO so far (the window's clock).
  @usableFromInline var fifoAdmissions: Int64 = 0
  /// Whether anything has been evicted yet (until then a full FIFO sends new objects to main).
  @usableFromInline var hasEvicted = false
  /// Whether the last lookup found its key in the ghost.
  public var hitOnGhost = false
  @usableFromInline let shares: (fifo: Double, ghost: Double, window: Double)

  public static var queueNames: (probation: String, main: String, ghost: String) { ("FIFO", "main", "ghost") }

  @inlinable
  public init(
    capacity: Int64, fifoShare: Double = 0.1, ghostShare: Double = 0.9, threshold: Int = 1, windowShare: Double = 0.5
  ) {
    store = PolicyStorage(capacity: capacity)
    fifoCapacity = Int64(Double(capacity) * fifoShare)
    mainCapacity = capacity - fifoCapacity
    ghostCapacity = Int64(Double(capacity) * ghostShare)
    window = Double(fifoCapacity) * windowShare
    self.threshold = UInt32(clamping: threshold)
    shares = (fifoShare, ghostShare, windowShare)
  }

  public var name: String {
    "Clock2Q+(fifo=\(shares.fifo),ghost=\(shares.ghost),threshold=\(threshold),window=\(shares.window))"
  }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    hitOnGhost = false
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inProbation:
      let mark = store.table[slot].payload
      if Double(fifoAdmissions &- mark.admittedAt) >= window && mark.hits < .max {
        store.table[slot].payload.hits &+= 1
      }
      return slot
    case Self.inMain:
      if store.table[slot].payload.hits < .max { store.table[slot].payload.hits &+= 1 }
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
    guard weight <= fifoCapacity else { return nil }
    while store.used &+ weight > store.capacity {
      guard evictStep(onEvict, approve) else { return nil }
    }
    if !ghostHit {
      guard weight < fifoCapacity else { return nil }
      if hasEvicted || probation.weight < fifoCapacity {
        fifoAdmissions &+= 1
        let slot = store.insert(request.key, weight: weight, payload: Mark(admittedAt: fifoAdmissions, hits: 0))
        store.table.pushFront(slot, &probation, tag: Self.inProbation)
        return slot
      }
    }
    let slot = store.insert(request.key, weight: weight, payload: Mark(admittedAt: 0, hits: 0))
    store.table.pushFront(slot, &main, tag: Self.inMain)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    return evictStep(onEvict) { _ in true }
  }

  /// Evicts one resident entry: from main when main is over its share or
  /// the FIFO is empty, else from the FIFO, whose oldest entries with
  /// enough hits move to main on the way (however much main then weighs);
  /// if they all move, from main. Returns false, at the
  /// first victim `approve` refuses, with that victim still in place.
  @inlinable @inline(__always)
  mutating func evictStep(_ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    hasEvicted = true
    if main.weight <= mainCapacity {
      while !probation.isEmpty {
        let slot = probation.back
        guard store.table[slot].payload.hits >= threshold else { return evictFromFIFO(slot, onEvict, approve) }
        store.table.unlink(slot, &probation)
        store.table[slot].payload.hits = 0
        store.table.pushFront(slot, &main, tag: Self.inMain)
      }
    }
    return evictFromMain(onEvict, approve)
  }

  /// The FIFO's oldest entry, without enough hits, leaves into the ghost if `approve` agrees.
  @inlinable @inline(__always)
  mutating func evictFromFIFO(_ slot: Slot, _ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    guard approve(store.table[slot].key) else { return false }
    store.table.unlink(slot, &probation)
    onEvict(slot, store.table[slot].key)
    store.retire(slot)
    store.remember(slot, in: &ghost, capacity: ghostCapacity, tag: Self.inGhost)
    return true
  }

  /// CLOCK on main: referenced entries from the back go to the front
  /// unreferenced; the first unreferenced one leaves if `approve` agrees.
  @inlinable @inline(__always)
  mutating func evictFromMain(_ onEvict: (Slot, Key) -> Void, _ approve: (Key) -> Bool) -> Bool {
    var slot = main.back
    while store.table[slot].payload.hits > 0 {
      store.table[slot].payload.hits = 0
      store.table.moveToFront(slot, &main)
      slot = main.back
    }
    guard approve(store.table[slot].key) else { return false }
    store.evict(slot, from: &main, onEvict: onEvict)
    return true
  }

  public func checkInvariants() {
    checkQueues()
    precondition(ghost.weight <= ghostCapacity, "ghost FIFO over its weight")
    var slot = probation.front
    while slot >= 0 {
      let admitted = store.table[slot].payload.admittedAt
      precondition(admitted >= 1 && admitted <= fifoAdmissions, "FIFO entry admitted out of turn")
      slot = store.table[slot].next
    }
  }
}

/// Clock2Q+ in the catalog.
public enum Clock2QPlus: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "clock2qplus", displayName: "Clock2Q+",
    summary: "Clock2Q+: S3-FIFO's queues, FIFO hits ignored within a correlation window",
    citation: "Zhai et al., VLDB'26 (arXiv:2511.21958)",
    parameters: [
      PolicyParameter(fraction: "fifo", default: 0.1, help: "the probationary FIFO's share of the capacity"),
      PolicyParameter(fraction: "ghost", default: 0.9, help: "the ghost FIFO's weight as a share of the capacity"),
      PolicyParameter("threshold", default: 1, range: 1...255, help: "counted FIFO hits that earn main"),
      PolicyParameter(
        fraction: "window", default: 0.5, help: "correlation window (FIFO admissions) as a share of the FIFO's size"),
    ],
    traits: .asksBeforeEvicting,
    checkedAgainst: "libCacheSim 0.3.5 (cloudPhysicsIO and twitter, both size modes)",
    libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      Clock2QPlusPolicy<Index>(
        capacity: capacity, fifoShare: spec.fraction("fifo"), ghostShare: spec.fraction("ghost"),
        threshold: Int(spec.integer("threshold")), windowShare: spec.fraction("window")))
  }

  /// The FIFO admits objects lighter than its share: in count mode it needs 2.
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    Int64(Double(capacity) * spec.fraction("fifo")) >= 2
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; its FIFO (fifo=\(spec.fraction("fifo")) of the capacity) admits only objects lighter than its share: "
      + "raise the size or clock2qplus:fifo="
  }
}
