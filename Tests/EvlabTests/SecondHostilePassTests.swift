import EvictionRun
import EvictionTestSupport
import Foundation
import Testing

/// What a second hostile pass over every command found answered wrongly
/// with exit 0: each now ends in one clear error (or, where the answer was
/// right but unsaid, a note).
@Suite struct SecondHostilePassTests {
  /// A folder holding `t.oracleGeneral` (2,000 requests over 100 objects) and `files`.
  static func folder(_ files: [String: String] = [:]) throws -> URL {
    let dir = try scratchDirectory()
    let made = try evlab(
      ["generate", "zipf", "--objects", "100", "--requests", "2000", "-o", "t.oracleGeneral"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    for (name, text) in files {
      try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    return dir
  }

  static let trace = "[[traces]]\npath = \"t.oracleGeneral\"\n"

  @Test(arguments: [
    // slru's segments default to 4: the same policy under two spellings was run and ranked twice.
    (["replay", "t.oracleGeneral", "--policy", "slru,slru:segments=4", "--size", "10"], "names slru twice"),
    (["compare", "--config", "p.toml", "--output", "o"], "policies names slru twice"),
    // A size as a string and as a number was one size, silently.
    (["compare", "--config", "s.toml", "--output", "o"], "lists the size 10 twice"),
    // Every cell too small for qdlp, skipped: an empty report with exit 0.
    (["compare", "--config", "small.toml", "--output", "o"], "every (trace, size) cell is left out"),
    // CSV under an oracleGeneral name, which evlab then read as binary.
    (["convert", "t.oracleGeneral", "--to", "csv", "-o", "c.oracleGeneral"], "names the oracleGeneral format"),
    (["convert", "t.oracleGeneral", "--to", "oracleGeneral", "-o", "c.csv"], "names the csv format"),
    // A shard writes no report: figure options were dropped without a word.
    (
      [
        "compare", "--trace", "t.oracleGeneral", "--policy", "lru", "--size", "10", "--shard", "1/2", "--output", "sh",
        "--label", "lru=Mine",
      ], "--label shapes the report's figures"
    ),
    (
      [
        "compare", "--trace", "t.oracleGeneral", "--policy", "lru", "--size", "10", "--shard", "1/2", "--output", "sh",
        "--no-titles",
      ], "--no-titles shapes"
    ),
    // An empty trace read at "0.0 M records/s".
    (["bench", "read", "empty.oracleGeneral", "--runs", "1"], "holds no requests"),
    // Capacities near 2⁶³ trapped in CAR, MQ and W-TinyLFU's sizing arithmetic.
    (
      ["replay", "t.oracleGeneral", "--policy", "car,mq,wtinylfu", "--size", "9223372036854775807"],
      "past the largest cache evlab builds"
    ),
    (
      ["bench", "cache", "--policy", "car", "--capacity", "9223372036854775807", "--keys", "1000", "--runs", "1"],
      "--capacity 9223372036854775807: at most 2⁵⁶"
    ),
    // A stream of 10¹¹ requests ended in a failed allocation.
    (["check-policy", "car", "--requests", "100000000000"], "at most 10,000,000"),
    // CSV text named .oracleGeneral was read as 24-byte records of letters.
    (["replay", "text.oracleGeneral", "--policy", "lru", "--size", "10"], "lines of text"),
    (["convert", "text.oracleGeneral", "--to", "csv", "-o", "x.csv"], "lines of text"),
    // A pinned seed ran once where the seeds asked for two runs.
    (
      [
        "compare", "--trace", "t.oracleGeneral", "--policy", "random:seed=5", "--seeds", "1,2", "--size", "10",
        "--output", "o",
      ], "pins its seed"
    ),
    // bench update wrote a baseline over a trace.
    (["bench", "update", "--baseline", "c.csv", "--root", "."], "exists and is not a baseline"),
    // A sample that caught nothing was "a trace that holds no requests".
    (
      ["mrc", "t.oracleGeneral", "--method", "shards", "--rate", "0.000001", "--sizes", "10"],
      "sampled none of its objects"
    ),
    // A range past 2⁵⁶ trapped converting its top to Int64, or was clamped to 2⁵⁶.
    (
      ["replay", "t.oracleGeneral", "--policy", "lru", "--size", "10..9223372036854775807:log3"],
      "past the largest cache evlab builds"
    ),
    (["replay", "t.oracleGeneral", "--policy", "lru", "--size", "10..72057594037927937:log3"], "past the largest"),
    (
      ["stress", "t.oracleGeneral", "--policy", "mq", "--size", "72057594037927937", "--threads", "1"],
      "past the largest cache evlab builds"
    ),
    // A CSV read as lirs turned its header and lines into block numbers.
    (["replay", "c.csv", "--format", "lirs", "--policy", "lru", "--size", "10"], "decimal block number"),
  ])
  func aWrongAnswerIsNowAnError(arguments: [String], message: String) throws {
    let dir = try Self.folder([
      "p.toml": "policies = [\"slru\", \"slru:segments=4\"]\nsizes = [10]\n" + Self.trace,
      "s.toml": "policies = [\"lru\"]\nsizes = [10, \"10\"]\n" + Self.trace,
      "small.toml": "policies = [\"lru\", \"qdlp\"]\nsizes = [1]\nsmall_sizes = \"skip\"\n" + Self.trace,
      "empty.oracleGeneral": "", "c.csv": "time,id,size\n1,5,10\n",
      "text.oracleGeneral": String(repeating: "1,5,4096\n", count: 40),
    ])
    let run = try evlab(arguments, in: dir)
    #expect(run.status == 1 && run.stderr.contains(message), "\(arguments): \(run.status) \(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o/results.csv").path))
  }

  /// Errors that were right to refuse but said the wrong thing.
  @Test(arguments: [
    // "check the file's permissions"
    (["replay", "d.oracleGeneral", "--policy", "lru", "--size", "10"], "it is a folder, not a trace file"),
    (["compare", "--config", "/dev/null"], "not a regular file"),
    // "is not a number"
    (
      [
        "replay", "t.oracleGeneral", "--policy", "lru", "--size", "10", "--tier", "memory+disk", "--disk-size",
        "99999999999999999999",
      ], "past the largest cache evlab builds, 2⁵⁶"
    ),
    (["disk-bench", "--dir", "b", "--value-size", "99999999999999999999"], "past the largest size"),
    // A disk tier past 2⁵⁶ would build its policy where the sizing arithmetic overflows.
    (
      [
        "replay", "t.oracleGeneral", "--policy", "lru", "--size", "10", "--tier", "memory+disk", "--disk-size",
        "72057594037927937",
      ], "past the largest cache evlab builds, 2⁵⁶"
    ),
    (["compare", "--config", "big.toml", "--output", "o"], "72057594037927937 is past the largest cache evlab builds"),
    // "an integer is not a size"
    (
      ["compare", "--trace", "t.oracleGeneral", "--policy", "lru", "--size", "0", "--output", "o"],
      "0 is not a size; a cache needs a positive size"
    ),
    // Ran until killed.
    (["bench", "read", "t.oracleGeneral", "--runs", "9223372036854775807"], "at most 10000"),
  ])
  func aRefusalSaysWhatIsWrong(arguments: [String], message: String) throws {
    let dir = try Self.folder(["big.toml": "policies = [\"lru\"]\nsizes = [72057594037927937]\n" + Self.trace])
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("d.oracleGeneral"), withIntermediateDirectories: true)
    let run = try evlab(arguments, in: dir)
    #expect(run.status == 1 && run.stderr.contains(message), "\(arguments): \(run.status) \(run.stderr)")
  }

  /// trace-info suggested byte caches smaller than every object (all miss).
  @Test func suggestedByteSizesHoldAnObject() throws {
    let dir = try Self.folder()
    let run = try evlab(["trace-info", "t.oracleGeneral", "--json", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let object = try #require((document["traces"] as? [[String: Any]])?.first)
    let sizes = try #require(object["suggested_byte_sizes"] as? [Int])
    let median = try #require((object["size_percentiles"] as? [String: Int])?["p50"])
    #expect(!sizes.isEmpty && sizes.allSatisfy { $0 >= median }, "\(sizes), the median object \(median) bytes")
  }

  /// A throughput baseline of another file under the same name was compared
  /// as the same workload.
  @Test func aThroughputBaselineOfAnotherTraceUnderItsNameIsRefused() throws {
    let dir = try Self.folder()
    let bench = ["bench", "throughput", "t.oracleGeneral", "--policy", "lru", "--size", "10", "--runs", "2"]
    #expect(try evlab(bench + ["--json", "base.json"], in: dir).status == 0)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("other"), withIntermediateDirectories: true)
    let made = try evlab(
      ["generate", "zipf", "--objects", "100", "--requests", "1000", "-o", "other/t.oracleGeneral"], in: dir)
    #expect(made.status == 0)
    // Another stream of as many requests under the name: its digest differs.
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("same"), withIntermediateDirectories: true)
    let same = try evlab(
      ["generate", "uniform", "--objects", "7", "--requests", "2000", "-o", "same/t.oracleGeneral"], in: dir)
    #expect(same.status == 0, "\(same.stderr)")
    var twin = bench
    twin[2] = "same/t.oracleGeneral"
    let sameCount = try evlab(twin + ["--baseline", "base.json"], in: dir)
    #expect(sameCount.status == 1 && sameCount.stderr.contains("stream:"), "\(sameCount.stderr)")
    var other = bench
    other[2] = "other/t.oracleGeneral"
    let run = try evlab(other + ["--baseline", "base.json"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("(10000 requests"), "\(run.stderr)")
  }

  /// A trace named `../t.oracleGeneral` in a configuration was in dataset "..".
  @Test func aTraceUpOneFolderIsInThatFoldersDataset() throws {
    let dir = try Self.folder()
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("cfg"), withIntermediateDirectories: true)
    try "policies = [\"lru\"]\nsizes = [10]\n[[traces]]\npath = \"../t.oracleGeneral\"\n".write(
      to: dir.appendingPathComponent("cfg/c.toml"), atomically: true, encoding: .utf8)
    let run = try evlab(["compare", "--config", "cfg/c.toml", "--output", "o"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let rows = try String(contentsOf: dir.appendingPathComponent("o/results.csv"), encoding: .utf8)
      .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let column = try #require(rows.first?.firstIndex(of: "dataset"))
    #expect(rows.count == 2 && rows[1][column] == dir.lastPathComponent, "\(rows)")
  }

  /// A report that stops half-way into a folder holding an earlier one
  /// left the new results beside the old provenance and figures. A folder
  /// where a figure goes now stops the report before anything is moved:
  /// the earlier report stays whole, provenance and all.
  @Test func aReportThatCannotBeMovedInLeavesTheEarlierOneWhole() throws {
    let dir = try Self.folder()
    let compare = ["compare", "--trace", "t.oracleGeneral", "--policy", "lru", "--size", "10", "--output", "o"]
    #expect(try evlab(compare, in: dir).status == 0)
    let figures = dir.appendingPathComponent("o/figures")
    let svg = try #require(
      try FileManager.default.contentsOfDirectory(atPath: figures.path).first { $0.hasSuffix(".svg") })
    try FileManager.default.removeItem(at: figures.appendingPathComponent(svg))
    try FileManager.default.createDirectory(at: figures.appendingPathComponent(svg), withIntermediateDirectories: true)
    let before = treeDigest(dir.appendingPathComponent("o").path)
    let stopped = try evlab(compare, in: dir)
    #expect(stopped.status == 1 && stopped.stderr.contains("is a folder where the report writes a file"))
    #expect(treeDigest(dir.appendingPathComponent("o").path) == before, "the earlier report changed")
    let redrawn = try evlab(["report", "o", "-o", "again"], in: dir)
    #expect(redrawn.status == 0, "the earlier report is whole: \(redrawn.stderr)")
  }

  /// A FIFO given to merge said "You don't have permission".
  @Test func mergeOfAFIFOSaysItIsOne() throws {
    let dir = try Self.folder()
    #expect(mkfifo(dir.appendingPathComponent("partial-1-of-1.json").path, 0o600) == 0)
    let run = try evlab(["merge", "partial-1-of-1.json", "-o", "m"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("not a regular file"), "\(run.stderr)")
  }

  /// Byte-mode sizes below the largest object break the stack-distance
  /// rule: those points were simulated (right, and in the method column),
  /// but an explicit `--method exact` was not told.
  @Test func anExactCurveSaysWhichPointsWereSimulated() throws {
    let dir = try Self.folder()
    let run = try evlab(
      ["mrc", "t.oracleGeneral", "--sizes", "10,20,1000000", "--size-mode", "bytes", "--method", "exact"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("at sizes 10, 20") && run.stderr.contains("were simulated"), "\(run.stderr)")
    #expect(!run.stderr.contains("1000000"), "the exact point is not named: \(run.stderr)")
  }
}

/// Another program run to its end without Foundation's `Process`, whose
/// monitoring thread never started under a tight memory limit (figures
/// then waited forever on rsvg-convert children nobody reaped).
@Suite struct ChildProcessTests {
  @Test func statusStandardErrorAndEnvironmentComeBack() throws {
    let exit = try ChildProcess.run(
      "/bin/sh", ["-c", "echo \"$EVLAB_PROBE\" >&2; echo out; exit 3"], environment: ["EVLAB_PROBE": "heard"])
    #expect(exit.status == 3)
    #expect(exit.errors == "heard\n", "standard output goes to /dev/null: \(exit.errors)")
    #expect(try ChildProcess.run("/bin/sh", ["-c", "kill -TERM $$"]).status == 128 + SIGTERM)
    #expect(try ChildProcess.run("/bin/true", []).status == 0)
  }

  @Test func aProgramThatCannotStartIsAnError() throws {
    #expect {
      _ = try ChildProcess.run("/nonexistent/rsvg-convert", [])
    } throws: {
      "\($0)".contains("cannot run /nonexistent/rsvg-convert") && "\($0)".contains("No such file")
    }
  }
}
