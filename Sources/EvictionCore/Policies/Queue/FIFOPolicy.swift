/// First in, first out: hits change nothing, eviction takes the oldest
/// insertion. Same definition as libCacheSim's `fifo`.
public enum FIFODiscipline: QueueDiscipline {
  public static var name: String { "FIFO" }
  public static var promotesOnHit: Bool { false }
  public static var evictsFront: Bool { false }
}

/// First in, first out.
public typealias FIFOPolicy<Index: SlotIndex & ~Copyable> = QueuePolicy<Index, FIFODiscipline>

/// FIFO in the catalog.
public enum FIFO: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "fifo", displayName: "FIFO", summary: "first in, first out",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim (all reference rows, 4 encodings × 2 size modes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(FIFOPolicy<Index>(capacity: capacity))
  }
}
