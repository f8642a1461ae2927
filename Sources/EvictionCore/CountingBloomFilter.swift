import CChunkMatch
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// XXH64 (Yann Collet's xxHash, 64-bit variant) of one little-endian 64-bit
/// word: the hash libCacheSim applies to object ids in its sketches.
@inlinable @inline(__always)
public func xxHash64(_ word: UInt64, seed: UInt64) -> UInt64 {
  let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
  let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
  let prime3: UInt64 = 0x1656_67B1_9E37_79F9
  let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
  let prime5: UInt64 = 0x27D4_EB2F_1656_67C5
  // Inputs shorter than 32 bytes skip the four-lane stage.
  var h = seed &+ prime5 &+ 8
  var lane = word &* prime2
  lane = (lane << 31 | lane >> 33) &* prime1
  h ^= lane
  h = (h << 27 | h >> 37) &* prime1 &+ prime4
  h ^= h >> 33
  h = h &* prime2
  h ^= h >> 29
  h = h &* prime3
  h ^= h >> 32
  return h
}

/// A counting Bloom filter with conservative-style increments, as libCacheSim's
/// `minimalIncrementCBF` defines it (the frequency sketch of its W-TinyLFU):
///
/// - sized for `entries` items at false-positive rate `error`: ⌈−ln(error)/ln²2 ·
///   entries⌉ counters (at most `Int32.max`) and ⌈ln 2 · bits-per-entry⌉ probes;
/// - probe `i` of an item is `(a + i·b) mod counters` in 32-bit arithmetic, with
///   `a` and `b` the low 32 bits of XXH64 of the item under two seeds;
/// - an estimate is the minimum over the probes; an add increments every probe
///   (despite the name, libCacheSim increments all of them, not only the
///   minimal ones, and so does this);
/// - `halve()` ages every counter (right shift by one).
///
/// Byte capacities make the filter huge (a 1 GiB cache asks for 2³¹ counters,
/// which libCacheSim gets from lazily zeroed pages), so filters of more than
/// 2²⁵ counters (128 MiB of them, the sketch of a W-TinyLFU of 2.3 M
/// objects) keep only their non-zero counters in a dictionary; both forms
/// answer the same. The dictionary costs a hash lookup per probe: with the
/// earlier limit of 2²² counters, W-TinyLFU at 1 M objects spent 64% of its
/// time in it and ran at a third of libCacheSim's speed.
public struct CountingBloomFilter: Sendable {
  public let counterCount: UInt32

  /// The counters' memory: 4 bytes each while dense; sparse, about 40
  /// bytes per non-zero counter (a dictionary entry and its share of the table).
  public var byteCount: Int { isDense ? dense.count * 4 : sparse.count * 40 }
  public let probes: UInt32
  @usableFromInline var dense: [UInt32]
  @usableFromInline var sparse: [UInt32: UInt32]
  @usableFromInline let isDense: Bool
  /// ⌊2⁶⁴ / counterCount⌋ + 1: with it, `x mod counterCount` for any 32-bit
  /// `x` is two multiplications instead of a division (Lemire, Kaser and
  /// Kurz, "Faster remainder by direct computation", 2019: exact for 32-bit
  /// dividends and divisors).
  @usableFromInline let reciprocal: UInt64

  public static let seed0: UInt64 = 0x1234_5678
  public static let seed1: UInt64 = 0x1234_4321

  /// Sizes the filter for `entries` items at false-positive rate `error`;
  /// up to `denseLimit` counters are stored in an array, more sparsely.
  public init(entries: Int, error: Double, denseLimit: UInt32 = 1 << 25) {
    precondition(entries >= 0 && error > 0 && error < 1, "invalid Bloom filter sizing")
    let bitsPerEntry = -log(error) / 0.480453013918201
    let probes = UInt32((0.693147180559945 * bitsPerEntry).rounded(.up))
    var counters = UInt32(min((bitsPerEntry * Double(entries)).rounded(.up), Double(Int32.max)))
    if counters < probes { counters = probes * 2 }
    self.counterCount = counters
    self.probes = probes
    reciprocal = UInt64.max / UInt64(counters) &+ 1
    isDense = counters <= denseLimit
    if isDense {
      GrowthWatch.willAllocate(
        Int(counters) * 4, "a counting Bloom filter of \(counters) counters (for \(entries) entries)")
    }
    dense = isDense ? Self.zeroedCounters(Int(counters)) : []
    sparse = [:]
  }

  /// `x mod counterCount`.
  @inlinable @inline(__always)
  func reduce(_ x: UInt32) -> UInt32 {
    UInt32(truncatingIfNeeded: (reciprocal &* UInt64(x)).multipliedFullWidth(by: UInt64(counterCount)).high)
  }

  /// The estimated count of `item`.
  @inlinable
  public func estimate(_ item: UInt64) -> UInt32 {
    let a = UInt32(truncatingIfNeeded: xxHash64(item, seed: Self.seed0))
    let b = UInt32(truncatingIfNeeded: xxHash64(item, seed: Self.seed1))
    var least = UInt32.max
    if isDense {
      dense.withUnsafeBufferPointer { counters in
        var probe = a
        for _ in 0..<probes {
          least = Swift.min(least, counters[Int(reduce(probe))])
          probe &+= b
        }
      }
    } else {
      var probe = a
      for _ in 0..<probes {
        least = Swift.min(least, sparse[reduce(probe), default: 0])
        probe &+= b
      }
    }
    return least
  }

