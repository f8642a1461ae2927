/// Entry lists keyed by an integer (a priority, a cost, a frequency), kept
/// in ascending key order, with a key → bucket map unless the user only
/// ever asks for the first key or the one after a bucket's: the structure
/// behind LFUDA's priority buckets, the NSCache model's cost order and the
/// learning policies' frequency expert. Buckets live in their own slab; an
/// empty bucket is dropped at once.
public struct SortedBuckets: ~Copyable {
  /// Buckets: key = the bucket's key, payload = its members.
  @usableFromInline var table: EntryTable<Int64, EntryList>
  /// The buckets in ascending key order.
  @usableFromInline var order = EntryList()
  @usableFromInline var bucketOf: [Int64: Slot] = [:]
  /// Whether `bucketOf` is kept; without it a bucket is found by walking
  /// the order from where the search starts.
  @usableFromInline let mapsKeys: Bool

  /// `mapsKeys: false` saves a hash update per bucket made or dropped, for
  /// users whose searches start next to the bucket they want.
  @inlinable public init(mapsKeys: Bool = true) {
    table = EntryTable(minimumCapacity: 64)
    self.mapsKeys = mapsKeys
  }

  /// The bucket with the smallest key, or -1.
  @inlinable public var first: Slot { order.front }

  /// The bucket for `key`, or nil.
  @inlinable @inline(__always)
  public func bucket(at key: Int64) -> Slot? { mapsKeys ? bucketOf[key] : walk(to: key) }

  /// The bucket for `key` found by walking the order, or nil.
  @inlinable
  func walk(to key: Int64) -> Slot? {
    var bucket = order.front
    while bucket >= 0 && table[bucket].key < key { bucket = table[bucket].next }
    return bucket >= 0 && table[bucket].key == key ? bucket : nil
  }

  /// The key of `bucket`.
  @inlinable public func key(of bucket: Slot) -> Int64 { table[bucket].key }

  /// The bucket after `bucket` in key order, or -1.
  @inlinable public func next(after bucket: Slot) -> Slot { table[bucket].next }

  /// The bucket before `bucket` in key order, or -1.
  @inlinable public func previous(before bucket: Slot) -> Slot { table[bucket].prev }

  /// The members of `bucket`.
  @inlinable
  public subscript(bucket: Slot) -> EntryList {
    @inline(__always) _read { yield table[bucket].payload }
    @inline(__always) nonmutating _modify { yield &table[bucket].payload }
  }

  /// The bucket for `key`, created in order if needed. The search for its
  /// place starts after `start` (or at the smallest key for -1), whose key
  /// must be below `key`.
  /// - Complexity: O(1) if it exists and keys are mapped, else O(buckets
  ///   between `start` and its place).
  @inlinable @inline(__always)
  public mutating func bucket(for key: Int64, searchingAfter start: Slot = -1) -> Slot {
    if mapsKeys {
      if let existing = bucketOf[key] { return existing }
    } else {
      // Without the key map: most often the bucket wanted is the one after
      // `start` (a frequency one up), or the first.
      let next = start >= 0 ? table[start].next : order.front
      if next >= 0 && table[next].key == key { return next }
    }
    return placeBucket(for: key, searchingAfter: start)
  }

  /// The bucket for `key` when the quick looks found none: the one the walk
  /// from `start` meets (without the key map), or a new one in order.
  @inlinable
  mutating func placeBucket(for key: Int64, searchingAfter start: Slot) -> Slot {
    var before = start
    var next = start >= 0 ? table[start].next : order.front
    while next >= 0 && table[next].key < key {
      before = next
      next = table[next].next
    }
    if !mapsKeys && next >= 0 && table[next].key == key { return next }
    let bucket = table.allocate(key: key, weight: 0, payload: EntryList())
    if before >= 0 {
      table.insert(bucket, after: before, &order, tag: 0)
    } else {
      table.pushFront(bucket, &order, tag: 0)
    }
    if mapsKeys { bucketOf[key] = bucket }
    return bucket
  }

  /// Drops `bucket` if it has no members; returns whether it did.
  @inlinable @discardableResult
  public mutating func dropIfEmpty(_ bucket: Slot) -> Bool {
    guard table[bucket].payload.isEmpty else { return false }
    if mapsKeys { bucketOf[table[bucket].key] = nil }
    table.unlink(bucket, &order)
    table.release(bucket)
    return true
  }

  /// Checks the order, the map, and each bucket's members in `entries`;
  /// returns the member lists, smallest key first.
  public func check<Key: Hashable, Payload>(_ entries: borrowing EntryTable<Key, Payload>) -> [EntryList] {
    table.checkList(order, tag: 0, "bucket order")
    var members: [EntryList] = []
    var last = Int64.min
    var bucket = order.front
    while bucket >= 0 {
      let b = table[bucket]
      precondition(b.key > last, "bucket keys not ascending")
      precondition(!b.payload.isEmpty, "empty bucket kept")
      precondition(!mapsKeys || bucketOf[b.key] == bucket, "bucket map out of date")
      entries.checkList(b.payload, tag: 0, "bucket \(b.key)")
      members.append(b.payload)
      last = b.key
      bucket = b.next
    }
    precondition(bucketOf.count == (mapsKeys ? members.count : 0), "bucket map holds stale buckets")
    return members
  }

  /// Each bucket's key and members' keys, smallest key first.
  public func contents<Key: Hashable, Payload>(_ entries: borrowing EntryTable<Key, Payload>) -> [(Int64, [Key])] {
    var result: [(Int64, [Key])] = []
    var bucket = order.front
    while bucket >= 0 {
      result.append((table[bucket].key, entries.keys(of: table[bucket].payload)))
      bucket = table[bucket].next
    }
    return result
  }
}
