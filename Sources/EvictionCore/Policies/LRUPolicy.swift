/// Least recently used: a hit moves the entry to the front, eviction takes
/// the back. Same definition as libCacheSim's `lru`.
public enum LRUDiscipline: QueueDiscipline {
  public static var name: String { "LRU" }
  public static var promotesOnHit: Bool { true }
  public static var evictsFront: Bool { false }
}

/// Least recently used.
public typealias LRUPolicy<Index: SlotIndex & ~Copyable> = QueuePolicy<Index, LRUDiscipline>
