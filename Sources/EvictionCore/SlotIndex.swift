/// The one key → slot index of a policy (DESIGN.md, "One index").
///
/// Two implementations: ``IntegerSlotIndex`` (open addressing, multiplicative
/// hashing, 8-byte buckets; for the 64-bit integer keys of traces) and
/// ``HashedSlotIndex`` (Swift's `Dictionary`; for any `Hashable` key).
public protocol SlotIndex<Key>: ~Copyable {
  associatedtype Key: Hashable

  /// Creates an empty index with room for `capacity` keys before it grows.
  init(minimumCapacity: Int)

  /// The slot stored for `key`, or -1. An index may keep only part of each
  /// key; `isKey(slot)` then confirms a candidate against the full key.
  /// - Complexity: O(1) expected.
  func find(_ key: Key, isKey: (Slot) -> Bool) -> Slot

  /// Stores `slot` for `key`, which must not be present.
  /// - Complexity: O(1) amortised.
  mutating func insert(_ key: Key, slot: Slot)

  /// Removes `key`, which must be present and stored with `slot`.
  /// - Complexity: O(1) expected.
  mutating func remove(_ key: Key, slot: Slot)

  /// Removes every key, keeping the allocated room.
  mutating func removeAll()

  /// The number of keys stored.
  var count: Int { get }

  /// 64 bits that stand for `key` in frequency sketches (W-TinyLFU), the
  /// same in every process: an integer key itself, so sketches hash exactly
  /// as libCacheSim's do; a string's FNV-1a hash; any other key's
  /// `hashValue`, which Swift seeds per process.
  static func sketchBits(_ key: Key) -> UInt64

  /// Where a search for `key` starts reading, or nil: a replay prefetches
  /// it a few requests ahead. Only a hint; nothing is read.
  func homeAddress(of key: Key) -> UnsafeRawPointer?

  /// The slot `key` probably has, from one read of its home (no probing,
  /// no confirmation), or -1: a replay prefetches that entry.
  func likelySlot(of key: Key) -> Slot
}

extension SlotIndex where Self: ~Copyable {
  @inlinable
  public static func sketchBits(_ key: Key) -> UInt64 { stableBits(of: key) }

  /// By default an index gives no hints.
  @inlinable public func homeAddress(of key: Key) -> UnsafeRawPointer? { nil }
  @inlinable public func likelySlot(of key: Key) -> Slot { -1 }
}

/// 64 bits that stand for `key` in frequency sketches (see
/// ``SlotIndex/sketchBits(_:)``): an integer itself, a string's FNV-1a
/// hash, any other key's `hashValue`.
@inlinable
public func stableBits<Key: Hashable>(of key: Key) -> UInt64 {
  // The trace's key types first: a specialisation folds these to the key
  // itself, where the existential cast below costs a call per request.
  if Key.self == UInt64.self { return unsafeBitCast(key, to: UInt64.self) }
  if Key.self == Int.self { return UInt64(bitPattern: Int64(unsafeBitCast(key, to: Int.self))) }
  if let integer = key as? any BinaryInteger { return UInt64(truncatingIfNeeded: integer) }
  if let string = key as? String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in string.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
  }
  return UInt64(bitPattern: Int64(key.hashValue))
}

/// An index over integer keys: linear probing over a power-of-two table,
/// Fibonacci hashing, backward-shift deletion (no tombstones), load factor at
/// most 1/2.
///
/// A bucket is 8 bytes: the top 32 bits of the key's hash and the slot. The
/// hash is a bijection of the key (multiplication by an odd constant), its
/// top bits give the home bucket, so the table rehashes and deletes without
/// the keys; a fingerprint match is confirmed against the policy's entry,
/// which a hit reads anyway. Half the bytes of (key, slot) buckets keep more
/// of the table in cache, which is what the replay loop waits on.
public struct IntegerSlotIndex<Key: FixedWidthInteger>: SlotIndex, ~Copyable {
  @usableFromInline
  struct Bucket {
    @usableFromInline var fingerprint: UInt32
    @usableFromInline var slot: Slot
    @inlinable init(fingerprint: UInt32, slot: Slot) {
      self.fingerprint = fingerprint
      self.slot = slot
    }
  }

  @usableFromInline var buckets: UnsafeMutablePointer<Bucket>
  @usableFromInline var mask: Int
  /// 32 − log2(bucket count): a fingerprint's home is `fingerprint >> shift`.
  @usableFromInline var shift: UInt32
  @usableFromInline var _count: Int

  @inlinable
  public init(minimumCapacity: Int) {
    var size = 16
    while size < 2 * max(minimumCapacity, 1) { size <<= 1 }
    buckets = .allocate(capacity: size)
    buckets.initialize(repeating: Bucket(fingerprint: 0, slot: -1), count: size)
    mask = size - 1
    shift = UInt32(32 - size.trailingZeroBitCount)
    _count = 0
  }

