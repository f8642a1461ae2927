import CGSL

/// A seeded random stream: GSL's MT19937, so a seed gives the same stream
/// on every machine. The generators draw from it (EvictionWorkloads); GSL
/// itself stays inside this module.
public final class RandomStream {
  let rng: UnsafeMutablePointer<gsl_rng>

  public init(seed: UInt64) {
    cgsl_disable_abort()
    rng = gsl_rng_alloc(cgsl_rng_mt19937())!
    gsl_rng_set(rng, UInt(truncatingIfNeeded: seed))
  }

  deinit { gsl_rng_free(rng) }

  /// An integer drawn uniformly from 0..<n (n ≥ 1). MT19937 yields 32 bits
  /// a draw: up to 2³² one draw decides (GSL's own rejection), beyond it
  /// two draws make 64 bits, rejected above the largest multiple of n.
  public func integer(below n: UInt64) -> UInt64 {
    precondition(n >= 1, "integer(below: 0)")
    if n <= 1 << 32 { return UInt64(gsl_rng_uniform_int(rng, UInt(n))) }
    let limit = UInt64.max - (UInt64.max % n + 1) % n  // the largest multiple of n, less 1
    while true {
      let high = UInt64(gsl_rng_get(rng)) & 0xFFFF_FFFF
      let low = UInt64(gsl_rng_get(rng)) & 0xFFFF_FFFF
      let draw = high << 32 | low
      if draw <= limit { return draw % n }
    }
  }

  /// A real drawn uniformly from [0, 1).
  public func uniform() -> Double { gsl_rng_uniform(rng) }

  /// A draw from the lognormal distribution with parameters `mu` and `sigma`.
  public func lognormal(mu: Double, sigma: Double) -> Double { gsl_ran_lognormal(rng, mu, sigma) }

  /// A draw from the Pareto distribution of exponent `alpha` and scale `minimum`.
  public func pareto(alpha: Double, minimum: Double) -> Double { gsl_ran_pareto(rng, alpha, minimum) }
}

/// Draws indices 0..<weights.count with probability proportional to their
/// weights, in O(1) per draw (Walker's alias method, GSL's `gsl_ran_discrete`).
public final class DiscreteDistribution {
  let table: UnsafeMutablePointer<gsl_ran_discrete_t>

  public init(weights: [Double]) {
    precondition(!weights.isEmpty && weights.allSatisfy { $0 >= 0 }, "weights must be non-negative, at least one")
    cgsl_disable_abort()
    table = weights.withUnsafeBufferPointer { gsl_ran_discrete_preproc($0.count, $0.baseAddress) }!
  }

  deinit { gsl_ran_discrete_free(table) }

  /// The next index, drawn from `stream`.
  public func draw(_ stream: RandomStream) -> Int { Int(gsl_ran_discrete(stream.rng, table)) }
}
