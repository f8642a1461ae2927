/// A model of Caffeine 2.6.2's bounded cache (`BoundedLocalCache`, the
/// W-TinyLFU of the Java library most JVM services run), as Debian's
/// `libcaffeine-java` ships it, replayed by one thread with a same-thread
/// executor (`Caffeine.executor(Runnable::run)`): each request is
/// `getIfPresent`, and a miss is `put`.
///
/// What it keeps of the library, rule for rule (read from the 2.6.2 jar's
/// bytecode; checked hit for hit against the jar itself, see below):
/// - **Shares**: the eden (window) is `max − (long)(max × 0.99)`, at least
///   one unit; the protected segment `(long)((max − eden) × 0.8)`; probation
///   has no bound of its own. Entries enter at the eden's tail.
/// - **The sketch** (`FrequencySketch`): 4-bit counters, four per key in one
///   64-bit word each, indexed with Caffeine's seeds and a spread seeded from
///   the first random draw. It is created empty and sized only when an
///   insertion finds the cache at least half full (the capacity's entries;
///   with weights, the entries resident, growing and restarting as they
///   grow). It halves when its additions reach 10 × its size.
/// - **Reads are buffered**: until the sketch exists a hit is not recorded
///   at all; after, a hit waits in a 16-slot read buffer, and when the buffer
///   is full the hit is dropped and the buffer is drained. The buffer is also
///   drained before each insertion. Draining counts each read in the sketch
///   and moves its entry to its queue's tail (probation's to protected, whose
///   overflow drops back to probation's tail).
/// - **Eviction** (after each insertion): the eden's overflow moves to
///   probation's tail as candidates; while the cache is over its maximum,
///   the candidate nearest probation's tail meets the victim at its head: the
///   candidate wins with a higher frequency, and otherwise loses unless its
///   frequency is above 5 and a random draw has its low 7 bits zero (one in
///   128). Out of candidates, the victims go: probation's, then protected's,
///   then the eden's. An entry heavier than the maximum is evicted at once.
/// - **Random draws** are Java 17's `ThreadLocalRandom` on a thread whose
///   seed is pinned to `seed`, as on a JVM's main thread (id 1): the first
///   draw seeds the sketch's spread, later ones are the admission jitter.
///
/// What it does not model: expiry, refresh, weak or soft references, and
/// several threads (their read buffers are striped and lossy in ways no
/// replay reproduces). A key removed while a read of it waits in the buffer
/// loses that read here; the library would count it against an object with
/// no fixed hash. Integer keys hash as Java's `Long.hashCode`; other keys
/// fold their stable bits the same way, so a `String` key is not
/// `String.hashCode` and only integer keys match the library to the hit.
///
/// The catalog's `wtinylfu` is libCacheSim's design (a counting Bloom filter
/// sketch that ages every 32 × main-size main-cache hits, every read
/// recorded, no jitter, the window's victim tested once per insertion), kept
/// exact to libCacheSim; this one is Caffeine's. On the same traces they
/// differ by points (docs/policies.md#caffeine).
///
/// Here the capacity is `maximumSize`, or `maximumWeight` once entries weigh
/// other than 1 (byte mode, a memory cache's costs): from the first such
/// admission the model sizes its sketch by entries, as Caffeine does when
/// the cache has a weigher.
public struct CaffeineModel<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  /// Caffeine's three access-order deques, head (the least recent, Caffeine's
  /// `peekFirst`) at `front`, tail at `back`.
  @usableFromInline var eden = EntryList()
  @usableFromInline var probation = EntryList()
  @usableFromInline var protected = EntryList()
  @usableFromInline let edenMaximum: Int64
  @usableFromInline let protectedMaximum: Int64
  @usableFromInline var sketch: CaffeineSketch
  @usableFromInline var random: JavaThreadLocalRandom
  /// Hits waiting to be applied, oldest first (Caffeine's read buffer, one
  /// ring of 16 for one thread).
  @usableFromInline var readBuffer: [Slot]
  /// Whether entries weigh (Caffeine's `isWeighted`): set by the first
  /// admission whose weight is not 1.
  @usableFromInline var weighted = false
  /// Entries evicted by the current eviction pass: their slots are freed at
  /// its end, because the pass may still hold them as victim or candidate
  /// (Caffeine's loop keeps references to nodes it has evicted).
  @usableFromInline var dying: [Slot] = []
  public let seed: Int64

  @usableFromInline static var inEden: UInt8 { 0 }
  @usableFromInline static var inProbation: UInt8 { 1 }
  @usableFromInline static var inProtected: UInt8 { 2 }
  @usableFromInline static var dead: UInt8 { 3 }
  /// Caffeine's `BoundedBuffer.BUFFER_SIZE`.
  public static var readBufferSize: Int { 16 }
  /// Caffeine's `BoundedLocalCache.MAXIMUM_CAPACITY`.
  static var maximumCapacity: Int64 { Int64.max - Int64(Int32.max) }

  public init(capacity: Int64, seed: Int64) {
    store = PolicyStorage(capacity: capacity)
    // setMaximum: the shares, in Java's double arithmetic.
    let maximum = min(capacity, Self.maximumCapacity)
    edenMaximum = maximum - Int64(Double(maximum) * 0.99)
    protectedMaximum = Int64(Double(maximum - edenMaximum) * 0.8)
    self.seed = seed
    random = JavaThreadLocalRandom(seed: seed)
    // The sketch's constructor draws its spread seed, made odd.
    let draw = random.nextInt()
    sketch = CaffeineSketch(randomSeed: draw & 1 == 0 ? draw &+ 1 : draw)
    readBuffer = []
    readBuffer.reserveCapacity(Self.readBufferSize)
  }

  public var name: String { "Caffeine 2.6.2(seed=\(seed))" }
  public var sketchBytes: Int { sketch.byteCount }

  /// Java's `Long.hashCode` of the key's stable bits.
  @inlinable @inline(__always)
  static func javaHash(_ key: Key) -> Int32 {
    let bits = Index.sketchBits(key)
    return Int32(truncatingIfNeeded: bits ^ (bits >> 32))
  }

  // MARK: Requests

  /// `getIfPresent`: a hit is buffered (once the sketch exists); a full
  /// buffer drops it and drains.
  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if sketch.isInitialized {
      if readBuffer.count < Self.readBufferSize {
        readBuffer.append(slot)
      } else {
        maintenance(onEvict, newcomer: -1)
      }
    }
    return slot
  }

  /// `put` of a missed key: the insertion, then the maintenance that drains
  /// the reads, adds the entry to the eden and evicts. Nil when the entry
  /// itself was evicted (it is not reported to `onEvict`).
  @inlinable
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let weight = max(0, request.weight)
    if weight != 1 { weighted = true }
    drainReadBuffer()
    // AddTask.run
    let before = store.used
    let slot = store.insert(request.key, weight: weight, payload: ())
    if before >= store.capacity >> 1 {
      sketch.ensureCapacity(weighted ? Int64(store.count) : store.capacity)
    }
    sketch.increment(Self.javaHash(request.key))
    store.table.pushBack(slot, &eden, tag: Self.inEden)
    return evictEntries(onEvict, newcomer: slot) ? slot : nil
  }

  /// Caffeine's `maintenance`: drain the reads, then evict.
  @inlinable
  mutating func maintenance(_ onEvict: (Slot, Key) -> Void, newcomer: Slot) {
    drainReadBuffer()
    _ = evictEntries(onEvict, newcomer: newcomer)
  }

  /// Applies the buffered reads in order (`onAccess`).
  @inlinable
  mutating func drainReadBuffer() {
    guard !readBuffer.isEmpty else { return }
    for slot in readBuffer {
      sketch.increment(Self.javaHash(store.table[slot].key))
      switch store.table[slot].list {
      case Self.inEden:
        guard eden.back != slot else { continue }
        store.table.unlink(slot, &eden)
        store.table.pushBack(slot, &eden, tag: Self.inEden)
      case Self.inProbation: reorderProbation(slot)
      default:
        guard protected.back != slot else { continue }
        store.table.unlink(slot, &protected)
        store.table.pushBack(slot, &protected, tag: Self.inProtected)
      }
    }
    readBuffer.removeAll(keepingCapacity: true)
  }

  /// A probation hit moves to protected's tail, unless it outweighs
  /// protected; protected's overflow drops back to probation's tail.
  @inlinable
  mutating func reorderProbation(_ slot: Slot) {
    guard store.table[slot].weight <= protectedMaximum else { return }
    store.table.unlink(slot, &probation)
    store.table.pushBack(slot, &protected, tag: Self.inProtected)
    while protected.weight > protectedMaximum, protected.front >= 0 {
      let demoted = protected.front
      store.table.unlink(demoted, &protected)
      store.table.pushBack(demoted, &probation, tag: Self.inProbation)
    }
  }

  // MARK: Eviction

  /// `evictEntries`; whether `newcomer` (or -1) is still resident.
  @inlinable
  mutating func evictEntries(_ onEvict: (Slot, Key) -> Void, newcomer: Slot) -> Bool {
    let candidates = evictFromEden()
    evictFromMain(candidates, onEvict, newcomer: newcomer)
    let survived = newcomer < 0 || store.table[newcomer].list != Self.dead
    for slot in dying { store.table.release(slot) }
    dying.removeAll(keepingCapacity: true)
    return survived
  }

  /// Moves the eden's overflow, head first, to probation's tail; returns how
  /// many moved (the candidates). Weightless entries stay.
  @inlinable
  mutating func evictFromEden() -> Int {
    var candidates = 0
    var node = eden.front
    while eden.weight > edenMaximum, node >= 0 {
      let next = store.table[node].next
      if store.table[node].weight != 0 {
        store.table.unlink(node, &eden)
        store.table.pushBack(node, &probation, tag: Self.inProbation)
        candidates += 1
      }
      node = next
    }
    return candidates
  }

  /// The next node toward the tail (Caffeine's `getNextInAccessOrder`);
  /// -1 past the tail or for an evicted node, whose links Caffeine clears.
  @inlinable @inline(__always)
  func next(_ slot: Slot) -> Slot { store.table[slot].next }
  /// The next node toward the head (`getPreviousInAccessOrder`).
  @inlinable @inline(__always)
  func previous(_ slot: Slot) -> Slot { store.table[slot].prev }

  /// `evictFromMain`, step for step: the candidates from the tail of
  /// probation against the victims from its head, then the victims alone.
  @inlinable
  mutating func evictFromMain(_ candidateCount: Int, _ onEvict: (Slot, Key) -> Void, newcomer: Slot) {
    var candidates = candidateCount
    var victimQueue = Self.inProbation
    var victim = probation.front
    var candidate = probation.back
    while store.used > store.capacity {
      if candidates == 0 { candidate = -1 }
      if candidate < 0 && victim < 0 {
        if victimQueue == Self.inProbation {
          victim = protected.front
          victimQueue = Self.inProtected
          continue
        } else if victimQueue == Self.inProtected {
          victim = eden.front
          victimQueue = Self.inEden
          continue
        }
        break
      }
      // Weightless entries are skipped.
      if victim >= 0 && store.table[victim].weight == 0 {
        victim = next(victim)
        continue
      } else if candidate >= 0 && store.table[candidate].weight == 0 {
        candidate = previous(candidate)
        candidates -= 1
        continue
      }
      // Only one of the two: it goes.
      if victim < 0 {
        candidates -= 1
        let evict = candidate
        candidate = previous(candidate)
        evictEntry(evict, onEvict, newcomer: newcomer)
        continue
      } else if candidate < 0 {
        let evict = victim
        victim = next(victim)
        evictEntry(evict, onEvict, newcomer: newcomer)
        continue
      }
      if store.table[candidate].weight > store.capacity {
        candidates -= 1
        let evict = candidate
        candidate = previous(candidate)
        evictEntry(evict, onEvict, newcomer: newcomer)
        continue
      }
      candidates -= 1
      if admits(candidate, over: victim) {
        let evict = victim
        victim = next(victim)
        evictEntry(evict, onEvict, newcomer: newcomer)
        candidate = previous(candidate)
      } else {
        let evict = candidate
        candidate = previous(candidate)
        evictEntry(evict, onEvict, newcomer: newcomer)
      }
    }
  }

  /// Caffeine's `admit`: a higher frequency wins; a warm candidate (above
  /// 5) that does not is let in once in 128 draws.
  @inlinable
  mutating func admits(_ candidate: Slot, over victim: Slot) -> Bool {
    let victimFrequency = frequency(of: victim)
    let candidateFrequency = frequency(of: candidate)
    if candidateFrequency > victimFrequency { return true }
    if candidateFrequency <= 5 { return false }
    return random.nextInt() & 127 == 0
  }

  /// The sketch's estimate for a node's key; 0 for a node already evicted
  /// in this pass (Caffeine would hash its dead-key marker, whose identity
  /// hash no replay can know; only weightless entries let the pass meet one).
  @inlinable
  func frequency(of slot: Slot) -> Int {
    guard store.table[slot].list != Self.dead else { return 0 }
    return sketch.frequency(Self.javaHash(store.table[slot].key))
  }

  /// Evicts `slot` for size (`evictEntry`): nothing for a node already
  /// evicted, or weightless (Caffeine keeps those unless `evenWeightless`,
  /// a trim); otherwise it leaves its deque and the index, its links
  /// cleared, its slot freed at the end of the pass.
  @inlinable
  mutating func evictEntry(
    _ slot: Slot, _ onEvict: (Slot, Key) -> Void, newcomer: Slot, evenWeightless: Bool = false
  ) {
    let tag = store.table[slot].list
    guard tag != Self.dead, evenWeightless || store.table[slot].weight != 0 else { return }
    switch tag {
    case Self.inEden: store.table.unlink(slot, &eden)
    case Self.inProbation: store.table.unlink(slot, &probation)
    default: store.table.unlink(slot, &protected)
    }
    let key = store.table[slot].key
    store.retire(slot)
    store.index.remove(key, slot: slot)
    store.table.markUnlinked(slot, tag: Self.dead)
    dying.append(slot)
    if slot != newcomer { onEvict(slot, key) }
  }

  /// Evicts the entry Caffeine would evict first with no candidates:
  /// probation's head, else protected's, else the eden's (a trim, which
  /// takes weightless entries too, so trimming ends).
  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    let victim = !probation.isEmpty ? probation.front : !protected.isEmpty ? protected.front : eden.front
    guard victim >= 0 else { return false }
    forgetReads(of: victim)
    evictEntry(victim, onEvict, newcomer: -1, evenWeightless: true)
    for slot in dying { store.table.release(slot) }
    dying.removeAll(keepingCapacity: true)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    forgetReads(of: slot)
    switch store.table[slot].list {
    case Self.inEden: store.table.unlink(slot, &eden)
    case Self.inProbation: store.table.unlink(slot, &probation)
    default: store.table.unlink(slot, &protected)
    }
    store.delete(slot, resident: true)
    return slot
  }

  /// Drops buffered reads of an entry about to leave, whose slot may be
  /// reused before the buffer drains.
  @inlinable
  mutating func forgetReads(of slot: Slot) {
    if readBuffer.contains(slot) { readBuffer.removeAll { $0 == slot } }
  }

  // MARK: Checks and reports

  public func checkInvariants() {
    store.table.checkList(eden, tag: Self.inEden, "eden")
    store.table.checkList(probation, tag: Self.inProbation, "probation")
    store.table.checkList(protected, tag: Self.inProtected, "protected")
    store.checkTotals([eden, probation, protected])
    precondition(eden.weight <= edenMaximum, "eden weighs \(eden.weight), above its \(edenMaximum)")
    precondition(
      protected.weight <= protectedMaximum, "protected weighs \(protected.weight), above its \(protectedMaximum)")
    precondition(readBuffer.count <= Self.readBufferSize, "the read buffer holds \(readBuffer.count)")
    for slot in readBuffer {
      precondition(store.table[slot].list <= Self.inProtected, "the read buffer holds a slot not resident")
    }
    precondition(dying.isEmpty, "slots left from an eviction pass")
    precondition(sketch.isInitialized || readBuffer.isEmpty, "reads buffered before the sketch exists")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("eden, head first", store.table.keys(of: eden)), ("probation, head first", store.table.keys(of: probation)),
      ("protected, head first", store.table.keys(of: protected)),
    ]
  }

  public func explain(_ key: Key) -> String? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    let queue = ["eden", "probation", "protected"][Int(store.table[slot].list)]
    return "\(queue), frequency \(sketch.frequency(Self.javaHash(key)))"
  }
}

