/// Size-aware Belady: evict the object that holds the most byte-time until its
/// next request, `size × (next access − now)`, among a random sample of
/// resident objects. The heuristic bound for byte capacities, where plain
/// farthest-next-access is no longer optimal (computing the true optimum with
/// sizes is NP-hard; Berger et al., "Practical bounds on optimal caching with
/// variable object sizes", SIGMETRICS'18).
///
/// Follows libCacheSim's `beladysize`: 128 samples per eviction, drawn with
/// replacement; an object not requested again is never inserted, and one that
/// hits for the last time is dropped first when room is needed (libCacheSim
/// removes it at the hit; dropping it at the next eviction frees the same room
/// before any other object goes). libCacheSim samples with its own generator
/// from its hash table's layout, so its exact miss count cannot be reproduced;
/// this one is seeded (`belady-size:seed=N`) and reproducible.
///
/// - Complexity: O(samples) per eviction, O(1) otherwise.
public struct BeladySizePolicy<Index: SlotIndex & ~Copyable>: SampledPolicy, ~Copyable {
  public typealias Key = Index.Key

  /// An entry's place among the sampled members and its next access.
  public struct Payload: MemberPlace {
    /// Position in `members`, or -1 on the dead list.
    public var position: Int32
    @usableFromInline var nextAccess: Int64
    @inlinable init(position: Int32, nextAccess: Int64) {
      self.position = position
      self.nextAccess = nextAccess
    }
  }

  public var store: PolicyStorage<Index, Payload>
  /// Live resident slots, sampled for victims.
  public var members = OwnedArray<Slot>()
  /// Resident objects that will not be requested again.
  @usableFromInline var dead = EntryList()
  @usableFromInline var generator: SeededGenerator
  @usableFromInline var now: Int64 = 0
  public let samples: Int
  public let seed: UInt64

  @inlinable
  public init(capacity: Int64, samples: Int = 128, seed: UInt64 = 1) {
    precondition(samples >= 1, "at least one sample per eviction")
    store = PolicyStorage(capacity: capacity)
    generator = SeededGenerator(seed: seed)
    self.samples = samples
    self.seed = seed
  }

  public var name: String { "BeladySize(samples=\(samples),seed=\(seed))" }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    now = request.time
    let slot = store.find(request.key)
    guard slot >= 0 else { return nil }
    if request.nextAccess == Request<Key>.never {
      if store.table[slot].payload.position >= 0 {
        detach(slot)
        store.table.pushFront(slot, &dead, tag: 1)
      }
    } else {
      store.table[slot].payload.nextAccess = request.nextAccess
    }
    return slot
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    now = request.time
    guard request.nextAccess != Request<Key>.never, makeRoom(for: request.weight, onEvict: onEvict) else {
      return nil
    }
    return insertMember(request, payload: Payload(position: 0, nextAccess: request.nextAccess))
  }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    if !dead.isEmpty {
      store.evict(dead.back, from: &dead, onEvict: onEvict)
      return true
    }
    guard !members.isEmpty else { return false }
    var victim: Slot = -1
    var worst = -Double.infinity
    for _ in 0..<samples {
      let slot = members.randomElement(using: &generator)
      let entry = store.table[slot]
      let score = Double(entry.weight) * Double(entry.payload.nextAccess &- now)
      if score > worst {
        worst = score
        victim = slot
      }
    }
    evictMember(victim, onEvict: onEvict)
    return true
  }

  @inlinable
  public mutating func remove(_ key: Key) -> Slot? {
    let slot = store.find(key)
    guard slot >= 0 else { return nil }
    if store.table[slot].payload.position >= 0 {
      detach(slot)
    } else {
      store.table.unlink(slot, &dead)
    }
    store.delete(slot, resident: true)
    return slot
  }

  /// Takes a live slot out of `members`.
  @inlinable @inline(__always)
  mutating func detach(_ slot: Slot) {
    detachMember(slot)
    store.table[slot].payload.position = -1
  }

  public func checkInvariants() {
    store.table.checkList(dead, tag: 1, "dead")
    let weight = dead.weight + checkMembers()
    precondition(members.count + dead.count == store.count && weight == store.used, "member totals differ")
  }

  public func lists() -> [(name: String, keys: [Key])] {
    [("live", members.elements.map { store.table[$0].key }), ("dead", store.table.keys(of: dead))]
  }
}

/// Size-aware Belady in the catalog.
public enum BeladySize: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "belady-size", displayName: "Belady-Size",
    summary: "size-aware Belady: evict the most size × time-to-next-request, sampled",
    parameters: [
      PolicyParameter("samples", default: 128, range: 1...65536, help: "objects sampled per eviction"),
      PolicyParameter("seed", default: 1, range: 0...Int64.max, help: "sampling stream seed"),
    ],
    traits: [.offline, .randomized],
    checkedAgainst: "libCacheSim's `beladysize` miss ratio within 1% (it samples with its own generator)",
    libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      BeladySizePolicy<Index>(
        capacity: capacity, samples: Int(spec.integer("samples")), seed: UInt64(spec.integer("seed"))))
  }
}
