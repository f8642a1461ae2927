import EvictionCore
import EvictionLab

// evlab with three faulty policies registered, for the tests that
// `evlab check-policy` reports each fault and never stops on one
// (CheckPolicyTests). Each is an oldest-first (FIFO) policy with one fault:
//   overfill    admits without making room, and its own invariant check traps on the overfull cache
//   bad-victim  reports each victim twice, the second time a key no longer resident
//   trap-check  traps in its own invariant check, at its first check

enum Fault { case overfill, badVictim, trapCheck }

struct FaultyPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  typealias Key = Index.Key
  var store: PolicyStorage<Index, Int64>
  var heap = SlotHeap<Int64>()
  var clock: Int64 = 0
  let fault: Fault

  init(capacity: Int64, fault: Fault) {
    store = PolicyStorage(capacity: capacity)
    self.fault = fault
  }

  var name: String { "faulty" }

  mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    clock += 1
    let slot = store.find(request.key)
    return slot >= 0 ? slot : nil
  }

  mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    if fault != .overfill {
      guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    }
    // The heap pops its greatest: the oldest admission has the greatest negated time.
    let slot = store.insert(request.key, weight: request.weight, payload: -clock)
    heap.insert(slot, priority: -clock)
    return slot
  }

  mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard heap.count > 0 else { return false }
    if fault == .badVictim {
      // Evicts the oldest and names it twice: the second time it is no longer resident.
      store.evictTop(of: &heap) { slot, key in
        onEvict(slot, key)
        onEvict(slot, key)
      }
      return true
    }
    store.evictTop(of: &heap, onEvict: onEvict)
    return true
  }

  mutating func remove(_ key: Key) -> Slot? { store.remove(key, from: &heap) }

  func checkInvariants() {
    switch fault {
    case .overfill: precondition(store.used <= store.capacity, "faulty overfill: holds more than its capacity")
    case .trapCheck: fatalError("trap-check: the policy's own invariant check fails")
    case .badVictim: store.checkHeap(heap)
    }
  }

  func lists() -> [(name: String, keys: [Key])] { [("oldest first", store.keysInEvictionOrder(heap))] }
}

/// A faulty policy's catalog entry: its descriptor and its fault.
protocol FaultyDefinition: PolicyDefinition {
  static var fault: Fault { get }
}

extension FaultyDefinition {
  static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(FaultyPolicy<Index>(capacity: capacity, fault: fault))
  }

  static func faulty(_ name: String, _ summary: String) -> PolicyDescriptor {
    PolicyDescriptor(
      name: name, displayName: name, summary: "faulty: \(summary)", citation: "a test",
      checkedAgainst: "nothing: it is wrong on purpose")
  }
}

enum Overfill: FaultyDefinition {
  static let fault = Fault.overfill
  static let descriptor = faulty("overfill", "admits past its capacity")
}

enum BadVictim: FaultyDefinition {
  static let fault = Fault.badVictim
  static let descriptor = faulty("bad-victim", "reports each victim twice")
}

enum TrapCheck: FaultyDefinition {
  static let fault = Fault.trapCheck
  static let descriptor = faulty("trap-check", "its invariant check traps")
}

EvictionLab.main(extraPolicies: [Overfill.self, BadVictim.self, TrapCheck.self])
