import EvictionCore

/// Holds a concrete policy in a class, so closures can share and mutate it.
@usableFromInline
final class PolicyHolder<Policy: ReplacementPolicy & ~Copyable> {
  @usableFromInline var policy: Policy
  @inlinable init(_ policy: consuming Policy) { self.policy = policy }
}

/// Any policy, as a set of closures made where the policy's type is known:
/// each closure runs the policy's specialised code, and the cache pays one
/// indirect call per operation. (A generic class with overridden methods
/// would dispatch to unspecialised code: measured 5× slower here.)
@usableFromInline
struct AnyCachePolicy<Key: Hashable> {
  @usableFromInline let lookup: (Request<Key>, (Slot, Key) -> Void) -> Slot?
  @usableFromInline let admit: (Request<Key>, (Slot, Key) -> Void) -> Slot?
  @usableFromInline let remove: (Key) -> Slot?
  @usableFromInline let evictOne: ((Slot, Key) -> Void) -> Bool
  @usableFromInline let contains: (Key) -> Bool
  @usableFromInline let keyAt: (Slot) -> Key
  @usableFromInline let count: () -> Int
  @usableFromInline let usedWeight: () -> Int64
  @usableFromInline let capacity: Int64
  @usableFromInline let name: String
  @usableFromInline let checkInvariants: () -> Void

  @inlinable
  init<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) where Policy.Key == Key {
    capacity = policy.capacity
    name = policy.name
    let holder = PolicyHolder(policy)
    lookup = { holder.policy.lookup($0, onEvict: $1) }
    admit = { holder.policy.admit($0, onEvict: $1) }
    remove = { holder.policy.remove($0) }
    evictOne = { holder.policy.evictOne(onEvict: $0) }
    contains = { holder.policy.contains($0) }
    keyAt = { holder.policy.key(at: $0) }
    count = { holder.policy.count }
    usedWeight = { holder.policy.usedWeight }
    checkInvariants = { holder.policy.checkInvariants() }
  }
}

/// Builds a catalog policy as an ``AnyCachePolicy``.
@usableFromInline
struct BoxingVisitor<Key: Hashable>: PolicyVisitor {
  @inlinable init() {}

  @inlinable
  func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> AnyCachePolicy<Key>
  where Policy.Key == Key {
    AnyCachePolicy(policy)
  }
}
