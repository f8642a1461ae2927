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

  @Test func compareRefusesAReportFolderHoldingItsTrace() throws {
    let dir = try Self.folder()
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
    try Self.trace.write(to: dir.appendingPathComponent("out/results.csv"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["compare", "--trace", "out/results.csv", "--format", "txt", "--policy", "lru", "--size", "2", "-o", "out"],
      in: dir)
    #expect(run.status != 0)
    #expect(run.stderr.contains("would overwrite the input trace"), "\(run.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8) == Self.trace)
  }

  /// A separate output is still written.
  @Test func anotherPathIsWritten() throws {
    let dir = try Self.folder()
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "rows.csv"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("rows.csv").path))
  }
}