  /// Starts loading the counters of `item` (for writing: an add follows),
  /// for a request a few requests on; nothing for a sparse filter.
  @inlinable
  public func prefetch(_ item: UInt64) {
    guard isDense else { return }
    let a = UInt32(truncatingIfNeeded: xxHash64(item, seed: Self.seed0))
    let b = UInt32(truncatingIfNeeded: xxHash64(item, seed: Self.seed1))
    dense.withUnsafeBufferPointer { counters in
      var probe = a
      for _ in 0..<probes {
        evictionlab_chunk_prefetch(counters.baseAddress! + Int(reduce(probe)))
        probe &+= b
      }
    }
  }

  /// `count` zero counters, on huge pages where the system gives them.
  static func zeroedCounters(_ count: Int) -> [UInt32] {
    [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
      if let base = buffer.baseAddress { adviseHugePages(base, bytes: count * MemoryLayout<UInt32>.stride) }
      buffer.initialize(repeating: 0)
      initialized = count
    }
  }

  /// Counts one occurrence of `item`.
  @inlinable
  public mutating func add(_ item: UInt64) {
    let a = UInt32(truncatingIfNeeded: xxHash64(item, seed: Self.seed0))
    let b = UInt32(truncatingIfNeeded: xxHash64(item, seed: Self.seed1))
    let probes = self.probes
    if isDense {
      let reciprocal = self.reciprocal
      let count = UInt64(counterCount)
      dense.withUnsafeMutableBufferPointer { counters in
        var probe = a
        for _ in 0..<probes {
          let x = UInt32(truncatingIfNeeded: (reciprocal &* UInt64(probe)).multipliedFullWidth(by: count).high)
          counters[Int(x)] &+= 1
          probe &+= b
        }
      }
    } else {
      var probe = a
      if sparse.count &+ Int(probes) > sparse.capacity {
        // A native dictionary's slot (two 4-byte values), at most 3/4 full, doubling.
        GrowthWatch.willAllocate(sparse.capacity * 2 * 12, "a counting Bloom filter's table (\(sparse.count) counters)")
      }
      for _ in 0..<probes {
        sparse[reduce(probe), default: 0] &+= 1
        probe &+= b
      }
    }
  }

  /// Halves every counter.
  public mutating func halve() {
    if isDense {
      for i in dense.indices { dense[i] >>= 1 }
    } else {
      sparse = sparse.compactMapValues { $0 > 1 ? $0 >> 1 : nil }
    }
  }
}

extension CountingBloomFilter {
  /// A filter with these counters (a saved state read back).
  init(counterCount: UInt32, probes: UInt32, dense: [UInt32], sparse: [UInt32: UInt32], isDense: Bool) {
    self.counterCount = counterCount
    self.probes = probes
    self.dense = dense
    self.sparse = sparse
    self.isDense = isDense
    reciprocal = UInt64.max / UInt64(counterCount) &+ 1
  }

  /// Writes the filter's sizing and counters (a policy's saved state):
  /// dense counters two to a word, sparse ones as (index, count) words in
  /// index order.
  func save<Key>(into writer: inout PolicyStateWriter<Key>) {
    writer.int(Int64(counterCount))
    writer.int(Int64(probes))
    writer.bool(isDense)
    if isDense {
      for i in stride(from: 0, to: dense.count, by: 2) {
        let high = i + 1 < dense.count ? UInt64(dense[i + 1]) : 0
        writer.word(high << 32 | UInt64(dense[i]))
      }
    } else {
      writer.int(Int64(sparse.count))
      for (index, count) in sparse.sorted(by: { $0.key < $1.key }) { writer.word(UInt64(index) << 32 | UInt64(count)) }
    }
  }

  /// A filter ``save(into:)`` wrote.
  static func read<Key>(from reader: inout PolicyStateReader<Key>) throws(PolicyStateError) -> CountingBloomFilter {
    let counterCount = UInt32(try reader.int(in: 1...Int64(Int32.max), "the sketch's counters"))
    let probes = UInt32(try reader.int(in: 1...64, "the sketch's probes"))
    let isDense = try reader.bool("whether the sketch is dense")
    var dense: [UInt32] = []
    var sparse: [UInt32: UInt32] = [:]
    if isDense {
      let words = (Int(counterCount) + 1) / 2
      guard words <= reader.wordsLeft else { throw .malformed("the sketch claims more counters than the words left") }
      dense.reserveCapacity(words * 2)
      for _ in 0..<words {
        let word = try reader.word()
        dense.append(UInt32(truncatingIfNeeded: word))
        dense.append(UInt32(truncatingIfNeeded: word >> 32))
      }
      dense.removeLast(dense.count - Int(counterCount))
    } else {
      let count = Int(try reader.int(in: 0...Int64(counterCount), "the sketch's counters in use"))
      guard count <= reader.wordsLeft else { throw .malformed("the sketch claims more counters than the words left") }
      sparse.reserveCapacity(count)
      for _ in 0..<count {
        let word = try reader.word()
        let index = UInt32(truncatingIfNeeded: word >> 32)
        guard index < counterCount, sparse.updateValue(UInt32(truncatingIfNeeded: word), forKey: index) == nil else {
          throw .malformed("the sketch's counter \(index) is out of range or given twice")
        }
      }
    }
    return CountingBloomFilter(
      counterCount: counterCount, probes: probes, dense: dense, sparse: sparse, isDense: isDense)
  }
}
