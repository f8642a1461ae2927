/// The random numbers LRB draws in libCacheSim, as GCC's libstdc++ makes
/// them: `std::default_random_engine` (`minstd_rand0`, seed 1),
/// `std::uniform_int_distribution<size_t>()` over [0, 2⁶⁴ − 1] and
/// `std::bernoulli_distribution`. The same draws in the same order pick the
/// same training samples and ranking candidates as libCacheSim does.
/// `results/reference/libstdcxx_random.txt` holds 2,000 draws of GCC 12's
/// (`scripts/reference-libstdcxx-random.sh`); a test replays them.
@usableFromInline struct StdRandom {
  static let modulus: UInt64 = 2_147_483_647
  /// The engine's `max() − min()`: it returns 1 … 2³¹ − 2.
  static let engineRange: UInt64 = modulus - 2

  var state: UInt64 = 1

  /// The engine's next value, in 1 … 2³¹ − 2.
  mutating func next() -> UInt64 {
    state = state &* 16_807 % Self.modulus
    return state
  }

  /// `uniform_int_distribution` over [0, `range`]: rejection when the range
  /// is narrower than the engine's, libstdc++'s recursive "upscaling" (a
  /// high part drawn first, then the low part) when wider.
  mutating func uniform(upTo range: UInt64) -> UInt64 {
    if Self.engineRange > range {
      let extended = range &+ 1
      let scaling = Self.engineRange / extended
      let past = extended &* scaling
      var value: UInt64
      repeat { value = next() &- 1 } while value >= past
      return value / scaling
    }
    if Self.engineRange < range {
      let base = Self.engineRange + 1
      var value: UInt64
      var high: UInt64
      repeat {
        high = base &* uniform(upTo: range / base)
        value = high &+ (next() &- 1)
      } while value > range || value < high
      return value
    }
    return next() &- 1
  }

  /// A full-width draw (`uniform_int_distribution<size_t>()`).
  mutating func any() -> UInt64 { uniform(upTo: .max) }

  /// `generate_canonical<double, 53>`: two engine draws, the second scaled
  /// by the engine's range (the product rounded as libstdc++ rounds it,
  /// through `long double`).
  mutating func canonical() -> Double {
    let range = Float80(Self.engineRange + 1)
    var sum = 0.0
    var scale = 1.0
    for _ in 0..<2 {
      sum += Double(next() &- 1) * scale
      scale = Double(Float80(scale) * range)
    }
    let value = sum / scale
    return value >= 1 ? 1.0.nextDown : value
  }

  /// `bernoulli_distribution(p)`: true when a canonical draw is below `p`
  /// (two engine draws whatever `p` is).
  mutating func bernoulli(_ p: Double) -> Bool { canonical() < p }
}
