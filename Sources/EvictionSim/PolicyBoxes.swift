import EvictionCache
import EvictionCore

// Every catalog policy behind closures (`AnyCachePolicy`) is about forty
// policies' code compiled again for each key and index type, a minute of a
// release build on two cores. The engine and the experiments box their
// integer-keyed policies here and nowhere else: the functions below are
// `@inline(never)`, so a caller in another module calls them instead of
// specialising every policy's closures once more.

extension PolicySpec {
  /// The policy over `capacity` on integer keys, behind `admission`, as the
  /// multi-size runner and the memory benchmark hold it.
  @inline(never)
  public func integerBox(capacity: Int64, admission: AdmissionSpec = .none) -> AnyCachePolicy<UInt64> {
    var visitor = BoxingVisitor<UInt64>(admission: admission)
    return withPolicy(capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
  }
}

extension MemoryCache where Key == UInt64, Value == UInt64 {
  /// A memory cache of integers over the integer index, as `stress` and the
  /// benchmarks drive it: limits and lock as ``MemoryCache/init(policy:index:countLimit:costLimit:cost:ageLimit:tracksAges:lock:instrumentLocks:autoTrimInterval:clock:onEvict:admission:heavyEntries:largestCost:)``
  /// takes them. Heavy entries are refused by default, as the replay it is
  /// compared with refuses them.
  @inline(never)
  public static func ofIntegers(
    policy: PolicySpec, countLimit: Int? = nil, costLimit: Int64? = nil, lock: LockStrategy = .mutex,
    instrumentLocks: Bool = false, admission: AdmissionSpec = .none, heavyEntries: HeavyEntryRule = .refuse
  ) throws(CacheError) -> MemoryCache {
    try MemoryCache(
      policy: CachePolicy(policy), index: IntegerSlotIndex<UInt64>.self, countLimit: countLimit,
      costLimit: costLimit.map { Int($0) }, lock: lock, instrumentLocks: instrumentLocks,
      admission: CacheAdmission(admission), heavyEntries: heavyEntries)
  }
}
