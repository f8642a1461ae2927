/// Probabilistic LRU: a hit moves the entry to the front only with
/// probability p, so most hits write nothing (the promotion a concurrent
/// cache must lock for is skipped); eviction takes the back, as LRU. With
/// p = 1 it is LRU, with p → 0 FIFO.
///
/// Follows libCacheSim's `lru-prob` (`eviction/LRUProb.c`, default p = 0.5).
/// libCacheSim promotes with probability 1/⌊1/p⌋ from its own generator; here
/// the probability is p itself (the same for p = 1/n), drawn from the seeded
/// ``SeededGenerator``, so only the miss ratio can agree with libCacheSim's.
public struct LRUProbPolicy<Index: SlotIndex & ~Copyable>: SingleListPolicy, ~Copyable {
  public typealias Key = Index.Key
  public var store: PolicyStorage<Index, Void>
  public var queue = EntryList()
  @usableFromInline var generator: SeededGenerator
  /// p · 2⁶⁴, saturated: a hit promotes when a draw falls below it.
  @usableFromInline let threshold: UInt64
  public let probability: Double
  public let seed: UInt64

  @inlinable
  public init(capacity: Int64, probability: Double = 0.5, seed: UInt64 = 1) {
    precondition(probability > 0 && probability <= 1, "the promotion probability lies in (0, 1]")
    store = PolicyStorage(capacity: capacity)
    generator = SeededGenerator(seed: seed)
    threshold = probability >= 1 ? .max : UInt64(probability * 0x1p64)
    self.probability = probability
    self.seed = seed
  }

  @inlinable public static var missedLookupChangesNothing: Bool { true }

  public var name: String { "LRU-Prob(p=\(probability), seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if generator.next() < threshold { store.table.moveToFront(slot, &queue) }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard makeRoom(for: request.weight, onEvict: onEvict) else { return nil }
    let slot = store.insert(request.key, weight: request.weight, payload: ())
    store.table.pushFront(slot, &queue, tag: 0)
    return slot
  }

  @inlinable @inline(__always)
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    guard queue.back >= 0 else { return false }
    store.evict(queue.back, from: &queue, onEvict: onEvict)
    return true
  }

  @inlinable public func nextVictim() -> Slot? { queue.back >= 0 ? queue.back : nil }
}

/// LRU-Prob in the catalog.
public enum LRUProb: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "lru-prob", summary: "LRU that promotes a hit with probability p",
    parameters: [
      PolicyParameter(fraction: "p", default: 0.5, help: "probability that a hit moves the entry to the front"),
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "random stream seed"),
    ],
    traits: [.randomized, .namesVictims],
    checkedAgainst: "libCacheSim's miss ratio within 1% (its generator differs)", libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      LRUProbPolicy<Index>(capacity: capacity, probability: spec.fraction("p"), seed: UInt64(spec.integer("seed"))))
  }
}
