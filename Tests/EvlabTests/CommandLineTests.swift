import EvictionTestSupport
import Foundation
import Testing

/// The built `evlab` beside the test bundle (same build configuration).
let evlabPath = builtExecutable("evlab")
/// The disk tests' second process.
let diskHelperPath = builtExecutable("disk-helper")
let repositoryRoot = SharedData.repository
let sharedTraces = SharedData.traces

typealias Run = ProgramRun

/// A CSV as rows keyed by its header; a field in double quotes may hold
/// commas and doubled quotes (a penalty model's spelling), not line breaks.
func rows(_ csv: String) -> [[String: String]] {
  func fields(_ line: Substring) -> [String] {
    var fields: [String] = []
    var field = ""
    var quoted = false
    var characters = line.makeIterator()
    while let c = characters.next() {
      switch (c, quoted) {
      case ("\"", true):
        // A doubled quote is one quote; a single one ends the field's quoting.
        if let next = characters.next() {
          if next == "\"" {
            field.append("\"")
          } else if next == "," {
            (quoted, fields, field) = (false, fields + [field], "")
          } else {
            (quoted, field) = (false, field + String(next))
          }
        } else {
          quoted = false
        }
      case ("\"", false) where field.isEmpty: quoted = true
      case (",", false): (fields, field) = (fields + [field], "")
      default: field.append(c)
      }
    }
    return fields + [field]
  }
  let lines = csv.split(separator: "\n").map(fields)
  guard let header = lines.first else { return [] }
  return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
}

/// Runs the built `evlab`, both pipes drained.
func evlab(_ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil) throws -> Run {
  try runProgram(evlabPath, arguments, in: directory, environment: environment)
}

/// A new folder, removed with the test process's scratch root.
func scratchDirectory() throws -> URL { try Scratch.directory("cli") }

