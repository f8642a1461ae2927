import CThreadSlot
import EvictionCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The read side of the `buffered` lock strategy: a hit is served without the
/// policy lock and recorded in a ring buffer; whoever next holds the policy
/// lock replays the recorded hits into the policy, in order. This is
/// BP-Wrapper (Ding, Jiang and Zhang, ICDE'09), the design behind Caffeine's
/// read buffers.
///
/// **The read index.** A hash table of the cached keys and values (linear
/// probing on `stableBits`, so integer keys hash in a multiply), beside the
/// policy's own index, guarded by a distributed reader-writer lock: each
/// stripe counts the readers inside, and a writer raises one flag and waits
/// for every count to reach zero. A thread's stripe is its slot
/// (``currentThreadSlot()``): slots are dense and unique among live
/// threads, so up to twice as many threads as cores each *own* a stripe,
/// and an owner announces itself with one uncontended exchange and leaves
/// with a plain store. A reader therefore writes only lines no other
/// thread writes, and reads lines that stay shared between cores while
/// nothing is written; a writer pays for a scan of the stripes. Threads
/// beyond the stripes are guests of one and count themselves with atomic
/// adds. That is the right trade for a read-mostly cache, and, unlike a
/// seqlock over raw memory, it is safe for any `Value` (a class, a string)
/// and visible to ThreadSanitizer: every hand-over is an acquire/release
/// pair. A reader that finds the flag raised does not wait for it: it
/// takes the policy lock like any miss.
///
/// **The ring buffers.** Each stripe keeps the keys its owner read, up to
/// ``ringCapacity``, in a single-producer ring: the owner appends and
/// publishes its tail, the policy-lock holder takes the keys and publishes
/// the head, and neither needs a read-modify-write (guests share a second
/// ring under a flag). A ring that fills asks for a drain with a try-lock,
/// so readers never wait for the policy, and if the lock was taken, one in
/// 32 of the accesses it then drops asks again. The drain replays a batch
/// through one call into the policy, each key's index bucket and entry
/// prefetched a few keys ahead. A hit that finds its ring full (or,
/// for a guest, the ring's flag held) is *dropped*: the reader still gets
/// its value, but the policy never hears of that access (Caffeine's lossy
/// buffers). Drops are counted (`CacheStatistics.droppedAccesses`).
///
/// **Writes in place.** A `set` of a cached key that keeps its cost, in a
/// cache limited by count and keeping no ages (the GetPut benchmark's writes),
/// needs no policy lock either: under a stripe's reader count, like a read,
/// it swaps the entry's value word and records the key in its ring, as
/// Caffeine records such an update as a read. Only inserts, removals,
/// evictions and weight changes raise the writer flag. A value is its own
/// bits in the word when it is trivial and fits (`Int`, `Double`); any other
/// value is boxed, and a box that a writer swapped out may still be in a
/// reader's hands, so it waits in its stripe's *retired* list until the
/// next writer flag: once every reader count has been seen at zero under
/// the flag, no reader can hold it (a grace period, as in RCU).
///
/// **Exactness.** Every operation under the policy lock drains the rings
/// first, so on one thread (where nothing is dropped) the policy sees the very
/// sequence of accesses the `mutex` strategy shows it: the same hits, misses
/// and evictions (`CacheConformanceTests`).
@usableFromInline
final class BufferedReads<Key: Hashable, Value>: @unchecked Sendable {
  @usableFromInline
  struct Entry: ~Copyable {
    @usableFromInline var key: Key
    /// The value, as ``encode(_:)`` writes it: replaced in place by
    /// ``update(_:_:cost:returnsOld:)`` while readers read it.
    @usableFromInline let word: Atomic<UInt64>
    /// When the entry was last written, or last read under the policy lock:
    /// an entry that looks older than the age limit here is judged there.
    @usableFromInline var stamp: UInt64
    /// The entry's cost: a write in place must keep it. Its sign bit
    /// (``expiresFlag``) marks an entry with a time-to-live, which readers
    /// leave to the policy lock: only it knows the expiry.
    @usableFromInline var cost: Int64
    @inlinable init(key: Key, word: UInt64, stamp: UInt64, cost: Int64) {
      self.key = key
      self.word = Atomic(word)
      self.stamp = stamp
      self.cost = cost
    }
  }

  /// Keys a stripe's ring holds before it asks for a drain. Each drain moves
  /// the policy lock's line and the policy's hottest entries from the core
  /// that drained last, whatever the batch's length, so a long ring drains
  /// more hits per move: read-only on 2 threads, 32 keys gave 1.5 times one
  /// thread's throughput, 128 keys 1.7, 256 keys 1.72–1.75, 512 keys
  /// 1.83–1.85, 1024 keys 1.85–1.87 (GetPut, medians of 5 rounds, two
  /// interleaved runs each). 512 keys of 16 bytes cost 8 KiB a stripe. The
  /// hit-ratio drift of `evlab stress` at 8 threads stayed within its noise
  /// (+0.062, +0.065 and +0.045 points for 256, 512 and 1024 keys).
  /// (A power of two: positions wrap with a mask.)
  @usableFromInline static var ringCapacity: Int { 512 }

