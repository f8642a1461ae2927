/// A two-tier cache: an LRU in DRAM in front of a FIFO on flash that admits
/// what DRAM evicts only with probability `p`. Probabilistic flash admission
/// is the simplest way flash caches limit their writes (and so their wear);
/// CacheLib's admission policies and Flashield (Eisenman et al., NSDI'19)
/// start from it. Rows of this policy report the writes it made to flash
/// (`flash_writes`, `flash_write_bytes`), so write amplification can be
/// compared with the disk tier's experiments.
///
/// Follows libCacheSim 0.3.5's `flashProb` (`other/flashProb.c`, defaults
/// `ram-size-ratio=0.05`, `disk-admit-prob=0.2`, LRU in DRAM, FIFO on flash):
/// - flash holds at most c − ⌊ram·c⌋; DRAM has no bound of its own: the two
///   tiers share the capacity c, so DRAM holds whatever flash does not;
/// - a hit in DRAM moves the object to DRAM's front; a hit on flash changes
///   nothing; a miss enters DRAM;
/// - one step of making room takes DRAM's least recent object and writes it
///   to flash when a draw succeeds (one in ⌊1/p⌋), evicting flash's oldest
///   objects until it fits, and otherwise drops it; with DRAM empty, flash's
///   oldest object is dropped. A step that writes to flash frees no room, so
///   an admission may take several.
///
/// Randomised: the draws come from ``SeededGenerator`` (`seed`), not from
/// libCacheSim's generator, so only the miss ratio can agree with its runs.
/// `flash_writes` counts objects actually written: libCacheSim also counts
/// a successful draw for an object too heavy for flash, which flash refuses.
public struct FlashProbPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key

  @inlinable @inline(__always) static var inDRAM: UInt8 { 1 }
  @inlinable @inline(__always) static var inFlash: UInt8 { 2 }

  public var store: PolicyStorage<Index, Void>
  /// DRAM's objects, most recently used first.
  @usableFromInline var dram = EntryList()
  /// Flash's objects, newest first.
  @usableFromInline var flash = EntryList()
  /// The most weight flash holds: the capacity less DRAM's share.
  public let flashCapacity: Int64
  /// One draw in `admitOneIn` succeeds: ⌊1/p⌋, as libCacheSim rounds it.
  @usableFromInline let admitOneIn: UInt64
  @usableFromInline var generator: SeededGenerator
  @usableFromInline var written = TierWrites()
  @usableFromInline let dramShare: Double
  @usableFromInline let probability: Double
  public let seed: UInt64

  @inlinable
  public init(capacity: Int64, dram: Double = 0.05, probability: Double = 0.2, seed: UInt64 = 1) {
    store = PolicyStorage(capacity: capacity)
    flashCapacity = capacity - Int64(Double(capacity) * dram)
    admitOneIn = UInt64(max(1, Int64(1.0 / probability)))
    generator = SeededGenerator(seed: seed)
    dramShare = dram
    self.probability = probability
    self.seed = seed
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "flashProb(ram=\(dramShare),p=\(probability),seed=\(seed))" }

  @inlinable public var flashWrites: TierWrites? { written }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == Self.inDRAM { store.table.moveToFront(slot, &dram) }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request, payload: (), atFrontOf: &dram, tag: Self.inDRAM)
    return slot
  }

  /// One step of making room (see the type's summary): it may move DRAM's
  /// least recent object to flash, freeing nothing in all, and it may drop
  /// several of flash's objects to fit it.
  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard store.count > 0 else { return false }
    guard !dram.isEmpty else {
      store.evict(flash.back, from: &flash, onEvict: onEvict)
      return true
    }
    let slot = dram.back
    let weight = store.table[slot].weight
    guard generator.next() % admitOneIn == 0, weight <= flashCapacity else {
      store.evict(slot, from: &dram, onEvict: onEvict)
      return true
    }
    store.table.unlink(slot, &dram)
    while flash.weight &+ weight > flashCapacity {
      store.evict(flash.back, from: &flash, onEvict: onEvict)
    }
    store.table.pushFront(slot, &flash, tag: Self.inFlash)
    written.objects &+= 1
    written.bytes &+= weight
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    if store.table[slot].list == Self.inDRAM {
      store.table.unlink(slot, &dram)
    } else {
      store.table.unlink(slot, &flash)
    }
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.table.checkList(dram, tag: Self.inDRAM, "DRAM")
    store.table.checkList(flash, tag: Self.inFlash, "flash")
    precondition(flash.weight <= flashCapacity, "flash over its share")
    store.checkTotals([dram, flash])
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("DRAM", store.table.keys(of: dram)), ("flash", store.table.keys(of: flash))]
  }
}

/// flashProb in the catalog.
public enum FlashProb: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "flashprob", displayName: "FlashProb",
    summary: "two tiers: LRU in DRAM over a FIFO on flash that admits DRAM's victims with probability p",
    citation: "libCacheSim's flashProb",
    parameters: [
      PolicyParameter(fraction: "ram", default: 0.05, help: "DRAM's share of the capacity (flash keeps the rest)"),
      PolicyParameter(fraction: "p", default: 0.2, help: "probability that DRAM's victim is written to flash"),
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed"),
    ],
    traits: .randomized,
    checkedAgainst: "libCacheSim's miss ratio within 1% (its generator differs)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      FlashProbPolicy<Index>(
        capacity: capacity, dram: spec.fraction("ram"), probability: spec.fraction("p"),
        seed: UInt64(spec.integer("seed"))))
  }

  /// Both tiers need room: DRAM's share and flash's rest at least one unit each.
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    let dram = Int64(Double(capacity) * spec.fraction("ram"))
    return dram >= 1 && capacity - dram >= 1
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; its DRAM tier is ram=\(spec.fraction("ram")) of the capacity: raise the size or flashprob:ram="
  }
}
