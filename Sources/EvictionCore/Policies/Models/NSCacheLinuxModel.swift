/// A model of Foundation's `NSCache` as shipped on Linux
/// (swift-corelibs-foundation, `Sources/Foundation/NSCache.swift`): entries
/// sit in a list ordered by ascending cost, a new entry goes before the
/// entries of equal cost, reads never reorder, and after each insertion the
/// cache evicts from the head (the cheapest, and among equal costs the most
/// recently inserted) until the total cost is within `totalCostLimit`, then
/// until the count is within `countLimit`. With equal costs it therefore
/// evicts the entry it inserted last: the newcomer itself.
///
/// Here the capacity is `totalCostLimit` and `nscache-linux:count=N` sets
/// `countLimit` (0, the default, means none, as in NSCache). The list is kept
/// as cost buckets, newest first within a bucket, which is the same order.
/// Verified against the real `NSCache` on the same request sequence.
///
/// - Complexity: O(1) per hit, and per admission whose cost already has a
///   bucket; otherwise O(b), b the cost buckets below it (``SortedBuckets``).
public struct NSCacheLinuxModel<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  /// Entries carry the slot of their cost bucket.
  public var store: PolicyStorage<Index, Slot>
  /// Members by cost, newest first within a cost.
  @usableFromInline var buckets = SortedBuckets()
  @usableFromInline let countLimit: Int

  @inlinable
  public init(capacity: Int64, countLimit: Int = 0) {
    store = PolicyStorage(capacity: capacity)
    self.countLimit = countLimit
  }

  public var name: String { countLimit > 0 ? "NSCache(Linux,count=\(countLimit))" : "NSCache(Linux)" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    return slot >= 0 ? slot : nil
  }

  @inlinable
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let cost = max(request.weight, 0)
    let bucket = buckets.bucket(for: cost)
    let slot = store.insert(request.key, weight: cost, payload: bucket)
    store.table.pushFront(slot, &buckets[bucket], tag: 0)
    var admitted = true
    while store.used > store.capacity || (countLimit > 0 && store.count > countLimit) {
      let victim = buckets[buckets.first].front
      if victim == slot { admitted = false }
      evictHead(notify: victim != slot, onEvict)
    }
    return admitted ? slot : nil
  }

  /// Evicts the head of the cost order (`notify` false for a newcomer that
  /// never held a value).
  @inlinable
  mutating func evictHead(notify: Bool, _ onEvict: (Slot, Key) -> Void) {
    let bucket = buckets.first
    let victim = buckets[bucket].front
    store.table.unlink(victim, &buckets[bucket])
    buckets.dropIfEmpty(bucket)
    if notify { onEvict(victim, store.table[victim].key) }
    store.delete(victim, resident: true)
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    evictHead(notify: true, onEvict)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let bucket = store.table[slot].payload
    store.table.unlink(slot, &buckets[bucket])
    buckets.dropIfEmpty(bucket)
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.checkTotals(buckets.check(store.table))
    precondition(countLimit == 0 || store.count <= countLimit, "count above countLimit")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("by cost, next victim first", buckets.contents(store.table).flatMap(\.1))]
  }
}

/// The NSCache model in the catalog.
public enum NSCacheLinux: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "nscache-linux", displayName: "NSCache (Linux)",
    summary: "model of Foundation's NSCache on Linux (cheapest first, newest among equals)",
    parameters: [
      PolicyParameter("count", default: 0, range: 0...Int64(Int32.max), help: "countLimit, 0 for none")
    ],
    traits: .model,
    checkedAgainst: "the real `NSCache`, hit for hit, as a test")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(NSCacheLinuxModel<Index>(capacity: capacity, countLimit: Int(spec.integer("count"))))
  }
}
