import EvictionExperiments
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionCore

/// From 32,768 residents the replay loop prefetches each request's index
/// bucket and entry a few requests ahead, and what the policy names
/// (W-TinyLFU: its sketch counters). A hint changes timing only: a
/// replay big enough to prefetch hits exactly where the policy, driven
/// request by request, hits, tiled copies included (their ids are shifted
/// before the hint is worked out), whether the trace is read on the
/// replay's thread or ahead of it on one of its own.
@Suite struct PrefetchingReplayTests {
  /// 300,000 requests over 120,000 objects, skewed (a key is uniform below
  /// a uniform bound), in oracleGeneral.
  static func trace() throws -> (path: String, keys: [UInt64]) {
    var random = SeededGenerator(seed: 11)
    var keys: [UInt64] = []
    var bytes = Data()
    for time in 0..<300_000 {
      let key = UInt64(random.below(random.below(120_000) + 1))
      keys.append(key)
      // time (u32), id (u64), size (u32), next access (i64; -1: unknown)
      withUnsafeBytes(of: UInt32(time / 100).littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: key.littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: UInt32(4096).littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: Int64(-1).littleEndian) { bytes.append(contentsOf: $0) }
    }
    let path = try ScratchFolder("prefetch").file("skewed.oracleGeneral.bin", bytes)
    return (path, keys)
  }

  @Test(arguments: ["lru", "arc", "randomtwo", "lhd", "s3fifo", "wtinylfu"])
  func aReplayThatPrefetchesHitsWhereTheRequestsHit(policy: String) throws {
    let (path, keys) = try Self.trace()
    let capacity: Int64 = 60_000
    // Every policy here admits each miss, so by the trace's middle it holds
    // more than 32,768 objects, and the rest of the replay prefetches.
    #expect(Set(keys.prefix(150_000)).count > 40_000)
    // Read on the replay's thread, and read ahead on a thread of its own.
    for copies in [1, 2] {
      for readAhead in [false, true] {
        var source = TraceSource(path: path, format: .oracleGeneral, copies: copies)
        source.readAhead = readAhead
        var recorder = HitRecorder(trace: source, sizeMode: .count)
        let replayed = try PolicySpec(policy).withPolicy(
          capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &recorder
        ).get()
        var direct = DirectHits(keys: keys, stride: try source.tileStride(), copies: copies)
        let expected = try PolicySpec(policy).withPolicy(
          capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &direct)
        #expect(replayed.count == keys.count * copies)
        #expect(replayed == expected, "\(policy), \(copies) copies, read ahead: \(readAhead)")
      }
    }
  }

  /// The hints themselves: an integer index names the home bucket and the
  /// slot found there; a key pushed past its home gets no slot hint.
  @Test func theIntegerIndexHintsAtHomeBucketsAndSlots() {
    var policy = LRUPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000)
    for key in UInt64(0)..<500 { _ = policy.access(Request(key: key)) }
    var hinted = 0
    for key in UInt64(0)..<500 {
      #expect(policy.indexAddress(of: key) != nil)
      let slot = policy.store.find(key)
      if let entry = policy.entryAddress(of: key) {
        #expect(entry == policy.store.table.address(of: slot), "key \(key)")
        hinted += 1
      }
    }
    #expect(hinted > 400, "most keys sit in their home bucket at a load of at most 1/2")
    // W-TinyLFU's own hint reads its sketch and changes no estimate.
    var tiny = WTinyLFUPolicy<IntegerSlotIndex<UInt64>>(capacity: 1_000)
    for key in UInt64(0)..<2_000 { _ = tiny.access(Request(key: key % 700)) }
    let lists = tiny.lists().map(\.keys)
    var before: [UInt32] = []
    for key in UInt64(0)..<700 { before.append(tiny.sketch.estimate(tiny.bits(key))) }
    for key in UInt64(0)..<700 { tiny.prefetchState(of: key) }
    // And its links' hint: the candidate's and the victim's counters, the lists' neighbours.
    for key in UInt64(0)..<700 { tiny.prefetchLinks(of: key) }
    var after: [UInt32] = []
    for key in UInt64(0)..<700 { after.append(tiny.sketch.estimate(tiny.bits(key))) }
    #expect(after == before)
    #expect(before.allSatisfy { $0 > 0 })
    #expect(tiny.lists().map(\.keys) == lists, "a hint moves no entry")
    var hashed = LRUPolicy<HashedSlotIndex<String>>(capacity: 10)
    _ = hashed.access(Request(key: "a"))
    #expect(hashed.indexAddress(of: "a") == nil && hashed.entryAddress(of: "a") == nil)
  }
}

