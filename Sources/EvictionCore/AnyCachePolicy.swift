/// Holds a concrete policy in a class, so closures can share and mutate it.
@usableFromInline
final class PolicyHolder<Policy: ReplacementPolicy & ~Copyable> {
  @usableFromInline var policy: Policy
  @inlinable init(_ policy: consuming Policy) { self.policy = policy }
}

/// Any policy, as a set of closures made where the policy's type is known:
/// each closure runs the policy's specialised code, and the cache pays one
/// indirect call per operation. (A generic class with overridden methods
/// would dispatch to unspecialised code: measured 5× slower here.) The
/// memory cache and the disk cache hold their policy this way.
public struct AnyCachePolicy<Key: Hashable> {
  public let lookup: (Request<Key>, (Slot, Key) -> Void) -> Slot?
  public let admit: (Request<Key>, (Slot, Key) -> Void) -> Slot?
  public let remove: (Key) -> Slot?
  public let evictOne: ((Slot, Key) -> Void) -> Bool
  public let contains: (Key) -> Bool
  public let keyAt: (Slot) -> Key
  public let count: () -> Int
  public let usedWeight: () -> Int64
  public let capacity: Int64
  public let name: String
  public let checkInvariants: () -> Void

  @inlinable
  public init<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) where Policy.Key == Key {
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
public struct BoxingVisitor<Key: Hashable>: PolicyVisitor {
  @inlinable public init() {}

  @inlinable
  public func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> AnyCachePolicy<Key>
  where Policy.Key == Key {
    AnyCachePolicy(policy)
  }
}
