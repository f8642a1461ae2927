/// First in, first out: hits change nothing, eviction takes the oldest
/// insertion. Same definition as libCacheSim's `fifo`.
public enum FIFODiscipline: QueueDiscipline {
  public static var name: String { "FIFO" }
  public static var promotesOnHit: Bool { false }
  public static var evictsFront: Bool { false }
}

/// First in, first out.
public typealias FIFOPolicy<Index: SlotIndex & ~Copyable> = QueuePolicy<Index, FIFODiscipline>
