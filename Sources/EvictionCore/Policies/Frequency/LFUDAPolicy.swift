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
///
/// - Complexity: O(1) for a hit whose new priority has a bucket or sits
///   next to its old one; otherwise O(b), b the buckets it passes (``SortedBuckets``).
public struct LFUDAPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry the slot of their priority bucket.
  public var store: PolicyStorage<Index, Slot>
  /// Members by priority, oldest first within a priority.
  @usableFromInline var buckets = SortedBuckets()
  /// The cache age L.
  @usableFromInline var age: Int64 = 0

  @inlinable
  public init(capacity: Int64) {
    store = PolicyStorage(capacity: capacity)
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "LFUDA" }

  @inlinable
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    let old = store.table[slot].payload
    let oldPriority = buckets.key(of: old)
    let newPriority = Self.saturatingSum(oldPriority, age)  // with L as it was before this hit
    store.table.unlink(slot, &buckets[old])
    var after = old
    if buckets[old].isEmpty {
      after = buckets.previous(before: old)
      let next = buckets.next(after: old)
      if oldPriority == age, next >= 0 { age = buckets.key(of: next) }
      buckets.dropIfEmpty(old)
    }
    let bucket = buckets.bucket(for: newPriority, searchingAfter: after)
    store.table.pushBack(slot, &buckets[bucket], tag: 0)
    store.table[slot].payload = bucket
    return slot
  }

  @inlinable
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let bucket = buckets.bucket(for: Self.saturatingSum(age, 1))
    let slot = store.insert(request.key, weight: request.weight, payload: bucket)
    store.table.pushBack(slot, &buckets[bucket], tag: 0)
    return slot
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard let victim = nextVictim() else { return false }
    let bucket = store.table[victim].payload
    age = buckets.key(of: bucket)
    store.table.unlink(victim, &buckets[bucket])
    if buckets[bucket].isEmpty {
      let next = buckets.next(after: bucket)
      if next >= 0 { age = buckets.key(of: next) }
      buckets.dropIfEmpty(bucket)
    }
    onEvict(victim, store.table[victim].key)
    store.delete(victim, resident: true)
    return true
  }

  /// The oldest entry of the bucket at L (at 1 while L is 0 or 1), else of
  /// the lowest bucket.
  @inlinable @inline(__always)
  public func nextVictim() -> Slot? {
    guard store.count > 0 else { return nil }
    return buckets[buckets.bucket(at: max(age, 1)) ?? buckets.first].front
  }

  @inlinable @inline(__always)
  static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? Int64.max : sum
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let bucket = store.table[slot].payload
    store.table.unlink(slot, &buckets[bucket])
    if buckets[bucket].isEmpty {
      let next = buckets.next(after: bucket)
      if buckets.key(of: bucket) == age, next >= 0 { age = buckets.key(of: next) }
      buckets.dropIfEmpty(bucket)
    }
    store.delete(slot, resident: true)
    return slot
  }

  /// The cache age L (for tests).
  public var cacheAge: Int64 { age }

  /// The priority of a resident key (for tests), or nil.
  public func priority(of key: Key) -> Int64? {
    let slot = store.find(key)
    return slot >= 0 ? buckets.key(of: store.table[slot].payload) : nil
  }

  public func checkInvariants() {
    store.checkTotals(buckets.check(store.table))
  }

  public func lists() -> [(name: String, keys: [Key])] {
    buckets.contents(store.table).map { ("priority \($0.0)", $0.1) }
  }
}

/// LFU-DA in the catalog.
public enum LFUDA: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lfuda", displayName: "LFUDA", summary: "LFU with dynamic aging", citation: "Arlitt et al., 2000",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LFUDAPolicy<Index>(capacity: capacity))
  }
}
