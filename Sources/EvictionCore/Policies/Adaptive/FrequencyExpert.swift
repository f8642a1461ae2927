/// The frequency expert of the learning policies (LeCaR's LFU, Cacheus's
/// CR-LFU): one node per resident entry, its key the entry's slot, in a
/// bucket of the entry's frequency; buckets in ascending frequency, each
/// oldest arrival first. An entry keeps its bucket and node, which every
/// call here takes or returns. The recency experts are the policies' own
/// lists; what differs between the two policies is how they weigh the
/// experts and which end of the least frequent bucket each one evicts.
public struct FrequencyExpert: ~Copyable {
  @usableFromInline var nodes: EntryTable<Slot, Void>
  @usableFromInline var buckets: SortedBuckets

  /// `mapsFrequencies`: whether entries may be attached at any frequency
  /// (Cacheus's come back from its history at theirs), so that buckets are
  /// found through a map; LeCaR's start at 1, the first bucket, and only
  /// ever move one up, to the next, so they need none.
  @inlinable public init(mapsFrequencies: Bool = true) {
    nodes = EntryTable(minimumCapacity: 1024)
    buckets = SortedBuckets(mapsKeys: mapsFrequencies)
  }

  /// Files `slot` at the newest end of `frequency`'s bucket.
  @inlinable @inline(__always)
  public mutating func attach(_ slot: Slot, frequency: Int64) -> (bucket: Slot, node: Slot) {
    let bucket = buckets.bucket(for: frequency)
    let node = nodes.allocate(key: slot, weight: 0, payload: ())
    nodes.pushBack(node, &buckets[bucket], tag: 0)
    return (bucket, node)
  }

  /// One more use: the node moves to the newest end of the next
  /// frequency's bucket, which is returned.
  @inlinable @inline(__always)
  public mutating func countUse(bucket: Slot, node: Slot) -> Slot {
    let target = buckets.bucket(for: buckets.key(of: bucket) &+ 1, searchingAfter: bucket)
    nodes.unlink(node, &buckets[bucket])
    nodes.pushBack(node, &buckets[target], tag: 0)
    buckets.dropIfEmpty(bucket)
    return target
  }

  /// Takes an entry's node out of the expert.
  @inlinable @inline(__always)
  public mutating func detach(bucket: Slot, node: Slot) {
    nodes.unlink(node, &buckets[bucket])
    nodes.release(node)
    buckets.dropIfEmpty(bucket)
  }

  /// The frequency `bucket` holds.
  @inlinable public func frequency(of bucket: Slot) -> Int64 { buckets.key(of: bucket) }

  /// The least frequent entry that arrived at its frequency first (LFU's
  /// victim), and the one that arrived last (CR-LFU's). The expert must hold
  /// an entry.
  @inlinable public var leastFrequentOldest: Slot { nodes[buckets[buckets.first].front].key }
  @inlinable public var leastFrequentNewest: Slot { nodes[buckets[buckets.first].back].key }

  /// Checks the buckets' order and links, and hands each entry's slot,
  /// bucket and node to `check`; returns how many entries it holds.
  public func check(_ check: (_ slot: Slot, _ bucket: Slot, _ node: Slot) -> Void) -> Int {
    var counted = 0
    var bucket = buckets.first
    for members in buckets.check(nodes) {
      var node = members.front
      while node >= 0 {
        check(nodes[node].key, bucket, node)
        counted += 1
        node = nodes[node].next
      }
      bucket = buckets.next(after: bucket)
    }
    return counted
  }
}
