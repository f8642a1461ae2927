import CChunkMatch

/// Holds a concrete policy in a class, so closures can share and mutate it.
@usableFromInline
final class PolicyHolder<Policy: ReplacementPolicy & ~Copyable> {
  /// Guarded by its owner (a cache shard's lock); no dynamic exclusivity
  /// checks, which cost about 15 runtime calls per operation.
  @usableFromInline @exclusivity(unchecked) var policy: Policy
  @inlinable init(_ policy: consuming Policy) { self.policy = policy }
}

/// Any policy, as a set of closures made where the policy's type is known:
/// each closure runs the policy's specialised code, and the cache pays one
/// indirect call per operation. (A generic class with overridden methods
/// would dispatch to unspecialised code: measured 5× slower here.) The
/// memory cache, the disk cache and the multi-size curve runner hold their
/// policies this way.
public struct AnyCachePolicy<Key: Hashable> {
  /// ``ReplacementPolicy/access(_:)``: lookup, and admit on a miss.
  public let access: (Request<Key>) -> Bool
  public let lookup: (Request<Key>, (Slot, Key) -> Void) -> Slot?
  /// ``ReplacementPolicy/lookupIfResident(_:onEvict:)``.
  public let lookupIfResident: (Request<Key>, (Slot, Key) -> Void) -> Slot?
  /// ``ReplacementPolicy/lookupIfResident(_:onEvict:)`` for each request
  /// in order, `hit(i, slot)` told of each resident one: one indirect call
  /// a batch. How a cache replays the hits it served without its lock.
  /// `slots[i]`, where not negative, is a slot the cache knows to be
  /// resident: request `i` is replayed there
  /// (``ReplacementPolicy/lookupResident(_:at:onEvict:)``) if the slot holds
  /// its key, else looked up. Each request's entry (or index bucket and
  /// likely entry) is prefetched a few requests ahead, as the replay loop does.
  public let lookupEachIfResident:
    (UnsafeBufferPointer<Request<Key>>, UnsafePointer<Slot>, (Slot, Key) -> Void, (Int, Slot) -> Void) -> Void
  public let admit: (Request<Key>, (Slot, Key) -> Void) -> Slot?
  /// ``ReplacementPolicy/admit(_:onEvict:approve:)``: how an admission
  /// policy in front of the box (``AdmittedPolicy``) vets each victim.
  public let admitApproving: (Request<Key>, (Slot, Key) -> Void, (Key) -> Bool) -> Slot?
  public let remove: (Key) -> Slot?
  public let evictOne: ((Slot, Key) -> Void) -> Bool
  public let contains: (Key) -> Bool
  public let keyAt: (Slot) -> Key
  public let count: () -> Int
  public let usedWeight: () -> Int64
  public let capacity: Int64
  public let name: String
  public let checkInvariants: () -> Void
  public let lists: () -> [(name: String, keys: [Key])]
  /// ``ReplacementPolicy/explain(_:)``.
  public let explain: (Key) -> String?
  /// ``ReplacementPolicy/flashWrites``.
  public let flashWrites: () -> TierWrites?
  /// ``ReplacementPolicy/learning``.
  public let learning: () -> LearningCounts?
  /// ``ReplacementPolicy/willServe(penalty:)``.
  public let willServe: (Float) -> Void
  /// ``ReplacementPolicy/sketchBytes``.
  public let sketchBytes: () -> Int
  /// ``ReplacementPolicy/saveState(into:)``: the policy's whole state.
  public let saveState: () throws(PolicyStateError) -> PolicyState<Key>
  /// ``ReplacementPolicy/restoreState(from:)``, once the state's policy
  /// name and capacity are found to be this policy's, and every word read.
  public let restoreState: (PolicyState<Key>) throws(PolicyStateError) -> Void

