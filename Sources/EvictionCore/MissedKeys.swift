/// The keys missed so far, for `bloom-filter` admission (admit on the second
/// miss): an exact set, never a probabilistic one, as libCacheSim's.
///
/// Integer keys (the traces' own) live in an open-addressing table of their
/// bits: linear probing, Fibonacci hashing, load at most 1/2, 0 marking an
/// empty bucket (the key 0 is a flag of its own). A `Set` hashes each key
/// with SipHash and spent 60% of an LRU + bloom-filter replay inserting; the
/// table's multiply-and-shift and 8-byte buckets halve that. Other keys use
/// a `Set`.
public struct MissedKeys<Key: Hashable> {
  @usableFromInline var buckets: [UInt64] = []
  @usableFromInline var count = 0
  @usableFromInline var shift: UInt64 = 64
  @usableFromInline var holdsZero = false
  @usableFromInline var others: Set<Key> = []

  @inlinable public init() {}

  @inlinable static var isInteger: Bool { Key.self == UInt64.self || Key.self == Int.self }

  /// Adds `key`; returns whether it was missing.
  @inlinable @inline(__always)
  public mutating func insert(_ key: Key) -> Bool {
    guard Self.isInteger else { return others.insert(key).inserted }
    let bits = stableBits(of: key)
    guard bits != 0 else {
      defer { holdsZero = true }
      return !holdsZero
    }
    if (count &+ 1) &* 2 > buckets.count { grow() }
    let mask = buckets.count &- 1
    var i = Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> shift)
    let added = buckets.withUnsafeMutableBufferPointer { table -> Bool in
      while true {
        let held = table[i]
        if held == bits { return false }
        if held == 0 {
          table[i] = bits
          return true
        }
        i = (i &+ 1) & mask
      }
    }
    if added { count &+= 1 }
    return added
  }

  /// Whether `key` was inserted.
  public func contains(_ key: Key) -> Bool {
    guard Self.isInteger else { return others.contains(key) }
    let bits = stableBits(of: key)
    guard bits != 0 else { return holdsZero }
    guard !buckets.isEmpty else { return false }
    var i = Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> shift)
    while buckets[i] != 0 {
      if buckets[i] == bits { return true }
      i = (i &+ 1) & (buckets.count &- 1)
    }
    return false
  }

  /// Doubles the table (16 buckets at first) and files every key again.
  @usableFromInline
  mutating func grow() {
    let old = buckets
    let size = max(16, old.count * 2)
    buckets = [UInt64](repeating: 0, count: size)
    shift = UInt64(64 - size.trailingZeroBitCount)
    let mask = size - 1
    for bits in old where bits != 0 {
      var i = Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> shift)
      while buckets[i] != 0 { i = (i + 1) & mask }
      buckets[i] = bits
    }
  }
}
