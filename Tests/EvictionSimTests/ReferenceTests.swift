import EvictionCore
import EvictionExperiments
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import EvictionWorkloads
import Foundation
import Testing

/// Exact agreement with libCacheSim and with the ARC paper: a policy that is
/// off by one miss is wrong.
@Suite struct ReferenceTests {
  /// The reference's algorithm names for the catalog policies compared with it.
  static let policies = [
    "lru": "lru", "fifo": "fifo", "lfu": "lfu", "mru": "mru", "arc": "arc", "slru": "slru",
    "slru(n-seg=5)": "slru:segments=5", "random": "random", "clock": "clock", "sieve": "sieve",
    "s3fifo": MoreTracesReferenceTests.snapshot["s3fifo"]!, "2q": "2q", "lfuda": "lfuda", "belady": "belady",
    "gdsf": MoreTracesReferenceTests.snapshot["gdsf"]!, "wtinylfu": MoreTracesReferenceTests.snapshot["wtinylfu"]!,
    "beladysize": "belady-size", "qdlp": "qdlp",
    "cr_lfu": "cr-lfu", "sr_lru": "sr-lru", "lecar": "lecar", "hyperbolic": "hyperbolic",
    "cacheus": MoreTracesReferenceTests.snapshot["cacheus"]!,
    "lhd": "lhd",
  ]
  /// Every row of the first file whose policy we have: exact, except where
  /// the policy draws random numbers (libCacheSim's generator is not ours),
  /// whose mean miss ratio over eight seeds must lie within 1% (see
  /// ``MoreTracesReferenceTests/disagreements(_:seeds:)``). Hyperbolic's
  /// rows are compared with libCacheSim sampling uniformly instead
  /// (``MoreTracesReferenceTests/hyperbolicAgreesWithLibCacheSimSamplingUniformly()``).
  @Test func everyReferenceRowOfTheCatalogPoliciesAgrees() throws {
    let rows = try SharedData.table("reference/libcachesim_cloudPhysicsIO.tsv", separator: "\t").compactMap {
      row -> [String: String]? in
      guard let spec = Self.policies[row["algorithm"]!], spec != "hyperbolic" else { return nil }
      var row = row
      row["spec"] = spec
      row["match"] = try PolicySpec(spec).descriptor.traits.contains(.randomized) ? "ratio1pct" : "exact"
      return row
    }
    #expect(rows.count >= 886, "the reference lost rows (\(rows.count))")
    #expect(Set(rows.map { $0["format"]! }) == ["txt", "csv", "vscsi", "oracleGeneral"])
    let sampled = Set(rows.filter { $0["match"] == "ratio1pct" }.map { $0["algorithm"]! })
    #expect(sampled.isSuperset(of: ["random", "lecar", "cacheus", "lhd"]))
    let wrong = try MoreTracesReferenceTests.disagreements(rows)
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }

  @Test func arcPaperOLTPFiguresExactly() throws {
    let rows = try SharedData.table("traces/arc/REFERENCE_hit_ratios.csv", separator: ",").filter {
      $0["trace"] == "OLTP"
    }
    #expect(rows.count == 5)
    let trace = TraceSource(path: SharedData.path("traces/arc/OLTP.lis.zst"), format: .arc)
    var cells: [ReplayCell] = []
    for row in rows {
      for policy in ["lru", "arc"] {
        cells.append(
          ReplayCell(
            trace: trace, policy: try PolicySpec(policy), cacheSize: Int64(row["cache_pages"]!)!, sizeMode: .count))
      }
    }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    for (i, row) in rows.enumerated() {
      #expect(results[2 * i].requests == Int64(row["requests"]!)!)
      #expect(results[2 * i].hits == Int64(row["lru_hits"]!)!, "LRU at \(row["cache_pages"]!)")
      #expect(results[2 * i + 1].hits == Int64(row["arc_hits"]!)!, "ARC at \(row["cache_pages"]!)")
    }
  }

