/// LFU with dynamic aging (Arlitt et al., "Evaluating content management
/// techniques for Web proxy caches", 2000): an entry's priority is its
/// access count plus the cache age L, the priority of the last victim, so
/// objects that were popular long ago age out.
///
/// Follows libCacheSim's `lfuda` to the letter, including how it keeps L:
/// a new entry's priority is L + 1; a hit adds L (not 1) to the priority, so
/// before the first eviction (L = 0) hits do not raise it; among equal
/// priorities the entry that reached the priority first is evicted; L becomes
/// the victim's priority, or the next occupied priority above it when the
/// victim's bucket empties. When a hit empties the bucket at L, L moves to the
/// next occupied priority above it *before* the hit entry joins its new
/// bucket, as libCacheSim does; L can then pass over that entry, which is
/// evicted later than a strict minimum-priority order would.
///
/// Because a hit adds L, a priority can double every eviction round when the
/// cache holds only an object or two; libCacheSim's unsigned counters then
/// wrap around. Here priorities saturate at 2^63 − 1 instead, keeping the
/// order sound; no reference row comes near.
public struct LFUDAPolicy<Index: SlotIndex & ~Copyable>: ReplacementPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry the slot of their priority bucket.
  @usableFromInline var store: PolicyStorage<Index, Slot>
  /// Buckets: key = priority, payload = members, oldest first; kept in ascending priority.
  @usableFromInline var buckets: EntryTable<Int64, EntryList>
  @usableFromInline var order = EntryList()
  /// Occupied priority → its bucket.
  @usableFromInline var bucketOf: [Int64: Slot] = [:]
  /// The cache age L.
  @usableFromInline var age: Int64 = 0

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
    buckets = EntryTable(minimumCapacity: 64)
  }

  public var name: String { "LFUDA" }
  @inlinable public var capacity: Int64 { store.capacity }
  @inlinable public var usedWeight: Int64 { store.used }
  @inlinable public var count: Int { store.count }

  @inlinable
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    let old = store.table[slot].payload
    let oldPriority = buckets[old].key
    let newPriority = Self.saturatingSum(oldPriority, age)  // with L as it was before this hit
    store.table.unlink(slot, &buckets[old].payload)
    var after = old
    if buckets[old].payload.isEmpty {
      after = buckets[old].prev
      let next = buckets[old].next
      if oldPriority == age, next >= 0 { age = buckets[next].key }
      dropBucket(old)
    }
    let bucket = bucket(for: newPriority, searchingAfter: after)
    store.table.pushBack(slot, &buckets[bucket].payload, tag: 0)
    store.table[slot].payload = bucket
    return slot
  }

  @inlinable
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let bucket = bucket(for: Self.saturatingSum(age, 1), searchingAfter: -1)
    let slot = store.insert(request.key, weight: request.weight, payload: bucket)
    store.table.pushBack(slot, &buckets[bucket].payload, tag: 0)
    return slot
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    // libCacheSim evicts from the bucket at L (at 1 while L is 0 or 1).
    let bucket = bucketOf[max(age, 1)] ?? order.front
    let victim = buckets[bucket].payload.front
    age = buckets[bucket].key
    store.table.unlink(victim, &buckets[bucket].payload)
    if buckets[bucket].payload.isEmpty {
      let next = buckets[bucket].next
      if next >= 0 { age = buckets[next].key }
      dropBucket(bucket)
    }
    onEvict(victim, store.table[victim].key)
    store.delete(victim, resident: true)
    return true
  }

  /// The bucket for `priority`, created in order if needed; the search for
  /// its place starts behind `start` (or at the front for -1), whose priority
  /// is below `priority`.
  @inlinable
  mutating func bucket(for priority: Int64, searchingAfter start: Slot) -> Slot {
    if let existing = bucketOf[priority] { return existing }
    var before = start
    var next = start >= 0 ? buckets[start].next : order.front
    while next >= 0 && buckets[next].key < priority {
      before = next
      next = buckets[next].next
    }
    let bucket = buckets.allocate(key: priority, weight: 0, payload: EntryList())
    if before >= 0 {
      buckets.insert(bucket, after: before, &order, tag: 0)
    } else {
      buckets.pushFront(bucket, &order, tag: 0)
    }
    bucketOf[priority] = bucket
    return bucket
  }

  @inlinable @inline(__always)
  static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? Int64.max : sum
  }

  @inlinable
  mutating func dropBucket(_ bucket: Slot) {
    bucketOf[buckets[bucket].key] = nil
    buckets.unlink(bucket, &order)
    buckets.release(bucket)
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let bucket = store.table[slot].payload
    store.table.unlink(slot, &buckets[bucket].payload)
    if buckets[bucket].payload.isEmpty {
      let next = buckets[bucket].next
      if buckets[bucket].key == age, next >= 0 { age = buckets[next].key }
      dropBucket(bucket)
    }
    store.delete(slot, resident: true)
    return slot
  }

  @inlinable public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }
  @inlinable public func key(at slot: Slot) -> Key { store.table[slot].key }

  /// The cache age L (for tests).
  public var cacheAge: Int64 { age }

  /// The priority of a resident key (for tests), or nil.
  public func priority(of key: Key) -> Int64? {
    let slot = store.find(key)
    return slot >= 0 ? buckets[store.table[slot].payload].key : nil
  }

  public func checkInvariants() {
    buckets.checkList(order, tag: 0, "priority order")
    var members: [EntryList] = []
    var last = Int64.min
    var bucket = order.front
    while bucket >= 0 {
      let b = buckets[bucket]
      precondition(b.key > last, "priorities not ascending")
      precondition(!b.payload.isEmpty, "empty bucket kept")
      precondition(bucketOf[b.key] == bucket, "priority map out of date")
      store.table.checkList(b.payload, tag: 0, "bucket \(b.key)")
      members.append(b.payload)
      last = b.key
      bucket = b.next
    }
    precondition(bucketOf.count == members.count, "priority map holds stale buckets")
    store.checkTotals(members)
  }

  public func lists() -> [(name: String, keys: [Key])] {
    var result: [(name: String, keys: [Key])] = []
    var bucket = order.front
    while bucket >= 0 {
      result.append(("priority \(buckets[bucket].key)", store.table.keys(of: buckets[bucket].payload)))
      bucket = buckets[bucket].next
    }
    return result
  }
}
