/// W-TinyLFU (Einziger, Friedman and Manes, "TinyLFU: a highly efficient cache
/// admission policy", ACM TOS 2017): a small LRU window takes every new
/// object; an object leaving the window enters the main cache, a segmented
/// LRU (probation 20%, protected 80%), only if a frequency sketch rates it
/// above the main cache's victim. The sketch ages by halving.
///
/// Follows libCacheSim's `wtinylfu` (`WTinyLFU-w0.01-SLRU`) exactly:
/// - window = ⌊0.01c⌋ (at least 1 here, where libCacheSim would admit nothing),
///   main = c − window, probation and protected ⌊0.2·main⌋ and ⌊0.8·main⌋;
/// - the sketch is libCacheSim's counting Bloom filter (``CountingBloomFilter``,
///   sized for `main` entries at error 0.001), counting an object when it is
///   inserted, when it hits in the main cache, and when it leaves the window;
///   it halves after 32·main main-cache hits; window hits are not counted;
/// - room is made from the window's LRU end: while the main cache has room the
///   window's victim moves there (no eviction yet); otherwise the victim
///   replaces the main cache's victim (probation's LRU end, else protected's)
///   when its estimate is strictly higher, and the window's next victim is
///   considered in turn, until one is rated no higher and evicted (or the
///   window is empty and the main cache evicts). libCacheSim's later sources
///   stop after one replacement; the reference figures were measured with
///   this draining version and agree with it to the miss;
/// - the main cache is libCacheSim's SLRU: a moved-in object takes the lowest
///   segment with room for it; a main hit promotes to protected, whose
///   overflow falls back to probation, whose overflow is evicted;
/// - an object heavier than the window or than probation is not admitted.
///
/// Tiny caches, where libCacheSim's shares round to zero and it would admit
/// nothing, get a one-unit window and admit into an empty probation; with no
/// room for a protected segment (a main cache of one unit), a main hit stays
/// in probation, where promotion would have evicted the object just hit.
public struct WTinyLFUPolicy<Index: SlotIndex & ~Copyable>: StoredPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  @usableFromInline var window = EntryList()
  @usableFromInline var probation = EntryList()
  @usableFromInline var protected = EntryList()
  @usableFromInline var sketch: CountingBloomFilter
  @usableFromInline let windowCapacity: Int64
  @usableFromInline let mainCapacity: Int64
  @usableFromInline let probationCapacity: Int64
  @usableFromInline let protectedCapacity: Int64
  /// Main-cache hits since the sketch last halved, and how many halve it.
  @usableFromInline var mainHits: Int64 = 0
  @usableFromInline let agingPeriod: Int64
  public let windowShare: Double

  @usableFromInline static var inWindow: UInt8 { 0 }
  @usableFromInline static var inProbation: UInt8 { 1 }
  @usableFromInline static var inProtected: UInt8 { 2 }

  @inlinable
  public init(capacity: Int64, window windowShare: Double = 0.01) {
    store = PolicyStorage(capacity: capacity)
    self.windowShare = windowShare
    windowCapacity = min(capacity, max(1, Int64(Double(capacity) * windowShare)))
    mainCapacity = capacity - windowCapacity
    probationCapacity = Int64(1.0 / 5.0 * Double(mainCapacity))
    protectedCapacity = Int64(4.0 / 5.0 * Double(mainCapacity))
    sketch = CountingBloomFilter(entries: Int(min(mainCapacity, Int64(Int32.max))), error: 0.001)
    agingPeriod = max(1, 32 * mainCapacity)
  }

  public var name: String { "W-TinyLFU(window=\(windowShare))" }

  @inlinable @inline(__always)
  func bits(_ key: Key) -> UInt64 { Index.sketchBits(key) }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inWindow:
      store.table.moveToFront(slot, &window)
      return slot
    case Self.inProtected:
      store.table.moveToFront(slot, &protected)
    case _ where protectedCapacity == 0:
      store.table.moveToFront(slot, &probation)
    default:
      store.table.unlink(slot, &probation)
      store.table.pushFront(slot, &protected, tag: Self.inProtected)
      while protected.weight > protectedCapacity {
        let demoted = protected.back
        store.table.unlink(demoted, &protected)
        store.table.pushFront(demoted, &probation, tag: Self.inProbation)
        while probation.weight > probationCapacity { evictFromMain(onEvict) }
      }
    }
    sketch.add(bits(request.key))
    mainHits &+= 1
    if mainHits >= agingPeriod {
      mainHits = 0
      sketch.halve()
    }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard request.weight <= windowCapacity, request.weight <= probationCapacity || probationCapacity == 0,
      makeRoom(for: request.weight, onEvict: onEvict)
    else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: ())
    store.table.pushFront(slot, &window, tag: Self.inWindow)
    sketch.add(bits(request.key))
    return slot
  }

  /// The main cache's victim: probation's LRU end, else protected's.
  @inlinable @inline(__always)
  var mainVictim: Slot { probation.isEmpty ? protected.back : probation.back }

  @inlinable @inline(__always)
  mutating func evictFromMain(_ onEvict: (Slot, Key) -> Void) {
    if probation.isEmpty {
      store.evict(protected.back, from: &protected, onEvict: onEvict)
    } else {
      store.evict(probation.back, from: &probation, onEvict: onEvict)
    }
  }

  /// Files `slot` (off every list) in the main cache: the lowest segment with
  /// room for it, or probation after evicting until the main cache has room.
  @inlinable @inline(__always)
  mutating func moveToMain(_ slot: Slot, _ onEvict: (Slot, Key) -> Void) {
    let weight = store.table[slot].weight
    if probation.weight &+ weight <= probationCapacity {
      store.table.pushFront(slot, &probation, tag: Self.inProbation)
    } else if protected.weight &+ weight <= protectedCapacity {
      store.table.pushFront(slot, &protected, tag: Self.inProtected)
    } else {
      while probation.weight &+ protected.weight &+ weight > mainCapacity { evictFromMain(onEvict) }
      store.table.pushFront(slot, &probation, tag: Self.inProbation)
    }
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    while !window.isEmpty {
      let candidate = window.back
      let weight = store.table[candidate].weight
      let candidateBits = bits(store.table[candidate].key)
      if probation.weight &+ protected.weight &+ weight <= mainCapacity {
        store.table.unlink(candidate, &window)
        moveToMain(candidate, onEvict)
        sketch.add(candidateBits)
        continue
      }
      let mainIsEmpty = probation.isEmpty && protected.isEmpty
      if !mainIsEmpty && sketch.estimate(candidateBits) > sketch.estimate(bits(store.table[mainVictim].key)) {
        evictFromMain(onEvict)
        store.table.unlink(candidate, &window)
        moveToMain(candidate, onEvict)
        sketch.add(candidateBits)
        continue
      }
      store.evict(candidate, from: &window, onEvict: onEvict)
      sketch.add(candidateBits)
      return true
    }
    guard !probation.isEmpty || !protected.isEmpty else { return false }
    evictFromMain(onEvict)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    switch store.table[slot].list {
    case Self.inWindow: store.table.unlink(slot, &window)
    case Self.inProbation: store.table.unlink(slot, &probation)
    default: store.table.unlink(slot, &protected)
    }
    store.delete(slot, resident: true)
    return slot
  }

  public func checkInvariants() {
    store.table.checkList(window, tag: Self.inWindow, "window")
    store.table.checkList(probation, tag: Self.inProbation, "probation")
    store.table.checkList(protected, tag: Self.inProtected, "protected")
    precondition(protected.weight <= protectedCapacity, "protected segment over its share")
    store.checkTotals([window, probation, protected])
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [
      ("window", store.table.keys(of: window)),
      ("probation", store.table.keys(of: probation)),
      ("protected", store.table.keys(of: protected)),
    ]
  }
}

/// W-TinyLFU in the catalog.
public enum WTinyLFU: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "wtinylfu", summary: "W-TinyLFU: LRU window, frequency-filtered SLRU main",
    citation: "Einziger et al., TOS'17",
    parameters: [
      PolicyParameter(fraction: "window", default: 0.01, help: "window LRU's share of the capacity")
    ],
    checkedAgainst: "libCacheSim, both size modes")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(WTinyLFUPolicy<Index>(capacity: capacity, window: spec.fraction("window")))
  }
}