  /// Set in an entry's cost when it has a time-to-live (costs are never negative).
  @usableFromInline static var expiresFlag: Int64 { .min }

  // The table: open addressing, linear probing, backward-shift deletion, at
  // most half full. `tags[i]` is 0 for an empty bucket, else the key's
  // fingerprint (``tag(_:)``: the top 32 bits of its hash, bit 32 set) above
  // the policy's slot for the key (the low 32 bits): the fingerprint's top
  // bits are the home bucket, and a reader records the slot with its hit,
  // so that the drain replays the hit there without finding the key in the
  // policy's index. Read under a stripe's reader count, written under the
  // policy lock with the writer flag raised (growth included). Slots are
  // `Int32`, so the table never needs more than 2^32 buckets and its home
  // bits never reach the slot's.
  @usableFromInline @exclusivity(unchecked) var tags: UnsafeMutablePointer<UInt64>
  @usableFromInline @exclusivity(unchecked) var buckets: UnsafeMutablePointer<Entry>
  @usableFromInline @exclusivity(unchecked) var bucketMask: Int
  @usableFromInline @exclusivity(unchecked) var shift: UInt64
  @usableFromInline @exclusivity(unchecked) var count = 0

  @usableFromInline let stripes: UnsafeMutablePointer<ReadStripe<Key>>
  @usableFromInline let stripeCount: Int
  @usableFromInline let shared: UnsafeMutablePointer<SharedFlags>
  @usableFromInline let clock: () -> UInt64
  /// Accesses (hits, writes in place) drained into the policy so far
  /// (policy-lock holder only). On a line of its own: in this object it
  /// shared a line with fields every reader reads, depending on where the
  /// allocator put the object, and a 2-thread read-only run then fell from
  /// about 42 to 29 M ops/s.
  @usableFromInline let drained: UnsafeMutablePointer<Int>
  /// Whether the policy-lock holder has raised the writer flag.
  @usableFromInline @exclusivity(unchecked) var writing = false
  /// The drain's scratch space (policy-lock holder only): the keys taken
  /// from a stripe's rings, the requests made of them, and the slots where
  /// the policy may find them.
  @usableFromInline let scratch: UnsafeMutablePointer<(key: Key, time: UInt64)>
  @usableFromInline let requests: UnsafeMutablePointer<Request<Key>>
  @usableFromInline let hints: UnsafeMutablePointer<Slot>

  /// Retired boxes a stripe holds before its writer asks for a grace period.
  @usableFromInline static var retiredLimit: Int { 64 }

  @usableFromInline
  init(ageLimit: UInt64, clock: @escaping () -> UInt64) {
    // Two stripes per core, a power of two, at least 4: that many live
    // threads each own one (their slots are 0..<N).
    var n = 4
    while n < 2 * System.coreCount && n < 256 { n *= 2 }
    stripeCount = n
    stripes = allocateOnOwnLines(ReadStripe<Key>.self, capacity: n)
    assert(MemoryLayout<ReadStripe<Key>>.stride % 64 == 0, "a read stripe must fill whole cache lines")
    for i in 0..<n { (stripes + i).initialize(to: ReadStripe(capacity: Self.ringCapacity)) }
    shared = allocateOnOwnLines(SharedFlags.self, capacity: 1)
    drained = allocateOnOwnLines(Int.self, capacity: 1)
    drained.initialize(to: 0)
    shared.initialize(to: SharedFlags())
    shared.pointee.ageLimit.store(ageLimit, ordering: .relaxed)
    self.clock = clock
    scratch = .allocate(capacity: 2 * Self.ringCapacity)
    requests = .allocate(capacity: 2 * Self.ringCapacity)
    hints = .allocate(capacity: 2 * Self.ringCapacity)
    let initial = 64
    tags = .allocate(capacity: initial)
    tags.initialize(repeating: 0, count: initial)
    buckets = .allocate(capacity: initial)
    bucketMask = initial - 1
    shift = UInt64(64 - initial.trailingZeroBitCount)
  }

  deinit {
    for i in 0...bucketMask where tags[i] != 0 {
      Self.release(buckets[i].word.load(ordering: .relaxed))
      (buckets + i).deinitialize(count: 1)
    }
    reclaim()
    tags.deallocate()
    buckets.deallocate()
    for i in 0..<stripeCount { stripes[i].release() }
    stripes.deinitialize(count: stripeCount)
    stripes.deallocate()
    shared.deinitialize(count: 1)
    shared.deallocate()
    drained.deallocate()
    scratch.deallocate()
    requests.deallocate()
    hints.deallocate()
  }

  // MARK: Values in a word

  /// Whether a value is its own bits in the entry's word (else a box).
  @inlinable static var isInline: Bool { _isPOD(Value.self) && MemoryLayout<Value>.size <= 8 }

