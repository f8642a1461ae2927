/// ARC with lazy promotion: ``ARCPolicy`` whose resident lists are CLOCKs, so
/// a hit in T2 sets a bit instead of moving the entry (Yang, Qiu, Zhang, Yue
/// and Rashmi, "FIFO can be Better than LRU: the Power of Lazy Promotion and
/// Quick Demotion", HotOS'23).
///
/// Follows libCacheSim's `lp-arc` (`eviction/fifo/LP_ARC.c`, "LP-ARC-Clock"):
/// T1 and T2 are its `Clock` with a 1-bit counter (a hit in T1 still moves
/// the entry to T2, unreferenced); B1 and B2 are LRU lists that each keep at
/// most c of weight; `p` adapts as in ARC; case IV drops B2's oldest ghosts
/// while T1+T2+B1+B2 ≥ 2c.
public enum LPARC: PolicyDefinition {
  public static let descriptor = PolicyDescriptor(
    name: "lp-arc", summary: "ARC with lazy promotion: T2 is a CLOCK",
    citation: "Yang et al., HotOS'23; Megiddo and Modha, FAST'03",
    traits: .asksBeforeEvicting,
    checkedAgainst: "libCacheSim (cloudPhysicsIO, count and bytes; seven more traces)", libCacheSim: "aa0fc40 (2024)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(ARCPolicy<Index>(capacity: capacity, lazyPromotion: true))
  }
}
