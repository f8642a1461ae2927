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
  /// 20,000 requests over 3,000 objects, the last one for an object
  /// requested before (so a copy's last request is one Belady may keep for);
  /// next accesses are 1-based positions, as libCacheSim writes them, and a
  /// last request of an object points `past` requests beyond the end (-1,
  /// "never", when `past` is nil; 0 is the first request after the end).
  static func trace(past: Int64?) throws -> String {
    var random = SeededGenerator(seed: 5)
    var keys = (0..<20_000).map { _ in UInt64(random.below(random.below(3_000) + 1)) }
    keys[keys.count - 1] = keys[keys.count - 4]
    var next = [Int64](repeating: -1, count: keys.count)
    var seen: [UInt64: Int64] = [:]
    for i in keys.indices.reversed() {
      next[i] = seen[keys[i]] ?? (past.map { Int64(keys.count) + 1 + $0 } ?? -1)
      seen[keys[i]] = Int64(i + 1)
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

  /// A B C A, A's first request naming request 4, the copy's last: in each
  /// copy Belady keeps A (B is never requested again) and hits once. Read as
  /// "past the copy's end", the last position made A's next request never
  /// come, and a repeated run hit nothing.
  @Test func aNextAccessAtACopysLastRequestComesInThatCopy() throws {
    let path = try ScratchFolder("repeated").url.path + "/abca.oracleGeneral"
    let writer = try TraceWriter(path: path, format: .oracleGeneral)
    try writer.write(
      zip([1, 2, 3, 1] as [UInt64], [4, TraceRecord.never, TraceRecord.never, TraceRecord.never]).map {
        TraceRecord(key: $0, size: 1, nextAccess: $1)
      })
    try writer.finish()
    for copies in [1, 3] {
      var policy = BeladyPolicy<IntegerSlotIndex<UInt64>>(capacity: 2)
      let counts = try TraceReplay.replay(
        TraceSource(path: path, format: .oracleGeneral, copies: copies), through: &policy, sizeMode: .count)
      #expect(counts.hits == Int64(copies), "\(copies) copies")
    }
  }
}