  /// The word that holds `value`: its bits, or a retained box.
  @inlinable
  static func encode(_ value: Value) -> UInt64 {
    guard isInline else { return UInt64(UInt(bitPattern: Unmanaged.passRetained(ValueBox(value)).toOpaque())) }
    var bits: UInt64 = 0
    withUnsafeBytes(of: value) { source in withUnsafeMutableBytes(of: &bits) { $0.copyMemory(from: source) } }
    return bits
  }

  /// The value a word holds (its box must be alive).
  @inlinable
  static func decode(_ word: UInt64) -> Value {
    guard isInline else {
      return Unmanaged<ValueBox<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: UInt(word))!)
        ._withUnsafeGuaranteedRef { $0.value }
    }
    return withUnsafeBytes(of: word) { $0.load(as: Value.self) }
  }

  /// Frees a word's box (no reader may hold it).
  @inlinable
  static func release(_ word: UInt64) {
    if !isInline { Unmanaged<ValueBox<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: UInt(word))!).release() }
  }

  @inlinable
  static func tag(_ key: Key) -> UInt64 {
    (stableBits(of: key) &* 0x9E37_79B9_7F4A_7C15) & fingerprintMask | 1 << 32
  }

  /// The fingerprint's half of a bucket's tag.
  @inlinable static var fingerprintMask: UInt64 { 0xFFFF_FFFF_0000_0000 }

  /// A bucket's tag: `key`'s fingerprint above the policy's slot.
  @inlinable
  static func tag(_ fingerprint: UInt64, slot: Slot) -> UInt64 { fingerprint | UInt64(UInt32(bitPattern: slot)) }

  /// The bucket holding `key`, or -1 (readers and the writer).
  @inlinable @inline(__always)
  func bucket(of key: Key, tag: UInt64) -> Int {
    var i = Int(truncatingIfNeeded: tag >> shift)
    while true {
      let t = tags[i]
      if t == 0 { return -1 }
      if t & Self.fingerprintMask == tag && buckets[i].key == key { return i }
      i = (i &+ 1) & bucketMask
    }
  }

  /// What a hit without a time records for bucket `i`: ``hinted`` and the
  /// policy's slot for its key.
  @inlinable
  func hint(_ i: Int) -> UInt64 { Self.hinted | tags[i] & 0xFFFF_FFFF }

  // MARK: Readers (any thread, no lock)

  /// The calling thread's stripe, and whether it owns it (``ReadStripe``).
  @inlinable
  func currentStripe() -> (index: Int, owner: Bool) {
    let slot = currentThreadSlot()
    return (slot & (stripeCount - 1), slot < stripeCount)
  }

  /// Enters the table as a reader (`stripe`'s count raised: the owner's,
  /// by an exchange no other thread contends, or the guests'); false if a
  /// writer stays at work, and the policy lock must decide.
  @inlinable
  func enter(_ stripe: UnsafeMutablePointer<ReadStripe<Key>>, owner: Bool) -> Bool {
    var attempts = 0
    while true {
      if owner {
        _ = stripe.pointee.ownerReaders.exchange(1, ordering: .sequentiallyConsistent)
      } else {
        stripe.pointee.readers.wrappingAdd(1, ordering: .sequentiallyConsistent)
      }
      if !shared.pointee.writer.load(ordering: .sequentiallyConsistent) { return true }
      leave(stripe, owner: owner)
      // A writer's turn is short (a store, an eviction): wait a little for
      // it rather than queue on the policy lock behind it.
      attempts += 1
      if attempts > 16 { return false }
      var spins = 0
      while shared.pointee.writer.load(ordering: .relaxed) && spins < 64 { spins += 1 }
    }
  }

  /// Leaves the table: the owner by a plain store.
  @inlinable
  func leave(_ stripe: UnsafeMutablePointer<ReadStripe<Key>>, owner: Bool) {
    if owner {
      stripe.pointee.ownerReaders.store(0, ordering: .releasing)
    } else {
      stripe.pointee.readers.wrappingSubtract(1, ordering: .releasing)
    }
  }

  /// The value of a cached key, its access recorded for the policy, and
  /// the reader's stripe if its ring is now full (else -1); nil if the policy
  /// lock must decide (not cached, older than the age limit here, or a
  /// writer that stays at work).
  @inlinable
  func read(_ key: Key) -> (value: Value, fullStripe: Int)? {
    let (index, owner) = currentStripe()
    let stripe = stripes + index
    let tag = Self.tag(key)
    guard enter(stripe, owner: owner) else { return nil }
    let i = bucket(of: key, tag: tag)
    if i < 0 {
      leave(stripe, owner: owner)
      return nil
    }
    let value = Self.decode(buckets[i].word.load(ordering: .acquiring))
    let stamp = buckets[i].stamp
    let expires = buckets[i].cost < 0
    // While the cache keeps no ages, a hit needs no time of its own: the
    // drain gives it the drain's (the clock is a large share of a hit), and
    // it records the policy's slot instead.
    var now = hint(i)
    leave(stripe, owner: owner)
    if expires { return nil }
    if shared.pointee.timesHits.load(ordering: .relaxed) {
      now = clock()
      let ageLimit = shared.pointee.ageLimit.load(ordering: .relaxed)
      if ageLimit != .max && elapsed(since: stamp, until: now) > ageLimit { return nil }
    }
    return (value, stripe.pointee.record(key, at: now, update: false, owner: owner) ? index : -1)
  }

  /// Replaces the value of a cached key of the same `cost` without the
  /// policy lock and records the write for the policy as an access; returns
  /// the value replaced (when `returnsOld`) and the writer's stripe if its
  /// ring is now full or its retired boxes need a grace period (else -1).
  /// Nil if the policy lock must decide: not cached, another cost, writes
  /// in place are off (costs are weights, or ages are kept), the stripe's
  /// retired list is full, or a writer stays at work.
  @inlinable
  func update(_ key: Key, _ value: Value, cost: Int64, returnsOld: Bool) -> (old: Value?, fullStripe: Int)? {
    guard shared.pointee.inPlace.load(ordering: .relaxed) else { return nil }
    let (index, owner) = currentStripe()
    let stripe = stripes + index
    if !Self.isInline && stripe.pointee.retiredCount.load(ordering: .relaxed) >= Self.retiredLimit { return nil }
    let tag = Self.tag(key)
    guard enter(stripe, owner: owner) else { return nil }
    // Checked again inside: the flag is cleared under the writer flag.
    var i = shared.pointee.inPlace.load(ordering: .relaxed) ? bucket(of: key, tag: tag) : -1
    if i >= 0 && buckets[i].cost != cost { i = -1 }
    if i < 0 {
      leave(stripe, owner: owner)
      return nil
    }
    // Only now: a key that is not cached costs no box.
    let word = Self.encode(value)
    var old: Value? = nil
    if Self.isInline && !returnsOld {
      buckets[i].word.store(word, ordering: .releasing)
    } else {
      let replaced = buckets[i].word.exchange(word, ordering: .acquiringAndReleasing)
      if returnsOld { old = Self.decode(replaced) }
      if !Self.isInline { stripe.pointee.retire(replaced) }
    }
    let recorded = hint(i)
    leave(stripe, owner: owner)
    let full = stripe.pointee.record(key, at: recorded, update: true, owner: owner)
    let needsGrace = !Self.isInline && stripe.pointee.retiredCount.load(ordering: .relaxed) >= Self.retiredLimit
    return (old, full || needsGrace ? index : -1)
  }

  // MARK: The policy-lock holder

  /// Raises the writer flag (once per critical section) and waits until no
  /// reader is inside the table.
  @inlinable
  func beginWrite() {
    if writing { return }
    writing = true
    shared.pointee.writer.store(true, ordering: .sequentiallyConsistent)
    for s in 0..<stripeCount {
      var spins = 0
      while stripes[s].ownerReaders.load(ordering: .sequentiallyConsistent) != 0
        || stripes[s].readers.load(ordering: .sequentiallyConsistent) != 0
      {
        spins += 1
        // A reader preempted inside the table (more threads than cores)
        // holds us up for a time slice; let it run.
        if spins & 63 == 0 { sched_yield() }
      }
    }
    // A grace period has passed: every box swapped out before the flag
    // rose is out of readers' hands (no in-place write swaps one while the
    // flag is up, and a reader that saw the flag read nothing).
    if !Self.isInline { reclaim() }
  }

  /// Frees the retired boxes (writer flag raised, or the table's deinit).
  @usableFromInline
  func reclaim() {
    for s in 0..<stripeCount where stripes[s].retiredCount.load(ordering: .relaxed) > 0 {
      stripes[s].takeRetired { Self.release($0) }
    }
  }

  /// Lets a grace period pass if `stripe`'s retired boxes reached the limit
  /// (policy-lock holder).
  @inlinable
  func reclaimIfDue(stripe: Int) {
    if !Self.isInline && stripes[stripe].retiredCount.load(ordering: .relaxed) >= Self.retiredLimit { beginWrite() }
  }

  /// Lets writes in place begin (a new table, before any reader).
  @usableFromInline
  func startWritesInPlace() { shared.pointee.inPlace.store(true, ordering: .relaxed) }

  /// Stops writes in place for good (policy-lock holder): the cache now
  /// keeps ages, which a write in place would not update.
  @inlinable
  func stopWritesInPlace() {
    guard shared.pointee.inPlace.load(ordering: .relaxed) else { return }
    beginWrite()
    shared.pointee.inPlace.store(false, ordering: .relaxed)
  }

  @inlinable
  func endWrite() {
    guard writing else { return }
    writing = false
    shared.pointee.writer.store(false, ordering: .releasing)
  }

  /// The value of a cached key (policy-lock holder), or nil.
  @inlinable
  func value(of key: Key) -> Value? {
    let i = bucket(of: key, tag: Self.tag(key))
    return i < 0 ? nil : Self.decode(buckets[i].word.load(ordering: .acquiring))
  }

  /// Stores `value` for `key` at `cost` (new or replacing); returns the
  /// value replaced if there was one and `returnsOld`. An entry that
  /// `expires` is read under the policy lock only.
  @inlinable @discardableResult
  func store(
    _ key: Key, _ value: Value, slot: Slot, stamp: UInt64, cost: Int64, expires: Bool = false, returnsOld: Bool
  ) -> Value? {
    beginWrite()
    let cost = expires ? cost | Self.expiresFlag : cost
    let tag = Self.tag(key)
    let found = bucket(of: key, tag: tag)
    if found >= 0 {
      tags[found] = Self.tag(tag, slot: slot)
      let replaced = buckets[found].word.exchange(Self.encode(value), ordering: .acquiringAndReleasing)
      buckets[found].stamp = stamp
      buckets[found].cost = cost
      let old = returnsOld ? Self.decode(replaced) : nil
      Self.release(replaced)
      return old
    }
    if (count + 1) * 2 > bucketMask + 1 { grow() }
    var i = Int(truncatingIfNeeded: tag >> shift)
    while tags[i] != 0 { i = (i &+ 1) & bucketMask }
    tags[i] = Self.tag(tag, slot: slot)
    (buckets + i).initialize(to: Entry(key: key, word: Self.encode(value), stamp: stamp, cost: cost))
    count += 1
    return nil
  }

  /// Removes `key`; returns its value if `returnsValue`.
  @inlinable @discardableResult
  func remove(_ key: Key, returnsValue: Bool) -> Value? {
    beginWrite()
    var hole = bucket(of: key, tag: Self.tag(key))
    guard hole >= 0 else { return nil }
    let word = buckets[hole].word.load(ordering: .relaxed)
    let value = returnsValue ? Self.decode(word) : nil
    Self.release(word)
    (buckets + hole).deinitialize(count: 1)
    count -= 1
    // Backward shift: pull later entries of the run into the hole unless
    // that would put one before its home bucket.
    var j = hole
    while true {
      j = (j &+ 1) & bucketMask
      let t = tags[j]
      if t == 0 { break }
      let home = Int(truncatingIfNeeded: t >> shift)
      if (j &- home) & bucketMask >= (j &- hole) & bucketMask {
        tags[hole] = t
        (buckets + hole).moveInitialize(from: buckets + j, count: 1)
        hole = j
      }
    }
    tags[hole] = 0
    return value
  }

  @usableFromInline
  func grow() {
    let (oldTags, oldBuckets, oldSize) = (tags, buckets, bucketMask + 1)
    let size = oldSize * 2
    tags = .allocate(capacity: size)
    tags.initialize(repeating: 0, count: size)
    buckets = .allocate(capacity: size)
    bucketMask = size - 1
    shift -= 1
    for j in 0..<oldSize where oldTags[j] != 0 {
      var i = Int(truncatingIfNeeded: oldTags[j] >> shift)
      while tags[i] != 0 { i = (i &+ 1) & bucketMask }
      tags[i] = oldTags[j]
      (buckets + i).moveInitialize(from: oldBuckets + j, count: 1)
    }
    oldTags.deallocate()
    oldBuckets.deallocate()
  }

  /// A hit judged under the policy lock: the table's stamp catches up with
  /// the record's, so that the entry reads without the lock again.
  @inlinable
  func refresh(_ key: Key, stamp: UInt64) {
    beginWrite()
    let i = bucket(of: key, tag: Self.tag(key))
    if i >= 0 { buckets[i].stamp = stamp }
  }

  /// A recorded time at or above this is no time: the hit was recorded
  /// while the cache kept no ages, and the low 32 bits are the policy's slot
  /// for its key when the read found it (``hint(_:)``), else all ones (-1).
  /// A clock in nanoseconds reaches it after 292 years.
  @inlinable static var hinted: UInt64 { 1 << 63 }

  /// The time a hit records when the age limit does not need it and no
  /// slot is known.
  @inlinable static var untimed: UInt64 { .max }

  /// Hands every recorded key and the time it was read to `apply`, a batch
  /// a stripe, stripe by stripe in recording order (or only `stripe`'s),
  /// with the drain's time; returns how many. A recorded time at or above
  /// ``hinted`` is no time (the hit takes the drain's) and carries a slot.
  @inlinable
  func drain(
    only stripe: Int = -1, _ apply: (UnsafeBufferPointer<(key: Key, time: UInt64)>, _ drainTime: UInt64) -> Void
  ) -> Int {
    var total = 0
    var drainTime = Self.untimed
    let range = stripe < 0 ? 0..<stripeCount : stripe..<stripe + 1
    for s in range where stripes[s].mayHoldKeys {
      let n = stripes[s].take(into: scratch)
      if drainTime == Self.untimed {
        for i in 0..<n where scratch[i].time >= Self.hinted {
          drainTime = clock()
          break
        }
      }
      apply(UnsafeBufferPointer(start: scratch, count: n), drainTime)
      scratch.deinitialize(count: n)
      total += n
    }
    drained.pointee += total
    return total
  }

  /// Hits served without the policy lock (drained, waiting, or dropped),
  /// accesses the policy never saw (hits and writes), and writes made in
  /// place (policy-lock holder only).
  func counts() -> (hits: Int, dropped: Int, updates: Int) {
    // Every read hit and every write in place went to a ring (drained
    // or waiting) or was dropped.
    var accesses = drained.pointee
    var dropped = 0
    var updates = 0
    for s in 0..<stripeCount {
      let (p, d, u) = stripes[s].counts()
      accesses += p + d
      dropped += d
      updates += u
    }
    return (accesses - updates, dropped, updates)
  }

  /// The table holds exactly the policy's keys, each at the cost the cache
  /// keeps for it and the slot the policy gives it (tests; policy lock held).
  func check(costs: [Key: Int64], slots: [Key: Slot]) {
    var n = 0
    for i in 0...bucketMask where tags[i] != 0 {
      n += 1
      let key = buckets[i].key
      precondition(costs[key] != nil, "read index holds \(key), which the policy does not")
      precondition(
        costs[key] == buckets[i].cost & .max,
        "read index has \(key) at cost \(buckets[i].cost & .max), the cache at \(costs[key]!)")
      precondition(bucket(of: key, tag: tags[i] & Self.fingerprintMask) == i, "read index cannot find \(key)")
      precondition(
        slots[key] == Slot(truncatingIfNeeded: tags[i]),
        "read index has \(key) at slot \(Slot(truncatingIfNeeded: tags[i])), the policy at \(slots[key]!)")
    }
    precondition(
      n == count && n == costs.count, "read index holds \(n) keys (counted \(count)), the policy \(costs.count)")
  }
}