  /// CAR has no reference figures. Its paper (Bansal and Modha, FAST'04)
  /// finds it as good as ARC and better than CLOCK and LRU; on the ARC
  /// paper's OLTP trace at the five sizes of its table, CAR's hit ratio lies
  /// within 0.6 points of ARC's and above CLOCK's and LRU's (the paper's
  /// invariants are checked after every request by the conformance suite).
  @Test func carIsCloseToARCAndAboveCLOCKOnOLTP() throws {
    let trace = TraceSource(path: SharedData.path("traces/arc/OLTP.lis.zst"), format: .arc)
    let policies = ["car", "arc", "clock", "lru"]
    var cells: [ReplayCell] = []
    for size: Int64 in [1_000, 2_000, 5_000, 10_000, 15_000] {
      for policy in policies {
        cells.append(ReplayCell(trace: trace, policy: try PolicySpec(policy), cacheSize: size, sizeMode: .count))
      }
    }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    for group in stride(from: 0, to: results.count, by: policies.count) {
      let percent = results[group..<group + policies.count].map { 100 * Double($0.hits) / Double($0.requests) }
      let (car, arc, clock, lru) = (percent[0], percent[1], percent[2], percent[3])
      let size = results[group].cacheSize
      #expect(abs(car - arc) < 0.6, "at \(size): CAR \(car)%, ARC \(arc)%")
      #expect(car > clock && car > lru, "at \(size): CAR \(car)%, CLOCK \(clock)%, LRU \(lru)%")
    }
  }

  @Test func randomIsReproducibleRunToRun() throws {
    let trace = TraceSource(
      path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)
    let a = try TraceReplay.run(trace, policy: PolicySpec("random:seed=7"), cacheSize: 2500, sizeMode: .count)
    let b = try TraceReplay.run(trace, policy: PolicySpec("random:seed=7"), cacheSize: 2500, sizeMode: .count)
    let c = try TraceReplay.run(trace, policy: PolicySpec("random:seed=8"), cacheSize: 2500, sizeMode: .count)
    #expect(a.misses == b.misses && a.bytesMissed == b.bytesMissed)
    #expect(a.misses != c.misses)
  }

  /// Tiling: copy k adds k·(largest id + 1) to every id, so the copies share
  /// no object and every copy after the first starts cold except for what fits.
  @Test func tiledCopiesShareNoObject() throws {
    let path = SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin")
    let one = try TraceReplay.run(
      TraceSource(path: path, format: .oracleGeneral), policy: PolicySpec("lru"), cacheSize: 500, sizeMode: .count)
    let three = try TraceReplay.run(
      TraceSource(path: path, format: .oracleGeneral, copies: 3), policy: PolicySpec("lru"), cacheSize: 500,
      sizeMode: .count)
    #expect(three.requests == 3 * one.requests)
    // At 500 objects the cache forgets the previous copy long before its end.
    #expect(three.misses == 3 * one.misses)
  }

  /// A generated mix uses k·2⁴⁰ for its components' ids; tiling it must not
  /// fold copy 1 of one component onto another (it did, with a fixed 2⁴⁰).
  @Test func tiledCopiesOfAMixShareNoObject() throws {
    var workload = SyntheticWorkload(kind: .mix, objects: 1_000, requests: 20_000)
    workload.components = try SyntheticWorkload.Component.parse("zipf:0.5,uniform:0.5")
    let path = Scratch.path("mix", suffix: ".oracleGeneral")
    let writer = try TraceWriter(path: path, format: .oracleGeneral)
    try writer.write(workload.generate())
    try writer.finish()
    let one = try TraceReplay.run(
      TraceSource(path: path, format: .oracleGeneral), policy: PolicySpec("lru"), cacheSize: 1_000_000, sizeMode: .count
    )
    let two = try TraceReplay.run(
      TraceSource(path: path, format: .oracleGeneral, copies: 2), policy: PolicySpec("lru"), cacheSize: 1_000_000,
      sizeMode: .count)
    // A cache that holds everything misses once per object of each copy.
    #expect(two.misses == 2 * one.misses, "copies shared objects: \(two.misses) misses, \(2 * one.misses) expected")
  }

