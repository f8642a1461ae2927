import EvictionConformance
import EvictionCore
import Testing

// The queue policy of docs/adding-a-policy.md ("A queue policy"), as the
// guide prints it: this file keeps the guide's code compiling and keeping
// every guarantee of the conformance battery.

/// P-LRU: a new object waits in a small FIFO, probation (a tenth of the
/// capacity); a hit there promotes it to an LRU main queue, a hit in main
/// moves it to main's front. Victims come from probation while it holds
/// more than its share (or main is empty), else from main's back.
public struct ProbationLRUPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  var probation = EntryList()  // tag 0
  var main = EntryList()  // tag 1
  let probationShare: Int64

  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
    probationShare = max(1, capacity / 10)
  }

  public var name: String { "P-LRU" }

  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == 0 {
      store.table.unlink(slot, &probation)
      store.table.pushFront(slot, &main, tag: 1)
    } else {
      store.table.moveToFront(slot, &main)
    }
    return slot
  }

  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    return store.insert(request, payload: (), atFrontOf: &probation, tag: 0)
  }

  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    if probation.back >= 0 && (probation.weight > probationShare || main.isEmpty) {
      store.evict(probation.back, from: &probation, onEvict: onEvict)
    } else if main.back >= 0 {
      store.evict(main.back, from: &main, onEvict: onEvict)
    } else {
      return false
    }
    return true
  }

  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == 0 {
      store.table.unlink(slot, &probation)
    } else {
      store.table.unlink(slot, &main)
    }
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.table.checkList(probation, tag: 0, "probation")
    store.table.checkList(main, tag: 1, "main")
    store.checkTotals([probation, main])
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("probation", store.table.keys(of: probation)), ("main", store.table.keys(of: main))]
  }
}

public enum ProbationLRU: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "p-lru", displayName: "P-LRU", summary: "a FIFO probation in front of an LRU main queue",
    checkedAgainst: "the conformance battery")

  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(ProbationLRUPolicy<Index>(capacity: capacity))
  }
}

@Suite struct QueuePolicyGuideTests {
  /// The guide's queue policy keeps every guarantee, and behaves as it says:
  /// a scan through probation leaves the hot objects in main.
  @Test func theGuidesQueuePolicyKeepsEveryGuarantee() throws {
    try? PolicyCatalog.register([ProbationLRU.self])
    let report = PolicyConformance.check(try PolicySpec("p-lru"), requests: 2_000)
    #expect(report.passed, "\(report.violations.prefix(5))")
    var policy = ProbationLRUPolicy<IntegerSlotIndex<UInt64>>(capacity: 20)
    func touch(_ key: UInt64) {
      if policy.lookup(Request(key: key), onEvict: { _, _ in }) == nil {
        _ = policy.admit(Request(key: key), onEvict: { _, _ in })
      }
    }
    for key: UInt64 in 1...5 {
      touch(key)
      touch(key)
    }
    for key: UInt64 in 100..<200 { touch(key) }
    #expect((1...5).allSatisfy { policy.contains($0) })
    #expect(policy.lists()[1].keys.sorted() == [1, 2, 3, 4, 5])
    policy.checkInvariants()
  }
}
