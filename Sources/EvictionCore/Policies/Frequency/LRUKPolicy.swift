/// LRU-K (O'Neil, O'Neil and Weikum, "The LRU-K Page Replacement Algorithm
/// for Database Disk Buffering", SIGMOD'93): evict the object whose K-th most
/// recent reference lies furthest back (the largest backward K-distance).
/// Objects referenced fewer than K times have an infinite distance and go
/// first. K = 1 is LRU; K = 2 (the default) tells objects used once from
/// objects used repeatedly.
///
/// Reproduces libCacheSim 0.3.5's `lru-k` (`cpp/LRU_K.cpp`, cache name
/// `LRU_K`), new in that release (in the 2024 snapshot `LRU_K.cpp` was an
/// empty file). Its only parameter is `k` (default 2): no history size, no
/// correlated-reference period. Time is the request count: every request,
/// hit or miss, is one tick, and an object's history holds the ticks of its
/// last K requests. Where it departs from the paper, this follows libCacheSim:
/// - No history outlives residency (the paper's Retained Information Period is
///   zero): an evicted object's references are forgotten, and on its return
///   it starts again from one reference.
/// - No Correlated Reference Period: every reference counts, however close to
///   the previous one.
/// - Among objects with fewer than K references (infinite distance), the one
///   admitted earliest goes first, whatever its later references: a FIFO in
///   admission order, where the paper leaves the choice to a subsidiary policy
///   (its example is LRU by last reference). An object leaves the FIFO on its
///   K-th reference, for the ordered set.
/// - Byte mode: victims are taken in the same order until the new object fits
///   (sizes do not enter the order); an object heavier than the cache is not
///   admitted and evicts nothing, but its request still ticks the clock.
///
/// Every reference time is a distinct tick, so the order of the K-th times is
/// strict and ties cannot arise (libCacheSim breaks them by object id).
///
/// - Complexity: O(log n) per request (a heap of the n objects with K
///   references); K ticks of history per entry, kept beside the slab.
public struct LRUKPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// An entry's reference history: how many references it holds (at most K)
  /// and where the next one is written in its ring of K ticks in `ticks`.
  @frozen public struct History: BitwiseCopyable {
    @usableFromInline var references: Int32
    @usableFromInline var cursor: Int32
    @inlinable init(references: Int32, cursor: Int32) {
      self.references = references
      self.cursor = cursor
    }
  }

  public var store: PolicyStorage<Index, History>
  /// Objects with fewer than K references, in admission order (newest at the front).
  @usableFromInline var young = EntryList()
  /// Objects with K references, ordered by their K-th most recent tick; the
  /// priority is that tick negated, so the oldest is on top.
  @usableFromInline var heap = SlotHeap<Int64>()
  /// Entry `slot`'s last K ticks at `slot * k ..< slot * k + k`, a ring
  /// written at the entry's cursor.
  @usableFromInline var ticks = OwnedArray<Int64>()
  @usableFromInline let k: Int
  /// The clock: one tick per request.
  @usableFromInline var now: Int64 = 0

  @usableFromInline static var inYoung: UInt8 { 1 }
  @usableFromInline static var inHeap: UInt8 { 2 }

  /// An LRU-K over `capacity` keeping `k` (≥ 1) reference times per object.
  @inlinable
  public init(capacity: Int64, k: Int = 2) {
    precondition(k >= 1 && k <= Int(Int32.max), "k must be positive")
    store = PolicyStorage(capacity: capacity)
    self.k = k
  }

  public var name: String { "LRU-K(k=\(k))" }

  /// The tick of the K-th most recent reference of `slot`, which holds K.
  @inlinable @inline(__always)
  func kthTick(_ slot: Slot) -> Int64 { ticks[Int(slot) &* k &+ Int(store.table[slot].payload.cursor)] }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    now &+= 1
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    var history = store.table[slot].payload
    ticks[Int(slot) &* k &+ Int(history.cursor)] = now
    history.cursor = history.cursor &+ 1 == Int32(truncatingIfNeeded: k) ? 0 : history.cursor &+ 1
    if Int(history.references) < k { history.references &+= 1 }
    store.table[slot].payload = history
    if store.table[slot].list == Self.inYoung {
      guard Int(history.references) == k else { return slot }
      store.table.unlink(slot, &young)
      store.table[slot].list = Self.inHeap
      heap.insert(slot, priority: 0 &- kthTick(slot))
    } else {
      heap.changePriority(slot, to: 0 &- kthTick(slot))
    }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(
      request.key, weight: request.weight, payload: History(references: 1, cursor: k == 1 ? 0 : 1))
    let first = Int(slot) &* k
    if first &+ k > ticks.count { ticks.extend(to: max(first &+ k, ticks.count &* 2), with: 0) }
    ticks[first] = now
    if k == 1 {
      store.table[slot].list = Self.inHeap
      heap.insert(slot, priority: 0 &- now)
    } else {
      store.table.pushFront(slot, &young, tag: Self.inYoung)
    }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    if !young.isEmpty {
      let victim = young.back
      store.evict(victim, from: &young, onEvict: onEvict)
    } else if heap.count > 0 {
      store.evictTop(of: &heap, onEvict: onEvict)
    } else {
      return false
    }
    return true
  }

  /// The oldest admission with fewer than K references, else the object
  /// whose K-th most recent reference is oldest.
  @inlinable @inline(__always)
  public func nextVictim() -> Slot? {
    if !young.isEmpty { return young.back }
    return heap.count > 0 ? heap.top : nil
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == Self.inYoung {
      store.table.unlink(slot, &young)
    } else {
      heap.remove(slot)
    }
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.table.checkList(young, tag: Self.inYoung, "under K references")
    heap.checkInvariants()
    var slot = young.front
    while slot >= 0 {
      let history = store.table[slot].payload
      precondition(history.references >= 1 && Int(history.references) < k, "young entry \(slot) has K references")
      precondition(Int(history.cursor) == Int(history.references) % k, "young entry \(slot): cursor out of step")
      slot = store.table[slot].next
    }
    var weight = young.weight
    for i in 1..<max(heap.nodes.count, 1) {
      let slot = heap.nodes[i].slot
      let history = store.table[slot].payload
      precondition(store.table[slot].list == Self.inHeap, "heap entry \(slot) mistagged")
      precondition(Int(history.references) == k, "heap entry \(slot) has fewer than K references")
      precondition(heap.nodes[i].priority == 0 &- kthTick(slot), "heap entry \(slot): stale priority")
      precondition(kthTick(slot) <= now, "heap entry \(slot) referenced in the future")
      weight += store.table[slot].weight
    }
    precondition(weight == store.used, "entries weigh \(weight), counted \(store.used)")
    precondition(young.count + heap.count == store.count, "entries and count differ")
    precondition(store.used <= store.capacity, "used exceeds capacity")
    precondition(store.index.count == store.table.live, "index and slab differ")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("under K references, newest first", store.table.keys(of: young)),
      ("K references, next victim first", store.keysInEvictionOrder(heap)),
    ]
  }
}

/// LRU-K in the catalog.
public enum LRUK: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lru-k", displayName: "LRU-K",
    summary: "LRU-K: evict the oldest K-th most recent reference; under K references first, FIFO",
    citation: "O'Neil, O'Neil and Weikum, SIGMOD'93",
    parameters: [
      PolicyParameter("k", default: 2, range: 1...1024, help: "references remembered per object (K = 1 is LRU)")
    ],
    traits: .namesVictims,
    checkedAgainst: "libCacheSim 0.3.5 (cloudPhysicsIO and Twitter, count and bytes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LRUKPolicy<Index>(capacity: capacity, k: Int(spec.integer("k"))))
  }
}
