import Foundation
import Testing

@Suite struct StressCommandTests {
  static let columns = [
    "trace", "policy", "cache_size", "size_mode", "threads", "lock", "ops", "gets", "sets", "seconds",
    "ops_per_second", "hit_ratio", "get_p50_ns", "get_p90_ns", "get_p99_ns", "get_p999_ns", "get_max_ns",
    "set_p50_ns", "set_p90_ns", "set_p99_ns", "set_p999_ns", "set_max_ns", "acquisitions", "contended_share",
    "wait_p50_ns", "wait_p99_ns", "wait_max_ns", "wait_share", "vs_nscache", "vs_dictionary", "admission",
    "dropped_accesses", "single_thread_hit_ratio", "hit_ratio_drift", "cores",
  ]

  /// One thread through the cache hits exactly where the replay does (under
  /// `buffered` too: nothing dropped, no drift); every cell carries the
  /// contract's keys; comparison points sit beside the cache cells.
  @Test func stressCellsCarryTheContractAndOneThreadMatchesReplay() throws {
    let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    let dir = try scratchDirectory()
    let json = dir.appendingPathComponent("stress.json").path
    let run = try evlab([
      "stress", trace, "--policy", "lru", "--size", "5000", "--threads", "1,2", "--lock", "mutex,striped:4,buffered",
      "--json", json, "--csv", dir.appendingPathComponent("stress.csv").path,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("vs NSCache"))
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as! [String: Any]
    let results = object["results"] as! [[String: Any]]
    #expect(results.count == 2 * 5)
    for row in results { #expect(Set(row.keys) == Set(Self.columns)) }
    #expect(
      results.map { $0["lock"] as! String }
        == Array(repeating: ["mutex", "striped:4", "buffered", "nscache", "dictionary"], count: 2).flatMap { $0 })
    // libCacheSim: LRU at 5000 objects misses 91,527 of 113,872 requests.
    let lru = 1 - 91_527.0 / 113_872
    for single in [results[0], results[2]] {
      #expect(single["threads"] as? Int == 1 && single["gets"] as? Int == 113_872 && single["sets"] as? Int == 91_527)
      #expect(abs((single["hit_ratio"] as! Double) - lru) < 1e-6, "six decimals")
      #expect(single["hit_ratio_drift"] as? Double == 0 && single["dropped_accesses"] as? Int == 0)
    }
    for row in results {
      #expect((row["gets"] as! Int) == 113_872, "every request is one get")
      #expect((row["get_p50_ns"] as! Int) <= (row["get_p99_ns"] as! Int))
      #expect((row["get_p99_ns"] as! Int) <= (row["get_max_ns"] as! Int))
      let lock = row["lock"] as! String
      if lock == "mutex" || lock == "striped:4" {
        #expect((row["acquisitions"] as! Int) >= (row["gets"] as! Int) + (row["sets"] as! Int))
      }
      if lock == "buffered" {
        // Hits take no lock; misses and sets do.
        #expect((row["acquisitions"] as! Int) < (row["gets"] as! Int) + (row["sets"] as! Int))
        #expect((row["acquisitions"] as! Int) >= (row["sets"] as! Int))
      }
      if lock == "nscache" || lock == "dictionary" {
        #expect(row["vs_nscache"] is NSNull)
        #expect(row["dropped_accesses"] is NSNull && row["hit_ratio_drift"] is NSNull)
      } else {
        #expect(row["vs_nscache"] is Double && row["vs_dictionary"] is Double)
        // The same requests in order on one thread: exactly LRU's figure.
        #expect(abs((row["single_thread_hit_ratio"] as! Double) - lru) < 1e-9)
        let drift = row["hit_ratio_drift"] as! Double
        #expect(abs(drift - ((row["hit_ratio"] as! Double) - lru)) < 1e-9)
        // One policy sees nearly the trace's order (striped shards see their own share).
        if lock != "striped:4" { #expect(abs(drift) < 0.01, "\(lock), \(row["threads"]!) threads: drift \(drift)") }
      }
    }
    let csv = try String(contentsOfFile: dir.appendingPathComponent("stress.csv").path, encoding: .utf8)
    #expect(csv.split(separator: "\n").first == Substring(Self.columns.joined(separator: ",")))
  }

  @Test func badStressInputIsOneClearLine() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8)
    for (arguments, words) in [
      (["--lock", "spinlock"], ["spinlock", "mutex, pthread"]),
      (["--lock", "striped:0"], ["striped:0"]),
      (["--threads", "0"], ["--threads"]),
      (["--policy", "belady"], ["belady", "offline"]),
      (["--ops", "0"], ["--ops"]),
    ] {
      let run = try evlab(["stress", "a.txt", "--size", "2"] + arguments, in: dir)
      #expect(run.status == 1, "\(arguments)")
      #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasPrefix("evlab: error: "), "\(run.stderr)")
      for word in words { #expect(run.stderr.contains(word), "\(arguments): \(run.stderr)") }
    }
  }
}

@Suite struct MRCCommandTests {
  @Test func mrcWritesPointsWithMethodAndRate() throws {
    let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    let run = try evlab(["mrc", trace, "--sizes", "500,5000,25000", "--json", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
    #expect(object["method"] as? String == "exact" && object["rate"] as? Double == 1)
    let points = object["points"] as! [[String: Any]]
    #expect(points.map { $0["cache_size"] as! Int } == [500, 5000, 25000])
    // libCacheSim: LRU misses 95,398, 91,527 and 70,832 of 113,872 at these sizes.
    #expect(points.map { $0["misses"] as! Int } == [95_398, 91_527, 70_832])
    for point in points { #expect(point["miss_ratio"] is Double && point["byte_miss_ratio"] is Double) }
    let shards = try evlab([
      "mrc", trace, "--policy", "s3fifo", "--method", "shards", "--rate", "0.1", "--sizes", "1000..20000:log5", "--csv",
      "-",
    ])
    #expect(shards.status == 0, "\(shards.stderr)")
    let lines = shards.stdout.split(separator: "\n")
    #expect(
      lines.first
        == "trace,policy,method,rate,size_mode,cache_size,requests,misses,miss_ratio,bytes_requested,bytes_missed,byte_miss_ratio,admission,scaled_below_largest_object"
    )
    #expect(lines.count == 6 && lines[1].contains(",s3fifo,shards,0.1,count,1000,"))
  }

  @Test func badMRCInputIsOneClearLine() throws {
    let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    for (arguments, word) in [
      (["--policy", "arc", "--method", "exact", "--sizes", "100"], "simulate or shards"),
      (["--sizes", "100..10:log5"], "A..B:logN"),
      (["--method", "magic", "--sizes", "100"], "magic"),
      (["--method", "shards", "--rate", "0", "--sizes", "100"], "--rate"),
      (["--policy", "belady", "--sizes", "100"], "offline"),
    ] {
      let run = try evlab(["mrc", trace] + arguments)
      #expect(
        run.status == 1 && run.stderr.hasPrefix("evlab: error: ") && run.stderr.split(separator: "\n").count == 1,
        "\(arguments): \(run.stderr)")
      #expect(run.stderr.contains(word), "\(arguments): \(run.stderr)")
    }
  }
}
