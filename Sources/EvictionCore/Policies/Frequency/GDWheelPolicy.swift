/// GD-Wheel (Li and Cox, "GD-Wheel: A Cost-Aware Replacement Policy for
/// Key-Value Stores", EuroSys 2015): GreedyDual over miss penalties
/// (``ReplacementPolicy/willServe(penalty:)``: the one in force when an
/// object is admitted), its priority queue replaced by hierarchical cost
/// wheels, so a request costs O(1) amortised instead of O(log n).
///
/// There are `wheels` wheels of `queues` FIFO queues each, and a hand per
/// wheel. An object of cost c goes to the highest wheel w whose unit,
/// queues^w, rounds c to at least 1, into the queue that many steps ahead
/// of that wheel's hand (at most `queues` − 1 on the top wheel, which
/// caps larger costs). The hand of the lowest wheel plays GreedyDual's L:
/// eviction takes the oldest object of the queue under it, and while that
/// queue is empty the hand steps on. Each full turn of a wheel's hand
/// steps the next wheel's hand once (cascading up), and that wheel's queue
/// now under its hand moves down a wheel: each object goes as many steps
/// ahead of the lower hand as the rest of its cost, in the lower wheel's
/// unit, rounds to. A hit places the object again, with its cost at
/// admission, ahead of today's hands. Objects with costs below `queues`/2
/// (which the lowest wheel holds) thus leave in GreedyDual's order exactly
/// (ties to the one placed longest ago); larger costs are ranked to a unit
/// of their wheel. Sizes
/// do not enter the ranking (as in the paper); capacity is still counted
/// in the run's unit. Without penalties every object costs 1 and GD-Wheel
/// is LRU.
///
/// Caffeine's simulator's `GDWheelPolicy` differs (as read in its
/// sources): its lowest hand never moves, and an insertion wraps modulo
/// the number of wheels rather than of queues; this follows the paper.
///
/// - Complexity: O(1) amortised per request; a turn of the lowest hand
///   over empty queues costs up to `queues` steps.
public struct GDWheelPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// An entry's cost and the queue it sits in (wheel × queues + position).
  @frozen public struct Placement: BitwiseCopyable {
    public var cost: Double
    public var queue: Int32
    @inlinable init(cost: Double, queue: Int32) {
      self.cost = cost
      self.queue = queue
    }
  }

  public var store: PolicyStorage<Index, Placement>
  /// Wheel w's queue q is `ring[w * queuesPerWheel + q]`; entries are
  /// tagged with their wheel.
  @usableFromInline var ring: [EntryList]
  @usableFromInline var hands: [Int]
  /// queues^w, wheel w's unit of cost.
  @usableFromInline let units: [Double]
  public let wheels: Int
  public let queuesPerWheel: Int
  /// The miss penalty of the requests being served.
  @usableFromInline var penalty: Float = 1

  @inlinable
  public init(capacity: Int64, wheels: Int = 2, queues: Int = 256) {
    precondition((1...8).contains(wheels) && (2...65_536).contains(queues), "1 to 8 wheels of 2 to 65,536 queues")
    store = PolicyStorage(capacity: capacity)
    self.wheels = wheels
    queuesPerWheel = queues
    ring = Array(repeating: EntryList(), count: wheels * queues)
    hands = Array(repeating: 0, count: wheels)
    units = (0..<wheels).map { w in (0..<w).reduce(1.0) { unit, _ in unit * Double(queues) } }
  }

  public var name: String { "GDWheel(wheels=\(wheels),queues=\(queuesPerWheel))" }

  @inlinable public mutating func willServe(penalty: Float) { self.penalty = penalty }

  /// The wheels' queue heads and hands: 8 wheels of 65,536 queues hold
  /// 12 MiB before the first entry.
  public var sketchBytes: Int {
    ring.count * MemoryLayout<EntryList>.stride + hands.count * MemoryLayout<Int>.stride
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    unlink(slot)
    place(slot, cost: store.table[slot].payload.cost)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    // A penalty that is no number, or below 0, costs nothing; past the
    // Doubles, it costs the most.
    let cost = penalty > 0 ? Double(min(penalty, .greatestFiniteMagnitude)) : 0
    let slot = store.insert(request.key, weight: request.weight, payload: Placement(cost: cost, queue: 0))
    place(slot, cost: cost)
    return slot
  }

  /// Files `slot`, on no queue, by `cost` ahead of the hands.
  @inlinable
  mutating func place(_ slot: Slot, cost: Double) {
    var wheel = 0
    var steps = (cost / units[0]).rounded()
    for w in 1..<wheels {
      let ahead = (cost / units[w]).rounded()
      guard ahead > 0 else { break }
      (wheel, steps) = (w, ahead)
    }
    file(slot, wheel: wheel, steps: steps)
  }

  /// Puts `slot` at the front of the queue `steps` ahead of `wheel`'s hand
  /// (at most a turn less one).
  @inlinable @inline(__always)
  mutating func file(_ slot: Slot, wheel: Int, steps: Double) {
    let ahead = Int(min(steps, Double(queuesPerWheel - 1)))
    let queue = wheel * queuesPerWheel + (hands[wheel] + ahead) % queuesPerWheel
    store.table[slot].payload.queue = Int32(queue)
    store.table.pushFront(slot, &ring[queue], tag: UInt8(wheel))
  }

  @inlinable @inline(__always)
  mutating func unlink(_ slot: Slot) {
    store.table.unlink(slot, &ring[Int(store.table[slot].payload.queue)])
  }

  /// Steps `wheel`'s hand once: a full turn steps the next wheel's first;
  /// then the queue under the hand moves down a wheel.
  @usableFromInline
  mutating func advance(_ wheel: Int) {
    hands[wheel] = (hands[wheel] + 1) % queuesPerWheel
    guard wheel > 0 else {
      if hands[0] == 0 && wheels > 1 { advance(1) }
      return
    }
    if hands[wheel] == 0 && wheel + 1 < wheels { advance(wheel + 1) }
    let queue = wheel * queuesPerWheel + hands[wheel]
    // Oldest first, each to the front below: the queue's order is kept.
    while ring[queue].back >= 0 {
      let slot = ring[queue].back
      store.table.unlink(slot, &ring[queue])
      let rest = store.table[slot].payload.cost.truncatingRemainder(dividingBy: units[wheel])
      file(slot, wheel: wheel - 1, steps: (rest / units[wheel - 1]).rounded())
    }
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    store.evict(victim, from: &ring[hands[0]], onEvict: onEvict)
    return true
  }

  /// The oldest object under the lowest hand, the hands stepped on (and
  /// queues moved down) until there is one.
  @inlinable
  public mutating func nextVictim() -> Slot? {
    guard store.count > 0 else { return nil }
    while ring[hands[0]].isEmpty { advance(0) }
    return ring[hands[0]].back
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    unlink(slot)
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    for (queue, list) in ring.enumerated() {
      let wheel = queue / queuesPerWheel
      store.table.checkList(list, tag: UInt8(wheel), "wheel \(wheel + 1) queue \(queue % queuesPerWheel)")
      var slot = list.front
      while slot >= 0 {
        precondition(Int(store.table[slot].payload.queue) == queue, "entry \(slot) filed under the wrong queue")
        slot = store.table[slot].next
      }
    }
    store.checkTotals(ring)
  }

  /// Each wheel's objects from its hand on, each queue oldest first: the
  /// lowest wheel's list is the eviction order until the hand turns.
  public func lists() -> [(name: String, keys: [Key])] {
    (0..<wheels).map { wheel in
      let keys = (0..<queuesPerWheel).flatMap { step in
        store.table.keys(of: ring[wheel * queuesPerWheel + (hands[wheel] + step) % queuesPerWheel]).reversed()
      }
      return (wheel == 0 ? "wheel 1 from its hand, next victim first" : "wheel \(wheel + 1) from its hand", keys)
    }
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let placement = store.table[slot].payload
    let (wheel, queue) = (Int(placement.queue) / queuesPerWheel, Int(placement.queue) % queuesPerWheel)
    let ahead = (queue - hands[wheel] + queuesPerWheel) % queuesPerWheel
    return "cost \(placement.cost), wheel \(wheel + 1), \(ahead) queues ahead of its hand"
  }
}

/// GD-Wheel in the catalog.
public enum GDWheel: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "gdwheel", displayName: "GD-Wheel", summary: "cost-aware: GreedyDual over miss penalties on cost wheels",
    citation: "Li and Cox, EuroSys 2015",
    parameters: [
      PolicyParameter("wheels", default: 2, range: 1...8, help: "levels of cost wheels"),
      PolicyParameter(
        "queues", default: 256, range: 2...65_536,
        help:
          "queues per wheel: costs below half of it are ranked exactly; the top wheel ranks costs up to queues^wheels"),
    ],
    traits: [.namesVictims],
    checkedAgainst:
      "GreedyDual for costs below queues/2, LRU without penalties, a worked example of two wheels (CostAwareTests)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      GDWheelPolicy<Index>(
        capacity: capacity, wheels: Int(spec.integer("wheels")), queues: Int(spec.integer("queues"))))
  }
}
