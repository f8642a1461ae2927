import CChunkMatch

/// The one key → slot index of a policy (DESIGN.md, "One index").
///
/// Two implementations: ``IntegerSlotIndex`` (4-byte words in chunks of a
/// cache line; for the 64-bit integer keys of traces) and
/// ``HashedSlotIndex`` (Swift's `Dictionary`; for any `Hashable` key).
public protocol SlotIndex<Key>: ~Copyable {
  associatedtype Key: Hashable

  /// Creates an empty index with room for `capacity` keys before it grows.
  init(minimumCapacity: Int)

  /// The slot stored for `key`, or -1. An index may keep only part of each
  /// key; `isKey(slot)` then confirms a candidate against the full key.
  /// - Complexity: O(1) expected.
  func find(_ key: Key, isKey: (Slot) -> Bool) -> Slot

  /// Stores `slot` for `key`, which must not be present. An index that
  /// keeps only part of each key, to grow, empties itself and calls
  /// `reinsertAll`, which hands back every key it holds with its slot, in
  /// the owner's order (its slab's, read front to back); the key being
  /// inserted may be among them.
  /// - Complexity: O(1) amortised.
  mutating func insert(_ key: Key, slot: Slot, reinsertAll: ((Key, Slot) -> Void) -> Void)

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

  /// Whether ``sketchBits(_:)`` gives a key the same bits in every
  /// process (integers and strings): a sketch saved by one process counts
  /// the same keys in another.
  public static var sketchBitsAreStable: Bool { Key.self is any BinaryInteger.Type || Key.self == String.self }

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

/// An index over integer keys in 4-byte words, grouped in chunks of one
/// cache line, as in F14 (Bronson and Shi, Facebook's F14 hash table, 2019).
///
/// **Words.** A word holds a tag above a position: the slot of the entry in
/// the policy's slab. The top bit marks the word used (0 is an empty
/// word); the bits between it and the position are the key's tag, drawn
/// from a second hash of the key. Positions take `positionBits` bits, as
/// many as the largest slot needs; when a slot outgrows them every word is
/// rewritten in place, its tag one bit shorter (the tag is the top bits of
/// the same 32-bit hash, so no key is read). A tag match is confirmed
/// against the policy's entry, which a hit reads anyway.
///
/// **Chunks.** A chunk is 16 words: a control word (how many items the
/// chunk holds, and how many keys whose home it is not were placed past
/// it) and 15 items, kept packed at the front, so a search compares only
/// the items there are and a removal moves the chunk's last item into the
/// hole. A key lives in its home chunk (a multiply-shift of the key's hash
/// onto the chunk count, which need not be a power of two) or, when that is
/// full, in the next chunk with room; the overflow counts tell a search
/// when to go on and a removal which counts to lower, so nothing is ever
/// moved across chunks and no tombstone is left. Growing places every key
/// again, as the owner hands them back in its own order.
///
/// **Load.** The table grows (doubling its chunks) past 12 items a chunk
/// on average, a load of 0.8: the bytes per key stay at 5 or below (4 / 0.8;
/// 8-byte buckets at load 1/2, as here before, cost 16). At that load a
/// chunk's item count is about Poisson(12), so about one chunk in seven
/// overflows and a search for a missing key there reads the next chunk too;
/// after a doubling (load 0.4) almost none does. F14 stops at 12 of 14.
public struct IntegerSlotIndex<Key: FixedWidthInteger>: SlotIndex, ~Copyable {
  /// Words per chunk: a control word and ``capacityPerChunk`` items.
  @usableFromInline static var chunkWords: Int { 16 }
  @usableFromInline static var capacityPerChunk: Int { 15 }
  /// The table grows past this many items a chunk on average.
  @usableFromInline static var loadPerChunk: Int { 12 }
  /// A control word: the chunk's item count in the low byte, keys that
  /// overflowed past it above (saturating: a saturated count is never
  /// lowered). Its top bit stays clear, so it never matches an item.
  @usableFromInline static var overflowUnit: UInt32 { 1 << 8 }
  @usableFromInline static var overflowSaturated: UInt32 { 0x7FFF_FF00 }

  @usableFromInline var words: UnsafeMutablePointer<UInt32>
  @usableFromInline var chunkCount: Int
  /// Bits of a word given to the position; the bits above them (the top
  /// bit set) are the tag.
  @usableFromInline var positionBits: UInt32
  @usableFromInline var _count: Int

