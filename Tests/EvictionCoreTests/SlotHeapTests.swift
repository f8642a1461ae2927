import EvictionCore
import Testing

/// The heap behind Belady, Size, GDSF and the timed models: nodes that hold
/// their priorities must settle exactly as libpqueue's steps over separate
/// arrays do, ties included (they decide Belady's and Size's victims).
@Suite struct SlotHeapTests {
  /// libpqueue's algorithm over a priority per slot, written plainly: the
  /// model the heap is checked against.
  struct Model {
    var nodes: [Slot] = [-1]
    var priorities: [Slot: Int64] = [:]
    var positions: [Slot: Int] = [:]

    mutating func insert(_ slot: Slot, _ priority: Int64) {
      priorities[slot] = priority
      nodes.append(slot)
      siftUp(nodes.count - 1)
    }
    mutating func pop() -> Slot {
      let head = nodes[1]
      let last = nodes.removeLast()
      if nodes.count > 1 {
        nodes[1] = last
        siftDown(1)
      }
      priorities[head] = nil
      return head
    }
    mutating func change(_ slot: Slot, _ priority: Int64) {
      let old = priorities[slot]!
      priorities[slot] = priority
      if old < priority { siftUp(positions[slot]!) } else { siftDown(positions[slot]!) }
    }
    mutating func remove(_ slot: Slot) {
      let position = positions[slot]!
      let last = nodes.removeLast()
      defer { priorities[slot] = nil }
      guard position < nodes.count else { return }
      nodes[position] = last
      if priorities[slot]! < priorities[last]! { siftUp(position) } else { siftDown(position) }
    }
    mutating func siftUp(_ start: Int) {
      var i = start
      let moving = nodes[i]
      while i > 1 && priorities[nodes[i >> 1]]! < priorities[moving]! {
        nodes[i] = nodes[i >> 1]
        positions[nodes[i]] = i
        i >>= 1
      }
      nodes[i] = moving
      positions[moving] = i
    }
    mutating func siftDown(_ start: Int) {
      var i = start
      let moving = nodes[i]
      while 2 * i < nodes.count {
        var child = 2 * i
        if child + 1 < nodes.count && priorities[nodes[child]]! < priorities[nodes[child + 1]]! { child += 1 }
        guard priorities[moving]! < priorities[nodes[child]]! else { break }
        nodes[i] = nodes[child]
        positions[nodes[i]] = i
        i = child
      }
      nodes[i] = moving
      positions[moving] = i
    }
  }

  /// 20,000 random inserts, pops, changes and removals over priorities
  /// drawn from eight values (so most comparisons tie): after every step the
  /// heap's top, count and priorities equal the model's.
  @Test func settlesAsLibpqueueDoesTiesIncluded() {
    var heap = SlotHeap<Int64>()
    var model = Model()
    var random = SeededGenerator(seed: 11)
    var free: [Slot] = Array((Slot(0)..<Slot(3_000)).reversed())
    var held: [Slot] = []
    for _ in 0..<20_000 {
      let priority = Int64(random.below(8))
      switch random.below(4) {
      case 0 where !held.isEmpty:
        let popped = heap.pop()
        #expect(popped == model.pop())
        held.removeAll { $0 == popped }
        free.append(popped)
      case 1 where !held.isEmpty:
        let slot = held[random.below(held.count)]
        heap.changePriority(slot, to: priority)
        model.change(slot, priority)
      case 2 where !held.isEmpty:
        let slot = held.remove(at: random.below(held.count))
        heap.remove(slot)
        model.remove(slot)
        free.append(slot)
      default:
        guard let slot = free.popLast() else { continue }
        heap.insert(slot, priority: priority)
        model.insert(slot, priority)
        held.append(slot)
      }
      #expect(heap.count == held.count)
      #expect(heap.top == (model.nodes.count > 1 ? model.nodes[1] : -1))
      if let slot = held.last { #expect(heap.priority(of: slot) == model.priorities[slot]) }
    }
    heap.checkInvariants()
    var order: [Slot] = []
    while heap.count > 0 { order.append(heap.pop()) }
    var expected: [Slot] = []
    while model.nodes.count > 1 { expected.append(model.pop()) }
    #expect(order == expected)
  }
}
