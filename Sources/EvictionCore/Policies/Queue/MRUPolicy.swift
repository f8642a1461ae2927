/// Most recently used: a hit moves the entry to the front and eviction takes
/// the front, i.e. the entry inserted or hit last. This is libCacheSim's `mru`
/// (the right policy for loops longer than the cache, the worst for most else).
public enum MRUDiscipline: QueueDiscipline {
  public static var name: String { "MRU" }
  public static var promotesOnHit: Bool { true }
  public static var evictsFront: Bool { true }
}

/// Most recently used.
public typealias MRUPolicy<Index: SlotIndex & ~Copyable> = QueuePolicy<Index, MRUDiscipline>

/// MRU in the catalog.
public enum MRU: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "mru", displayName: "MRU", summary: "most recently used",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim (all reference rows, 4 encodings × 2 size modes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(MRUPolicy<Index>(capacity: capacity))
  }
}