/// One stripe of the read side, padded so that no two stripes' fields share
/// a cache line. A stripe has an *owner*, the thread whose slot
/// (``currentThreadSlot()``) is the stripe's index: no other live thread has
/// that slot, so the owner's half is written by it alone, with plain loads
/// and stores and no read-modify-write, except the one exchange that
/// announces a reader to the writer. Its ring is single-producer: the owner
/// appends and publishes `tail`, the policy-lock holder takes and publishes
/// `head`. Threads beyond the stripes (more threads than twice the cores)
/// are *guests* and share the other half as every thread once did: a
/// reader count changed by atomic adds, and a ring of their own (made on
/// first use) under the `busy` flag.
///
/// Every field is an atomic or a constant, so no method mutates the struct
/// (a mutating call would be an access to all of it, readers' counts
/// included).
@usableFromInline
struct ReadStripe<Key>: ~Copyable {
  // The owner's line: written by the owner only.
  /// 1 while the owner is inside the table.
  @usableFromInline let ownerReaders = Atomic<Int>(0)
  /// Keys the owner has appended to its ring, ever (the ring's write position).
  @usableFromInline let tail = Atomic<Int>(0)
  @usableFromInline let ownerDropped = Atomic<Int>(0)
  @usableFromInline let ownerUpdates = Atomic<Int>(0)
  /// The owner's ring: keys read and when (the cache's clock).
  @usableFromInline let ring: UnsafeMutablePointer<(key: Key, time: UInt64)>
  @usableFromInline let ownerPadding: (UInt64, UInt64, UInt64) = (0, 0, 0)

