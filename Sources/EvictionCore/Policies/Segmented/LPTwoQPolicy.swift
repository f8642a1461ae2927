/// 2Q with lazy promotion: ``TwoQueuePolicy`` whose Am is a CLOCK, so a hit
/// sets a bit instead of moving the entry (Yang, Qiu, Zhang, Yue and Rashmi,
/// "FIFO can be Better than LRU: the Power of Lazy Promotion and Quick
/// Demotion", HotOS'23). A1in (FIFO, 25%) and the ghost A1out (50%) are 2Q's.
///
/// Follows libCacheSim's `lp-twoq` (`eviction/fifo/LP_TwoQ.c`, "LP-TwoQ-Clock"):
/// Am is its `Clock` with a 1-bit counter; eviction takes A1in's oldest into
/// A1out while A1in is over its share, else Am's CLOCK victim; an object
/// found in A1out enters Am, which first makes room within its own share.
public enum LPTwoQ: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lp-twoq", displayName: "LP-2Q", summary: "2Q with lazy promotion: Am is a CLOCK",
    citation: "Yang et al., HotOS'23; Johnson and Shasha, VLDB'94",
    parameters: [
      PolicyParameter(fraction: "in", default: 0.25, help: "A1in's share of the capacity"),
      PolicyParameter(fraction: "out", default: 0.5, help: "A1out's (ghost) weight as a share of the capacity"),
    ],
    traits: [.namesVictims, .asksBeforeEvicting],
    checkedAgainst: "libCacheSim (cloudPhysicsIO, count and bytes; seven more traces)", libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(
      TwoQueuePolicy<Index>(
        capacity: capacity, inShare: spec.fraction("in"), outShare: spec.fraction("out"), lazyPromotion: true))
  }

  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool {
    TwoQ.cachesAnything(at: capacity, spec)
  }

  public static func minimumCapacityHint(_ spec: PolicySpec) -> String {
    "; its A1in is in=\(spec.fraction("in")) of the capacity: raise the size or lp-twoq:in="
  }
}
