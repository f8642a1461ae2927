import EvictionCore

/// A catalog or hand-built policy behind a class reference, so a cache can
/// hold any of them. Every method forwards to the concrete policy, whose own
/// code is specialised; the cache pays one indirect call per operation.
@usableFromInline
class AnyCachePolicy<Key: Hashable> {
  @usableFromInline func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? { fatalError("abstract") }
  @usableFromInline func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? { fatalError("abstract") }
  @usableFromInline func remove(_ key: Key) -> Slot? { fatalError("abstract") }
  @usableFromInline func evictOne(onEvict: (Slot, Key) -> Void) -> Bool { fatalError("abstract") }
  @usableFromInline func contains(_ key: Key) -> Bool { fatalError("abstract") }
  @usableFromInline func key(at slot: Slot) -> Key { fatalError("abstract") }
  @usableFromInline var count: Int { fatalError("abstract") }
  @usableFromInline var usedWeight: Int64 { fatalError("abstract") }
  @usableFromInline var capacity: Int64 { fatalError("abstract") }
  @usableFromInline var name: String { fatalError("abstract") }
  @usableFromInline func checkInvariants() { fatalError("abstract") }
}

@usableFromInline
final class CachePolicyBox<Policy: ReplacementPolicy & ~Copyable>: AnyCachePolicy<Policy.Key> {
  @usableFromInline var policy: Policy

  @usableFromInline init(_ policy: consuming Policy) { self.policy = policy }

  @inlinable override func lookup(_ request: Request<Policy.Key>, onEvict: (Slot, Policy.Key) -> Void) -> Slot? {
    policy.lookup(request, onEvict: onEvict)
  }
  @inlinable override func admit(_ request: Request<Policy.Key>, onEvict: (Slot, Policy.Key) -> Void) -> Slot? {
    policy.admit(request, onEvict: onEvict)
  }
  @inlinable override func remove(_ key: Policy.Key) -> Slot? { policy.remove(key) }
  @inlinable override func evictOne(onEvict: (Slot, Policy.Key) -> Void) -> Bool { policy.evictOne(onEvict: onEvict) }
  @inlinable override func contains(_ key: Policy.Key) -> Bool { policy.contains(key) }
  @inlinable override func key(at slot: Slot) -> Policy.Key { policy.key(at: slot) }
  @inlinable override var count: Int { policy.count }
  @inlinable override var usedWeight: Int64 { policy.usedWeight }
  @inlinable override var capacity: Int64 { policy.capacity }
  override var name: String { policy.name }
  override func checkInvariants() { policy.checkInvariants() }
}

/// Builds a boxed catalog policy.
struct BoxingVisitor<Key: Hashable>: PolicyVisitor {
  func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> AnyCachePolicy<Key>
  where Policy.Key == Key {
    CachePolicyBox(policy)
  }
}
