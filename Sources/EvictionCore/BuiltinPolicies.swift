/// Every built-in policy, in the order reports and `evlab policies` list
/// them. A policy is one file in `Policies/` (its code and its
/// ``PolicyBuilder``) plus one line here; dispatch by name is generic over
/// this list (``PolicyListProtocol/dispatch(_:capacity:index:visitor:)``),
/// so a name is never missing from a hand-written switch.
public typealias BuiltinPolicies = PolicyList
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
