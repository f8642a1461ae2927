/// Least frequently used, in O(1): entries sit in frequency buckets kept in
/// ascending order; eviction takes the lowest bucket's oldest member.
///
/// Matches libCacheSim's `lfu` (Ketan Shah et al., "An O(1) algorithm for
/// implementing the LFU cache eviction scheme", 2010): a frequency counts only
/// while the object is resident (it restarts at 1 on readmission), and among
/// equal frequencies the entry that reached the frequency first is evicted.
/// With `evictsNewest`, the one that reached it last is (``CRLFU``).
public struct LFUPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry the slot of their frequency bucket.
  public var store: PolicyStorage<Index, Slot>
  /// Buckets: key = frequency, payload = the bucket's members, oldest first.
  @usableFromInline var buckets: EntryTable<Int64, EntryList>
  /// The buckets in ascending frequency.
  @usableFromInline var order = EntryList()
  /// Whether ties go to the entry that reached the lowest frequency last.
  @usableFromInline let evictsNewest: Bool

  @inlinable
  public init(capacity: Int64, evictsNewest: Bool = false) {
    store = PolicyStorage(capacity: capacity)
    buckets = EntryTable(minimumCapacity: 64)
    self.evictsNewest = evictsNewest
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { evictsNewest ? "CR-LFU" : "LFU" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    let bucket = store.table[slot].payload
    let frequency = buckets[bucket].key &+ 1
    var target = buckets[bucket].next
    if target < 0 || buckets[target].key != frequency {
      target = buckets.allocate(key: frequency, weight: 0, payload: EntryList())
      buckets.insert(target, after: bucket, &order, tag: 0)
    }
    store.table.unlink(slot, &buckets[bucket].payload)
    store.table.pushBack(slot, &buckets[target].payload, tag: 0)
    store.table[slot].payload = target
    dropIfEmpty(bucket)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    var first = order.front
    if first < 0 || buckets[first].key != 1 {
      first = buckets.allocate(key: 1, weight: 0, payload: EntryList())
      buckets.pushFront(first, &order, tag: 0)
    }
    let slot = store.insert(request.key, weight: request.weight, payload: first)
    store.table.pushBack(slot, &buckets[first].payload, tag: 0)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    let bucket = order.front
    store.table.unlink(victim, &buckets[bucket].payload)
    dropIfEmpty(bucket)
    onEvict(victim, store.table[victim].key)
    store.delete(victim, resident: true)
    return true
  }

  @inlinable @inline(__always)
  public func nextVictim() -> Slot? {
    let bucket = order.front
    guard bucket >= 0 else { return nil }
    return evictsNewest ? buckets[bucket].payload.back : buckets[bucket].payload.front
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let bucket = store.table[slot].payload
    store.table.unlink(slot, &buckets[bucket].payload)
    dropIfEmpty(bucket)
    store.delete(slot, resident: true)
    return slot
  }

  @inlinable @inline(__always)
  mutating func dropIfEmpty(_ bucket: Slot) {
    if buckets[bucket].payload.isEmpty {
      buckets.unlink(bucket, &order)
      buckets.release(bucket)
    }
  }

  /// The access count of a resident key (for tests), or nil.
  public func frequency(of key: Key) -> Int64? {
    let slot = store.find(key)
    return slot >= 0 ? buckets[store.table[slot].payload].key : nil
  }

  public func checkInvariants() {
    buckets.checkList(order, tag: 0, "frequency order")
    var members: [EntryList] = []
    var last: Int64 = 0
    var bucket = order.front
    while bucket >= 0 {
      let b = buckets[bucket]
      precondition(b.key > last, "frequencies not ascending")
      precondition(!b.payload.isEmpty, "empty bucket kept")
      store.table.checkList(b.payload, tag: 0, "bucket \(b.key)")
      var slot = b.payload.front
      while slot >= 0 {
        precondition(store.table[slot].payload == bucket, "entry points to the wrong bucket")
        slot = store.table[slot].next
      }
      members.append(b.payload)
      last = b.key
      bucket = b.next
    }
    store.checkTotals(members)
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    return slot < 0 ? nil : "frequency \(buckets[store.table[slot].payload].key)"
  }

  public func lists() -> [(name: String, keys: [Key])] {
    var result: [(name: String, keys: [Key])] = []
    var bucket = order.front
    while bucket >= 0 {
      result.append(("frequency \(buckets[bucket].key)", store.table.keys(of: buckets[bucket].payload)))
      bucket = buckets[bucket].next
    }
    return result
  }
}

/// LFU in the catalog.
public enum LFU: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lfu", displayName: "LFU", summary: "least frequently used, oldest first among equals",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LFUPolicy<Index>(capacity: capacity))
  }
}
