import EvictionTestSupport
import EvictionTraces
import EvictionWorkloads
import Foundation
import Testing

@Suite struct GeneratorTests {
  /// Parameters outside a workload's definition are refused, each naming
  /// itself; the defaults pass.
  @Test func parametersOutsideTheirRangeAreRefused() throws {
    try SyntheticWorkload(kind: .zipf, objects: 10, requests: 10).check()
    let cases: [(String, (inout SyntheticWorkload) -> Void)] = [
      ("alpha", { $0.alpha = -1 }), ("alpha", { $0.alpha = 0 }), ("alpha", { $0.alpha = .infinity }),
      ("hot-share", { $0.hotShare = 7 }), ("hot-share", { $0.hotShare = -0.1 }),
      ("object-size", { $0.objectSize = 1 << 40 }), ("object-size", { $0.objectSize = 0 }),
      ("objects", { $0.objects = 0 }), ("requests", { $0.requests = -3 }),
      ("scan-every", { $0.scanLength = 0 }), ("hot-objects", { $0.hotObjects = -1 }),
      ("shift-every", { $0.shiftEvery = 0 }), ("hot-objects 11 exceeds objects 10", { $0.hotObjects = 11 }),
    ]
    for (name, spoil) in cases {
      var workload = SyntheticWorkload(kind: .hotspot, objects: 10, requests: 10)
      spoil(&workload)
      #expect(throws: TraceError.self) { try workload.check() }
      do throws(TraceError) { try workload.check() } catch { #expect(error.description.contains(name), "\(error)") }
    }
  }

  @Test func hotspotSendsItsShareToAMovingHotSet() throws {
    var workload = SyntheticWorkload(kind: .hotspot, objects: 10_000, requests: 200_000)
    workload.hotObjects = 100
    workload.hotShare = 0.9
    workload.shiftEvery = 50_000
    let records = try workload.generate()
    var hotSets: [Set<UInt64>] = []
    for phase in 0..<4 {
      let slice = records[(phase * 50_000)..<((phase + 1) * 50_000)]
      var counts: [UInt64: Int] = [:]
      for r in slice { counts[r.key, default: 0] += 1 }
      let top = Set(counts.sorted { $0.value > $1.value }.prefix(100).map(\.key))
      let share = Double(slice.filter { top.contains($0.key) }.count) / Double(slice.count)
      #expect(share > 0.88 && share < 0.93, "phase \(phase): \(share)")
      hotSets.append(top)
    }
    #expect(hotSets[0] != hotSets[1] && hotSets[1] != hotSets[2], "the hot set moves")
  }

  @Test func mixInterleavesItsComponentsByWeightWithDisjointObjects() throws {
    var workload = SyntheticWorkload(kind: .mix, objects: 1_000, requests: 100_000)
    workload.components = try SyntheticWorkload.Component.parse("zipf:0.75,loop:0.25")
    let records = try workload.generate()
    let loop = records.filter { $0.key >> 40 == 1 }
    #expect(abs(Double(loop.count) / 100_000 - 0.25) < 0.01)
    #expect(records.allSatisfy { $0.key >> 40 <= 1 })
    // The loop component cycles over its own objects in order.
    #expect(loop.prefix(5).map { $0.key & 0xFF_FFFF_FFFF } == [0, 1, 2, 3, 4])
    #expect(throws: TraceError.self) { try SyntheticWorkload.Component.parse("zipf:0.5,mix:0.5") }
  }

  @Test func sizeDistributionsDrawOncePerObject() throws {
    for (text, check) in [
      ("uniform:100-200", { (sizes: [Int64]) in sizes.allSatisfy { (100...200).contains($0) } }),
      ("lognormal:8,0.5", { (sizes: [Int64]) in abs(Double(sizes.sorted()[sizes.count / 2]) - exp(8)) / exp(8) < 0.1 }),
      ("pareto:1.5,1000", { (sizes: [Int64]) in sizes.allSatisfy { $0 >= 1000 } }),
    ] {
      var workload = SyntheticWorkload(kind: .uniform, objects: 2_000, requests: 50_000)
      workload.sizes = try SyntheticWorkload.SizeDistribution(text)
      let records = try workload.generate()
      var perObject: [UInt64: Set<Int64>] = [:]
      for r in records { perObject[r.key, default: []].insert(r.size) }
      #expect(perObject.values.allSatisfy { $0.count == 1 }, "\(text): an object keeps its size")
      #expect(check(perObject.values.map { $0.first! }), "\(text)")
      let again = try workload.generate()
      #expect(again.map(\.size) == records.map(\.size), "same seed, same sizes")
    }
    #expect(throws: TraceError.self) { try SyntheticWorkload.SizeDistribution("lognormal:8") }
    #expect(throws: TraceError.self) { try SyntheticWorkload.SizeDistribution("uniform:5-1") }
  }

  /// Sizes past 32 bits are drawn as asked (GSL's generator gives 32 bits a
  /// draw: a wider range was every object 1 byte), a negative parameter
  /// keeps its sign, and a distribution that cannot give sizes of 1 byte to
  /// 1 TiB is refused, before or (lognormal's tail) while drawing.
  @Test func sizeDistributionsHoldTheirRangeOrAreRefused() throws {
    var workload = SyntheticWorkload(kind: .uniform, objects: 2_000, requests: 4_000)
    workload.sizes = try SyntheticWorkload.SizeDistribution("uniform:1-1000000000000")
    let sizes = try workload.generate().map(\.size)
    #expect(sizes.allSatisfy { (1...1_000_000_000_000).contains($0) })
    #expect(sizes.filter { $0 > Int64(UInt32.max) }.count > sizes.count * 9 / 10, "sizes above 2^32 are drawn")
    for bad in [
      "lognormal:9,-2", "lognormal:100,50", "lognormal:8,x", "uniform:1-2199023255553", "uniform:1.5-8",
      "pareto:1.5,0", "pareto:1,100,50", "fixed:3",
    ] {
      #expect(throws: TraceError.self, "\(bad)") { try SyntheticWorkload.SizeDistribution(bad) }
    }
    workload.sizes = try SyntheticWorkload.SizeDistribution("lognormal:27,3")
    let error = #expect(throws: TraceError.self) { try workload.generate() }
    #expect(error.map { "\($0)" }?.contains("above 2^40") == true)
    workload.sizes = try SyntheticWorkload.SizeDistribution("pareto:0.5,10,1000")
    #expect(try workload.generate().allSatisfy { (10...1000).contains($0.size) })
  }

  /// A value oracleGeneral cannot hold (its times and sizes are unsigned
  /// 32-bit) is an error naming the request and field; nothing is written.
  @Test func aValueTheFormatCannotHoldIsRefused() throws {
    let dir = try Scratch.directory("limits")
    for (record, field) in [
      (TraceRecord(key: 1, size: 5_000_000_000, time: 0), "size 5000000000"),
      (TraceRecord(key: 1, size: 1, time: 1 << 32), "time 4294967296"),
      (TraceRecord(key: 1, size: 1, time: -1), "time -1"),
    ] {
      let path = dir.path + "/t.oracleGeneral"
      let writer = try TraceWriter(path: path, format: .oracleGeneral)
      let error = #expect(throws: TraceError.self) {
        try writer.write([TraceRecord(key: 7, size: 1, time: 0), record])
      }
      #expect(error.map { "\($0)" }?.contains("request 2 has \(field)") == true, "\(String(describing: error))")
      #expect(!FileManager.default.fileExists(atPath: path))
      let csv = try TraceWriter(path: dir.path + "/t.csv", format: .csv)
      try csv.write([record])
      try csv.finish()
    }
  }

