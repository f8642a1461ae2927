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
///
/// A hit in T1 goes as libCacheSim's goes (`ARCPolicy.requestFromT2`):
/// the entry is requested afresh from T2, so it enters T2 with the size its
/// request carries, and T2, a CLOCK allowed c of its own, evicts its CLOCK
/// victims (leaving no ghosts) if it would overflow c. Before, the entry kept
/// its admitted size, which differs only where objects change size: on the
/// AdaptSize trace (`caffeine/adapt_size/request.trace.xz`, ids kept, 4,876
/// size changes) in byte mode at 28,000,000 bytes, 41,653 misses against
/// libCacheSim's 41,641 (now 41,639, and with `overfill=true` 41,641).
///
/// An entry that grew can push the cache as a whole past c. libCacheSim
/// leaves it so until the next miss evicts for its object; that is
/// `overfill=true`. By default, as no policy here exceeds its capacity, the
/// hit makes the room at once: more of T2's CLOCK victims leave (still no
/// ghosts), and T1's oldest entries should T2 run dry. On the AdaptSize
/// trace libCacheSim's cache is above c after 41 to 90 of the 66,987
/// requests (by up to 74 KB) at the four sizes of its reference rows; making
/// the room at once moves up to 15 misses there (5,000,000 bytes: 48,029
/// against libCacheSim's 48,044), and `overfill=true` gives libCacheSim's
/// counts at all four. Where no object changes size the two are the same.
///
/// libCacheSim 0.3.5 keeps `LP_ARC.c` (as the 2024 snapshot had it) but no
/// longer compiles it or offers it to `cachesim`; built, it reproduces the
/// rows here. Its get evicts for a missed object without asking whether the
/// object fits at all, so an object larger than the cache empties it and then
/// crashes it (the AdaptSize trace at 280,000 and 2,800,000 bytes); here such
/// an object is not admitted and evicts nothing, as everywhere.
public enum LPARC: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "lp-arc", displayName: "LP-ARC", summary: "ARC with lazy promotion: T2 is a CLOCK",
    citation: "Yang et al., HotOS'23; Megiddo and Modha, FAST'03",
    parameters: [
      PolicyParameter(
        switch: "overfill", default: false,
        help: "libCacheSim's LP-ARC: room for a T1 hit's growth is made at the next miss (may exceed the capacity)")
    ],
    traits: .asksBeforeEvicting,
    checkedAgainst:
      "libCacheSim (cloudPhysicsIO, count and bytes; seven more traces); with overfill=true, 0.3.5's LP_ARC.c, "
      + "built, on the AdaptSize trace with its size changes (bytes)",
    libCacheSim: "0.3.5 (with overfill=true where objects change size)")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(ARCPolicy<Index>(capacity: capacity, lazyPromotion: true, overfill: spec.isOn("overfill")))
  }
}