  @inlinable
  public init(minimumCapacity: Int) {
    chunkCount = max(1, (max(minimumCapacity, 1) + Self.loadPerChunk - 1) / Self.loadPerChunk)
    words = Self.allocateChunks(chunkCount)
    // Slots are below 2^31: at most 31 bits, the top one stays the used bit.
    positionBits = min(31, UInt32(Int.bitWidth - (chunkCount * Self.capacityPerChunk).leadingZeroBitCount))
    _count = 0
  }

  deinit { UnsafeMutableRawPointer(words).deallocate() }

  @inlinable public var count: Int { _count }

  /// Zeroed chunks, each on a cache line of its own.
  @usableFromInline
  static func allocateChunks(_ chunks: Int) -> UnsafeMutablePointer<UInt32> {
    let bytes = chunks * chunkWords * MemoryLayout<UInt32>.stride
    let words = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    adviseHugePages(words, bytes: bytes)
    return words.initializeMemory(as: UInt32.self, repeating: 0, count: chunks * chunkWords)
  }

  @inlinable @inline(__always)
  public static func sketchBits(_ key: Key) -> UInt64 { UInt64(truncatingIfNeeded: key) }

  /// The home chunk of `key` among `chunks`: Fibonacci hashing, then a
  /// multiply-shift of the top 32 bits onto the chunk count.
  @inlinable @inline(__always)
  static func home(_ key: Key, chunks: Int) -> Int {
    let hash = (UInt64(truncatingIfNeeded: key) &* 0x9E37_79B9_7F4A_7C15) &>> 32
    return Int(truncatingIfNeeded: (hash &* UInt64(truncatingIfNeeded: chunks)) &>> 32)
  }

  /// The key's word without its position: the used bit and as much of a
  /// second hash as the tag has room for.
  @inlinable @inline(__always)
  func tag(_ key: Key) -> UInt32 {
    let hash = UInt32(truncatingIfNeeded: (UInt64(truncatingIfNeeded: key) &* 0xD6E8_FEB8_6659_FD93) &>> 32)
    return (hash | 0x8000_0000) & tagMask
  }

  @inlinable @inline(__always) var positionMask: UInt32 { (1 &<< positionBits) &- 1 }
  @inlinable @inline(__always) var tagMask: UInt32 { ~positionMask }

  @inlinable @inline(__always)
  func chunk(_ c: Int) -> UnsafeMutablePointer<UInt32> { words + c &* Self.chunkWords }

  @inlinable @inline(__always)
  func next(_ c: Int) -> Int { c &+ 1 == chunkCount ? 0 : c &+ 1 }

  @inlinable @inline(__always)
  public func homeAddress(of key: Key) -> UnsafeRawPointer? {
    UnsafeRawPointer(chunk(Self.home(key, chunks: chunkCount)))
  }

  @inlinable @inline(__always)
  public func likelySlot(of key: Key) -> Slot {
    let c = chunk(Self.home(key, chunks: chunkCount))
    let hits = evictionlab_chunk_match(c, tagMask, tag(key))
    return hits == 0 ? -1 : Slot(truncatingIfNeeded: c[hits.trailingZeroBitCount] & positionMask)
  }

  @inlinable @inline(__always)
  public func find(_ key: Key, isKey: (Slot) -> Bool) -> Slot {
    let t = tag(key)
    let mask = tagMask
    var home = Self.home(key, chunks: chunkCount)
    while true {
      let c = chunk(home)
      var hits = evictionlab_chunk_match(c, mask, t)
      while hits != 0 {
        let slot = Slot(truncatingIfNeeded: c[hits.trailingZeroBitCount] & ~mask)
        if isKey(slot) { return slot }
        hits &= hits &- 1
      }
      if c[0] < Self.overflowUnit { return -1 }
      home = next(home)
    }
  }

  @inlinable @inline(__always)
  public mutating func insert(_ key: Key, slot: Slot, reinsertAll: ((Key, Slot) -> Void) -> Void) {
    if UInt32(truncatingIfNeeded: slot) > positionMask { widenPositions(toHold: slot) }
    if _count &+ 1 > chunkCount &* Self.loadPerChunk { grow(skipping: slot, reinsertAll: reinsertAll) }
    place(tag(key) | UInt32(truncatingIfNeeded: slot), home: Self.home(key, chunks: chunkCount))
    _count &+= 1
  }