  @inlinable
  public init<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) where Policy.Key == Key {
    capacity = policy.capacity
    name = policy.name
    let holder = PolicyHolder(policy)
    access = { holder.policy.access($0) }
    lookup = { holder.policy.lookup($0, onEvict: $1) }
    lookupIfResident = { holder.policy.lookupIfResident($0, onEvict: $1) }
    lookupEachIfResident = { requests, slots, onEvict, hit in
      let n = requests.count
      for i in 0..<n {
        if i &+ 16 < n && slots[i &+ 16] < 0 {
          evictionlab_chunk_prefetch(holder.policy.indexAddress(of: requests[i &+ 16].key))
        }
        if i &+ 8 < n {
          let ahead = slots[i &+ 8]
          evictionlab_chunk_prefetch(
            ahead >= 0
              ? holder.policy.entryAddress(at: ahead) : holder.policy.entryAddress(of: requests[i &+ 8].key))
        }
        let known = slots[i]
        let slot =
          known >= 0 && holder.policy.key(at: known) == requests[i].key
          ? holder.policy.lookupResident(requests[i], at: known, onEvict: onEvict)
          : holder.policy.lookupIfResident(requests[i], onEvict: onEvict)
        if let slot { hit(i, slot) }
      }
    }
    admit = { holder.policy.admit($0, onEvict: $1) }
    admitApproving = { holder.policy.admit($0, onEvict: $1, approve: $2) }
    remove = { holder.policy.remove($0) }
    evictOne = { holder.policy.evictOne(onEvict: $0) }
    contains = { holder.policy.contains($0) }
    keyAt = { holder.policy.key(at: $0) }
    count = { holder.policy.count }
    usedWeight = { holder.policy.usedWeight }
    checkInvariants = { holder.policy.checkInvariants() }
    lists = { holder.policy.lists() }
    explain = { holder.policy.explain($0) }
    flashWrites = { holder.policy.flashWrites }
    learning = { holder.policy.learning }
    willServe = { holder.policy.willServe(penalty: $0) }
    sketchBytes = { holder.policy.sketchBytes }
    let name = name
    let capacity = capacity
    saveState = { () throws(PolicyStateError) in
      var writer = PolicyStateWriter<Key>(policy: name, capacity: capacity)
      try holder.policy.saveState(into: &writer)
      return writer.state
    }
    restoreState = { (state: PolicyState<Key>) throws(PolicyStateError) in
      guard state.policy == name, state.capacity == capacity else {
        throw .mismatch("saved by \(state.policy) of capacity \(state.capacity), restored into \(name) of \(capacity)")
      }
      var reader = PolicyStateReader(state)
      try holder.policy.restoreState(from: &reader)
    }
  }
}

/// An ``AnyCachePolicy`` as a ``ReplacementPolicy``, so engines written for a
/// concrete policy type also run a policy only closures reach (one
/// registered from another package).
public struct BoxedPolicy<Key: Hashable>: ReplacementPolicy {
  public let box: AnyCachePolicy<Key>
  @inlinable public init(_ box: AnyCachePolicy<Key>) { self.box = box }

  public var name: String { box.name }
  @inlinable public var capacity: Int64 { box.capacity }
  @inlinable public var usedWeight: Int64 { box.usedWeight() }
  @inlinable public var count: Int { box.count() }
  @inlinable public var flashWrites: TierWrites? { box.flashWrites() }
  @inlinable public var learning: LearningCounts? { box.learning() }
  @inlinable public mutating func willServe(penalty: Float) { box.willServe(penalty) }
  @inlinable public var sketchBytes: Int { box.sketchBytes() }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    box.lookup(request, onEvict)
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    box.admit(request, onEvict)
  }

  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    box.admitApproving(request, onEvict, approve)
  }

  @inlinable public mutating func remove(_ key: Key) -> Slot? { box.remove(key) }

  @inlinable
  public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool {
    box.evictOne(onEvict)
  }

  @inlinable public func contains(_ key: Key) -> Bool { box.contains(key) }
  @inlinable public func key(at slot: Slot) -> Key { box.keyAt(slot) }
  public func checkInvariants() { box.checkInvariants() }
  public func lists() -> [(name: String, keys: [Key])] { box.lists() }
  public func explain(_ key: Key) -> String? { box.explain(key) }

  public func saveState(into writer: inout PolicyStateWriter<Key>) throws(PolicyStateError) {
    throw .unsupported(policy: name, reason: "a boxed policy saves through its box")
  }
}

/// Builds a catalog policy as an ``AnyCachePolicy``. An admission policy
/// goes in front of the boxed policy (``AdmittedPolicy`` over a
/// ``BoxedPolicy``), not inside the box: each policy is then boxed by one
/// set of closures for a key type, with or without admission, and a release
/// build compiles every policy's closures once per key type instead of
/// twice. The price is a second indirect call per admitted request.
public struct BoxingVisitor<Key: Hashable>: PolicyVisitor {
  /// The admission policy put in front of every policy boxed (none by default).
  public let admission: AdmissionSpec

  @inlinable public init(admission: AdmissionSpec = .none) { self.admission = admission }

  @inlinable
  public func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> AnyCachePolicy<Key>
  where Policy.Key == Key {
    let box = AnyCachePolicy(policy)
    if case .none = admission.kind { return box }
    return AnyCachePolicy(AdmittedPolicy(BoxedPolicy(box), admission: admission))
  }
}