  // The drain's line: written under the policy lock.
  /// Keys taken from the owner's ring, ever (its read position).
  @usableFromInline let head = Atomic<Int>(0)
  @usableFromInline let drainPadding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)

  // The guests' lines: every counter but `readers`, `lost` and
  // `lostUpdates` (atomic adds) changes under `busy`, with relaxed loads
  // and stores (plain moves on x86).
  @usableFromInline let readers = Atomic<Int>(0)
  /// Keys in the guests' ring; the drain may read it without `busy`, as a hint.
  @usableFromInline let pending = Atomic<Int>(0)
  @usableFromInline let dropped = Atomic<Int>(0)
  /// Guests' hits that found `busy` held (a drain at work): served, not recorded.
  @usableFromInline let lost = Atomic<Int>(0)
  /// Guests' writes made in place, recorded or dropped (under `busy`).
  @usableFromInline let updates = Atomic<Int>(0)
  /// Guests' writes made in place that found `busy` held: counted apart,
  /// by an atomic add, since `updates` is a load and a store under `busy`
  /// and would lose an add made beside it.
  @usableFromInline let lostUpdates = Atomic<Int>(0)
  /// Boxes swapped out by writes in place, owner's and guests', freed
  /// after a grace period (``BufferedReads/reclaim()``); written under `busy`.
  @usableFromInline let retiredCount = Atomic<Int>(0)
  @usableFromInline let retiredCapacity = Atomic<Int>(0)
  @usableFromInline let retired = Atomic<UInt>(0)
  /// The guests' ring (0 until a guest records).
  @usableFromInline let guestRing = Atomic<UInt>(0)
  /// Held while the guests' ring or the retired list is written or drained.
  @usableFromInline let busy = Atomic<Bool>(false)
  @usableFromInline let guestPadding: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)

  @usableFromInline init(capacity: Int) { ring = allocateOnOwnLines((key: Key, time: UInt64).self, capacity: capacity) }

  /// The size of the owner's ring and of the guests' (a power of two).
  @inlinable static var capacity: Int { BufferedReads<Int, Int>.ringCapacity }

  /// Frees the rings (the table's deinit).
  @usableFromInline func release() {
    let first = head.load(ordering: .relaxed)
    for position in first..<tail.load(ordering: .relaxed) {
      (ring + (position & (Self.capacity - 1))).deinitialize(count: 1)
    }
    ring.deallocate()
    if let guests = guestRingPointer {
      guests.deinitialize(count: pending.load(ordering: .relaxed))
      guests.deallocate()
    }
    UnsafeMutablePointer<UInt64>(bitPattern: retired.load(ordering: .relaxed))?.deallocate()
  }

  @inlinable var guestRingPointer: UnsafeMutablePointer<(key: Key, time: UInt64)>? {
    UnsafeMutablePointer(bitPattern: guestRing.load(ordering: .relaxed))
  }

  /// Records a hit (or a write in place, `update`) on `key` at `time`, as
  /// the stripe's owner or as a guest; returns whether a ring is now full.
  @inlinable
  func record(_ key: Key, at time: UInt64, update: Bool, owner: Bool) -> Bool {
    guard owner else { return recordAsGuest(key, at: time, update: update) }
    if update { ownerUpdates.store(ownerUpdates.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
    let position = tail.load(ordering: .relaxed)
    // Acquiring: the drain has moved out the keys it passed.
    let taken = head.load(ordering: .acquiring)
    guard position &- taken < Self.capacity else {
      let dropped = ownerDropped.load(ordering: .relaxed) &+ 1
      ownerDropped.store(dropped, ordering: .relaxed)
      return Self.asksAgain(afterDrops: dropped)
    }
    (ring + (position & (Self.capacity - 1))).initialize(to: (key, time))
    tail.store(position &+ 1, ordering: .releasing)
    return position &+ 1 &- taken >= Self.capacity
  }

  @inlinable
  func recordAsGuest(_ key: Key, at time: UInt64, update: Bool) -> Bool {
    guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
      lost.wrappingAdd(1, ordering: .relaxed)
      if update { lostUpdates.wrappingAdd(1, ordering: .relaxed) }
      return false
    }
    if update { updates.store(updates.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
    var guests = guestRingPointer
    if guests == nil {
      let made = allocateOnOwnLines((key: Key, time: UInt64).self, capacity: Self.capacity)
      guestRing.store(UInt(bitPattern: made), ordering: .relaxed)
      guests = made
    }
    let n = pending.load(ordering: .relaxed)
    var full = n + 1 == Self.capacity
    if n < Self.capacity {
      (guests! + n).initialize(to: (key, time))
      pending.store(n + 1, ordering: .relaxed)
    } else {
      let count = dropped.load(ordering: .relaxed) &+ 1
      dropped.store(count, ordering: .relaxed)
      full = Self.asksAgain(afterDrops: count)
    }
    busy.store(false, ordering: .releasing)
    return full
  }

  /// Whether an access dropped from a full ring asks for a drain again:
  /// one in 32. The drain the ring asked for when it filled found the
  /// policy lock taken; asking at every drop would make every hit try that
  /// lock, a write to the one line all threads share, and the hits that
  /// meant to write nothing shared would queue on it.
  @inlinable static func asksAgain(afterDrops dropped: Int) -> Bool { dropped & 31 == 0 }

  /// Whether either ring may hold keys (a hint: read without the owner).
  @inlinable var mayHoldKeys: Bool {
    tail.load(ordering: .relaxed) != head.load(ordering: .relaxed) || pending.load(ordering: .relaxed) > 0
  }

  /// Moves the owner's ring's keys, then the guests', to `out` (room for
  /// two rings); returns how many (policy-lock holder).
  @inlinable
  func take(into out: UnsafeMutablePointer<(key: Key, time: UInt64)>) -> Int {
    let first = head.load(ordering: .relaxed)
    // Acquiring: the owner's keys up to `last` are initialized.
    let last = tail.load(ordering: .acquiring)
    var n = 0
    for position in first..<last {
      (out + n).moveInitialize(from: ring + (position & (Self.capacity - 1)), count: 1)
      n += 1
    }
    // Releasing: the owner may write over those slots now.
    if last != first { head.store(last, ordering: .releasing) }
    guard pending.load(ordering: .relaxed) > 0 else { return n }
    lockRing()
    let waiting = pending.load(ordering: .relaxed)
    if let guests = guestRingPointer { (out + n).moveInitialize(from: guests, count: waiting) }
    pending.store(0, ordering: .relaxed)
    busy.store(false, ordering: .releasing)
    return n + waiting
  }

  /// Accesses recorded and not yet drained, accesses dropped (a full ring,
  /// or a guest's busy one), and writes in place.
  func counts() -> (pending: Int, dropped: Int, updates: Int) {
    lockRing()
    let figures = (
      pending.load(ordering: .relaxed) + tail.load(ordering: .acquiring) - head.load(ordering: .relaxed),
      dropped.load(ordering: .relaxed) + lost.load(ordering: .relaxed) + ownerDropped.load(ordering: .relaxed),
      updates.load(ordering: .relaxed) + lostUpdates.load(ordering: .relaxed) + ownerUpdates.load(ordering: .relaxed)
    )
    busy.store(false, ordering: .releasing)
    return figures
  }

  /// Keeps a box swapped out of the table until a grace period has passed.
  @inlinable
  func retire(_ word: UInt64) {
    lockRing()
    let n = retiredCount.load(ordering: .relaxed)
    var list = UnsafeMutablePointer<UInt64>(bitPattern: retired.load(ordering: .relaxed))
    if n == retiredCapacity.load(ordering: .relaxed) {
      // Writers sharing the stripe may pass the limit before a grace period
      // comes: the list grows rather than lose a box.
      let capacity = max(2 * n, BufferedReads<Int, Int>.retiredLimit)
      let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
      if let list { grown.moveInitialize(from: list, count: n) }
      list?.deallocate()
      list = grown
      retired.store(UInt(bitPattern: grown), ordering: .relaxed)
      retiredCapacity.store(capacity, ordering: .relaxed)
    }
    list![n] = word
    retiredCount.store(n + 1, ordering: .relaxed)
    busy.store(false, ordering: .releasing)
  }

  /// Hands every retired word to `release` and empties the list.
  @usableFromInline
  func takeRetired(_ release: (UInt64) -> Void) {
    lockRing()
    if let list = UnsafeMutablePointer<UInt64>(bitPattern: retired.load(ordering: .relaxed)) {
      for i in 0..<retiredCount.load(ordering: .relaxed) { release(list[i]) }
    }
    retiredCount.store(0, ordering: .relaxed)
    busy.store(false, ordering: .releasing)
  }

  @inlinable
  func lockRing() {
    var spins = 0
    while !busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
      spins += 1
      if spins & 63 == 0 { sched_yield() }
    }
  }
}

/// Memory for `capacity` elements that starts on a cache line and fills its
/// last one: what one thread writes there shares no line with other data.
@inlinable
func allocateOnOwnLines<T: ~Copyable>(_ type: T.Type, capacity: Int) -> UnsafeMutablePointer<T> {
  let bytes = (MemoryLayout<T>.stride * capacity + 63) & ~63
  return UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64).bindMemory(to: T.self, capacity: capacity)
}