  /// Formats without next-access times get them from a pre-pass: Belady on
  /// the text and vscsi encodings equals Belady on oracleGeneral.
  @Test func beladyComputesNextAccessWhenTheTraceLacksIt() throws {
    let base = "traces/libcachesim/cloudPhysicsIO."
    var cells: [ReplayCell] = []
    for (file, format) in [("oracleGeneral.bin", TraceFormat.oracleGeneral), ("txt", .txt), ("vscsi", .vscsi)] {
      for size: Int64 in [500, 5000] {
        cells.append(
          ReplayCell(
            trace: TraceSource(path: SharedData.path(base + file), format: format), policy: try PolicySpec("belady"),
            cacheSize: size, sizeMode: .count))
      }
    }
    let misses = try TraceReplay.runAll(cells, parallelism: 2).map(\.misses)
    #expect(misses[0] == 90_175 && misses[1] == 71_311)
    #expect(misses[2...3] == misses[0...1])
    #expect(misses[4...5] == misses[0...1])
  }

  /// With equal weights Belady's MIN is optimal among policies that cache
  /// every missed object (demand paging): no such catalog policy misses less,
  /// on any of these traces and sizes. `belady-size` leaves out objects never
  /// requested again, which demand paging may not, so it is outside the
  /// claim, and so are the models that trim on a timer (they hold more than
  /// their capacity between clean-ups).
  @Test func beladyIsNeverBeatenInCountMode() throws {
    let traces = [
      TraceSource(path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral),
      TraceSource(path: SharedData.path("traces/caffeine/lirs/multi2.trace.gz"), format: .txt),
      TraceSource(path: SharedData.path("traces/caffeine/lirs/ps.trace.gz"), format: .txt),
    ]
    let claimed = PolicyCatalog.entries.filter { $0.name != "belady-size" && !$0.trimsOnATimer }.map(\.name)
    let policies = try (claimed + ["slru:segments=2", "clock:bits=2", "random:seed=5"])
      .map(PolicySpec.init)
    var cells: [ReplayCell] = []
    for trace in traces {
      for size: Int64 in [100, 1000, 5000] {
        for policy in policies {
          cells.append(ReplayCell(trace: trace, policy: policy, cacheSize: size, sizeMode: .count))
        }
      }
    }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    for group in stride(from: 0, to: cells.count, by: policies.count) {
      let slice = Array(results[group..<(group + policies.count)])
      let optimum = slice.first { $0.policy == "belady" }!
      for result in slice {
        #expect(
          result.misses >= optimum.misses, "\(result.policy) beats Belady on \(result.trace) at \(result.cacheSize)")
      }
    }
  }

  /// LIRS as its authors' code computes it, and LRU and Belady's optimum
  /// beside it, on the LIRS paper's traces at its authors' cache sizes (the
  /// file gives hit percentages to two decimals).
  @Test func lirsAuthorsFiguresOnTheLIRSTraces() throws {
    let rows = try SharedData.table("traces/caffeine/lirs/REFERENCE_hit_ratios.csv", separator: ",")
    #expect(rows.count >= 140)
    let columns = [("lirs", "lirs_ref_hit_pct"), ("lru", "lru_hit_pct"), ("belady", "opt_hit_pct")]
    var cells: [ReplayCell] = []
    for row in rows {
      let trace = TraceSource(path: SharedData.path("traces/caffeine/lirs/\(row["trace"]!).trace.gz"), format: .txt)
      for (policy, _) in columns {
        cells.append(
          ReplayCell(
            trace: trace, policy: try PolicySpec(policy), cacheSize: Int64(row["cache_size"]!)!, sizeMode: .count))
      }
    }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    for (i, row) in rows.enumerated() {
      #expect(results[3 * i].requests == Int64(row["refs"]!)!)
      for (j, (policy, column)) in columns.enumerated() {
        let result = results[3 * i + j]
        let percent = 100 * Double(result.hits) / Double(result.requests)
        #expect(
          abs(percent - Double(row[column]!)!) <= 0.005 + 1e-9,
          "\(policy) on \(row["trace"]!) at \(row["cache_size"]!): \(percent) vs \(row[column]!)")
      }
    }
  }

  /// LRU on the Scarab recommendation trace, as its README recomputes it
  /// (hit %, two decimals; 75.91 at 100k equals the figure published in
  /// Caffeine's issue #106).
  @Test func scarabLRUFiguresFromItsReadme() throws {
    let trace = TraceSource(path: SharedData.path("traces/caffeine/scarab/scarab-recs.trace.xz"), format: .scarab)
    let expected: [(Int64, Double)] = [(25_000, 60.13), (50_000, 69.15), (75_000, 73.51), (100_000, 75.91)]
    let cells = expected.map {
      ReplayCell(trace: trace, policy: try! PolicySpec("lru"), cacheSize: $0.0, sizeMode: .count)
    }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    for (result, (size, percent)) in zip(results, expected) {
      let hitPercent = (Double(result.hits) / Double(result.requests) * 10_000).rounded() / 100
      #expect(hitPercent == percent, "LRU at \(size): \(hitPercent)%")
    }
  }
}