/// Caffeine 2.6.2's `FrequencySketch`: a count-min sketch of 4-bit counters,
/// sixteen to a 64-bit word, a key's four counters chosen by four seeded
/// index hashes and one of four counter groups in each word.
public struct CaffeineSketch: Sendable {
  /// Caffeine's `SEED` constants.
  @usableFromInline static let seeds: (UInt64, UInt64, UInt64, UInt64) = (
    0xc3a5_c85c_97cb_3127, 0xb492_b66f_be98_f273, 0x9ae1_6a3b_2f90_404f, 0xcbf2_9ce4_8422_2325
  )
  @usableFromInline var table: [UInt64] = []
  @usableFromInline var tableMask: Int32 = 0
  @usableFromInline var sampleSize: Int32 = 0
  @usableFromInline var size: Int32 = 0
  @usableFromInline let randomSeed: Int32

  public init(randomSeed: Int32) { self.randomSeed = randomSeed }

  /// Whether `ensureCapacity` has run (Caffeine's `isNotInitialized`, negated).
  @inlinable public var isInitialized: Bool { !table.isEmpty }
  public var byteCount: Int { table.count * 8 }
  /// Additions since the last halving.
  public var additions: Int32 { size }

  /// Sizes the table for `maximumSize` entries (a power of two, at most
  /// 2^30), restarting the counts, unless it is already that large.
  public mutating func ensureCapacity(_ maximumSize: Int64) {
    let maximum = Int32(min(maximumSize, Int64(Int32.max >> 1)))
    if isInitialized && table.count >= Int(maximum) { return }
    let length = maximum == 0 ? 1 : Self.ceilingNextPowerOfTwo(maximum)
    table = [UInt64](repeating: 0, count: Int(length))
    tableMask = max(0, length - 1)
    sampleSize = maximumSize == 0 ? 10 : 10 &* maximum
    if sampleSize <= 0 { sampleSize = Int32.max }
    size = 0
  }

