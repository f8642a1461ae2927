import Foundation
import Testing

@Suite struct CompareCommandTests {
  /// A small sweep with a randomised policy and a generated trace, so that
  /// rows carry several runs and intervals.
  func writeConfig(in dir: URL, name: String = "sweep", extra: String = "") throws -> String {
    let text = """
      name = "\(name)"
      policies = ["lru", "fifo", "arc", "s3fifo", "random", "belady"]
      sizes = [200, "1%", "5%"]
      seeds = [1, 2, 3]
      \(extra)
      [[traces]]
      path = "\(sharedTraces)/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
      [[traces]]
      path = "\(repositoryRoot.path)/traces/loop-3000.oracleGeneral.zst"
      [[traces]]
      name = "zipf-small"
      generate = "zipf"
      objects = 3000
      requests = 30000
      """
    let path = dir.appendingPathComponent("\(name).toml").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  func read(_ dir: URL, _ name: String) throws -> String {
    try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
  }

  @Test func shardsMergeIntoExactlyTheSingleRunsOutputs() throws {
    let dir = try scratchDirectory()
    let config = try writeConfig(in: dir)
    let single = try evlab(["compare", "--config", config, "--output", "single"], in: dir)
    #expect(single.status == 0, "\(single.stderr)")
    // Three shards as three processes at once, as a job array runs them.
    let shards = 3
    let runs = try (1...shards).map { i -> Process in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: evlabPath)
      process.arguments = [
        "compare", "--config", config, "--shard", "\(i)/\(shards)", "--output", "parts/\(i)", "--jobs", "1",
      ]
      process.currentDirectoryURL = dir
      process.standardError = FileHandle.nullDevice
      try process.run()
      return process
    }
    for process in runs {
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
    }
    let merge = try evlab(["merge", "parts/1", "parts/2", "parts/3", "-o", "merged"], in: dir)
    #expect(merge.status == 0, "\(merge.stderr)")
    let singleCSV = try read(dir, "single/results.csv")
    #expect(try read(dir, "merged/results.csv") == singleCSV)
    // The data agree to the byte; only the provenance (command, date) differs.
    func withoutProvenance(_ text: String) -> String {
      text.components(separatedBy: "\n## Provenance")[0].split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("  \"provenance\": ") }.joined(separator: "\n")
    }
    #expect(
      try withoutProvenance(read(dir, "merged/results.json")) == withoutProvenance(read(dir, "single/results.json")))
    #expect(try withoutProvenance(read(dir, "merged/report.md")) == withoutProvenance(read(dir, "single/report.md")))
    let provenance = try read(dir, "merged/provenance.json")
    #expect(
      provenance.contains("\"command\": ") && provenance.contains(" merge ") && provenance.contains("\"seeds\": ["))
    #expect(try read(dir, "single/results.json").contains("\"provenance\": {\"tool\": \"evlab\", \"version\": "))
    #expect(
      try read(dir, "single/report.md").contains("## Provenance")
        && read(dir, "single/report.html").contains("<footer class=\"provenance\" id=\"provenance\">"))
    // 3 traces × 6 policies × 3 sizes; random and the generated trace ran per seed.
    let lines = singleCSV.split(separator: "\n")
    #expect(lines.count == 1 + 3 * 6 * 3)
    #expect(lines.filter { $0.contains(",random,") }.allSatisfy { $0.split(separator: ",")[13] == "3" })
    #expect(lines.filter { $0.hasPrefix("zipf-small,") }.allSatisfy { $0.split(separator: ",")[13] == "3" })
    for file in ["report.html", "timings.csv", "traces.json"] {
      #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("merged/\(file)").path))
    }
  }

  /// Each admission is a row per policy and size, named `policy + admission`
  /// in the report; a seeded admission runs once per seed; shards still
  /// merge into the single run's bytes.
  @Test func admissionsAreRowsAndLabelsAndShardsStillMerge() throws {
    let dir = try scratchDirectory()
    let config = try writeConfig(
      in: dir, name: "admitted", extra: "admissions = [\"none\", \"bloom-filter\", \"prob:p=0.5\"]")
    let single = try evlab(["compare", "--config", config, "--output", "single"], in: dir)
    #expect(single.status == 0, "\(single.stderr)")
    for i in 1...2 {
      let shard = try evlab(["compare", "--config", config, "--shard", "\(i)/2", "--output", "parts/\(i)"], in: dir)
      #expect(shard.status == 0, "\(shard.stderr)")
    }
    let merge = try evlab(["merge", "parts/1", "parts/2", "-o", "merged"], in: dir)
    #expect(merge.status == 0, "\(merge.stderr)")
    let csv = try read(dir, "single/results.csv")
    #expect(try read(dir, "merged/results.csv") == csv)
    // The summary sums over traces in a fixed order: the same bytes from every process.
    #expect(try read(dir, "merged/summary.csv") == read(dir, "single/summary.csv"))
    let lines = csv.split(separator: "\n")
    let header = lines[0].split(separator: ",").map(String.init)
    // Columns are only ever appended: admission, then the across-trace ones, the warm-up and the share.
    #expect(
      Array(header.suffix(6)) == [
        "admission", "dataset", "reduction_from_fifo", "reduction_from_lru", "warmup_requests", "size_share",
      ])
    let admissionColumn = try #require(header.firstIndex(of: "admission"))
    // 6 policies × 3 admissions × 3 sizes × 3 traces.
    #expect(lines.count - 1 == 6 * 3 * 3 * 3)
    let lruPerAdmission = lines.dropFirst().filter {
      $0.hasPrefix("cloudPhysicsIO.oracleGeneral.bin,oracleGeneral,lru,200,")
    }
    #expect(
      lruPerAdmission.map { String($0.split(separator: ",", omittingEmptySubsequences: false)[admissionColumn]) } == [
        "none", "bloom-filter", "prob:p=0.5",
      ])
    // prob draws: three runs (the seeds) on a recorded trace; bloom-filter one.
    let runs = try #require(header.firstIndex(of: "runs"))
    #expect(lruPerAdmission.map { $0.split(separator: ",")[runs] } == ["1", "1", "3"])
    let report = try read(dir, "single/report.md")
    #expect(report.contains("lru + bloom-filter") && report.contains("fifo + prob:p=0.5"))
    #expect(report.contains("3 admissions (none, bloom-filter, prob:p=0.5)"))
  }

  @Test func shardsThatDoNotBelongTogetherAreRefused() throws {
    let dir = try scratchDirectory()
    let a = try writeConfig(in: dir, name: "a")
    let b = try writeConfig(in: dir, name: "b", extra: "skip_bad_lines = true")
    for (config, shard, output) in [(a, "1/2", "a1"), (a, "2/2", "a2"), (b, "2/2", "b2"), (a, "1/3", "a13")] {
      let run = try evlab(
        ["compare", "--config", config, "--shard", shard, "--output", output, "--jobs", "1"], in: dir)
      #expect(run.status == 0, "\(run.stderr)")
    }
    // A shard written by an older evlab (partial format 1) and a JSON file
    // that is no partial result at all.
    let partial = try read(dir, "a1/partial-1-of-2.json")
    let older = partial.replacingOccurrences(of: "\"evlab_partial\":3", with: "\"evlab_partial\":1")
    let changed = older != partial
    #expect(changed, "the version key is written as the test expects")
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("old"), withIntermediateDirectories: true)
    try older.write(to: dir.appendingPathComponent("old/partial-1-of-2.json"), atomically: true, encoding: .utf8)
    try "{\"rows\": []}".write(to: dir.appendingPathComponent("junk.json"), atomically: true, encoding: .utf8)
    let cases: [([String], String)] = [
      (["old", "a2"], "format 1, from another version of evlab"),
      (["junk.json", "a2"], "not a partial result of evlab compare"),
      (["a1", "b2"], "different sweeps"),
      (["a1", "a13"], "different sweeps"),
      (["a1"], "2/2 are missing"),
      (["a1", "a1/partial-1-of-2.json", "a2"], "appears twice"),
      (["nowhere"], "no such folder"),
    ]
    for (inputs, words) in cases {
      let run = try evlab(["merge"] + inputs + ["-o", "out"], in: dir)
      #expect(run.status == 1 && run.stderr.contains(words), "\(inputs): \(run.stderr)")
      #expect(run.stderr.split(separator: "\n").count == 1)
    }
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path), "nothing written on error")
  }

  /// Shards that read different files under one relative path (run from
  /// two folders), a partial whose counts were edited while their sum was
  /// kept, one from another evlab, and one whose ratio alone was edited: all
  /// are refused (the digest covers every column as the file holds it); the
  /// shards as written merge into the single run's results.
  @Test func mergeProvesTheShardsBelongTogether() throws {
    let dir = try scratchDirectory()
    let manager = FileManager.default
    for (folder, trace) in [("here", "loop-3000"), ("there", "zipf-0.9")] {
      try manager.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
      try manager.copyItem(
        atPath: "\(repositoryRoot.path)/traces/\(trace).oracleGeneral.zst",
        toPath: dir.appendingPathComponent("\(folder)/t.oracleGeneral.zst").path)
      try "policies = [\"lru\", \"fifo\"]\nsizes = [100, 400]\n[[traces]]\npath = \"t.oracleGeneral.zst\"\n".write(
        to: dir.appendingPathComponent("\(folder)/sweep.toml"), atomically: true, encoding: .utf8)
    }
    for (folder, shard) in [("here", 1), ("here", 2), ("there", 2)] {
      let run = try evlab(
        ["compare", "--config", "sweep.toml", "--shard", "\(shard)/2", "--output", "../\(folder)\(shard)"],
        in: dir.appendingPathComponent(folder))
      #expect(run.status == 0, "\(run.stderr)")
    }
    let single = try evlab(
      ["compare", "--config", "sweep.toml", "--output", "../single"], in: dir.appendingPathComponent("here"))
    #expect(single.status == 0, "\(single.stderr)")
    let partial = try read(dir, "here1/partial-1-of-2.json")
    #expect(partial.contains("\"evlab_version\":\"") && partial.contains("\"digest\":\"stream:"))
    // Edit the first result's counts, keeping their sum; then another version; then only a ratio.
    func edited(_ name: String, _ change: (inout [String: Any]) -> Void) throws {
      var object = try #require(JSONSerialization.jsonObject(with: Data(partial.utf8)) as? [String: Any])
      change(&object)
      let folder = dir.appendingPathComponent(name)
      try manager.createDirectory(at: folder, withIntermediateDirectories: true)
      try JSONSerialization.data(withJSONObject: object).write(to: folder.appendingPathComponent("partial-1-of-2.json"))
    }
    func editFirstResult(_ object: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
      var results = object["results"] as! [[String: Any]]
      change(&results[0])
      object["results"] = results
    }
    try edited("hits") { object in
      editFirstResult(&object) { result in
        result["hits"] = (result["hits"] as! Int) + 10
        result["misses"] = (result["misses"] as! Int) - 10
      }
    }
    try edited("sum") { object in editFirstResult(&object) { $0["misses"] = ($0["misses"] as! Int) + 10 } }
    try edited("version") { $0["evlab_version"] = "0.0.1" }
    try edited("ratio") { object in editFirstResult(&object) { $0["miss_ratio"] = 0.001 } }
    try edited("objects") { object in
      var traces = object["traces"] as! [[String: Any]]
      traces[0]["unique_objects"] = 100
      object["traces"] = traces
    }
    try edited("notraces") { $0["traces"] = [[String: Any]]() }
    try edited("seconds") { object in editFirstResult(&object) { $0["seconds"] = -1 } }
    try edited("commit") { $0["evlab_commit"] = "aaaaaaaaaaaa" }
    let cases: [([String], String)] = [
      (["here1", "there2"], "read different files as trace 't.oracleGeneral.zst'"),
      (["hits", "here2"], "counts do not match their digest"),
      (["sum", "here2"], "counts do not match their digest"),
      (["version", "here2"], "written by evlab 0.0.1"),
      (["objects", "here2"], "counts do not match their digest"),
      (["notraces", "here2"], "counts do not match their digest"),
      (["seconds", "here2"], "counts do not match their digest"),
      (["commit", "here2"], "at commit aaaaaaaaaaaa"),
      // A ratio is computed again from the counts, but an edited one is an edited file.
      (["ratio", "here2"], "counts do not match their digest"),
    ]
    for (inputs, words) in cases {
      let run = try evlab(["merge"] + inputs + ["-o", "out"], in: dir)
      #expect(run.status == 1 && run.stderr.contains(words), "\(inputs): \(run.stderr)")
    }
    #expect(!manager.fileExists(atPath: dir.appendingPathComponent("out").path), "nothing written on error")
    let merged = try evlab(["merge", "here1", "here2", "-o", "merged"], in: dir)
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(try read(dir, "merged/results.csv") == read(dir, "single/results.csv"))
  }

  @Test func badConfigurationsFailInOneLineBeforeAnyWork() throws {
    let dir = try scratchDirectory()
    let cases: [(String, String)] = [
      (
        "policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"missing.oracleGeneral\"\n",
        "missing.oracleGeneral does not exist"
      ),
      (
        "policies = [\"lru\", \"nope\"]\nsizes = [10]\n[[traces]]\npath = \"\(repositoryRoot.path)/traces/loop-3000.oracleGeneral.zst\"\n",
        "unknown policy 'nope'"
      ),
      (
        "policies = [\"lru\"]\nsizes = []\n[[traces]]\npath = \"\(repositoryRoot.path)/traces/loop-3000.oracleGeneral.zst\"\n",
        "sizes is empty"
      ),
      (
        "policies = [\"lru\"]\nsize = [10]\n[[traces]]\npath = \"\(repositoryRoot.path)/traces/loop-3000.oracleGeneral.zst\"\n",
        "unknown key 'size'"
      ),
      ("policies = [\"lru\"\n", "not closed"),
    ]
    for (i, (text, words)) in cases.enumerated() {
      let path = dir.appendingPathComponent("bad\(i).toml").path
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      let run = try evlab(["compare", "--config", path, "--output", "out\(i)"], in: dir)
      #expect(run.status == 1, "\(text)")
      #expect(
        run.stderr.hasPrefix("evlab: error: ") && run.stderr.contains(words) && run.stderr.contains("bad\(i).toml"),
        "\(run.stderr)")
      #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out\(i)").path))
    }
    let missing = try evlab(["compare", "--config", "nothere.toml"], in: dir)
    #expect(missing.status == 1 && missing.stderr.contains("nothere.toml: no such configuration file"))
    // Outside the repository, a bare `compare` says what to give, not that a default file is missing.
    let bare = try evlab(["compare"], in: dir)
    #expect(bare.status == 1 && bare.stderr.contains("nothing to compare; give --trace FILE"), "\(bare.stderr)")
    #expect(!bare.stderr.contains("no such configuration file"), "\(bare.stderr)")
    let shard = try evlab(["compare", "--config", "x.toml", "--shard", "4/3", "--output", "o"], in: dir)
    #expect(shard.status == 1 && shard.stderr.contains("--shard '4/3'"))
  }

  @Test func flagsRunTheSameSweepAsAConfiguration() throws {
    let dir = try scratchDirectory()
    let trace = "\(repositoryRoot.path)/traces/zipf-0.9.oracleGeneral.zst"
    let fromFlags = try evlab(
      ["compare", "--trace", trace, "--policy", "lru,arc", "--size", "100,1%", "--output", "flags"], in: dir)
    #expect(fromFlags.status == 0, "\(fromFlags.stderr)")
    try "name = \"x\"\npolicies = [\"lru\", \"arc\"]\nsizes = [100, \"1%\"]\n[[traces]]\npath = \"\(trace)\"\n"
      .write(toFile: dir.appendingPathComponent("c.toml").path, atomically: true, encoding: .utf8)
    let fromFile = try evlab(["compare", "--config", "c.toml", "--output", "file"], in: dir)
    #expect(fromFile.status == 0, "\(fromFile.stderr)")
    #expect(try read(dir, "flags/results.csv") == read(dir, "file/results.csv"))
    // And the rows are the replay's numbers.
    let replay = try evlab(["replay", trace, "--policy", "lru,arc", "--size", "100", "--csv", "-"], in: dir)
    let replayRows = replay.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    let compareRows = try read(dir, "file/results.csv").split(separator: "\n").dropFirst().map {
      $0.split(separator: ",")
    }
    for r in replayRows {
      let match = compareRows.first { $0[2] == r[2] && $0[4] == r[3] }
      // hits, misses, miss_ratio, bytes_requested, bytes_missed agree.
      #expect(match.map { [$0[7], $0[8], $0[9], $0[10], $0[11]] } == [r[6], r[7], r[8], r[9], r[10]])
    }
  }

  /// Outputs are checked before the first replay: a file where a folder
  /// goes, a folder where a file goes, a path under a file. Each fails at
  /// once, in one line, with nothing written.
  @Test func anOutputThatCannotBeWrittenFailsBeforeAnyWork() throws {
    let dir = try scratchDirectory()
    let trace = "\(repositoryRoot.path)/traces/zipf-0.9.oracleGeneral.zst"
    try "x".write(to: dir.appendingPathComponent("file"), atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("folder"), withIntermediateDirectories: true)
    let cases: [([String], String)] = [
      (["compare", "--trace", trace, "--policy", "lru", "--size", "100", "-o", "file"], "is a file, not a folder"),
      (["compare", "--trace", trace, "--policy", "lru", "--size", "100", "-o", "file/x"], "file is a file"),
      (["replay", trace, "--policy", "lru", "--size", "100", "--csv", "folder"], "is a folder"),
      (["replay", trace, "--policy", "lru", "--size", "100", "--json", "file/r.json"], "file is a file"),
      (["mrc", trace, "--policy", "lru", "--csv", "folder"], "is a folder"),
      (["merge", "folder", "-o", "file"], "is a file, not a folder"),
    ]
    for (arguments, words) in cases {
      let run = try evlab(arguments, in: dir)
      #expect(run.status != 0 && run.stderr.contains(words), "\(arguments): \(run.stderr)")
      #expect(run.stderr.split(separator: "\n").count <= 2, "\(arguments): \(run.stderr)")
    }
    #expect(try String(contentsOf: dir.appendingPathComponent("file"), encoding: .utf8) == "x")
  }

  /// In byte mode a cache smaller than every object holds nothing: every
  /// policy misses every request, and no policy is named best.
  @Test func aSizeAtWhichNothingFitsRanksNoPolicy() throws {
    let dir = try scratchDirectory()
    let trace = "\(repositoryRoot.path)/traces/zipf-0.9.oracleGeneral.zst"
    let run = try evlab(
      [
        "compare", "--trace", trace, "--policy", "lru,fifo", "--size", "1000,1%", "--size-mode", "bytes",
        "--output", "out",
      ], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let report = try read(dir, "out/report.md")
    #expect(report.contains("No policy caches anything at this size"))
    #expect(report.components(separatedBy: "Best: ").count == 2, "one size ranked: \(report)")
  }

  @Test func aDiskSectionMeasuresTheStoreAndChartsIt() throws {
    let dir = try scratchDirectory()
    let path = try writeConfig(in: dir, name: "withdisk", extra: "")
    var text = try String(contentsOfFile: path, encoding: .utf8)
    text +=
      "\n[disk]\nmodes = [\"file\", \"sqlite\"]\nvalue_sizes = [256, \"64k\"]\nops = 20\nrounds = 2\ninline_threshold = \"32k\"\n"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let run = try evlab(["compare", "--config", path, "--output", "out"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let disk = try read(dir, "out/disk.csv").split(separator: "\n")
    #expect(disk.count == 1 + 2 * 2 * 4 && disk[0].hasPrefix("mode,value_size,phase,ops"))
    #expect(disk[0].hasSuffix(",rounds") && disk.dropFirst().allSatisfy { $0.hasSuffix(",2") }, "medians of two rounds")
    let html = try read(dir, "out/report.html")
    #expect(html.contains("Disk store reads (hits) by value size") && html.contains("Disk store writes by value size"))
    let markdown = try read(dir, "out/report.md")
    #expect(markdown.contains("## The disk store") && markdown.contains("Best inline threshold measured: "))
    // A bad [disk] key is refused before any work.
    try (text + "colour = 1\n").write(toFile: path, atomically: true, encoding: .utf8)
    let bad = try evlab(["compare", "--config", path, "--output", "bad"], in: dir)
    #expect(bad.status == 1 && bad.stderr.contains("[disk]: unknown key 'colour'"))
  }

  @Test func aTraceWhoseNameHidesItsFormatIsReadWithFormat() throws {
    let dir = try scratchDirectory()
    let hidden = dir.appendingPathComponent("web07.trace.zst")
    try FileManager.default.copyItem(
      at: repositoryRoot.appendingPathComponent("traces/loop-3000.oracleGeneral.zst"), to: hidden)
    let common = ["--policy", "lru,fifo", "--size", "1%", "--name", "hidden"]
    let refused = try evlab(["compare", "--trace", hidden.path, "--output", "refused"] + common, in: dir)
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("pass --format ("), "\(refused.stderr)")
    #expect(!refused.stderr.contains("add format ="), "advice for a configuration file: \(refused.stderr)")
    let named = try evlab(
      ["compare", "--trace", hidden.path, "--format", "oracleGeneral", "--output", "named"] + common, in: dir)
    #expect(named.status == 0, "\(named.stderr)")
    let plain = try evlab(
      [
        "compare", "--trace", repositoryRoot.appendingPathComponent("traces/loop-3000.oracleGeneral.zst").path,
        "--output", "plain",
      ] + common, in: dir)
    #expect(plain.status == 0, "\(plain.stderr)")
    // The same requests read either way: the same rows but for the trace's name.
    let rowsNamed = rows(try read(dir, "named/results.csv")).map { $0.filter { $0.key != "trace" } }
    let rowsPlain = rows(try read(dir, "plain/results.csv")).map { $0.filter { $0.key != "trace" } }
    #expect(!rowsNamed.isEmpty && rowsNamed.map { $0["miss_ratio"] } == rowsPlain.map { $0["miss_ratio"] })
    // The shared cache2k trace whose name hides its format, as the issue ran it.
    let web07 = sharedTraces + "/caffeine/cache2k/web07.trace.xz"
    let cache2k = try evlab(
      ["compare", "--trace", web07, "--format", "cache2k", "--policy", "lru,arc", "--size", "1%", "--output", "web07"],
      in: dir)
    #expect(cache2k.status == 0, "\(cache2k.stderr)")
    #expect(cache2k.stdout.contains("web07 at 1% ("), "\(cache2k.stdout)")
    // A configuration reads its traces its own way: --format beside --config is refused.
    let config = try writeConfig(in: dir)
    let both = try evlab(["compare", "--config", config, "--format", "csv", "--output", "both"], in: dir)
    #expect(both.status == 1 && both.stderr.contains("--format"), "\(both.stderr)")
  }

  /// Figures for a paper: display names from the catalog (and the user's
  /// labels), traces without their format suffixes, a column width whose
  /// text stays at 8 pt, no titles when asked, a chosen colour; and the
  /// settings' mistakes refused before any work.
  @Test func figuresTakeDisplayNamesWidthsAndColours() throws {
    let dir = try scratchDirectory()
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-scan.oracleGeneral.zst").path
    let sweep = ["compare", "--trace", trace, "--policy", "lru,s3fifo,wtinylfu,belady", "--size", "100,1%"]
    let run = try evlab(
      sweep + [
        "--output", "paper", "--figure-width", "column", "--no-titles", "--label", "lru=LRU (baseline)",
        "--color", "s3fifo=#123", "--label", "zipf-scan.oracleGeneral.zst=Zipf with scans",
      ], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    // The terminal ends with the winner per size, by display names.
    #expect(run.stdout.contains("Zipf with scans at 100 (100 objects): Best: "), "\(run.stdout)")
    #expect(run.stdout.contains("Offline bound Belady: "), "\(run.stdout)")
    let html = try read(dir, "paper/report.html")
    for shown in ["LRU (baseline)", "S3-FIFO", "W-TinyLFU", "Zipf with scans"] {
      #expect(html.contains(">\(shown)<") || html.contains(">\(shown) "), "\(shown) is not in the report")
    }
    #expect(html.contains("<nav class=\"contents\">") && html.contains("href=\"#trace-zipf-scan-oraclegeneral-zst\""))
    #expect(html.contains("id=\"trace-zipf-scan-oraclegeneral-zst\""))
    let figures = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("paper/figures").path)
    #expect(figures.contains("mrc-zipf-with-scans.svg"), "\(figures)")
    let svg = try read(dir, "paper/figures/mrc-zipf-with-scans.svg")
    #expect(svg.contains("width=\"316.8\"") && !svg.contains("font-weight=\"bold\""))
    let sizes = svg.components(separatedBy: "font-size=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
    #expect(!sizes.isEmpty && sizes.allSatisfy { $0 * 72 / 96 >= 7.95 }, "\(Set(sizes))")
    #expect(svg.contains("stroke=\"#112233\""))
    let styles = try read(dir, "paper/styles.json")
    #expect(styles.contains("\"name\": \"S3-FIFO\"") || styles.contains("\"name\":\"S3-FIFO\""), "\(styles)")
    // The PNG is the column's width at 300 dpi.
    let pngPath = dir.appendingPathComponent("paper/figures/mrc-zipf-with-scans.png")
    if FileManager.default.fileExists(atPath: pngPath.path) {
      let png = try Data(contentsOf: pngPath)
      let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
      #expect(abs(width - 990) <= 1, "\(width) px")
    }
    // Rows keep the catalog's labels and the file's name.
    #expect(try read(dir, "paper/results.csv").contains("zipf-scan.oracleGeneral.zst,"))
    for (flags, words) in [
      (["--label", "s3fio=S3"], "'s3fio' is neither a policy nor a trace"),
      (["--color", "lru=blue"], "#RRGGBB"),
      (["--figure-width", "wide"], "--figure-width 'wide'"),
      (["--font-size", "3"], "--font-size 3"),
      (["--label", "lru=X", "--label", "s3fifo=X"], "both named 'X'"),
    ] {
      let bad = try evlab(sweep + ["--output", "bad"] + flags, in: dir)
      #expect(bad.status == 1 && bad.stderr.contains(words), "\(flags): \(bad.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad").path))
    }
    // A configuration says the same in tables.
    let config = dir.appendingPathComponent("paper.toml").path
    try """
    name = "paper"
    policies = ["lru", "s3fifo"]
    sizes = ["1%"]
    [[traces]]
    path = "\(trace)"
    [figures]
    width = 3.5
    font_size = 9
    [labels]
    s3fifo = "S3-FIFO (ours)"
    [colours]
    lru = "#000000"
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let configured = try evlab(["compare", "--config", config, "--output", "configured"], in: dir)
    #expect(configured.status == 0, "\(configured.stderr)")
    let page = try read(dir, "configured/report.html")
    #expect(page.contains("S3-FIFO (ours)") && page.contains("<h2>zipf-scan</h2>"))
    let configuredSVG = try read(dir, "configured/figures/mrc-zipf-scan.svg")
    #expect(configuredSVG.contains("width=\"336.0\"") && configuredSVG.contains("font-size=\"12\""))
    try
      "name = \"x\"\npolicies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"\(trace)\"\n[figures]\nwidth = \"huge\"\n"
      .write(toFile: config, atomically: true, encoding: .utf8)
    let badConfig = try evlab(["compare", "--config", config, "--output", "bad"], in: dir)
    #expect(badConfig.status == 1 && badConfig.stderr.contains("width 'huge'"), "\(badConfig.stderr)")
  }

  /// Twenty policies in one report: every chart gives each its own colour
  /// and a marker, and the report and figures say their display names.
  @Test func twentyPoliciesTakeTwentyColours() throws {
    let dir = try scratchDirectory()
    let policies = [
      "lru", "fifo", "clock", "sieve", "s3fifo", "arc", "lirs", "slru", "2q", "wtinylfu", "random", "mru", "lfu",
      "car", "gdsf", "lhd", "mq", "clock-pro", "lecar", "belady",
    ]
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path
    let run = try evlab(
      [
        "compare", "--trace", trace, "--policy", policies.joined(separator: ","), "--size", "1%,5%", "--output",
        "twenty",
      ],
      in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let html = try read(dir, "twenty/report.html")
    let charts = html.components(separatedBy: "<svg ").dropFirst()
    #expect(charts.count >= 2)
    for chart in charts {
      let entries = chart.components(separatedBy: "data-color=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
      let markers = chart.components(separatedBy: "data-marker=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
      #expect(entries.count == policies.count, "\(entries.count) entries")
      #expect(Set(entries).count == entries.count, "a colour repeats: \(entries)")
      #expect(markers.count == entries.count && !markers.contains("none"))
    }
    for shown in ["CLOCK-Pro", "LeCaR", "W-TinyLFU", "S3-FIFO", "SIEVE", "Belady (bound)"] {
      #expect(html.contains(shown), "\(shown)")
    }
  }

  /// A policy keeps its colour and marker when the policy list changes
  /// (adding FIFO once moved S3-FIFO from an orange diamond to a pink
  /// triangle); a styles file written by one run keeps a variant's look in
  /// the next; --marker fixes a shape; bad markers and styles files are
  /// refused before any work.
  @Test func stylesStayBetweenRunsWithDifferentPolicies() throws {
    let dir = try scratchDirectory()
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-scan.oracleGeneral.zst").path
    func looks(_ folder: String) throws -> [String: [String]] {
      let data = try Data(contentsOf: dir.appendingPathComponent("\(folder)/styles.json"))
      let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      let entries = try #require(object["results"] as? [[String: Any]])
      return Dictionary(
        uniqueKeysWithValues: entries.map {
          ($0["policy"] as! String, [$0["color"] as! String, $0["marker"] as! String])
        })
    }
    func compare(_ policies: String, _ output: String, _ extra: [String] = []) throws -> (status: Int32, stderr: String)
    {
      let run = try evlab(
        ["compare", "--trace", trace, "--policy", policies, "--size", "1%", "--output", output] + extra, in: dir)
      return (run.status, run.stderr)
    }
    #expect(try compare("lru,s3fifo,sieve,slru:segments=3", "first").status == 0)
    #expect(try compare("fifo,lru,arc,s3fifo,sieve,wtinylfu,lirs,2q,clock,slru,lfu,belady", "second").status == 0)
    let (first, second) = (try looks("first"), try looks("second"))
    for policy in ["lru", "s3fifo", "sieve"] { #expect(first[policy] == second[policy], "\(policy) moved") }
    // Twelve entries, twelve markers.
    #expect(Set(second.values.map { $0[1] }).count == 12, "\(second)")
    // The variant keeps the first run's look through its styles file, and
    // a chosen marker wins over the file.
    let third = try compare(
      "fifo,slru:segments=3,lru,s3fifo", "third",
      ["--styles", dir.appendingPathComponent("first/styles.json").path, "--marker", "lru=star"])
    #expect(third.status == 0, "\(third.stderr)")
    let kept = try looks("third")
    #expect(kept["slru:segments=3"] == first["slru:segments=3"])
    #expect(kept["lru"] == [first["lru"]![0], "star"])
    let svg = try read(dir, "third/figures/mrc-zipf-scan.svg")
    #expect(svg.contains("data-series=\"lru\" data-color=\"\(first["lru"]![0])\" data-marker=\"star\""))
    try "not json".write(to: dir.appendingPathComponent("bogus.json"), atomically: true, encoding: .utf8)
    #expect(mkfifo(dir.appendingPathComponent("fifo.json").path, 0o600) == 0)
    for (flags, words) in [
      (["--marker", "lru=blob"], "--marker lru=blob: give one of circle"),
      (["--marker", "fifo=star"], "'fifo' is not a policy of this sweep"),
      (["--styles", "missing.json"], "cannot read the styles file"),
      (["--styles", "bogus.json"], "not a styles file"),
      (["--styles", "fifo.json"], "not a regular file"),
    ] {
      let bad = try compare("lru,s3fifo", "bad", flags)
      #expect(bad.status == 1 && bad.stderr.contains(words), "\(flags): \(bad.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad").path))
    }
    // A configuration names the file in [styles] and shapes in [markers].
    let config = dir.appendingPathComponent("styled.toml").path
    try """
    name = "styled"
    policies = ["lru", "slru:segments=3"]
    sizes = ["1%"]
    [[traces]]
    path = "\(trace)"
    [styles]
    file = "first/styles.json"
    [markers]
    lru = "cross"
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let configured = try evlab(["compare", "--config", config, "--output", "configured"], in: dir)
    #expect(configured.status == 0, "\(configured.stderr)")
    let fromConfig = try looks("configured")
    #expect(fromConfig["slru:segments=3"] == first["slru:segments=3"] && fromConfig["lru"]?[1] == "cross")
  }
}