/// libCacheSim on seven more traces (the LIRS paper's and cache2k's web12)
/// at small sizes: every row of a catalog policy, exact. libCacheSim read
/// these ids as strings, numbering them 1, 2, 3, … by first appearance
/// (`g_quark_from_string`), so they are replayed with that numbering: only
/// W-TinyLFU's sketch, which hashes ids, can tell (with the raw ids it
/// differs on 15 of its 18 rows; with these it agrees on all).
@Suite struct MoreTracesReferenceTests {
  /// The reference's algorithm (and eviction parameters) → our spec; nil
  /// for a policy or an admission we do not have.
  static func spec(_ row: [String: String]) -> String? {
    if let given = row["spec"] { return given }
    guard admission(row) != nil else { return nil }
    let params = row["eviction_params"] ?? ""
    switch (row["algorithm"]!, params) {
    case ("clock", "n-bit-counter=2"): return "clock:bits=2"
    case (let name, "") where snapshot[name] != nil: return snapshot[name]
    case (let name, ""): return PolicyCatalog.entry(named: name) != nil ? name : nil
    default: return nil
    }
  }

  /// The older files' policies that libCacheSim has changed since its 2024
  /// snapshot (aa0fc40): our specs for the snapshot's definitions (the
  /// catalog names follow release 0.3.5, ``Release035ReferenceTests``).
  static let snapshot = [
    "s3fifo": "s3fifo-v0", "wtinylfu": "wtinylfu-v0", "gdsf": "gdsf:v0=true", "fifo-merge": "fifo-merge:v0=true",
    "cacheus": "cacheus:v0=true",
  ]

  /// The reference's admission (and its parameters) → our spec. libCacheSim's
  /// `size=N` admits sizes below N, ours `size:max=N` up to N.
  static func admission(_ row: [String: String]) -> String? {
    switch (row["admission"] ?? "", row["admission_params"] ?? "") {
    case ("", ""): return "none"
    case ("bloom-filter", ""): return "bloom-filter"
    case ("prob", let params) where params.hasPrefix("prob="): return "prob:p=" + params.dropFirst(5)
    case ("size", let params) where params.hasPrefix("size="): return "size:max=\(Int64(params.dropFirst(5))! - 1)"
    default: return nil
    }
  }

  static func source(_ row: [String: String]) throws -> TraceSource {
    // cloudPhysicsIO (the more-policies file) was read with its numeric ids,
    // and so was every trace of a file whose rows say so.
    let isCloudPhysics = row["trace"]!.hasPrefix("cloudPhysicsIO")
    if row["renumber_ids"] == "false" {
      var source = TraceSource(
        path: SharedData.path("traces/" + row["trace"]!), format: try TraceFormat(name: row["format"]!))
      if let key = row["key_column"].flatMap({ Int($0) }) {
        source.csv = CSVOptions(
          delimiter: row["delimiter"]?.utf8.first, header: .no, keyColumn: key,
          sizeColumn: row["size_column"].flatMap { Int($0) }, timeColumn: row["time_column"].flatMap { Int($0) })
      }
      return source
    }
    let path = isCloudPhysics ? "libcachesim/" + row["trace"]! : row["trace"]!
    var source = TraceSource(path: SharedData.path("traces/" + path), format: try TraceFormat(name: row["format"]!))
    source.renumberIDs = !isCloudPhysics
    return source
  }