  /// `1 << (32 - numberOfLeadingZeros(x - 1))`, in Java's int arithmetic.
  static func ceilingNextPowerOfTwo(_ x: Int32) -> Int32 {
    let shift = 32 - (x &- 1).leadingZeroBitCount
    return 1 &<< Int32(shift & 31)
  }

  /// Caffeine's `spread`: mixes the key's hash with the random seed.
  @inlinable @inline(__always)
  func spread(_ hash: Int32) -> Int32 {
    var x = UInt32(bitPattern: hash)
    x = ((x >> 16) ^ x) &* 0x45d_9f3b
    x = ((x >> 16) ^ x) &* UInt32(bitPattern: randomSeed)
    return Int32(bitPattern: (x >> 16) ^ x)
  }

  /// Caffeine's `indexOf`: the word of the key's `i`th counter.
  @inlinable @inline(__always)
  func index(_ item: Int32, _ i: Int) -> Int {
    let seed: UInt64
    switch i {
    case 0: seed = Self.seeds.0
    case 1: seed = Self.seeds.1
    case 2: seed = Self.seeds.2
    default: seed = Self.seeds.3
    }
    var hash = Int64(bitPattern: seed &* UInt64(bitPattern: Int64(item)))
    hash &+= hash >> 32
    return Int(Int32(truncatingIfNeeded: hash) & tableMask)
  }

