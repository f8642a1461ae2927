/// Every built-in policy, in the order reports and `evlab policies` list
/// them. A policy is one file in `Policies/` (its code and its
/// ``PolicyBuilder``) plus one line here; dispatch by name is generic over
/// this list (``PolicyListProtocol/dispatch(_:capacity:index:visitor:)``),
/// so a name is never missing from a hand-written switch.
///
/// The list is two lists, one after the other, because Swift's generic
/// specialiser gives up on a type nested more than 50 deep (its
/// `TypeDepthThreshold`): one list of 51 made every policy run unspecialised,
/// 5 to 10 times slower, and the instruction gate caught it. Each half stays
/// far below (``PolicyListPair``); a new policy goes at the end of either.
public typealias BuiltinPolicies = PolicyListPair<BuiltinQueuePolicies, BuiltinOtherPolicies>

/// The first half of ``BuiltinPolicies``: queues, samplers, ARC's kin.
public typealias BuiltinQueuePolicies = PolicyList
  .And<LRU>
  .And<FIFO>
  .And<FIFOMerge>
  .And<LFU>
  .And<CRLFU>
  .And<SRLRU>
  .And<LeCaR>
  .And<Cacheus>
  .And<MRU>
  .And<RandomEviction>
  .And<RandomTwo>
  .And<RandomLRU>
  .And<LRUProb>
  .And<LRUK>
  .And<Hyperbolic>
  .And<LHD>
  .And<ARC>
  .And<LPARC>
  .And<CAR>
  .And<SLRU>
  .And<SFIFO>
  .And<LPSFIFO>
  .And<CLOCK>
  .And<Sieve>

/// The second half of ``BuiltinPolicies``: segmented FIFOs, frequency and cost, offline, models.
public typealias BuiltinOtherPolicies = PolicyList
  .And<S3FIFO>
  .And<S3FIFOv0>
  .And<S4FIFO>
  .And<QDLP>
  .And<S3FIFOD>
  .And<Clock2QPlus>
  .And<TwoQ>
  .And<LPTwoQ>
  .And<MQ>
  .And<LIRS>
  .And<ClockPro>
  .And<LFUDA>
  .And<GDSF>
  .And<CAMP>
  .And<GDWheel>
  .And<SizeEviction>
  .And<WTinyLFU>
  .And<WTinyLFUv0>
  .And<Belady>
  .And<BeladySize>
  .And<NSCacheLinux>
  .And<YYMemory>
  .And<AFAutoPurging>
  .And<Caffeine>
  .And<YYDisk>
  .And<SDDisk>
  .And<FlashProb>