  @Test func sameSeedSameBytesAndZipfIsSkewed() throws {
    let dir = try Scratch.directory("generator")
    var paths: [String] = []
    for (i, seed) in [7, 7, 8].enumerated() {
      var workload = SyntheticWorkload(kind: .zipf, objects: 1000, requests: 20_000)
      workload.seed = UInt64(seed)
      let path = dir.path + "/z\(i).oracleGeneral.zst"
      let writer = try TraceWriter(path: path, format: .oracleGeneral)
      try writer.write(workload.generate())
      try writer.finish()
      paths.append(path)
    }
    let bytes = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    #expect(bytes[0] == bytes[1])
    #expect(bytes[0] != bytes[2])
    let reader = try openTrace(paths[0], format: .oracleGeneral)
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 4096)
    defer { buffer.deallocate() }
    var records: [TraceRecord] = []
    while case let n = try reader.read(into: buffer), n > 0 { records.append(contentsOf: buffer.prefix(n)) }
    var counts: [UInt64: Int] = [:]
    for r in records { counts[r.key, default: 0] += 1 }
    // Zipf(0.9) over 1000 objects: rank 1 holds about 1/H ≈ 9% of requests.
    #expect(counts[0]! > 1_200 && counts[0]! < 2_400)
    #expect(counts[0]! > 5 * (counts[99] ?? 0))
  }
}