  /// The estimate: the least of the key's four counters (0 before sizing).
  @inlinable
  public func frequency(_ hashCode: Int32) -> Int {
    guard isInitialized else { return 0 }
    let hash = spread(hashCode)
    let start = Int((hash & 3) << 2)
    var frequency = Int.max
    for i in 0..<4 {
      let word = table[index(hash, i)]
      frequency = min(frequency, Int((word >> UInt64((start + i) << 2)) & 0xf))
    }
    return frequency
  }

  /// Adds one to the key's four counters (those not at 15); halves every
  /// counter once `sampleSize` additions have changed something.
  @inlinable
  public mutating func increment(_ hashCode: Int32) {
    guard isInitialized else { return }
    let hash = spread(hashCode)
    let start = Int((hash & 3) << 2)
    let indices = (index(hash, 0), index(hash, 1), index(hash, 2), index(hash, 3))
    var added = incrementAt(indices.0, start)
    added = incrementAt(indices.1, start + 1) || added
    added = incrementAt(indices.2, start + 2) || added
    added = incrementAt(indices.3, start + 3) || added
    if added {
      size &+= 1
      if size == sampleSize { reset() }
    }
  }

  @inlinable @inline(__always)
  mutating func incrementAt(_ i: Int, _ j: Int) -> Bool {
    let offset = UInt64(j << 2)
    let mask: UInt64 = 0xf << offset
    guard table[i] & mask != mask else { return false }
    table[i] &+= 1 << offset
    return true
  }

