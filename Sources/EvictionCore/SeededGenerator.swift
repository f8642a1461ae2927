/// xoshiro256** (Blackman and Vigna, 2018), seeded through SplitMix64: a
/// small, fast generator whose streams are identical on every platform, so a
/// seeded policy is reproducible run to run. Not for cryptography.
@frozen
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  @usableFromInline var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

  /// Creates the generator for `seed`; equal seeds give equal streams.
  @inlinable
  public init(seed: UInt64) {
    var x = seed
    @inline(__always) func splitMix() -> UInt64 {
      x &+= 0x9E37_79B9_7F4A_7C15
      var z = x
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    s0 = splitMix()
    s1 = splitMix()
    s2 = splitMix()
    s3 = splitMix()
  }

  @inlinable @inline(__always)
  public mutating func next() -> UInt64 {
    let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = s3 << 45 | s3 >> 19
    return result
  }

  /// A uniform integer in `0..<bound` (Lemire's multiply-shift; bias below 2^-32 for bound < 2^32).
  @inlinable @inline(__always)
  public mutating func below(_ bound: Int) -> Int {
    Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
  }
}
