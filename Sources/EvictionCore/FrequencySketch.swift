/// TinyLFU's approximate access counter (Einziger, Friedman and Manes,
/// "TinyLFU: a highly efficient cache admission policy", ACM TOS 2017): a
/// count-min sketch of 4-bit counters that ages by halving.
///
/// - Sized for `entries` keys: the next power of two of them, times 16
///   counters (8 bytes per key, Caffeine's `FrequencySketch` figure), packed
///   16 to a 64-bit word.
/// - A key has 4 counters, chosen by double hashing of the XXH64 of its bits;
///   an increment raises each of them below 15, an estimate is their minimum.
/// - After 10 increments per key sized for (the paper's sample of W = 10·C
///   requests), every counter is halved and the count of increments with it:
///   the sketch forgets old popularity at the rate the paper's reset does.
/// - ``grow(toFit:)`` resizes when more keys must be told apart than it was
///   sized for, as Caffeine's does for a weighted cache; resizing starts from
///   zero counts.
public struct FrequencySketch: Sendable {
  @usableFromInline var words: [UInt64]
  /// The number of counters less one (a power of two less one).
  @usableFromInline var counterMask: UInt64
  @usableFromInline var increments = 0
  /// Increments after which every counter is halved.
  @usableFromInline var sampleSize: Int
  /// The keys the sketch is sized for.
  public private(set) var entries: Int

  public init(entries: Int) {
    var keys = 1
    while keys < max(entries, 1) { keys <<= 1 }
    self.entries = keys
    GrowthWatch.willAllocate(keys * 8, "a frequency sketch for \(keys) keys")
    words = Array(repeating: 0, count: keys)
    counterMask = UInt64(keys) * 16 - 1
    sampleSize = 10 * keys
  }

  /// Resizes for `count` keys if it was sized for fewer (counts restart at 0).
  @inlinable
  public mutating func grow(toFit count: Int) {
    if count > entries { self = FrequencySketch(entries: count) }
  }

  /// The estimated number of recent increments of `bits`, 0 to 15.
  @inlinable @inline(__always)
  public func estimate(_ bits: UInt64) -> Int {
    let (first, step) = Self.probes(bits)
    var least: UInt64 = 15
    for i: UInt64 in 0..<4 {
      least = Swift.min(least, counter(at: (first &+ i &* step) & counterMask))
    }
    return Int(least)
  }

  /// Counts one access of `bits`; halves everything after `sampleSize` of them.
  @inlinable @inline(__always)
  public mutating func increment(_ bits: UInt64) {
    let (first, step) = Self.probes(bits)
    var raised = false
    for i: UInt64 in 0..<4 {
      let index = (first &+ i &* step) & counterMask
      if counter(at: index) < 15 {
        words[Int(index >> 4)] &+= 1 &<< ((index & 15) << 2)
        raised = true
      }
    }
    guard raised else { return }
    increments += 1
    if increments >= sampleSize { halve() }
  }

  /// Halves every counter (and the count of increments).
  @inlinable
  public mutating func halve() {
    for i in words.indices { words[i] = (words[i] >> 1) & 0x7777_7777_7777_7777 }
    increments /= 2
  }

  @inlinable @inline(__always)
  func counter(at index: UInt64) -> UInt64 { (words[Int(index >> 4)] >> ((index & 15) << 2)) & 15 }

  /// The first probe and the odd stride between probes.
  @inlinable @inline(__always)
  static func probes(_ bits: UInt64) -> (UInt64, UInt64) {
    let hash = xxHash64(bits, seed: 0x7E57_1F0E)
    return (hash, (hash >> 32 | hash << 32) | 1)
  }
}
