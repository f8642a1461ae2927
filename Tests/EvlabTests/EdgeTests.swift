import EvictionCore
import Foundation
import Testing

/// Issue 46: no silent wrong answer at the edges. Each test here failed on
/// the main before it.
@Suite struct EdgeTests {
  /// Every value given is used or refused: options that only another
  /// option reads, a value named twice, a parameter the policy would clamp,
  /// sizes a txt trace cannot hold.
  @Test func everyValueGivenIsUsedOrRefused() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n3\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let cases: [([String], String)] = [
      (["replay", "t.txt", "--policy", "lru", "--size", "2", "--limit", "5"], "--limit is for --tier"),
      (["replay", "t.txt", "--policy", "lru", "--size", "2", "--disk-size", "1000"], "--disk-size is for --tier"),
      (
        ["replay", "t.txt", "--policy", "lru", "--size", "2", "--disk-dir", "/nonexistent"], "--disk-dir is for --tier"
      ),
      (["mrc", "t.txt", "--policy", "lru", "--sizes", "2", "--rate", "0.5"], "--rate is SHARDS' sampling rate"),
      (["replay", "t.txt", "--policy", "clock:init=5", "--size", "2"], "init=5 is invalid"),
      (["replay", "t.txt", "--policy", "lru", "--size", "100,100"], "twice"),
      (["replay", "t.txt", "--policy", "lru", "--size", "1%,0.01"], "twice"),
      (["replay", "t.txt", "--policy", "lru", "--size", "2", "--size", "2"], "twice"),
      (["stress", "t.txt", "--size", "2", "--threads", "1", "--lock", "mutex,mutex"], "twice"),
      (["stress", "t.txt", "--size", "2", "--threads", "1,1", "--lock", "mutex"], "twice"),
      (["generate", "zipf", "--size-distribution", "uniform:1-10", "-o", "g.txt"], "holds keys only"),
      (["generate", "zipf", "--object-size", "100", "-o", "g.txt"], "holds keys only"),
      (["generate", "zipf", "--size-distribution", "lognormal:9,-2", "-o", "g.csv"], "size distribution"),
      (["generate", "zipf", "--size-distribution", "lognormal:100,50", "-o", "g.csv"], "size distribution"),
    ]
    for (arguments, words) in cases {
      let run = try evlab(arguments, in: dir)
      #expect(run.status != 0 && run.stderr.contains(words), "\(arguments): \(run.stderr)")
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(left == ["t.txt"], "nothing written, no .partial left: \(left)")
    #expect(try PolicySpec("clock:bits=3,init=5").parameters["init"] == "5")
  }