  /// Rows (algorithm and size, in any encoding) where libCacheSim's sampler,
  /// not the policy, sets the figure, allowed 2.5% instead of 1%: its Random
  /// draws the head of a random hash bucket, so an object behind another in
  /// its bucket is never a candidate (see ``uniformHyperbolic``); ours draws
  /// uniformly among residents.
  static let headSampledRows: Set = ["random 536870912"]

  /// Rows whose reference figure is an outlier of libCacheSim's own draws:
  /// libCacheSim seeds its generator differently run to run, and ten runs
  /// of `cachesim 2_pools.txt txt lhd 100 --ignore-obj-size 1` (this
  /// machine, 2026-11-23) gave 0.5560 once, 0.5621 once and 0.5625 eight
  /// times, where the file has 0.55325. There the mean must lie within 1%
  /// of the range libCacheSim's runs span.
  static let libCacheSimRuns: [String: ClosedRange<Double>] = [
    "lhd caffeine/lirs/2_pools.trace.gz 100": 0.5560...0.5625
  ]

  /// libCacheSim's Hyperbolic with uniform draws, miss ratios as its
  /// `cachesim` prints them (4 decimals), by trace and size. Its own draws
  /// take the head of a random bucket of its hash table, which starts at 2¹²
  /// buckets and doubles only when it holds more objects than buckets, so an
  /// object behind another in its bucket (a large share of them) is never a
  /// candidate; on these traces that moves its miss ratio by up to 5.4% (gli
  /// at 1,200: 0.7388, where uniform draws give 0.7766). Measured with the same
  /// libCacheSim changed in two places: `Hyperbolic_init` sizes the table at
  /// 64 buckets or more per object (2²⁰ for byte-mode sizes and counts from
  /// 2¹⁴), and `Hyperbolic_to_evict` passes each `next_rand()` through
  /// SplitMix64's finaliser before masking it to a bucket (retrying empty
  /// ones); then `cachesim TRACE oracleGeneral hyperbolic SIZE
  /// --ignore-obj-size 0|1`, the LIRS and cache2k traces converted by `evlab
  /// convert --renumber-ids --to oracleGeneral`. Mixing alone changes nothing.
  static let uniformHyperbolic: [String: Double] = [
    "multi1 50": 0.9747, "multi1 200": 0.5682, "multi1 800": 0.5113,
    "multi3 100": 0.9325, "multi3 500": 0.6624, "multi3 2000": 0.5346,
    "2_pools 100": 0.7510, "2_pools 1000": 0.4556, "2_pools 5000": 0.2704,
    "zigzag 100": 0.9533, "zigzag 500": 0.7642, "zigzag 1500": 0.5161,
    "cpp 30": 0.9917, "cpp 150": 0.1959, "cpp 600": 0.1405,
    "gli 50": 0.9909, "gli 300": 0.9885, "gli 1200": 0.7766,
    "web12 100": 0.6240, "web12 1000": 0.3235, "web12 5000": 0.1857,
    "cloudPhysicsIO 16777216": 0.8317, "cloudPhysicsIO 67108864": 0.8231, "cloudPhysicsIO 134217728": 0.8160,
    "cloudPhysicsIO 268435456": 0.7858, "cloudPhysicsIO 536870912": 0.7129, "cloudPhysicsIO 1073741824": 0.5730,
    "cloudPhysicsIO 500": 0.8343, "cloudPhysicsIO 1000": 0.8277, "cloudPhysicsIO 2500": 0.8201,
    "cloudPhysicsIO 5000": 0.8018, "cloudPhysicsIO 10000": 0.7428, "cloudPhysicsIO 25000": 0.5790,
    "cloudPhysicsIO 402653184": 0.7329, "cloudPhysicsIO 671088640": 0.6547, "cloudPhysicsIO 805306368": 0.6251,
    "cloudPhysicsIO 939524096": 0.6100,
  ]

