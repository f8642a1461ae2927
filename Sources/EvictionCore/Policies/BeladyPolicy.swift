/// Belady's optimum (Belady, "A study of replacement algorithms for a
/// virtual-storage computer", IBM Systems Journal 1966; MIN): evict the object
/// whose next request lies farthest in the future. Offline: it reads each
/// request's `nextAccess` (oracleGeneral traces carry it; the replay engine
/// computes it in a pre-pass for other formats). With equal weights no policy
/// misses less; with sizes it is the classic bound, not the optimum (see
/// `belady-size`).
///
/// Follows libCacheSim's `belady`: priorities are next-access times as
/// `double`s in libpqueue's heap (``SlotHeap``), so ties among objects never
/// requested again break as they do there.
public struct BeladyPolicy<Index: SlotIndex & ~Copyable>: ReplacementPolicy, ~Copyable {
  public typealias Key = Index.Key
  @usableFromInline var store: PolicyStorage<Index, Void>
  @usableFromInline var heap = SlotHeap<Double>()

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  public var name: String { "Belady" }
  @inlinable public var capacity: Int64 { store.capacity }
  @inlinable public var usedWeight: Int64 { store.used }
  @inlinable public var count: Int { store.count }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    heap.changePriority(slot, to: Double(request.nextAccess))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: ())
    heap.insert(slot, priority: Double(request.nextAccess))
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard heap.count > 0 else { return false }
    let victim = heap.pop()
    onEvict(victim, store.table[victim].key)
    store.delete(victim, resident: true)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    heap.remove(slot)
    store.delete(slot, resident: true)
    return slot
  }

  @inlinable public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }
  @inlinable public func key(at slot: Slot) -> Key { store.table[slot].key }

  public func checkInvariants() {
    heap.checkInvariants()
    precondition(heap.count == store.count, "heap holds \(heap.count), resident \(store.count)")
    precondition(store.used <= store.capacity, "used exceeds capacity")
    precondition(store.index.count == store.table.live, "index and slab differ")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    var order: [(Double, Key)] = []
    for i in 1..<heap.nodes.count {
      let slot = heap.nodes[i]
      order.append((heap.priority(of: slot), store.table[slot].key))
    }
    return [("by next access, farthest first", order.sorted { $0.0 > $1.0 }.map(\.1))]
  }
}