@Suite struct BadInputTests {
  /// Each bad input gives exit status 1 and exactly one line on standard
  /// error, naming the culprit and saying what to do; nothing on standard output.
  func expectOneLineError(_ arguments: [String], mentions: [String], in directory: URL? = nil) throws {
    let run = try evlab(arguments, in: directory)
    #expect(run.status == 1, "\(arguments): status \(run.status)")
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(arguments): \(run.stderr)")
    #expect(lines.first?.hasPrefix("evlab: error: ") == true)
    for word in mentions { #expect(run.stderr.contains(word), "\(arguments): '\(run.stderr)' lacks '\(word)'") }
    #expect(!run.stderr.contains("Fatal error"))
    #expect(run.stdout.isEmpty)
  }

  @Test func malformedTextLine() throws {
    let dir = try scratchDirectory()
    try "1\n2\n3 4\n".write(to: dir.appendingPathComponent("bad.txt"), atomically: true, encoding: .utf8)
    try expectOneLineError(
      ["replay", "bad.txt", "--policy", "lru", "--size", "2"], mentions: ["bad.txt:3:", "one key per line"], in: dir)
  }

  /// Text formats hold no NUL byte: a binary trace read as text is refused
  /// by name, not parsed into keys and numbers (a 24-byte oracleGeneral
  /// record read with --format csv or txt gave numbers and exit 0).
  @Test(arguments: ["csv", "txt", "twitter"])
  func binaryDataReadAsTextIsRefused(format: String) throws {
    let dir = try scratchDirectory()
    var record = Data()
    for value in [UInt32(1), 0, 7, 100] { withUnsafeBytes(of: value.littleEndian) { record.append(contentsOf: $0) } }
    record.append(contentsOf: [UInt8](repeating: 0xFF, count: 8))
    try Data((0..<50).flatMap { _ in record }).write(to: dir.appendingPathComponent("t.oracleGeneral"))
    try expectOneLineError(
      ["replay", "t.oracleGeneral", "--format", format, "--policy", "lru", "--size", "2"],
      mentions: ["not a \(format) trace", "NUL byte at byte 1", "--format"], in: dir)
    // Past the first buffer too: a NUL after 200,000 good lines.
    var text = String(repeating: "1\n2\n", count: 100_000)
    text += "3\u{0}\n"
    try text.write(to: dir.appendingPathComponent("late.txt"), atomically: true, encoding: .utf8)
    try expectOneLineError(
      ["replay", "late.txt", "--policy", "lru", "--size", "2"], mentions: ["NUL byte at byte 400001"], in: dir)
  }

  /// An output name the file system cannot hold is refused before any work:
  /// `trace-info --json` printed its whole table first, then failed.
  @Test func anOutputNamePastTheFileSystemsLimitIsRefusedFirst() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let long = String(repeating: "x", count: 300)
    let commands = [
      ["trace-info", "t.txt", "--json", long + ".json"],
      ["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", long + ".csv"],
      ["mrc", "t.txt", "--policy", "lru", "--json", "sub/" + long],
      ["generate", "zipf", "--objects", "10", "--requests", "10", "-o", long + ".csv"],
      ["convert", "t.txt", "--to", "csv", "-o", long + ".csv"],
    ]
    for arguments in commands {
      try expectOneLineError(arguments, mentions: ["is 30", "file names hold at most 255"], in: dir)
    }
    let deep = Array(repeating: "abcdefgh", count: 600).joined(separator: "/")
    try expectOneLineError(
      ["replay", "t.txt", "--policy", "lru", "--size", "2", "--json", deep], mentions: ["paths hold at most 4095"],
      in: dir)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["t.txt"])
  }

  /// A trace whose name starts with a dash: the parser read its letters as
  /// options (`-h` among them) and printed help with status 0.
  @Test func aTraceNamedWithALeadingDashIsRefusedWithTheSpellingThatReadsIt() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("-dash.txt"), atomically: true, encoding: .utf8)
    try expectOneLineError(
      ["replay", "-dash.txt", "--policy", "lru", "--size", "2"], mentions: ["'-dash.txt' is a file", "./-dash.txt"],
      in: dir)
    try expectOneLineError(["replay", "-nothere", "--policy", "lru"], mentions: ["no option -nothere"], in: dir)
    let run = try evlab(["replay", "./-dash.txt", "--policy", "lru", "--size", "2"], in: dir)
    #expect(run.status == 0 && run.stdout.contains("0.6667"), "\(run.stderr)")
  }

  /// A negative number is the option's value, refused by the option's own
  /// range: the parser called it a missing value.
  @Test func aNegativeNumberGetsTheOptionsOwnRange() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "-5"], in: dir)
    #expect(run.status != 0 && !run.stderr.contains("Missing value"), "\(run.stderr)")
    #expect(run.stderr.contains("-5"), "\(run.stderr)")
  }

  @Test func malformedCSVLine() throws {
    let dir = try scratchDirectory()
    try "time,id,size\n1,2,3\n2,3,x\n".write(
      to: dir.appendingPathComponent("bad.csv"), atomically: true, encoding: .utf8)
    try expectOneLineError(
      ["replay", "bad.csv", "--policy", "lru", "--size", "2"], mentions: ["bad.csv:3:", "size 'x'"], in: dir)
  }

  @Test func skipBadLinesReplaysTheRestAndWarnsOncePerTrace() throws {
    let dir = try scratchDirectory()
    try "1\n2\n3 4\n1\nx y\n2\n".write(to: dir.appendingPathComponent("bad.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["replay", "bad.txt", "--policy", "lru,fifo", "--size", "2", "--skip-bad-lines", "--json", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    // 1 2 1 2 through a 2-object cache: two misses, two hits, for both policies.
    let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let rows = try #require(object["results"] as? [[String: Any]])
    #expect(rows.count == 2 && rows.allSatisfy { $0["requests"] as? Int == 4 && $0["hits"] as? Int == 2 })
    let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
    #expect(warnings.count == 1, "\(run.stderr)")
    #expect(warnings.first?.contains("skipped 2 bad lines") == true && warnings.first?.contains("bad.txt:3:") == true)
    let info = try evlab(["trace-info", "bad.txt", "--skip-bad-lines", "--json", "-"], in: dir)
    #expect(info.status == 0 && info.stdout.contains("\"skipped_bad_lines\": 2"))
  }

  @Test func truncatedBinaryRecord() throws {
    let dir = try scratchDirectory()
    try Data(repeating: 1, count: 30).write(to: dir.appendingPathComponent("cut.oracleGeneral.bin"))
    try expectOneLineError(
      ["replay", "cut.oracleGeneral.bin", "--policy", "lru", "--size", "2"],
      mentions: ["cut.oracleGeneral.bin", "byte offset 24"],
      in: dir)
  }

  @Test func unknownFormatEmptyTraceMissingFile() throws {
    let dir = try scratchDirectory()
    try "".write(to: dir.appendingPathComponent("empty.txt"), atomically: true, encoding: .utf8)
    try expectOneLineError(
      ["replay", "empty.txt", "--format", "parquet", "--policy", "lru", "--size", "2"],
      mentions: ["parquet", "known formats"], in: dir)
    try expectOneLineError(
      ["replay", "empty.txt", "--policy", "lru", "--size", "2"], mentions: ["empty.txt", "no requests"], in: dir)
    try expectOneLineError(
      ["replay", "nope.txt", "--policy", "lru", "--size", "2"], mentions: ["nope.txt", "no such file"], in: dir)
    try expectOneLineError(
      ["replay", "empty.weird", "--policy", "lru", "--size", "2"], mentions: ["empty.weird"], in: dir)
  }

  @Test func zeroSizeAndUnknownPolicy() throws {
    let dir = try scratchDirectory()
    try "1\n".write(to: dir.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8)
    try expectOneLineError(
      ["replay", "a.txt", "--policy", "lru", "--size", "0"], mentions: ["'0'", "positive"], in: dir)
    try expectOneLineError(["replay", "a.txt", "--policy", "lru", "--size", "12q"], mentions: ["12q"], in: dir)
    try expectOneLineError(
      ["replay", "a.txt", "--policy", "lruu", "--size", "5"], mentions: ["lruu", "known policies"], in: dir)
    try expectOneLineError(
      ["replay", "a.txt", "--policy", "slru:segments=0", "--size", "5"], mentions: ["segments=0"], in: dir)
    try expectOneLineError(["replay", "a.txt", "--size", "5"], mentions: ["--policy"], in: dir)
  }
}

@Suite struct OutputContractTests {
  /// The contract: these keys, in this order, first; later columns only extend it.
  static let contract = [
    "trace", "format", "policy", "cache_size", "size_mode", "requests", "hits", "misses", "miss_ratio",
    "bytes_requested", "bytes_missed", "byte_miss_ratio", "seconds", "requests_per_second",
  ]
  static let columns =
    contract + [
      "skipped_zero_size", "max_occupancy", "exceeds_capacity", "admission", "warmup_requests", "flash_writes",
      "flash_write_bytes", "size_label", "size_share",
    ]

  @Test func csvAndJsonCarryTheContractKeysAndAgree() throws {
    let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    let dir = try scratchDirectory()
    let args = [
      "replay", trace, "--policy", "LRU,slru:segments=5,random:seed=3", "--size", "1k,5000", "--size-mode", "count",
    ]
    let csvRun = try evlab(args + ["--csv", "-"])
    #expect(csvRun.status == 0, "\(csvRun.stderr)")
    let lines = csvRun.stdout.split(separator: "\n")
    #expect(lines.first == Substring(Self.columns.joined(separator: ",")))
    #expect(lines.count == 1 + 3 * 2)
    let rows = lines.dropFirst().map {
      Dictionary(
        uniqueKeysWithValues: zip(
          Self.columns, $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
    }
    #expect(
      rows.map { $0["policy"]! } == [
        "lru", "lru", "slru:segments=5", "slru:segments=5", "random:seed=3", "random:seed=3",
      ])
    #expect(rows.map { $0["cache_size"]! } == ["1024", "5000", "1024", "5000", "1024", "5000"])
    // libCacheSim: LRU at 5000 objects misses 91,527 of 113,872.
    #expect(rows[1]["misses"] == "91527" && rows[1]["requests"] == "113872")
    for row in rows { #expect(Int(row["hits"]!)! + Int(row["misses"]!)! == 113_872) }
    // Sizes as compare labels them (an absolute size written out); no share
    // where no share size asked for the footprint.
    #expect(rows.map { $0["size_label"]! } == ["1024", "5000", "1024", "5000", "1024", "5000"])
    #expect(rows.allSatisfy { $0["size_share"] == "" })

    let jsonPath = dir.appendingPathComponent("out/r.json").path
    let jsonRun = try evlab(args + ["--json", jsonPath])
    #expect(jsonRun.status == 0)
    #expect(jsonRun.stdout.contains("miss ratio"), "the table goes to standard output when no output is -")
    let object =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as! [String: Any]
    let results = object["results"] as! [[String: Any]]
    #expect(results.count == 6)
    #expect(Set(results[0].keys) == Set(Self.columns))
    #expect(results[1]["misses"] as? Int == 91_527)
    #expect(results[1]["size_mode"] as? String == "count")
  }

  /// A share size names the row as compare does: `size_label` as given,
  /// `size_share` the cache size over the footprint, for every size of the
  /// trace once it was measured (an absolute size beside a share included).
  @Test func replayRowsCarryTheSizeAsGivenAndItsShare() throws {
    let dir = try scratchDirectory()
    // 20 distinct objects.
    let trace = (1...20).map(String.init).joined(separator: "\n") + "\n"
    try trace.write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "10%,50%,4", "--csv", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n")
    let header = lines[0].split(separator: ",").map(String.init)
    let rows = lines.dropFirst().map {
      Dictionary(
        uniqueKeysWithValues: zip(header, $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
    }
    #expect(rows.map { $0["size_label"]! } == ["10%", "50%", "4"])
    #expect(rows.map { $0["cache_size"]! } == ["2", "10", "4"])
    #expect(rows.map { Double($0["size_share"]!) } == [0.1, 0.5, 0.2])
  }

  /// The Quick start job: no trace arguments replays ./traces with the seven
  /// policies and writes results/default/replay.{csv,json}.
  @Test func defaultJobReplaysTheBundledTraces() throws {
    let dir = try scratchDirectory()
    let traces = dir.appendingPathComponent("traces")
    try FileManager.default.createDirectory(at: traces, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(
      atPath: repositoryRoot.appendingPathComponent("traces").path)
    where name.hasSuffix(".zst") {
      try FileManager.default.copyItem(
        at: repositoryRoot.appendingPathComponent("traces/" + name), to: traces.appendingPathComponent(name))
    }
    let run = try evlab(["replay"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let csv = try String(contentsOf: dir.appendingPathComponent("results/default/replay.csv"), encoding: .utf8)
    let rows = csv.split(separator: "\n").dropFirst()
    let traceCount = try FileManager.default.contentsOfDirectory(atPath: traces.path).count
    #expect(traceCount >= 2)
    #expect(rows.count == traceCount * 7 * 6)
    for policy in ["lru", "fifo", "lfu", "mru", "random:seed=1", "arc", "slru:segments=4"] {
      #expect(rows.contains { $0.split(separator: ",")[2] == Substring(policy) }, "\(policy)")
    }
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("results/default/replay.json").path))
    let empty = try scratchDirectory()
    let none = try evlab(["replay"], in: empty)
    #expect(none.status == 1 && none.stderr.contains("no sample traces"))
  }
}