  /// Hyperbolic against libCacheSim's Hyperbolic sampling uniformly
  /// (``uniformHyperbolic``), on every trace and size of its reference rows:
  /// cloudPhysicsIO (oracleGeneral, both size modes) and the seven more traces.
  @Test func hyperbolicAgreesWithLibCacheSimSamplingUniformly() throws {
    let first = try SharedData.table("reference/libcachesim_cloudPhysicsIO.tsv", separator: "\t").filter {
      $0["algorithm"] == "hyperbolic" && $0["format"] == "oracleGeneral"
    }
    let more = try SharedData.table("reference/libcachesim_more_traces.tsv", separator: "\t").filter {
      $0["algorithm"] == "hyperbolic"
    }
    let rows = (first + more).map { row -> [String: String] in
      let trace = String(row["trace"]!.split(separator: "/").last!.split(separator: ".").first!)
      var row = row
      row["spec"] = "hyperbolic"
      row["match"] = "ratio1pct"
      row["miss_ratio_exact"] = Self.uniformHyperbolic["\(trace) \(row["cache_size"]!)"].map { String($0) }
      return row
    }
    #expect(rows.count == 37 && rows.allSatisfy { $0["miss_ratio_exact"] != nil })
    let wrong = try Self.disagreements(rows)
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }

  /// Seeds a randomised policy runs with against a `ratio1pct` row.
  static let seeds: [UInt64] = Array(1...8)

  /// Replays every row and lists those that disagree: misses (and bytes
  /// missed in byte mode) exactly where `match` is `exact`. Where it is
  /// `ratio1pct` (libCacheSim draws from its own generator), the mean miss
  /// ratio over ``seeds`` must lie within 1% relative of libCacheSim's, or,
  /// on traces so small that seeds differ by more, within 4 standard
  /// deviations of the seeds' ratios.
  static func disagreements(_ rows: [[String: String]], seeds: [UInt64] = Self.seeds) throws -> [String] {
    var cells: [ReplayCell] = []
    for row in rows {
      let sampled = row["match"] == "ratio1pct"
      // The seed goes to whichever draws: the policy, or else the admission.
      let randomPolicy = try PolicySpec(spec(row)!).descriptor.traits.contains(.randomized)
      for seed in sampled ? seeds : [0] {
        let given = spec(row)!
        let seeded = sampled && randomPolicy ? (given.contains(":") ? "," : ":") + "seed=\(seed)" : ""
        let policy = try PolicySpec(given + seeded)
        let admission = try AdmissionSpec(admission(row)! + (sampled && !randomPolicy ? ",seed=\(seed)" : ""))
        cells.append(
          ReplayCell(
            trace: try source(row), policy: policy, cacheSize: Int64(row["cache_size"]!)!,
            sizeMode: SizeMode(rawValue: row["size_mode"]!)!, admission: admission))
      }
    }
    var results = try TraceReplay.runAll(cells, parallelism: 2)[...]
    var wrong: [String] = []
    for row in rows {
      let what = "\(spec(row)!) (\(admission(row)!)) on \(row["trace"]!) at \(row["cache_size"]!) \(row["size_mode"]!)"
      let runs = results.prefix(row["match"] == "ratio1pct" ? seeds.count : 1)
      results = results.dropFirst(runs.count)
      if runs.contains(where: { $0.requests != Int64(row["n_req"]!)! }) { wrong.append("\(what): request count") }
      switch row["match"] {
      case "exact":
        let result = runs.first!
        let bytesDiffer = row["size_mode"] == "bytes" && result.bytesMissed != Int64(row["n_miss_byte"]!)!
        if result.misses != Int64(row["n_miss"]!)! || bytesDiffer {
          wrong.append(
            "\(what): \(result.misses) misses, \(result.bytesMissed) bytes; libCacheSim \(row["n_miss"]!), \(row["n_miss_byte"]!)"
          )
        }
      case "ratio1pct":
        let reference = Double(row["miss_ratio_exact"]!)!
        let ratios = runs.map(\.missRatio)
        let mean = ratios.reduce(0, +) / Double(ratios.count)
        let deviation = (ratios.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(ratios.count - 1)).squareRoot()
        let tolerance = headSampledRows.contains("\(row["algorithm"]!) \(row["cache_size"]!)") ? 0.025 : 0.01
        if let runs = libCacheSimRuns["\(row["algorithm"]!) \(row["trace"]!) \(row["cache_size"]!)"] {
          if mean < runs.lowerBound * 0.99 || mean > runs.upperBound * 1.01 {
            wrong.append("\(what): mean miss ratio \(mean), libCacheSim's runs \(runs)")
          }
        } else if abs(mean - reference) >= max(tolerance * reference, 4 * deviation) {
          wrong.append("\(what): mean miss ratio \(mean) (sd \(deviation)), libCacheSim \(reference)")
        }
      default:
        wrong.append("\(what): unknown match '\(row["match"] ?? "")'")
      }
    }
    return wrong
  }

