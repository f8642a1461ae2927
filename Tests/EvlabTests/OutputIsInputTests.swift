import EvictionTestSupport
import Foundation
import Testing

/// An output that is the run's own input trace is refused before any work,
/// and the trace is left as it was: through the same name, a link, another
/// spelling of the path and a hard link, in every command that reads a
/// trace and writes a file (issue 72: `replay t.csv --csv t.csv` replaced the
/// trace, exit 0).
@Suite struct OutputIsInputTests {
  static let trace = "1\n2\n3\n1\n2\n3\n"

  static func folder() throws -> URL {
    let dir = try scratchDirectory()
    try trace.write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: dir.appendingPathComponent("link.csv").path, withDestinationPath: "t.txt")
    try FileManager.default.linkItem(
      atPath: dir.appendingPathComponent("t.txt").path, toPath: dir.appendingPathComponent("hard.json").path)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
    return dir
  }

  @Test(arguments: [
    ["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "t.txt"],
    ["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "link.csv"],
    ["replay", "t.txt", "--policy", "lru", "--size", "2", "--json", "sub/../t.txt"],
    ["replay", "t.txt", "--policy", "lru", "--size", "2", "--json", "hard.json"],
    ["replay", "t.txt", "--policy", "lru,belady", "--size", "2", "--attribution", "--regret", "t.txt"],
    ["replay", "t.txt", "--policy", "lru", "--size", "2", "--interval", "2", "--timeseries", "./t.txt"],
    ["mrc", "t.txt", "--sizes", "1..3", "--csv", "t.txt"],
    ["trace-info", "t.txt", "--json", "link.csv"],
    ["stress", "t.txt", "--policy", "lru", "--size", "2", "--json", "hard.json"],
    ["convert", "t.txt", "--to", "txt", "--keys-only", "-o", "t.txt"],
    ["bench", "replay", "t.txt", "--policy", "lru", "--size", "2", "--json", "hard.json"],
    ["bench", "throughput", "t.txt", "--policy", "lru", "--size", "2", "--json", "link.csv"],
  ])
  func anOutputThatIsTheTraceIsRefused(arguments: [String]) throws {
    let dir = try Self.folder()
    let run = try evlab(arguments, in: dir)
    #expect(run.status != 0)
    #expect(run.stderr.contains("would overwrite the input trace"), "\(run.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("t.txt"), encoding: .utf8) == Self.trace)
  }

  /// A report's folder holding a trace under a report file's name: refused
  /// as a folder no evlab report wrote, and, in one an earlier report wrote,
  /// as the input trace; a trace among its figures too.
  @Test func compareRefusesAReportFolderHoldingItsTrace() throws {
    let dir = try Self.folder()
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
    try Self.trace.write(to: dir.appendingPathComponent("out/results.csv"), atomically: true, encoding: .utf8)
    func compare(_ trace: String) throws -> Run {
      try evlab(
        ["compare", "--trace", trace, "--format", "txt", "--policy", "lru", "--size", "2", "-o", "out"], in: dir)
    }
    let foreign = try compare("out/results.csv")
    #expect(foreign.status == 1)
    #expect(foreign.stderr.contains("holds results.csv, and no provenance.json there"), "\(foreign.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8) == Self.trace)

    try FileManager.default.removeItem(at: dir.appendingPathComponent("out/results.csv"))
    let first = try compare("t.txt")
    #expect(first.status == 0, "\(first.stderr)")
    try Self.trace.write(to: dir.appendingPathComponent("out/results.csv"), atomically: true, encoding: .utf8)
    let own = try compare("out/results.csv")
    #expect(own.status == 1 && own.stderr.contains("would overwrite the input trace"), "\(own.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8) == Self.trace)
    // The figures are named after the traces: a trace named as one of them is kept too.
    let figure = try #require(
      try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out/figures").path).first {
        $0.hasSuffix(".svg")
      })
    try Self.trace.write(to: dir.appendingPathComponent("out/figures/" + figure), atomically: true, encoding: .utf8)
    let drawn = try compare("out/figures/" + figure)
    #expect(drawn.status == 1 && drawn.stderr.contains("would overwrite the input trace"), "\(drawn.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("out/figures/" + figure), encoding: .utf8) == Self.trace)
  }

  /// A folder holding files no evlab report wrote is not written into;
  /// an output that is a FIFO is refused before it could block.
  @Test func aFolderOfSomeoneElsesFilesIsNotAReportFolder() throws {
    let dir = try Self.folder()
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("mine/figures"), withIntermediateDirectories: true)
    try "keep".write(to: dir.appendingPathComponent("mine/figures/plot.svg"), atomically: true, encoding: .utf8)
    let run = try evlab(["compare", "--trace", "t.txt", "--policy", "lru", "--size", "2", "-o", "mine"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("holds figures/"), "\(run.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("mine/figures/plot.svg"), encoding: .utf8) == "keep")
    #expect(mkfifo(dir.appendingPathComponent("fifo.csv").path, 0o600) == 0)
    let fifo = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "fifo.csv"], in: dir)
    #expect(fifo.status == 1 && fifo.stderr.contains("fifo.csv is a FIFO"), "\(fifo.stderr)")
  }

  /// A separate output is still written.
  @Test func anotherPathIsWritten() throws {
    let dir = try Self.folder()
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "rows.csv"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("rows.csv").path))
  }

  /// Inputs that are no trace, and traces a command finds itself, are
  /// inputs too (a hostile pass: each of these replaced its input, exit 0).
  @Test func everyKindOfInputIsKeptFromTheOutputs() throws {
    let dir = try Self.folder()
    let manager = FileManager.default
    func file(_ name: String) throws -> String {
      try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    }
    for folder in ["shard", "conf", "cat"] {
      try manager.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    // A shard's partial result over the trace it reads.
    try Self.trace.write(to: dir.appendingPathComponent("shard/partial-1-of-2.json"), atomically: true, encoding: .utf8)
    let shard = try evlab(
      [
        "compare", "--trace", "shard/partial-1-of-2.json", "--format", "txt", "--policy", "lru", "--size", "2",
        "--shard", "1/2", "--output", "shard",
      ], in: dir)
    #expect(shard.status == 1 && shard.stderr.contains("would overwrite the input trace"), "\(shard.stderr)")
    #expect(try file("shard/partial-1-of-2.json") == Self.trace)
    // A configuration named as a report file, in the report's folder.
    let config = #"{"policies": ["lru"], "sizes": [2], "traces": [{"path": "t.txt"}]}"#
    try config.write(to: dir.appendingPathComponent("conf/provenance.json"), atomically: true, encoding: .utf8)
    let conf = try evlab(["compare", "--config", "conf/provenance.json", "--output", "conf"], in: dir)
    #expect(conf.status == 1 && conf.stderr.contains("holds provenance.json, and no provenance.json"), "\(conf.stderr)")
    #expect(try file("conf/provenance.json") == config)
    // A catalog over a trace of the folder it walks, listed or passed over.
    try Self.trace.write(to: dir.appendingPathComponent("cat/a.txt"), atomically: true, encoding: .utf8)
    let catalog = try evlab(["catalog", "cat", "-o", "cat/a.txt"], in: dir)
    #expect(catalog.status == 1 && catalog.stderr.contains("is not a catalog evlab wrote"), "\(catalog.stderr)")
    #expect(try file("cat/a.txt") == Self.trace)
    #expect(try evlab(["catalog", "cat", "-o", "cat/catalog.toml"], in: dir).status == 0)
    #expect(try evlab(["catalog", "cat", "-o", "cat/catalog.toml"], in: dir).status == 0, "a catalog is replaced")
    // A throughput baseline written over itself.
    try "{}".write(to: dir.appendingPathComponent("base.json"), atomically: true, encoding: .utf8)
    let bench = try evlab(
      [
        "bench", "throughput", "t.txt", "--policy", "lru", "--size", "2", "--baseline", "base.json", "--json",
        "base.json",
      ],
      in: dir)
    #expect(bench.status == 1 && bench.stderr.contains("would overwrite the --baseline file"), "\(bench.stderr)")
    #expect(try file("base.json") == "{}")
  }

  /// The same trace twice gave the same rows twice, as if two traces agreed.
  @Test func aTraceNamedTwiceIsRefused() throws {
    let dir = try Self.folder()
    let run = try evlab(
      ["replay", "t.txt", "./link.csv", "--format", "txt", "--policy", "lru", "--size", "2"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("are the same file"), "\(run.stderr)")
  }

  /// Output that never reached standard output is an error, not exit 0.
  @Test(arguments: [
    ["policies"], ["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "-"], ["trace-info", "t.txt"],
  ])
  func standardOutputThatCannotBeWrittenIsAnError(arguments: [String]) throws {
    let dir = try Self.folder()
    let run = try runProgram("/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", evlabPath] + arguments, in: dir)
    #expect(run.status == 1 && run.stderr.contains("cannot write standard output"), "\(run.stderr)")
  }
}