  /// Halves every counter; the additions count drops by half and by a
  /// quarter of the odd counters (their lost halves).
  @usableFromInline
  mutating func reset() {
    var odd: Int32 = 0
    for i in table.indices {
      odd &+= Int32(truncatingIfNeeded: (table[i] & 0x1111_1111_1111_1111).nonzeroBitCount)
      table[i] = (table[i] >> 1) & 0x7777_7777_7777_7777
    }
    size = Int32(bitPattern: UInt32(bitPattern: size) >> 1) &- Int32(bitPattern: UInt32(bitPattern: odd) >> 2)
  }
}

/// Java 17's `ThreadLocalRandom` as one thread sees it once its seed is
/// pinned: each draw adds the golden gamma and twice the thread's id (1, a
/// JVM's main thread) to the seed and mixes it (`mix32`).
public struct JavaThreadLocalRandom: Sendable {
  @usableFromInline var seed: UInt64
  @usableFromInline let increment: UInt64

  public init(seed: Int64, threadID: Int64 = 1) {
    self.seed = UInt64(bitPattern: seed)
    increment = 0x9e37_79b9_7f4a_7c15 &+ UInt64(bitPattern: threadID << 1)
  }

  @inlinable
  public mutating func nextInt() -> Int32 {
    seed &+= increment
    var z = seed
    z = (z ^ (z >> 33)) &* 0xff51_afd7_ed55_8ccd
    return Int32(truncatingIfNeeded: ((z ^ (z >> 33)) &* 0xc4ce_b9fe_1a85_ec53) >> 32)
  }
}

/// The Caffeine model in the catalog.
public enum Caffeine: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "caffeine", displayName: "Caffeine 2.6.2",
    summary: "model of Caffeine 2.6.2's W-TinyLFU as it ships (lazy sketch, lossy read buffer, admission jitter)",
    citation: "Einziger et al., TOS'17; Manes, Caffeine",
    parameters: [
      PolicyParameter(
        "seed", default: 0, range: 0...Int64.max,
        help: "ThreadLocalRandom seed (pinned on a JVM's main thread): the sketch's spread and the admission jitter")
    ],
    traits: [.model, .randomized],
    checkedAgainst: "the real Caffeine 2.6.2 (Debian's libcaffeine-java, seeds pinned), hit for hit")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(CaffeineModel<Index>(capacity: capacity, seed: spec.integer("seed")))
  }
}