/// A large index, entry slab and sketch ask Linux for huge pages (a TLB
/// miss per random line otherwise); small ones do not make the call.
@Suite struct HugePageTests {
  /// The flags of the mapping that holds `address`, from /proc/self/smaps.
  static func mappingFlags(of address: UnsafeRawPointer) throws -> [Substring] {
    // Read to its end: a /proc file says it is empty, so a read sized by stat gets nothing.
    let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
    defer { try? handle.close() }
    let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    let target = UInt(bitPattern: address)
    var inside = false
    for line in smaps.split(separator: "\n") {
      let fields = line.split(separator: " ")
      if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
        let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
        inside = bounds.count == 2 && bounds[0] <= target && target < bounds[1]
      } else if inside && line.hasPrefix("VmFlags:") {
        return Array(fields.dropFirst())
      }
    }
    return []
  }

  static var kernelHasHugePages: Bool {
    FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
  }

  @Test(.enabled(if: kernelHasHugePages, "the kernel has no transparent huge pages"))
  func aLargeSketchIndexAndSlabAreAdvised() throws {
    // 1.4 M counters of 4 bytes: a 5.8 MB sketch, whose aligned middle is advised.
    let sketch = CountingBloomFilter(entries: 100_000, error: 0.001)
    let flags = try sketch.dense.withUnsafeBufferPointer { try Self.mappingFlags(of: $0.baseAddress! + $0.count / 2) }
    #expect(flags.contains("hg"), "the sketch's middle is advised: \(flags)")
    var table = EntryTable<UInt64, Void>(minimumCapacity: 400_000)
    _ = table.allocate(key: 1, weight: 1, payload: ())
    #expect(try Self.mappingFlags(of: table.address(of: 200_000)).contains("hg"), "a 12.8 MB slab is advised")
    let index = IntegerSlotIndex<UInt64>(minimumCapacity: 2_000_000)
    let middle = index.words + index.chunkCount * IntegerSlotIndex<UInt64>.chunkWords / 2
    #expect(try Self.mappingFlags(of: middle).contains("hg"), "a 10.7 MB index is advised")
  }

  /// The threshold, on a mapping of the test's own (a freed large block
  /// that malloc hands out again may carry another test's advice).
  @Test(.enabled(if: kernelHasHugePages, "the kernel has no transparent huge pages"))
  func onlyAnAllocationOfTwoHugePagesOrMoreIsAdvised() throws {
    let bytes = 16 << 20
    let mapping = try #require(mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
    #expect(mapping != UnsafeMutableRawPointer(bitPattern: -1), "mmap failed")
    defer { munmap(mapping, bytes) }
    adviseHugePages(mapping, bytes: (4 << 20) - 1)
    #expect(try !Self.mappingFlags(of: mapping + (1 << 20)).contains("hg"), "just under 4 MiB is left alone")
    adviseHugePages(mapping, bytes: bytes)
    #expect(try Self.mappingFlags(of: mapping + (8 << 20)).contains("hg"))
  }
}

/// Drives a fresh policy request by request, copy after copy, as the replay tiles.
struct DirectHits: PolicyVisitor {
  typealias Key = UInt64
  let keys: [UInt64]
  let stride: UInt64
  let copies: Int

  func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> [Bool] where Policy.Key == UInt64 {
    var policy = policy
    var hits: [Bool] = []
    for copy in 0..<copies {
      for key in keys { hits.append(policy.access(Request(key: key &+ UInt64(copy) &* stride))) }
    }
    return hits
  }
}