  /// Puts `word` in the first chunk from `home` with room.
  @inlinable @inline(__always)
  mutating func place(_ word: UInt32, home: Int) {
    var home = home
    while true {
      let c = chunk(home)
      let items = c[0] & 0xFF
      if items < UInt32(Self.capacityPerChunk) {
        c[Int(items) &+ 1] = word
        c[0] &+= 1
        return
      }
      if c[0] < Self.overflowSaturated { c[0] &+= Self.overflowUnit }
      home = next(home)
    }
  }

  @inlinable @inline(__always)
  public mutating func remove(_ key: Key, slot: Slot) {
    let word = tag(key) | UInt32(truncatingIfNeeded: slot)
    var home = Self.home(key, chunks: chunkCount)
    while true {
      let c = chunk(home)
      let hits = evictionlab_chunk_match(c, ~0, word)
      if hits != 0 {
        // Keep the items packed: the last one fills the hole.
        let items = Int(truncatingIfNeeded: c[0] & 0xFF)
        c[hits.trailingZeroBitCount] = c[items]
        c[items] = 0
        c[0] &-= 1
        _count &-= 1
        return
      }
      precondition(c[0] >= Self.overflowUnit, "removing a key that is not indexed")
      if c[0] < Self.overflowSaturated { c[0] &-= Self.overflowUnit }
      home = next(home)
    }
  }

  @inlinable
  public mutating func removeAll() {
    words.update(repeating: 0, count: chunkCount * Self.chunkWords)
    _count = 0
  }

  /// Gives positions enough bits for `slot`, rewriting every word in place:
  /// each tag loses its lowest bits, which is the tag a key then gets.
  @usableFromInline
  mutating func widenPositions(toHold slot: Slot) {
    precondition(slot >= 0, "negative slot")
    let oldMask = positionMask
    positionBits = UInt32(UInt32.bitWidth - UInt32(truncatingIfNeeded: slot).leadingZeroBitCount)
    let newTagMask = tagMask
    for c in 0..<chunkCount {
      let chunk = chunk(c)
      for i in stride(from: 1, through: Int(chunk[0] & 0xFF), by: 1) {
        chunk[i] = (chunk[i] & newTagMask) | (chunk[i] & oldMask)
      }
    }
  }

  /// Doubles the chunks and places every key again, as `reinsertAll`
  /// hands them back (all but `slot`'s, which the caller places next):
  /// read in the owner's order, the keys stream from memory, and each key's
  /// chunk is prefetched ``growthLookahead`` keys before it is written, so
  /// the writes, at random places, overlap.
  @inlinable
  mutating func grow(skipping slot: Slot, reinsertAll: ((Key, Slot) -> Void) -> Void) {
    let oldWords = words
    let chunks = chunkCount * 2
    GrowthWatch.willAllocate(
      chunks * Self.chunkWords * MemoryLayout<UInt32>.stride,
      "a policy's index (growing to \(chunks * Self.capacityPerChunk) keys)", from: GrowthWatch.perObjectThreshold)
    words = Self.allocateChunks(chunks)
    chunkCount = chunks
    let held = _count
    _count = 0
    // Pending placements: (word, home) pairs whose chunks are prefetched.
    let lookahead = Self.growthLookahead
    var pending = [(word: UInt32, home: Int)](repeating: (0, 0), count: lookahead)
    var queued = 0
    reinsertAll { key, held in
      guard held != slot else { return }
      let home = Self.home(key, chunks: chunks)
      evictionlab_chunk_prefetch(chunk(home))
      let i = queued % lookahead
      if queued >= lookahead { place(pending[i].word, home: pending[i].home) }
      pending[i] = (tag(key) | UInt32(truncatingIfNeeded: held), home)
      queued += 1
    }
    for q in max(0, queued - lookahead)..<queued {
      let (word, home) = pending[q % lookahead]
      place(word, home: home)
    }
    _count = queued
    precondition(_count == held, "the owner handed back \(_count) of the index's \(held) keys")
    UnsafeMutableRawPointer(oldWords).deallocate()
  }

  /// How many placements a growing index keeps in flight.
  @usableFromInline static var growthLookahead: Int { 16 }
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
  public mutating func insert(_ key: Key, slot: Slot, reinsertAll: ((Key, Slot) -> Void) -> Void) {
    insert(key, slot: slot)
  }

  /// Stores `slot` for `key`, which must not be present.
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
