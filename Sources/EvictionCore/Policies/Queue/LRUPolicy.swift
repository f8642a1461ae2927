/// Least recently used: a hit moves the entry to the front, eviction takes
/// the back. Same definition as libCacheSim's `lru`.
public enum LRUDiscipline: QueueDiscipline {
  public static var name: String { "LRU" }
  public static var promotesOnHit: Bool { true }
  public static var evictsFront: Bool { false }
}

/// Least recently used.
public typealias LRUPolicy<Index: SlotIndex & ~Copyable> = QueuePolicy<Index, LRUDiscipline>

/// LRU in the catalog.
public enum LRU: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lru", displayName: "LRU", summary: "least recently used",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim (all reference rows, 4 encodings × 2 size modes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LRUPolicy<Index>(capacity: capacity))
  }
}
