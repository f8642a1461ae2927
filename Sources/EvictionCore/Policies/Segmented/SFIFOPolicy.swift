/// Segmented FIFO: ``SLRUPolicy``'s segments with no reordering inside a
/// segment. A new object enters the lowest segment with room (or the lowest);
/// a hit moves it to the front of the next segment up, and a hit in the top
/// segment changes nothing; a segment over its share (capacity/n) passes its
/// oldest entry down, and the bottom segment's overflow is evicted.
///
/// Follows libCacheSim's `sfifo` (`eviction/fifo/SFIFO.c`, default 4
/// segments). Segmented FIFOs go back to Turner and Levy's page replacement
/// for VAX/VMS ("Segmented FIFO page replacement", SIGMETRICS 1981); the
/// segments here are libCacheSim's: equal in size and FIFO throughout.
public enum SFIFO: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "sfifo", displayName: "SFIFO", summary: "segmented FIFO: equal FIFO segments, a hit moves up one",
    citation: "Turner and Levy, SIGMETRICS 1981",
    parameters: [
      PolicyParameter("segments", default: 4, range: 1...64, help: "number of segments")
    ],
    traits: [.namesVictims, .evictsOnHit],
    checkedAgainst: "libCacheSim (cloudPhysicsIO, count and bytes; seven more traces)", libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      SLRUPolicy<Index>(capacity: capacity, segments: Int(spec.integer("segments")), refreshesTop: false))
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    capacity / spec.integer("segments") >= 1
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; each of its \(spec.integer("segments")) segments needs one: raise the size or lower sfifo:segments="
  }
}