/// The writer flag and the age limit: written rarely, read by every reader.
@usableFromInline
struct SharedFlags: ~Copyable {
  @usableFromInline let writer = Atomic<Bool>(false)
  /// Whether hits carry their time (the cache keeps ages; set once, never cleared).
  @usableFromInline let timesHits = Atomic<Bool>(false)
  /// Set only after `timesHits`.
  @usableFromInline let ageLimit = Atomic<UInt64>(.max)
  /// Whether a write of a cached key may replace its value in place
  /// (changed only under the writer flag).
  @usableFromInline let inPlace = Atomic<Bool>(false)
  @usableFromInline init() {}
}

/// The calling thread's slot: the lowest number no other live thread holds,
/// taken on first use and given back when the thread exits. Slots stay
/// dense (with N threads alive they are 0..<N), so a cache's first stripes
/// each have one owner (``ReadStripe``), and a thread that ends leaves its
/// stripe to the next thread started.
@inlinable
func currentThreadSlot() -> Int {
  let stored = evictionlab_thread_slot_get()
  if stored != 0 { return stored &- 1 }
  return ThreadSlots.claim()
}

@usableFromInline
enum ThreadSlots {
  /// The destructor that gives a thread's slot back when it exits (the
  /// slot plus one is the key's value, as it is the thread-local
  /// variable's, which it clears: a later call in the exiting thread's
  /// other destructors claims afresh rather than use a slot now free).
  static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { stored in
      guard let stored else { return }
      let slot = Int(bitPattern: stored) &- 1
      evictionlab_thread_slot_set(0)
      ThreadSlots.withTaken { $0[slot >> 6] &= ~(1 << UInt64(slot & 63)) }
    }
    return key
  }()
  /// A bit per slot, set while a thread holds it; under `lock`, a
  /// `pthread_mutex_t` (which ThreadSanitizer follows, unlike the futex
  /// under `Synchronization.Mutex` on Linux). Touched once per thread.
  nonisolated(unsafe) static var taken: [UInt64] = []
  nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
    let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
    return lock
  }()

  static func withTaken<R>(_ body: (inout [UInt64]) -> R) -> R {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return body(&taken)
  }

  @usableFromInline static func claim() -> Int {
    let slot = withTaken { words in
      if let w = words.firstIndex(where: { $0 != .max }) {
        let bit = (~words[w]).trailingZeroBitCount
        words[w] |= 1 << UInt64(bit)
        return w << 6 | bit
      }
      words.append(1)
      return (words.count - 1) << 6
    }
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: slot &+ 1))
    evictionlab_thread_slot_set(slot &+ 1)
    return slot
  }
}

@usableFromInline
enum System {
  /// Cores this process may run on.
  @usableFromInline static let coreCount: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}

/// A value that does not fit a word, as the read index holds it.
@usableFromInline
final class ValueBox<Value> {
  @usableFromInline let value: Value
  @inlinable init(_ value: Value) { self.value = value }
}
