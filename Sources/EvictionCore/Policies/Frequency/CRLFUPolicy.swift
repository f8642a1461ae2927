/// CR-LFU, the frequency half of Cacheus (Rodriguez, Yusuf, Lyons, Paz,
/// Rangaswami, Liu, Zhao and Narasimhan, "Learning Cache Replacement with
/// CACHEUS", FAST'21): LFU whose ties among the least frequent go to the
/// entry that reached that frequency most recently, so a scan of one-time
/// objects evicts itself instead of the older, proven ones ("churn resistant").
///
/// Follows libCacheSim's `cr_lfu` (`eviction/CR_LFU.c`) on its own, outside
/// Cacheus: frequencies count only while an object is resident and restart at
/// 1, as in ``LFU``; each frequency keeps its members in arrival order and
/// eviction takes the newest member of the lowest frequency.
public enum CRLFU: PolicyBuilder {
  public static let descriptor = PolicyDescriptor(
    name: "cr-lfu", displayName: "CR-LFU", summary: "churn-resistant LFU: newest first among the least frequent",
    citation: "Rodriguez et al., FAST'21",
    traits: .namesVictims,
    checkedAgainst: "libCacheSim (4 encodings × 2 size modes)", libCacheSim: "0.3.5")

  @inlinable
  public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(LFUPolicy<Index>(capacity: capacity, evictsNewest: true))
  }
}
