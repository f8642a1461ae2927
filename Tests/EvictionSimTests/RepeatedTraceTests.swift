import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// A repeated oracleGeneral trace whose next-access times point past its
/// end (a sample cut from a longer trace, as libCacheSim's Twitter sample
/// is): the copies share no object, so such a next access never comes, and
/// Belady (the optimum) misses exactly as often in each copy as in the
/// trace alone. It counted them as coming in the next copy and missed 15%
/// more there than an online policy.
@Suite struct RepeatedTraceTests {
  /// 20,000 requests over 3,000 objects; a last request of an object points
  /// `past` requests beyond the end (-1, "never", when `past` is nil).
  static func trace(past: Int64?) throws -> String {
    var random = SeededGenerator(seed: 5)
    let keys = (0..<20_000).map { _ in UInt64(random.below(random.below(3_000) + 1)) }
    var next = [Int64](repeating: -1, count: keys.count)
    var seen: [UInt64: Int64] = [:]
    for i in keys.indices.reversed() {
      next[i] = seen[keys[i]] ?? (past.map { Int64(keys.count) + $0 } ?? -1)
      seen[keys[i]] = Int64(i)
    }
    var bytes = Data()
    for (i, key) in keys.enumerated() {
      // time (u32), id (u64), size (u32), next access (i64)
      withUnsafeBytes(of: UInt32(i / 10).littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: key.littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: UInt32(512).littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: next[i].littleEndian) { bytes.append(contentsOf: $0) }
    }
    return try ScratchFolder("repeated").file("cut-\(past ?? -1).oracleGeneral.bin", bytes)
  }

  static func beladyMisses(_ path: String, copies: Int) throws -> Int64 {
    var policy = BeladyPolicy<IntegerSlotIndex<UInt64>>(capacity: 300)
    let source = TraceSource(path: path, format: .oracleGeneral, copies: copies)
    return try TraceReplay.replay(source, through: &policy, sizeMode: .count).misses
  }

  @Test(arguments: [nil, 0, 7, 100_000] as [Int64?])
  func copiesOfACutTraceMissAsTheTraceDoes(past: Int64?) throws {
    let path = try Self.trace(past: past)
    let once = try Self.beladyMisses(path, copies: 1)
    #expect(once == (try Self.beladyMisses(Self.trace(past: nil), copies: 1)), "a next access past the end is never")
    #expect(try Self.beladyMisses(path, copies: 3) == 3 * once)
  }
}