  /// An option that takes one value, given twice, is refused (the parser
  /// would keep the last); sizes that come to one cache size on a trace are
  /// refused in replay and mrc, and in compare unless small_sizes = "skip",
  /// which keeps the first and lists the rest as left out.
  @Test func oneValueTwiceAndSizesThatCoincideAreRefused() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n3\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let cases: [([String], String)] = [
      (["stress", "t.txt", "--size", "2", "--size", "3", "--threads", "1"], "--size is given twice (2 and 3)"),
      (
        ["replay", "t.txt", "--policy", "lru", "--size", "2", "--json=a.json", "--json", "b.json"],
        "--json is given twice"
      ),
      (["convert", "t.txt", "--to", "csv", "-o", "a.csv", "-o", "b.csv"], "-o is given twice"),
      (
        ["convert", "t.txt", "--to", "csv", "-o", "a.csv", "--output", "b.csv"],
        "-o and --output, one option, is given twice"
      ),
      (["replay", "t.txt", "--policy", "lru", "--size", "1..10:log20"], "round onto 10 distinct sizes"),
      (["replay", "t.txt", "--policy", "lru", "--size", "25%,1"], "sizes 25% and 1 both come to 1 on t.txt"),
      (
        ["replay", "t.txt", "--policy", "lru", "--size", "auto"], "all come to 1 on t.txt, whose footprint is 3 objects"
      ),
      (["mrc", "t.txt", "--policy", "lru", "--sizes", "1,25%"], "sizes 1 and 25% both come to 1"),
      (
        ["compare", "--trace", "t.txt", "--policy", "lru", "--size", "1,25%", "-o", "out"],
        "the same cache under two labels"
      ),
    ]
    for (arguments, words) in cases {
      let run = try evlab(arguments, in: dir)
      #expect(run.status == 1 && run.stderr.contains(words), "\(arguments): \(run.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["t.txt"])
    // Repeatable options still repeat; `--size` of replay is a list.
    let listed = try evlab(
      ["replay", "t.txt", "--policy", "lru", "--policy", "fifo", "--size", "1", "--size", "2"], in: dir)
    #expect(listed.status == 0, "\(listed.stderr)")
    try """
    name = "tiny"
    policies = ["lru"]
    sizes = ["1", "25%", "2"]
    small_sizes = "skip"
    [[traces]]
    path = "t.txt"
    """.write(to: dir.appendingPathComponent("tiny.toml"), atomically: true, encoding: .utf8)
    let skipped = try evlab(["compare", "--config", "tiny.toml", "-o", "tiny"], in: dir)
    #expect(
      skipped.status == 0 && skipped.stderr.contains("come to the cache size of a smaller size"), "\(skipped.stderr)")
    let csv = try String(contentsOf: dir.appendingPathComponent("tiny/results.csv"), encoding: .utf8)
    #expect(rows(csv).map { $0["size_label"] } == ["1", "2"], "\(csv)")
    let report = try String(contentsOf: dir.appendingPathComponent("tiny/report.md"), encoding: .utf8)
    #expect(report.contains("same cache size as a smaller size on this trace: 25%."), "\(report)")
  }

  /// Across traces, an absolute size is headed as a size, a share as a share.
  @Test func acrossTraceHeadingsSayWhatTheSizeIs() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n3\n1\n4\n".write(to: dir.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8)
    try "5\n6\n5\n7\n6\n8\n".write(to: dir.appendingPathComponent("b.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["compare", "--trace", "a.txt", "--trace", "b.txt", "--policy", "lru,fifo", "--size", "2,80%", "-o", "out"],
      in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let report = try String(contentsOf: dir.appendingPathComponent("out/report.md"), encoding: .utf8)
    #expect(report.contains("### A cache of 2 objects on each trace, 2 traces"), "\(report)")
    #expect(report.contains("### 80% of each trace's footprint, 2 traces"), "\(report)")
  }

  /// txt holds keys alone: converting a trace with sizes or times to it is
  /// refused unless --keys-only says to drop them.
  @Test func convertToTxtDropsNothingUnasked() throws {
    let dir = try scratchDirectory()
    try "time,key,size\n5,1,1\n6,2,1\n".write(
      to: dir.appendingPathComponent("timed.csv"), atomically: true, encoding: .utf8)
    try "time,key,size\n0,1,10\n0,2,1\n".write(
      to: dir.appendingPathComponent("sized.csv"), atomically: true, encoding: .utf8)
    for (name, words) in [("timed.csv", "request 1 has time 5"), ("sized.csv", "request 1 has size 10")] {
      let run = try evlab(["convert", name, "--to", "txt", "-o", "out.txt"], in: dir)
      #expect(run.status == 1 && run.stderr.contains(words) && run.stderr.contains("--keys-only"), "\(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.txt").path))
    }
    let kept = try evlab(["convert", "sized.csv", "--to", "txt", "--keys-only", "-o", "out.txt"], in: dir)
    #expect(kept.status == 0, "\(kept.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("out.txt"), encoding: .utf8) == "1\n2\n")
    let wrong = try evlab(["convert", "sized.csv", "--to", "csv", "--keys-only", "-o", "o.csv"], in: dir)
    #expect(wrong.status != 0 && wrong.stderr.contains("--keys-only is for --to txt"), "\(wrong.stderr)")
    // A time past 2^63 is named as such, not as "not a number".
    try "time,key,size\n1e30,1,1\n".write(to: dir.appendingPathComponent("far.csv"), atomically: true, encoding: .utf8)
    let far = try evlab(["replay", "far.csv", "--policy", "lru", "--size", "1"], in: dir)
    #expect(far.status == 1 && far.stderr.contains("not a whole number of seconds below 2⁶³"), "\(far.stderr)")
  }

  /// An exact LRU curve's point the stack-distance pass cannot answer (a
  /// byte cache smaller than an object) is simulated, and its method says so.
  @Test func aSimulatedPointOfAnExactCurveSaysSo() throws {
    let dir = try scratchDirectory()
    try "time,key,size\n0,1,50\n0,2,1\n0,1,50\n0,2,1\n".write(
      to: dir.appendingPathComponent("t.csv"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["mrc", "t.csv", "--policy", "lru", "--sizes", "5,100", "--size-mode", "bytes", "--csv", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(rows(run.stdout).map { $0["method"] } == ["simulate", "exact"], "\(run.stdout)")
  }

  /// A 5 GB object or a timestamp past 2^32 does not wrap in oracleGeneral's
  /// 32-bit fields: convert names the request and leaves no file; csv holds them.
  @Test func convertNeverWrapsAValuePastTheFormatsLimits() throws {
    let dir = try scratchDirectory()
    for (name, line, words) in [
      ("big.csv", "0,7,5000000000", "request 2 has size 5000000000"),
      ("late.csv", "4294967296,7,1", "request 2 has time 4294967296"),
      ("early.csv", "-1,7,1", "request 2 has time -1"),
    ] {
      try "time,key,size\n0,1,10\n\(line)\n".write(
        to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
      let run = try evlab(["convert", name, "--to", "oracleGeneral", "-o", "out.oracleGeneral"], in: dir)
      #expect(run.status == 1 && run.stderr.contains(words) && run.stderr.contains("write csv"), "\(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.oracleGeneral").path))
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.oracleGeneral.partial").path))
      let csv = try evlab(["convert", name, "--to", "csv", "-o", "out.csv"], in: dir)
      #expect(csv.status == 0, "\(csv.stderr)")
      #expect(try String(contentsOf: dir.appendingPathComponent("out.csv"), encoding: .utf8).contains(line))
    }
  }

  /// Copies of a trace whose ids reach 2^63 would wrap onto the first
  /// copy's ids: refused, never one shared object.
  @Test func repeatNeverWrapsIds() throws {
    let dir = try scratchDirectory()
    try "0\n1\n9223372036854775808\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "10", "--repeat", "2", "--csv", "-"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("64-bit range"), "\(run.stdout) \(run.stderr)")
    let once = try evlab(
      ["replay", "t.txt", "--policy", "lru", "--size", "10", "--repeat", "1", "--csv", "-"], in: dir)
    #expect(once.status == 0, "\(once.stderr)")
  }

  /// A FIFO given as a trace is refused at once, never read forever.
  @Test func aFIFOIsNoTrace() throws {
    let dir = try scratchDirectory()
    let fifo = dir.appendingPathComponent("pipe.txt").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let run = try evlab(["replay", "pipe.txt", "--policy", "lru", "--size", "10"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("it is a FIFO"), "\(run.stderr)")
  }

  /// A link inside the output folder is not followed out of it: a
  /// `figures` link is refused with nothing written where it points; a
  /// rerun into a folder says which files it replaced and what it left.
  @Test func theOutputFolderKeepsItsWritesInside() throws {
    let dir = try scratchDirectory()
    let manager = FileManager.default
    let trace = "\(repositoryRoot.path)/traces/zipf-0.9.oracleGeneral.zst"
    let arguments = ["compare", "--trace", trace, "--policy", "lru", "--size", "100"]
    let first = try evlab(arguments + ["--output", "out"], in: dir)
    #expect(first.status == 0, "\(first.stderr)")
    try "mine".write(to: dir.appendingPathComponent("out/notes.txt"), atomically: true, encoding: .utf8)
    let again = try evlab(arguments + ["--output", "out"], in: dir)
    #expect(again.status == 0 && again.stderr.contains("note: replaced") && again.stderr.contains("notes.txt"))
    try manager.createDirectory(at: dir.appendingPathComponent("elsewhere"), withIntermediateDirectories: true)
    try manager.createDirectory(at: dir.appendingPathComponent("linked"), withIntermediateDirectories: true)
    try manager.createSymbolicLink(
      atPath: dir.appendingPathComponent("linked/figures").path, withDestinationPath: "../elsewhere")
    let linked = try evlab(arguments + ["--output", "linked"], in: dir)
    #expect(linked.status != 0 && linked.stderr.contains("is a symbolic link"), "\(linked.stderr)")
    #expect(try manager.contentsOfDirectory(atPath: dir.appendingPathComponent("elsewhere").path).isEmpty)
  }

  /// What a second hostile pass found: a time span past 2^63 (a crash), a
  /// Pareto alpha so small that drawing again never ended, two outputs at
  /// one path, flags a configuration run ignored, a report folder whose
  /// results.csv is a folder (found only after the sweep).
  @Test func theSecondHostilePassHolds() throws {
    let dir = try scratchDirectory()
    try "time,key,size\n-1,1,1\n9223372036854775807,2,1\n".write(
      to: dir.appendingPathComponent("wide.csv"), atomically: true, encoding: .utf8)
    let info = try evlab(["trace-info", "wide.csv"], in: dir)
    #expect(info.status == 0 && info.stdout.contains("time span past 2⁶³−1 s"), "\(info.stderr)")
    let mixed = try evlab(
      ["generate", "mix", "--alpha", "0.5", "--objects", "50", "--requests", "100", "-o", "m.csv"], in: dir)
    #expect(mixed.status == 0, "the default mix holds zipf: \(mixed.stderr)")
    let pareto = try evlab(
      [
        "generate", "uniform", "--objects", "50", "--requests", "100", "--size-distribution", "pareto:1e-5,1,2",
        "-o", "p.csv",
      ], in: dir)
    #expect(pareto.status == 0, "\(pareto.stderr)")
    let trace = "\(repositoryRoot.path)/traces/zipf-0.9.oracleGeneral.zst"
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("out/results.csv"), withIntermediateDirectories: true)
    try "policies = [\"lru\"]\nsizes = [100]\n[[traces]]\npath = \"\(trace)\"\n".write(
      to: dir.appendingPathComponent("c.toml"), atomically: true, encoding: .utf8)
    let cases: [([String], String)] = [
      (["generate", "uniform", "--size-distribution", "pareto:1e-7,1,2", "-o", "q.csv"], "size distribution"),
      (["replay", trace, "--policy", "lru", "--size", "10", "--csv", "a", "--json", "a"], "the same file"),
      (
        ["replay", trace, "--policy", "lru", "--size", "10", "--csv", "b", "--interval", "100", "--timeseries", "b"],
        "the same file"
      ),
      (["compare", "--config", "c.toml", "--seeds", "7", "-o", "x"], "not both"),
      (["compare", "--config", "c.toml", "-o", "out"], "is a folder where the report"),
      (["compare", "--trace", trace, "--policy", "lru", "--size", "100", "-o", "out"], "is a folder where the report"),
      (["mrc", trace, "--method", "shards", "--rate", "0.2", "--max-objects", "400", "--sizes", "10"], "not both"),
      (
        ["generate", "zipf", "--object-size", "100", "--size-distribution", "uniform:1-5", "-o", "g.csv"],
        "one of the two"
      ),
      (["generate", "uniform", "--alpha", "2", "-o", "g.csv"], "--alpha is for zipf, zipf-scan"),
      (["generate", "loop", "--hot-share", "0.5", "-o", "g.csv"], "--hot-share is for hotspot"),
      (["generate", "mix", "--mix", "loop:1", "--alpha", "0.5", "-o", "g.csv"], "a mix of loop"),
      (["generate", "zipf", "--mix", "loop:1", "-o", "g.csv"], "--mix is for mix"),
    ]
    for (arguments, words) in cases {
      let run = try evlab(arguments, in: dir)
      #expect(run.status != 0 && run.stderr.contains(words), "\(arguments): \(run.stderr)")
    }
    for name in ["q.csv", "a", "b", "x", "g.csv"] {
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path), "\(name) written")
    }
  }

  /// SHARDS in byte mode at a size it scales below the largest sampled
  /// object: a warning naming the size and the way out, and the point flagged.
  @Test func shardsSaysWhereItsByteEstimateIsWeak() throws {
    let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    let run = try evlab([
      "mrc", trace, "--size-mode", "bytes", "--sizes", "1m,4g", "--method", "shards", "--rate", "0.01", "--csv", "-",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stderr.contains("warning: lru: SHARDS at rate 0.01 scales size 1048576 below the largest sampled object"))
    #expect(run.stderr.contains("--method simulate"))
    let rows = run.stdout.split(separator: "\n").dropFirst()
    #expect(
      rows.count == 2 && rows.first?.hasSuffix(",none,true") == true && rows.last?.hasSuffix(",none,false") == true)
  }
}
