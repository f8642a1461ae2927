/// FIFO-Merge: a FIFO queue that evicts in batches. When it needs room it
/// examines the next 100 entries from where the last batch stopped (from the
/// oldest end towards the newest, wrapping), ranks them by frequency per
/// byte, and evicts the least valuable of them, one per eviction; the rest
/// stay where they are. No entry moves on a hit, as in FIFO, yet frequently
/// used ones survive their turn at the tail. The idea is Segcache's merge-based
/// eviction (Yang et al., "Segcache", NSDI'21), applied to single objects.
///
/// Follows libCacheSim 0.3.5's `fifo-merge` (`eviction/FIFO_Merge.c`, retain
/// policy `frequency`, n-exam 100, n-keep 50), including where its code is
/// the only definition:
/// - an entry's metric is 10⁶ · (hits + r) / size, where r = (x mod 1000) /
///   10⁴ and x is the next value of libCacheSim's `next_rand()`
///   (``LibCacheSimRandom``), drawn once per examined entry in examination
///   order: it separates equal frequencies;
/// - a batch is sorted by metric, equal metrics in examination order (the
///   stable merge sort of glibc's `qsort`), and yields 49 evictions, not 50:
///   its 50th call moves on to a new batch;
/// - while the cache holds 100 objects or fewer, eviction takes the oldest.
/// Hit counts are never reset, so a survivor keeps its count into the next
/// batch. `remove(_:)` of an entry awaiting eviction drops the batch.
///
/// `FIFO_Merge.c` itself did not change in 0.3.5; `next_rand()` and its
/// seeding did, and with them which of equally used entries a batch keeps.
/// The 2024 snapshot (aa0fc40) drew from a 64-bit LCG restarted at 0 for
/// each cache: `fifo-merge:v0=true`, which the reference rows measured with
/// the snapshot follow. 0.3.5 draws from a Lehmer generator that `cachesim`
/// seeds, for each cache of a run in turn, with the C library's next
/// `rand()`: `seed` is that value, by default 1804289383, glibc's first (the
/// first cache of a run; the second gets 846930886, and so on). On
/// cloudPhysicsIO at 1000 objects, 0.3.5 misses 94349 times as a run's first
/// cache and 94356 as its second (seed 846930886); the snapshot, 94346.
///
/// - Complexity: O(1) per hit; per batch of n = 100, O(n) to heap it and
///   O(log n) per eviction taken from it.
public struct FIFOMergePolicy<Index: SlotIndex & ~Copyable>: SingleListPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry their hit count.
  public var store: PolicyStorage<Index, Int64>
  public var queue = EntryList()
  /// A batch member: the bit pattern of its metric (positive and finite,
  /// where bit patterns order as the numbers do, so the heap compares
  /// integers), its place in the examination, and its slot.
  @frozen @usableFromInline struct Candidate: BitwiseCopyable {
    @usableFromInline var metric: UInt64
    @usableFromInline var order: Int32
    @usableFromInline var slot: Slot
    @inlinable init(metric: UInt64, order: Int32, slot: Slot) {
      self.metric = metric
      self.order = order
      self.slot = slot
    }
  }

  /// The current batch's entries not yet taken, a min-heap by value.
  @usableFromInline var batch = OwnedArray<Candidate>(minimumCapacity: 100)
  /// The victim ``nextVictim()`` named and not yet evicted, or -1.
  @usableFromInline var named: Slot = -1
  /// The next entry of `batch` to evict; `examined` when the batch is spent.
  @usableFromInline var position: Int
  /// The entry the next batch starts from; -1 starts from the oldest.
  @usableFromInline var nextToExamine: Slot = -1
  /// libCacheSim's `next_rand()`.
  @usableFromInline var random: LibCacheSimRandom
  /// The seed of 0.3.5's generator (unused by the snapshot's).
  public let seed: UInt64
  @usableFromInline let examined = 100
  @usableFromInline let kept = 50

  /// Draws from `next_rand()` of libCacheSim 0.3.5 seeded with `seed`, or,
  /// with `v0`, of the 2024 snapshot, restarted at 0.
  @inlinable
  public init(capacity: Int64, seed: UInt64 = 1_804_289_383, v0: Bool = false) {
    store = PolicyStorage(capacity: capacity)
    position = examined
    random = v0 ? LibCacheSimRandom(snapshotState: 0) : LibCacheSimRandom(lehmerSeed: seed)
    self.seed = seed
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { random.isSnapshotLCG ? "FIFO-Merge(v0)" : "FIFO-Merge(seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    store.table[slot].payload &+= 1
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request, payload: 0, atFrontOf: &queue, tag: 0)
    return slot
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard queue.back >= 0 else { return false }
    let victim = named >= 0 ? named : chooseVictim()
    named = -1
    store.evict(victim, from: &queue, onEvict: onEvict)
    return true
  }

  /// The victim the batch names next, remembered until it is evicted or removed.
  @inlinable
  public mutating func nextVictim() -> Slot? {
    guard queue.back >= 0 else { return nil }
    if named < 0 { named = chooseVictim() }
    return named
  }

  /// Takes the next victim from the batch, examining a new batch when this
  /// one is spent (its draws and its starting point move on).
  @inlinable
  mutating func chooseVictim() -> Slot {
    if position < examined {
      position += 1
      let slot = popLeastValuable()
      if position < examined - kept { return slot }
    }
    if store.count <= examined {
      nextToExamine = -1
      return queue.back
    }
    batch.removeAll()
    var slot = nextToExamine
    for order in 0..<Int32(examined) {
      if slot < 0 { slot = queue.back }
      batch.append(Candidate(metric: metric(slot).bitPattern, order: order, slot: slot))
      slot = store.table[slot].prev
    }
    nextToExamine = slot
    // A min-heap, popped one victim per eviction: of a batch only the 49
    // least valuable are ever taken, and a heap finds them without sorting
    // the other 51 (a full stable sort took half of FIFO-Merge's time).
    for i in stride(from: batch.count / 2 - 1, through: 0, by: -1) { siftDown(from: i) }
    position = 1
    return popLeastValuable()
  }

  /// Whether `a` is evicted before `b`: the lower metric, equal metrics in
  /// examination order (as glibc's merge sort leaves them in libCacheSim).
  /// Without branches: which of two candidates goes first is a coin toss
  /// to the branch predictor.
  @inlinable @inline(__always)
  static func precedes(_ a: Candidate, _ b: Candidate) -> Bool {
    (a.metric < b.metric) || ((a.metric == b.metric) && (a.order < b.order))
  }

  @inlinable @inline(__always)
  func siftDown(from start: Int) {
    var i = start
    let moving = batch[i]
    let count = batch.count
    while true {
      let left = 2 &* i &+ 1
      guard left < count else { break }
      var child = left
      if left &+ 1 < count && Self.precedes(batch[left &+ 1], batch[left]) { child = left &+ 1 }
      guard Self.precedes(batch[child], moving) else { break }
      batch[i] = batch[child]
      i = child
    }
    batch[i] = moving
  }

  /// Removes the batch's least valuable entry and returns its slot.
  ///
  /// Floyd's bottom-up pop: the hole the root leaves sinks to a leaf along
  /// the lesser children (a loop of fixed length whose one choice per level
  /// is a conditional move), and the heap's last node rises from there,
  /// usually not at all. A top-down sift stops where the last node fits, a
  /// branch the predictor misses about every other level. Candidates are
  /// totally ordered (examination order breaks equal metrics), so the pops
  /// come out in the same order whichever way the heap is kept.
  @inlinable @inline(__always)
  mutating func popLeastValuable() -> Slot {
    let least = batch[0].slot
    let last = batch.removeLast()
    let count = batch.count
    guard count > 0 else { return least }
    var hole = 0
    while true {
      let left = 2 &* hole &+ 1
      guard left < count else { break }
      var child = left
      if left &+ 1 < count { child &+= Self.precedes(batch[left &+ 1], batch[left]) ? 1 : 0 }
      batch[hole] = batch[child]
      hole = child
    }
    while hole > 0 {
      let parent = (hole &- 1) / 2
      guard Self.precedes(last, batch[parent]) else { break }
      batch[hole] = batch[parent]
      hole = parent
    }
    batch[hole] = last
    return least
  }

  /// libCacheSim's frequency metric, with its generator's tie-breaker (a
  /// weight of 0, which only a memory cache's cost can give, counts as 1).
  @inlinable
  mutating func metric(_ slot: Slot) -> Double {
    let r = Double(random.next() % 1000) / 10_000
    return 1.0e6 * (Double(store.table[slot].payload) + r) / Double(max(store.table[slot].weight, 1))
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    if position < examined && (0..<batch.count).contains(where: { batch[$0].slot == slot }) { position = examined }
    if slot == nextToExamine { nextToExamine = store.table[slot].prev }
    if slot == named { named = -1 }
    store.table.unlink(slot, &queue)
    store.delete(slot, resident: true)
    return slot
  }
}

/// FIFO-Merge in the catalog.
public enum FIFOMerge: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "fifo-merge", displayName: "FIFO-Merge",
    summary: "FIFO that evicts the least used of each batch of 100 at the tail",
    citation: "Yang et al., NSDI'21",
    parameters: [
      PolicyParameter(
        "seed", default: 1_804_289_383, range: 0...Int64.max,
        help: "libCacheSim 0.3.5's set_rand_seed for the tie-breaker (cachesim: glibc's rand(), one per cache)"),
      PolicyParameter(
        switch: "v0", default: false, help: "libCacheSim's 2024 tie-breaker: its LCG from 0 (seed unused)"),
    ],
    traits: .namesVictims,
    checkedAgainst:
      "libCacheSim 0.3.5 (cloudPhysicsIO, twitter_cluster52; both size modes); v0: the 2024 snapshot "
      + "(cloudPhysicsIO, count and bytes; seven more traces)",
    libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      FIFOMergePolicy<Index>(capacity: capacity, seed: UInt64(spec.integer("seed")), v0: spec.isOn("v0")))
  }
}
