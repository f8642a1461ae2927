/// libCacheSim's `next_rand()`: the generator its policies draw tie-breakers
/// and coin tosses from, reproduced so that a policy whose results hinge on
/// its draws (FIFO-Merge's tie-breaker) can match libCacheSim exactly.
///
/// - Release 0.3.5: Lehmer's multiplicative generator on a 128-bit state
///   (multiplier 0xda942042e4dd58b5), returning the state's high 64 bits.
///   `set_rand_seed(s)` makes the state `s`. Its `cachesim` seeds the
///   simulation of each cache with the next value of the C library's
///   `rand()`, never seeded with `srand`: on glibc the caches of one run
///   (algorithms × sizes, in the order the command line gives them) get
///   1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335,
///   … in turn. A thread that never sets a seed starts from 0xdeadbeef.
/// - The 2024 snapshot (aa0fc40): Knuth's MMIX linear congruential
///   generator (6364136223846793005·x + 1442695040888963407 mod 2⁶⁴,
///   returning the new x), which `cachesim` restarted at 0 for each cache.
@frozen public struct LibCacheSimRandom: Sendable {
  @usableFromInline var high: UInt64
  @usableFromInline var low: UInt64
  /// Whether this is the snapshot's LCG (its state in `low`).
  public let isSnapshotLCG: Bool

  /// Release 0.3.5's generator after `set_rand_seed(seed)`.
  @inlinable public init(lehmerSeed seed: UInt64) {
    high = 0
    low = seed
    isSnapshotLCG = false
  }

  /// The 2024 snapshot's LCG at state `state` (`cachesim` used 0).
  @inlinable public init(snapshotState state: UInt64) {
    high = 0
    low = state
    isSnapshotLCG = true
  }

  @inlinable @inline(__always)
  public mutating func next() -> UInt64 {
    if isSnapshotLCG {
      low = 6_364_136_223_846_793_005 &* low &+ 1_442_695_040_888_963_407
      return low
    }
    let multiplier: UInt64 = 0xda94_2042_e4dd_58b5
    let product = low.multipliedFullWidth(by: multiplier)
    high = high &* multiplier &+ product.high
    low = product.low
    return high
  }
}

/// A randomised policy's draws: EvictionLab's own ``SeededGenerator``, or
/// libCacheSim's `next_rand()` (release 0.3.5's or the 2024 snapshot's), so
/// that a run seeded as libCacheSim seeded it makes the same draws.
@frozen public struct PolicyDraws: Sendable {
  /// Which generator: ours, libCacheSim 0.3.5's, or the 2024 snapshot's.
  public enum Kind: Int, Sendable {
    case seeded = 0
    case libCacheSim = 1
    case libCacheSimSnapshot = 2
  }

  @usableFromInline var seeded: SeededGenerator
  @usableFromInline var libCacheSim: LibCacheSimRandom
  public let kind: Kind

  /// `seed` seeds the chosen generator (for the snapshot's, its state).
  @inlinable public init(_ kind: Kind, seed: UInt64) {
    self.kind = kind
    seeded = SeededGenerator(seed: seed)
    libCacheSim =
      kind == .libCacheSimSnapshot ? LibCacheSimRandom(snapshotState: seed) : LibCacheSimRandom(lehmerSeed: seed)
  }

  /// An integer in `0..<bound`: ours uniform, libCacheSim's its draw mod `bound`.
  @inlinable @inline(__always)
  public mutating func below(_ bound: Int) -> Int {
    if kind == .seeded { return seeded.below(bound) }
    return Int(truncatingIfNeeded: libCacheSim.next() % UInt64(bound))
  }
}
