import CPrefetch
import EvictionCore
import EvictionTraces

/// The distinct keys of a trace, for its footprint: a set of 64-bit keys in
/// one open-addressing table (linear probing, at most half full, 0 marking
/// an empty cell and the key 0 kept apart), filled a batch at a time with
/// each key's cell prefetched ``ahead`` keys early.
///
/// A footprint of millions of objects makes nearly every insertion a trip to
/// memory: P12's 3.2 million objects took Swift's `Set` 1.3 s over 13.2
/// million requests, three times the LRU replay the footprint sizes; this
/// table, with the trace decoded on a spare core, takes about 0.25 s
/// (`scripts/share-sizes.sh`).
struct DistinctKeys {
  private(set) var count = 0
  private(set) var bytes: Int64 = 0
  private var table: [UInt64]
  private var shift: UInt64
  private var hasZero = false
  /// How many keys ahead a key's cell is prefetched.
  static let ahead = 16

  init() {
    table = Array(repeating: 0, count: 1 << 16)
    shift = 64 - 16
  }

  @inline(__always)
  private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift) }

  /// Adds each record's key (with `offset`), and its size at its first request.
  mutating func add(_ records: Slice<UnsafeMutableBufferPointer<TraceRecord>>, offset: UInt64) {
    let end = records.endIndex
    for i in records.indices {
      if i &+ Self.ahead < end {
        let key = records.base[i &+ Self.ahead].key &+ offset
        table.withUnsafeBufferPointer { evictionlab_prefetch($0.baseAddress! + home(key)) }
      }
      let record = records.base[i]
      if insert(record.key &+ offset) { bytes &+= record.size }
    }
  }

  /// Whether `key` was new.
  @inline(__always)
  mutating func insert(_ key: UInt64) -> Bool {
    guard key != 0 else {
      defer { hasZero = true }
      if !hasZero { count += 1 }
      return !hasZero
    }
    let mask = table.count - 1
    var i = home(key)
    while true {
      let held = table[i]
      if held == key { return false }
      if held == 0 { break }
      i = (i &+ 1) & mask
    }
    table[i] = key
    count += 1
    if count * 2 > table.count { grow() }
    return true
  }

  private mutating func grow() {
    GrowthWatch.willAllocate(
      table.count * 2 * 8, "the set of distinct objects (\(count) objects)", from: GrowthWatch.perObjectThreshold)
    let old = table
    table = Array(repeating: 0, count: old.count * 2)
    shift -= 1
    let mask = table.count - 1
    for key in old where key != 0 {
      var i = home(key)
      while table[i] != 0 { i = (i &+ 1) & mask }
      table[i] = key
    }
  }
}
