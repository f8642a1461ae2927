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