  /// Every row but Hyperbolic's (compared with libCacheSim sampling
  /// uniformly, ``hyperbolicAgreesWithLibCacheSimSamplingUniformly()``) and
  /// `randomTwo`'s: libCacheSim draws its two candidates as
  /// `next_rand() & mask` over a hash table of 2²⁰ buckets, the low 20 bits
  /// of a 64-bit LCG, which walk all buckets in one fixed cycle: its two
  /// candidates are neighbours in that cycle, not independent draws. On these
  /// small traces that is a different policy: on cpp at 150 objects
  /// libCacheSim's miss ratio is 0.238, and the same libCacheSim with its
  /// generator's output mixed (SplitMix64's finaliser) gives 0.262, inside the
  /// 0.256–0.264 that uniform draws give over 20 seeds here. On cloudPhysicsIO
  /// the two agree within 1% (``morePoliciesOnCloudPhysicsAgree()``).
  @Test func everyRowOfACatalogPolicyAgrees() throws {
    let rows = try SharedData.table("reference/libcachesim_more_traces.tsv", separator: "\t").filter {
      Self.spec($0) != nil && !["randomTwo", "hyperbolic"].contains($0["algorithm"]!)
    }
    #expect(rows.count >= 339, "the reference lost rows (\(rows.count))")
    #expect(rows.contains { $0["algorithm"] == "wtinylfu" })
    let wrong = try Self.disagreements(rows)
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }

  /// S3-FIFO-D's share moves on a third of its reference rows,
  /// so their exact agreement covers the moving share and not only its start.
  @Test func s3fifodsShareMovesOnReferenceTraces() throws {
    var moved: [String] = []
    for file in ["libcachesim_more_policies.tsv", "libcachesim_more_traces.tsv"] {
      for row in try SharedData.table("reference/" + file, separator: "\t") where row["algorithm"] == "s3fifod" {
        let capacity = Int64(row["cache_size"]!)!
        let bytes = row["size_mode"] == "bytes"
        var policy = S3FIFODPolicy<IntegerSlotIndex<UInt64>>(capacity: capacity)
        try Self.source(row).forEachBatch { batch, _ in
          for record in batch { _ = policy.access(Request(key: record.key, weight: bytes ? record.size : 1)) }
        }
        if policy.currentFIFOCapacity != capacity / 10 {
          moved.append("\(row["trace"]!) \(capacity): \(policy.currentFIFOCapacity)")
        }
      }
    }
    // 9 of the 33 rows: cloudPhysicsIO at 10,000 (the FIFO ends at 990),
    // 2_pools, zigzag and web12.
    #expect(moved.count >= 9, "the share moved only on \(moved)")
  }

  /// The policies the first file lacks, on cloudPhysicsIO in both size modes.
  @Test func morePoliciesOnCloudPhysicsAgree() throws {
    let rows = try SharedData.table("reference/libcachesim_more_policies.tsv", separator: "\t").filter {
      Self.spec($0) != nil
    }
    let covered = Set(rows.map { Self.spec($0)! })
    let expected: Set = [
      "clock:bits=2", "sfifo", "size", "lru-prob", "randomTwo", Self.snapshot["fifo-merge"]!, "lp-arc", "lp-twoq",
      "lp-sfifo", "s3fifod",
    ]
    #expect(expected.isSubset(of: covered), "rows missing for \(expected.subtracting(covered).sorted())")
    let admissions = Set(rows.map { Self.admission($0)! })
    #expect(admissions == ["none", "bloom-filter", "prob:p=0.5", "size:max=65535"])
    #expect(Set(rows.map { $0["size_mode"]! }) == ["count", "bytes"])
    let wrong = try Self.disagreements(rows)
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }
}
