import Foundation
import Testing

/// `evlab bench memory` in a process of its own: the allocator's statistics
/// count every thread's allocations, and this test process runs suites in
/// parallel, so the figures are only the cache's in a quiet process.
@Suite struct MemoryBenchCommandTests {
  struct Row: Decodable {
    var policy: String
    var entries: Int
    var bytesPerEntry: Double
    var bytesPerGhost: Double?
    var ghosts: Int?
  }

  struct Report: Decodable { var results: [Row] }

  func measure(_ extra: [String]) throws -> (run: Run, rows: [Row]) {
    let run = try evlab(["bench", "memory", "--policy", "lru,arc", "--json", "-"] + extra)
    guard run.status == 0 else { return (run, []) }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return (run, try decoder.decode(Report.self, from: Data(run.stdout.utf8)).results)
  }

  /// An entry costs at least its key and value and far less than a page; a
  /// policy without history has no ghost figure, one with history has one;
  /// the baselines are measured beside them. `--entries` given twice runs both.
  @Test func rowsAreAllocatorMeasurements() throws {
    let (run, rows) = try measure(["--entries", "20000", "--entries", "5000"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(rows.map(\.entries) == [20_000, 20_000, 20_000, 20_000, 5_000, 5_000, 5_000, 5_000])
    #expect(rows.prefix(4).map(\.policy) == ["lru", "arc", "dictionary", "nscache"])
    for row in rows {
      #expect(row.bytesPerEntry >= 16 && row.bytesPerEntry < 1_000, "\(row.policy): \(row.bytesPerEntry) bytes")
    }
    let (lru, arc, dictionary) = (rows[0], rows[1], rows[2])
    #expect(lru.bytesPerGhost == nil && lru.ghosts == nil)
    let ghosts = try #require(arc.ghosts)
    #expect(ghosts >= 10_000 && ghosts <= 20_000, "ARC keeps at most c ghosts, and evicts 20,000 here: \(ghosts)")
    #expect(try #require(arc.bytesPerGhost) > 4)
    // A cache holds more per entry than a bare dictionary of the same pairs.
    #expect(lru.bytesPerEntry > dictionary.bytesPerEntry)
  }

  @Test func badEntryCountsAreRefused() throws {
    for bad in [["--entries", "0"], ["--entries", "10,,20"], ["--entries", "100", "--entries", "100"]] {
      let (run, _) = try measure(bad)
      #expect(run.status != 0 && run.stderr.contains("--entries"), "\(bad): \(run.stderr)")
    }
  }
}

/// `evlab bench concurrent`: Caffeine's GetPut benchmark, run briefly.
@Suite struct ConcurrentBenchCommandTests {
  /// Every (lock, mix, threads) cell and both comparison points are rows
  /// with the contract's keys; reads all hit, so only `buffered` drops, and
  /// the comparison points have no dropped share; a chart per mix is drawn.
  @Test func everyCellIsARowWithTheContractsKeys() throws {
    let dir = try scratchDirectory()
    let run = try evlab([
      "bench", "concurrent", "--mix", "100/0", "--mix", "0/100", "--threads", "1,2", "--lock", "pthread,buffered",
      "--seconds", "0.3", "--runs", "1", "--json", "-", "--charts", dir.path,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
    let rows = object["results"] as! [[String: Any]]
    #expect(rows.count == 4 * 2 * 2)
    let cells = rows.map { "\($0["lock"]!) \($0["mix"]!) \($0["threads"]!)" }
    for lock in ["pthread", "buffered", "dictionary+mutex", "nscache"] {
      for mix in ["100/0", "0/100"] {
        for threads in [1, 2] { #expect(cells.contains("\(lock) \(mix) \(threads)")) }
      }
    }
    for row in rows {
      for key in ["lock", "mix", "threads", "ops_per_second", "ops_per_second_per_thread", "dropped_share", "cores"] {
        #expect(row[key] != nil, "\(key) missing")
      }
      let ops = row["ops_per_second"] as! Double
      #expect(ops > 0)
      #expect(abs((row["ops_per_second_per_thread"] as! Double) * Double(row["threads"] as! Int) - ops) < 1e-6 * ops)
      switch row["lock"] as! String {
      case "pthread": #expect(row["dropped_share"] as? Double == 0)
      case "buffered": #expect((0...1).contains(row["dropped_share"] as! Double))
      default: #expect(row["dropped_share"] is NSNull && row["policy"] as? String == "")
      }
    }
    for name in ["getput-100-0", "getput-0-100"] {
      let svg = try String(contentsOfFile: dir.appendingPathComponent(name + ".svg").path, encoding: .utf8)
      #expect(svg.hasPrefix("<?xml") && svg.contains("<svg") && svg.contains("data-series=\"buffered\""))
      #expect(svg.contains("cores"))
      let provenance = try String(
        contentsOfFile: dir.appendingPathComponent(name + ".svg.provenance.json").path, encoding: .utf8)
      #expect(provenance.contains("\"tool\": \"evlab\"") && provenance.contains("bench concurrent"))
      // PDF and PNG beside it, where rsvg-convert is installed (scripts/ensure-deps.sh installs it).
      if FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert") {
        for format in ["pdf", "png"] {
          #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("\(name).\(format)").path))
        }
      }
    }
  }

  /// `--ceiling` runs each cell as N caches that share nothing too: every
  /// row has its ceiling and its efficiency against it, and its speed-up
  /// over the same contender's one thread (exactly 1 at one thread).
  @Test func theCeilingGivesEveryRowItsScalingEfficiency() throws {
    let run = try evlab([
      "bench", "concurrent", "--mix", "100/0", "--threads", "1,2", "--lock", "mutex,buffered", "--no-baselines",
      "--seconds", "0.3", "--runs", "1", "--ceiling", "--json", "-",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("sharing nothing"))
    let rows =
      (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any])["results"]
      as! [[String: Any]]
    #expect(rows.count == 4)
    for row in rows {
      let ops = row["ops_per_second"] as! Double
      let ceiling = try #require(row["ceiling_ops_per_second"] as? Double, "\(row)")
      let efficiency = try #require(row["scaling_efficiency"] as? Double)
      #expect(ceiling > 0 && abs(efficiency - ops / ceiling) < 1e-9 * max(1, efficiency))
      let speedup = try #require(row["speedup_over_one_thread"] as? Double)
      if row["threads"] as! Int == 1 { #expect(speedup == 1) }
    }
    // Without it, the keys are there and null; the table has no ceiling column.
    let plain = try evlab([
      "bench", "concurrent", "--mix", "100/0", "--threads", "2", "--lock", "mutex", "--no-baselines",
      "--seconds", "0.02", "--runs", "1",
    ])
    #expect(plain.status == 0 && !plain.stdout.contains("efficiency") && plain.stdout.contains("× 1 thread"))
    // A fixed amount of work (`--operations`, for callgrind) ends by itself;
    // --seconds beside it would say something else, and is refused.
    let fixed = try evlab([
      "bench", "concurrent", "--mix", "100/0", "--threads", "2", "--lock", "buffered", "--no-baselines",
      "--runs", "1", "--operations", "4096", "--json", "-",
    ])
    #expect(fixed.status == 0, "\(fixed.stderr)")
    #expect(fixed.stdout.contains("ops_per_second"))
    let both = try evlab([
      "bench", "concurrent", "--mix", "100/0", "--threads", "1", "--lock", "mutex", "--no-baselines",
      "--seconds", "3600", "--runs", "1", "--operations", "4096",
    ])
    #expect(both.status == 1 && both.stderr.contains("give one of them"), "\(both.stderr)")
  }

  /// `--write-workload` writes the very ring and write positions the
  /// benchmark walks, for another language's harness, and runs nothing.
  @Test func theWorkloadIsWrittenForAnotherHarness() throws {
    let dir = try scratchDirectory()
    let run = try evlab([
      "bench", "concurrent", "--mix", "100/0,75/25", "--write-workload", dir.appendingPathComponent("w").path,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!run.stderr.contains("round"), "it ran the benchmark")
    // 32,768 keys among the cache's 65,536, Zipf-skewed (the hottest key
    // far above the mean), and the same bytes from a second run.
    let keys = try Data(contentsOf: dir.appendingPathComponent("w/getput-keys.u64"))
    #expect(keys.count == 8 * 32_768)
    let ring = keys.withUnsafeBytes { raw in
      (0..<raw.count / 8).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }
    #expect(ring.allSatisfy { $0 < 65_536 })
    let counts = Dictionary(ring.map { ($0, 1) }, uniquingKeysWith: +)
    #expect(counts.values.max()! > 50 * ring.count / counts.count, "not skewed")
    let again = try evlab([
      "bench", "concurrent", "--mix", "75/25", "--write-workload", dir.appendingPathComponent("v").path,
    ])
    #expect(again.status == 0)
    #expect(try Data(contentsOf: dir.appendingPathComponent("v/getput-keys.u64")) == keys)
    let reads = try Data(contentsOf: dir.appendingPathComponent("w/getput-writes-100-0.u8"))
    #expect(reads.count == 32_768 && reads.allSatisfy { $0 == 0 })
    let mixed = try Data(contentsOf: dir.appendingPathComponent("w/getput-writes-75-25.u8"))
    #expect(mixed.count == 32_768 && mixed.allSatisfy { $0 <= 1 })
    #expect(abs(Double(mixed.filter { $0 == 1 }.count) / 32_768 - 0.25) < 0.02)
    #expect(try Data(contentsOf: dir.appendingPathComponent("v/getput-writes-75-25.u8")) == mixed)
    // A folder that cannot be made is a clear error.
    let blocked = try evlab([
      "bench", "concurrent", "--write-workload", dir.appendingPathComponent("w/getput-keys.u64/x").path,
    ])
    #expect(blocked.status != 0 && blocked.stderr.contains("cannot make"), "\(blocked.stderr)")
  }

  @Test func badMixesAndRepeatedValuesAreRefused() throws {
    for (bad, word) in [
      (["--mix", "70/20"], "--mix"), (["--mix", "75/25,75/25"], "--mix"),
      (["--threads", "2", "--threads", "2"], "--threads"),
      (["--lock", "buffered,buffered"], "--lock"), (["--lock", "spin"], "spin"), (["--seconds", "0"], "--seconds"),
      (["--policy", "belady"], "belady"), (["--operations", "0"], "--operations"),
      (["--write-workload", "/tmp/unused-workload", "--ceiling"], "--ceiling"),
      (["--write-workload", "/tmp/unused-workload", "--json", "-"], "--json"),
    ] {
      let run = try evlab(["bench", "concurrent", "--runs", "1", "--seconds", "0.01"] + bad)
      #expect(run.status != 0 && run.stderr.contains(word), "\(bad): \(run.stderr)")
    }
  }
}
