import Foundation
import Testing

@Suite struct TraceCommandTests {
  static let cloudPhysics = sharedTraces + "/libcachesim/cloudPhysicsIO"

  /// txt → oracleGeneral: the next-access field equals libCacheSim's own
  /// conversion, and replays of the converted trace miss exactly as the original's.
  @Test func convertWritesLibCacheSimsNextAccessAndReplaysTheSame() throws {
    let dir = try scratchDirectory()
    let out = dir.appendingPathComponent("cp.oracleGeneral.bin").path
    let run = try evlab(["convert", Self.cloudPhysics + ".txt", "--to", "oracleGeneral", "-o", out])
    #expect(run.status == 0, "\(run.stderr)")
    let converted = try Data(contentsOf: URL(fileURLWithPath: out))
    let original = try Data(contentsOf: URL(fileURLWithPath: Self.cloudPhysics + ".oracleGeneral.bin"))
    #expect(converted.count == original.count)
    func field(_ data: Data, _ record: Int, _ offset: Int, _ width: Int) -> UInt64 {
      var value: UInt64 = 0
      for i in 0..<width { value |= UInt64(data[record * 24 + offset + i]) << (8 * i) }
      return value
    }
    var differing = 0
    for r in 0..<(original.count / 24)
    where field(converted, r, 4, 8) != field(original, r, 4, 8)
      || field(converted, r, 16, 8) != field(original, r, 16, 8)
    {
      differing += 1
    }
    #expect(differing == 0, "\(differing) records differ in key or next access")
    for path in [out, Self.cloudPhysics + ".txt"] {
      // libCacheSim: LRU 91,527, ARC 87,770, Belady 71,311 misses at 5000 objects.
      let replay = try evlab(["replay", path, "--policy", "lru,arc,belady", "--size", "5000", "--csv", "-"])
      let misses = replay.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[7] }
      #expect(misses == ["91527", "87770", "71311"].map { Substring($0) }, "\(path): \(misses)")
    }
    let bad = try evlab(["convert", Self.cloudPhysics + ".txt", "--to", "vscsi", "-o", out])
    #expect(bad.status == 1 && bad.stderr.contains("write oracleGeneral, lcs, csv, txt"))
  }

  @Test func traceInfoReportsTheContractKeys() throws {
    let run = try evlab(["trace-info", Self.cloudPhysics + ".oracleGeneral.bin", "--json", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
    let info = (object["traces"] as! [[String: Any]])[0]
    #expect(info["requests"] as? Int == 113_872 && info["unique_objects"] as? Int == 48_974)
    // The footprint is what Belady must miss with an unbounded cache: libCacheSim's 2,029,769,728 bytes.
    #expect(info["footprint_bytes"] as? Int == 2_029_769_728 && info["bytes_requested"] as? Int == 4_368_040_448)
    #expect((info["one_hit_wonder_share"] as! Double) > 0.4 && (info["one_hit_wonder_share"] as! Double) < 0.45)
    for key in [
      "zipf_alpha", "zipf_r2", "reuse_distance_log2_buckets", "stack_distance_log2_buckets", "size_percentiles",
      "suggested_sizes", "time_span",
    ] {
      #expect(info[key] != nil, "\(key)")
    }
    let stack = info["stack_distance_log2_buckets"] as! [Int]
    #expect(stack.reduce(0, +) == 113_872 - 48_974, "every repeated request has a stack distance")
  }

  /// A Zipf(0.9) workload fits back to its exponent (ranks requested ≥ 10 times).
  @Test func generatedZipfFitsItsExponent() throws {
    let dir = try scratchDirectory()
    let path = dir.appendingPathComponent("z.oracleGeneral.zst").path
    let gen = try evlab([
      "generate", "zipf", "--alpha", "0.9", "--objects", "100000", "--requests", "1000000", "--seed", "3", "-o", path,
    ])
    #expect(gen.status == 0, "\(gen.stderr)")
    let run = try evlab(["trace-info", path, "--json", "-"])
    let info =
      ((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any])["traces"] as! [[String: Any]])[
        0]
    let alpha = info["zipf_alpha"] as! Double
    #expect(abs(alpha - 0.9) < 0.05, "fitted \(alpha)")
  }
}
