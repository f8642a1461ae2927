/// A binary max-heap of slots with changeable priorities, for policies that
/// evict by a score (Belady's optimum, GDSF). Only `<` of `Priority` is used;
/// the slot whose priority is greatest comes out first.
///
/// The algorithm is libpqueue's (Volkan Yazıcı, 2014; libCacheSim's
/// `pqueue.c`) step for step: 1-based array, sift-up while the parent ranks
/// strictly lower, sift-down to the larger child (the right one only when the
/// left ranks strictly lower), removal by moving the last element into the
/// hole. Equal priorities therefore break ties exactly as in libCacheSim,
/// which decides which of several never-again objects Belady evicts when
/// sizes differ.
///
/// Each node holds its slot's priority beside the slot, so a sift compares
/// children without first loading their slots' priorities from elsewhere
/// (one dependent load a level less; GDSF spends most of its time sifting).
/// The storage is ``OwnedArray``: no copy-on-write check on a write.
public struct SlotHeap<Priority: Comparable & BitwiseCopyable>: ~Copyable {
  @frozen @usableFromInline
  struct Node: BitwiseCopyable {
    @usableFromInline var priority: Priority
    @usableFromInline var slot: Slot
    @inlinable init(_ priority: Priority, _ slot: Slot) {
      self.priority = priority
      self.slot = slot
    }
  }

  /// `nodes[1...count]` is the heap; `nodes[0]` is unused (and never read).
  @usableFromInline var nodes = OwnedArray<Node>()
  /// The heap position of each slot in the heap (indexed by slot).
  @usableFromInline var positions = OwnedArray<Int32>()

  @inlinable public init() {}

  /// The number of slots in the heap.
  @inlinable public var count: Int { max(nodes.count - 1, 0) }

  /// The slot with the highest priority (the most recently settled among equals), or -1.
  @inlinable public var top: Slot { nodes.count > 1 ? nodes[1].slot : -1 }

  /// The priority `slot`, which is in the heap, was inserted or changed to.
  @inlinable public func priority(of slot: Slot) -> Priority { nodes[Int(positions[Int(slot)])].priority }

  /// Adds `slot` with `priority`.
  /// - Complexity: O(log n).
  @inlinable
  public mutating func insert(_ slot: Slot, priority: Priority) {
    let s = Int(slot)
    if s >= positions.count { positions.extend(to: max(s + 1, positions.count * 2), with: 0) }
    if nodes.isEmpty { nodes.append(Node(priority, -1)) }
    nodes.append(Node(priority, slot))
    siftUp(nodes.count - 1)
  }

  /// Removes and returns the slot with the highest priority.
  /// - Complexity: O(log n).
  @inlinable
  public mutating func pop() -> Slot {
    let head = nodes[1].slot
    let last = nodes.removeLast()
    if nodes.count > 1 {
      nodes[1] = last
      siftDown(1)
    }
    return head
  }

  /// Gives `slot` a new priority.
  /// - Complexity: O(log n).
  @inlinable
  public mutating func changePriority(_ slot: Slot, to priority: Priority) {
    let position = Int(positions[Int(slot)])
    let old = nodes[position].priority
    nodes[position].priority = priority
    if old < priority { siftUp(position) } else { siftDown(position) }
  }

  /// Removes `slot` from the heap.
  /// - Complexity: O(log n).
  @inlinable
  public mutating func remove(_ slot: Slot) {
    let position = Int(positions[Int(slot)])
    let removed = nodes[position].priority
    let last = nodes.removeLast()
    guard position < nodes.count else { return }  // it was the last
    nodes[position] = last
    if removed < last.priority { siftUp(position) } else { siftDown(position) }
  }

  @inlinable
  mutating func siftUp(_ start: Int) {
    var i = start
    let moving = nodes[i]
    while i > 1 && nodes[i >> 1].priority < moving.priority {
      nodes[i] = nodes[i >> 1]
      positions[Int(nodes[i].slot)] = Int32(truncatingIfNeeded: i)
      i >>= 1
    }
    nodes[i] = moving
    positions[Int(moving.slot)] = Int32(truncatingIfNeeded: i)
  }

  @inlinable
  mutating func siftDown(_ start: Int) {
    var i = start
    let moving = nodes[i]
    let size = nodes.count
    while true {
      var child = i << 1
      if child >= size { break }
      if child + 1 < size && nodes[child].priority < nodes[child + 1].priority { child += 1 }
      guard moving.priority < nodes[child].priority else { break }
      nodes[i] = nodes[child]
      positions[Int(nodes[i].slot)] = Int32(truncatingIfNeeded: i)
      i = child
    }
    nodes[i] = moving
    positions[Int(moving.slot)] = Int32(truncatingIfNeeded: i)
  }

  /// Checks the heap order and the position index.
  public func checkInvariants() {
    for i in 1..<max(nodes.count, 1) {
      precondition(Int(positions[Int(nodes[i].slot)]) == i, "heap position out of date")
      if i > 1 { precondition(!(nodes[i >> 1].priority < nodes[i].priority), "heap order broken") }
    }
  }
}

/// The bookkeeping every heap-ordered policy (Belady, GDSF, the timed disk
/// models) shares: its resident entries are exactly the heap's slots.
extension PolicyStorage where Index: ~Copyable {
  /// Evicts the heap's top entry: pops it, tells `onEvict`, deletes it.
  @inlinable @inline(__always)
  public mutating func evictTop<Priority>(of heap: inout SlotHeap<Priority>, onEvict: (Slot, Key) -> Void) {
    let victim = heap.pop()
    onEvict(victim, table[victim].key)
    delete(victim, resident: true)
  }

  /// Removes resident `key` from the heap and the store; its slot, or nil.
  @inlinable
  public mutating func remove<Priority>(_ key: Key, from heap: inout SlotHeap<Priority>) -> Slot? {
    let slot = find(key)
    guard slot >= 0 else { return nil }
    heap.remove(slot)
    delete(slot, resident: true)
    return slot
  }

  /// Checks the heap and that it holds exactly the resident entries.
  public func checkHeap<Priority>(_ heap: borrowing SlotHeap<Priority>) {
    heap.checkInvariants()
    precondition(heap.count == count, "heap holds \(heap.count), resident \(count)")
    precondition(index.count == table.live, "index and slab differ")
  }

  /// The resident keys in the order the heap would evict them.
  public func keysInEvictionOrder<Priority>(_ heap: borrowing SlotHeap<Priority>) -> [Key] {
    var order: [(Priority, Key)] = []
    for i in 1..<max(heap.nodes.count, 1) { order.append((heap.nodes[i].priority, table[heap.nodes[i].slot].key)) }
    return order.sorted { $0.0 > $1.0 }.map(\.1)
  }
}
