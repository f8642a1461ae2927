import EvictionExperiments
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Testing

/// The one size grammar every command and configuration takes.
@Suite struct CacheSizeTests {
  @Test func absoluteSizesAndSuffixes() throws {
    #expect(try CacheSize("5000") == .absolute(5000))
    #expect(try CacheSize("64k") == .absolute(65536))
    #expect(try CacheSize("16M") == .absolute(16_777_216))
    #expect(try CacheSize("1t") == .absolute(1 << 40))
  }

  @Test func sharesAsPercentOrAsLibCacheSimsFraction() throws {
    #expect(try CacheSize("1%") == .fraction(0.01))
    #expect(try CacheSize("0.01") == .fraction(0.01))
    #expect(try CacheSize("1.0") == .fraction(1))
    #expect(try CacheSize("0.1%").resolve(footprint: 3000) == 3)
    #expect(CacheSize.fraction(0.01).description == "1%")
  }

  /// Shares resolve against the footprint the cheap count finds, which is
  /// the full analysis's, tiled copies and byte sizes included.
  @Test func theFootprintCountAgreesWithTheFullAnalysis() throws {
    let path = SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin")
    for copies in [1, 3] {
      let source = TraceSource(path: path, format: .oracleGeneral, copies: copies)
      let info = try TraceInfo.measure(source)
      let footprint = try TraceInfo.footprint(source)
      #expect(footprint.objects == info.uniqueObjects && footprint.bytes == info.footprintBytes)
      #expect(info.uniqueObjects > 1000 && info.footprintBytes > Int64(info.uniqueObjects))
      let shares = [CacheSize.fraction(0.01), .fraction(0.1)]
      #expect(
        try CacheSize.resolve(shares, for: source, sizeMode: .bytes)
          == shares.map { $0.resolve(info, sizeMode: .bytes) })
    }
  }

  /// Key 0 (the table's empty mark) counts once, like any other key.
  @Test func theFootprintCountsKeyZeroOnce() throws {
    let path = try Scratch.directory("footprint").appendingPathComponent("zero.csv").path
    try "key,size\n0,5\n7,3\n0,5\n0,5\n9,1\n7,3\n".write(toFile: path, atomically: true, encoding: .utf8)
    let footprint = try TraceInfo.footprint(TraceSource(path: path, format: .csv))
    #expect(footprint.objects == 3 && footprint.bytes == 9)
  }

  @Test func autoIsLibCacheSimsSet() throws {
    let shares: [Double] = [0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.4, 0.8]
    #expect(try CacheSize.list("auto") == shares.map { .fraction($0) })
    #expect(
      try CacheSize.list("AUTO").map { $0.resolve(footprint: 10_000) } == [10, 30, 100, 300, 1000, 2000, 4000, 8000])
  }

  @Test func rangesOfEitherKind() throws {
    #expect(try CacheSize.list("100..100000:log4") == [100, 1000, 10_000, 100_000].map { .absolute($0) })
    let shares = try CacheSize.list("1%..100%:log3")
    #expect(shares.map { $0.resolve(footprint: 10_000) } == [100, 1000, 10_000])
    #expect(try CacheSize.list("10, 1%, 10, auto").count == 9, "each size once, in order")
  }

  @Test(arguments: [
    "0", "-5", "1.5", "0%", "101%", "abc", "5x", "1%..100:log3", "100..10:log4", "1..10:log1", "1..10:lin4", "5,,6", "",
    "99999999999t",
  ])
  func malformedSizesAreRefusedWithTheGrammar(text: String) {
    #expect(throws: SizeError.self) { try CacheSize.list(text) }
  }
}