  deinit { buckets.deallocate() }

  @inlinable public var count: Int { _count }

  @inlinable @inline(__always)
  public static func sketchBits(_ key: Key) -> UInt64 { UInt64(truncatingIfNeeded: key) }

  @inlinable @inline(__always)
  static func fingerprint(_ key: Key) -> UInt32 {
    UInt32(truncatingIfNeeded: (UInt64(truncatingIfNeeded: key) &* 0x9E37_79B9_7F4A_7C15) &>> 32)
  }

  @inlinable @inline(__always)
  func home(_ fingerprint: UInt32) -> Int { Int(truncatingIfNeeded: fingerprint &>> shift) }

  @inlinable @inline(__always)
  public func homeAddress(of key: Key) -> UnsafeRawPointer? {
    UnsafeRawPointer(buckets + home(Self.fingerprint(key)))
  }

  @inlinable @inline(__always)
  public func likelySlot(of key: Key) -> Slot {
    let f = Self.fingerprint(key)
    let bucket = buckets[home(f)]
    return bucket.fingerprint == f ? bucket.slot : -1
  }

  @inlinable @inline(__always)
  public func find(_ key: Key, isKey: (Slot) -> Bool) -> Slot {
    let f = Self.fingerprint(key)
    var i = home(f)
    while true {
      let bucket = buckets[i]
      if bucket.slot < 0 { return -1 }
      if bucket.fingerprint == f && isKey(bucket.slot) { return bucket.slot }
      i = (i &+ 1) & mask
    }
  }

  @inlinable @inline(__always)
  public mutating func insert(_ key: Key, slot: Slot) {
    if (_count &+ 1) &* 2 > mask &+ 1 { grow() }
    let f = Self.fingerprint(key)
    var i = home(f)
    while buckets[i].slot >= 0 { i = (i &+ 1) & mask }
    buckets[i] = Bucket(fingerprint: f, slot: slot)
    _count &+= 1
  }

  @inlinable @inline(__always)
  public mutating func remove(_ key: Key, slot: Slot) {
    var i = home(Self.fingerprint(key))
    while buckets[i].slot != slot {
      precondition(buckets[i].slot >= 0, "removing a key that is not indexed")
      i = (i &+ 1) & mask
    }
    // Backward-shift deletion: pull later members of the probe run into the
    // hole when the hole lies between their home and their position.
    var hole = i
    var j = (i &+ 1) & mask
    while buckets[j].slot >= 0 {
      let h = home(buckets[j].fingerprint)
      if (j &- h) & mask >= (j &- hole) & mask {
        buckets[hole] = buckets[j]
        hole = j
      }
      j = (j &+ 1) & mask
    }
    buckets[hole].slot = -1
    _count &-= 1
  }

  @inlinable
  public mutating func removeAll() {
    buckets.update(repeating: Bucket(fingerprint: 0, slot: -1), count: mask &+ 1)
    _count = 0
  }

  @usableFromInline
  mutating func grow() {
    let oldSize = mask + 1
    precondition(oldSize < 1 << 31, "integer index beyond 2^31 buckets")
    let old = buckets
    let size = oldSize * 2
    GrowthWatch.willAllocate(size * MemoryLayout<Bucket>.stride, "a policy's index (growing to \(size) buckets)")
    buckets = .allocate(capacity: size)
    buckets.initialize(repeating: Bucket(fingerprint: 0, slot: -1), count: size)
    mask = size - 1
    shift = UInt32(32 - size.trailingZeroBitCount)
    for b in 0..<oldSize where old[b].slot >= 0 {
      var i = home(old[b].fingerprint)
      while buckets[i].slot >= 0 { i = (i &+ 1) & mask }
      buckets[i] = old[b]
    }
    old.deallocate()
  }
}

/// An index over any `Hashable` key, backed by `Dictionary`.
public struct HashedSlotIndex<Key: Hashable>: SlotIndex {
  @usableFromInline var storage: [Key: Slot]

  @inlinable
  public init(minimumCapacity: Int) { storage = Dictionary(minimumCapacity: minimumCapacity) }

  @inlinable public var count: Int { storage.count }

  @inlinable @inline(__always)
  public func find(_ key: Key, isKey: (Slot) -> Bool) -> Slot { storage[key] ?? -1 }

  @inlinable @inline(__always)
  public mutating func insert(_ key: Key, slot: Slot) {
    assert(storage[key] == nil, "key inserted twice")
    storage[key] = slot
  }

  @inlinable @inline(__always)
  public mutating func remove(_ key: Key, slot: Slot) {
    let removed = storage.removeValue(forKey: key)
    precondition(removed == slot, "removing a key that is not indexed with that slot")
  }

  @inlinable
  public mutating func removeAll() { storage.removeAll(keepingCapacity: true) }
}
