import EvictionDisk
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTestSupport
import Foundation
import Testing

/// What the fourth (manual) hostile pass found that the third's fixes left:
/// a permissions mistake that emptied a store, a report half replaced by
/// Ctrl-C, impossible counts accepted by `merge`, and silent long runs. Each
/// test fails on `b0d096b`.
@Suite struct FourthHostilePassTests {
  /// Runs evlab as a user who is not root (root reads every file), with the
  /// folder `owned` handed to that user first; runs it plainly when this
  /// process is not root. Nil where dropping privileges is not possible here.
  static func evlabAsUser(_ arguments: [String], owning owned: URL, in directory: URL) throws -> Run? {
    guard getuid() == 0 else { return try evlab(arguments, in: directory) }
    let setpriv = "/usr/bin/setpriv"
    guard FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
    let chown = try runProgram("/bin/chown", ["-R", "65534:65534", owned.path])
    guard chown.status == 0 else { return nil }
    return try runProgram(
      setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", evlabPath] + arguments, in: directory)
  }

  /// `disk check --repair` of a store whose manifest its user may not read
  /// moved the healthy manifest aside and rebuilt an empty one.
  @Test func aManifestTheUserMayNotReadIsAPermissionProblemNeverRepaired() throws {
    let dir = try scratchDirectory()
    let store = dir.appendingPathComponent("store")
    let disk = try DiskStore(directory: store.path, inlineThreshold: 2048)
    for i in 0..<20 { try disk.setValue([UInt8](repeating: UInt8(i), count: i * 300), forKey: "key-\(i)") }
    disk.close()
    let manifest = store.appendingPathComponent("manifest.sqlite").path
    let before = try Data(contentsOf: URL(fileURLWithPath: manifest))
    chmod(manifest, 0)
    for arguments in [["disk", "check", "store"], ["disk", "check", "store", "--repair"]] {
      guard let run = try Self.evlabAsUser(arguments, owning: store, in: dir) else { return }
      #expect(run.status == 1, "\(arguments): \(run.stdout)\(run.stderr)")
      #expect(run.stderr.contains("manifest.sqlite: permission denied"), "\(arguments): \(run.stderr)")
      #expect(!run.stdout.contains("repaired"), "\(arguments): \(run.stdout)")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: store.path)
    #expect(!names.contains { $0.contains("corrupt") }, "nothing moved aside: \(names)")
    chmod(manifest, 0o644)
    #expect(try Data(contentsOf: URL(fileURLWithPath: manifest)) == before)
  }
}

extension FourthHostilePassTests {
  /// Ctrl-C in the first moments of replacing a report left the new run's
  /// rows beside the old run's report and runs, with no provenance: the
  /// folder now holds one whole report, the old or the new, whenever the
  /// signal comes.
  @Test func ctrlCWhileReplacingAReportLeavesOneWholeReport() throws {
    let dir = try scratchDirectory()
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path
    func compare(_ policies: String, into output: String) throws -> Process {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: evlabPath)
      process.arguments = ["compare", "--trace", trace, "--policy", policies, "--size", "1%,5%", "-o", output]
      process.currentDirectoryURL = dir
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      return process
    }
    func results(_ folder: String) throws -> String {
      try String(contentsOf: dir.appendingPathComponent(folder + "/results.csv"), encoding: .utf8)
    }
    for (policies, folder) in [("lru,fifo", "old"), ("arc,lru", "new")] {
      let run = try compare(policies, into: folder)
      run.waitUntilExit()
      #expect(run.terminationStatus == 0)
    }
    let (old, new) = (try results("old"), try results("new"))
    var generator = SystemRandomNumberGenerator()
    var interrupted = 0
    for round in 0..<12 {
      let folder = "r\(round)"
      let first = try compare("lru,fifo", into: folder)
      first.waitUntilExit()
      let second = try compare("arc,lru", into: folder)
      usleep(UInt32.random(in: 5_000...250_000, using: &generator))
      kill(second.processIdentifier, SIGINT)
      second.waitUntilExit()
      if second.terminationStatus == 128 + SIGINT { interrupted += 1 }
      let now = try results(folder)
      #expect(now == old || now == new, "round \(round): results.csv is neither run's")
      // The report drawn again from the kept runs is the same run's.
      let redrawn = try evlab(["report", folder, "-o", folder + "-again"], in: dir)
      #expect(redrawn.status == 0, "round \(round): \(redrawn.stderr)")
      #expect(try results(folder + "-again") == now, "round \(round): the kept runs are another run's")
      let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(folder).path)
      #expect(names.contains("provenance.json") && !names.contains { $0.hasPrefix(".partial") }, "\(names)")
    }
    #expect(interrupted > 0, "no round was interrupted")
  }
}

extension FourthHostilePassTests {
  /// A SIGINT sent to evlab alone (not its process group, as a terminal's
  /// Ctrl-C is) while `rsvg-convert` was rendering figures into a report's
  /// stage left the converters running: they wrote into the stage as it
  /// was removed, which left `.partial-report.*` behind (seen once in CI's
  /// run of the test above), and outlived evlab. Here a converter that
  /// writes a file every 10 ms for three seconds stands in for a slow one.
  @Test func ctrlCWhileFiguresRenderEndsTheConverters() throws {
    guard let real = Figures.converter else { return }
    let dir = try scratchDirectory()
    let started = dir.appendingPathComponent("started").path
    let slow = dir.appendingPathComponent("slow-rsvg-convert").path
    try """
    #!/bin/sh
    echo $$ >> '\(started)'
    out=; previous=
    for argument in "$@"; do [ "$previous" = --output ] && out=$argument; previous=$argument; done
    i=0
    while [ $i -lt 300 ]; do : > "$out.$i"; i=$((i + 1)); sleep 0.01; done
    exec '\(real)' "$@"
    """.write(toFile: slow, atomically: true, encoding: .utf8)
    chmod(slow, 0o755)
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: evlabPath)
    process.arguments = ["compare", "--trace", trace, "--policy", "lru,fifo", "--size", "1%,5%", "-o", "out"]
    process.currentDirectoryURL = dir
    process.environment = ProcessInfo.processInfo.environment.merging(["EVLAB_RSVG_CONVERT": slow]) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Until a converter has written a few files into the stage.
    let deadline = Date().addingTimeInterval(60)
    while (try? String(contentsOfFile: started, encoding: .utf8)) == nil && Date() < deadline { usleep(10_000) }
    usleep(100_000)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(process.terminationStatus == 128 + SIGINT)
    let converters = try String(contentsOfFile: started, encoding: .utf8).split(separator: "\n").compactMap {
      pid_t($0)
    }
    #expect(!converters.isEmpty)
    for converter in converters {
      #expect(kill(converter, 0) == -1 && errno == ESRCH, "converter \(converter) outlived evlab")
    }
    // Nothing of the report, then or later, in the folder the run made.
    usleep(200_000)
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
  }
}

extension FourthHostilePassTests {
  /// The bundled traces were written before evlab's zstd output carried a
  /// checksum, so a damaged byte decoded into other requests. Each now
  /// carries zstd's content checksum: a byte changed anywhere past the
  /// frame header is refused as damage.
  @Test(arguments: ["zipf-0.9", "zipf-scan", "loop-3000"])
  func aDamagedBundledTraceIsRefused(name: String) throws {
    let bundled = repositoryRoot.appendingPathComponent("traces/\(name).oracleGeneral.zst")
    let bytes = try Data(contentsOf: bundled)
    let dir = try scratchDirectory()
    for step in 1...6 {
      var damaged = bytes
      let at = 32 + (bytes.count - 40) * step / 7
      damaged[at] ^= 0x10
      try damaged.write(to: dir.appendingPathComponent("t.oracleGeneral.zst"))
      let run = try evlab(["trace-info", "t.oracleGeneral.zst"], in: dir)
      #expect(run.status == 1, "\(name): byte \(at) changed, yet read: \(run.stdout)")
      #expect(run.stderr.contains("damaged"), "\(name): byte \(at): \(run.stderr)")
    }
  }
}

extension FourthHostilePassTests {
  /// The benchmarks ran for days in silence; now they say first how long.
  @Test func longBenchmarksAreAnnouncedBeforeTheyStart() throws {
    let dir = try ThirdHostilePassTests.folder()
    let huge = ["t.txt", "--size", "2", "--policy", "lru", "--repeat", "1000000000000000", "--runs", "3"]
    for arguments in [
      ["bench", "replay"] + huge, ["bench", "throughput"] + huge,
      ["bench", "concurrent", "--seconds", "3600", "--runs", "60", "--threads", "1", "--lock", "mutex"],
    ] {
      let run = try runProgram(evlabPath, arguments, in: dir, interruptingOnceStderrSays: "Ctrl-C stops it")
      #expect(run.stderr.contains("Ctrl-C stops it"), "\(arguments): \(run.stderr)")
      #expect(run.stderr.contains(" days") || run.stderr.contains(" years"), "\(arguments): \(run.stderr)")
    }
  }

  /// A one-line ARC trace with a count of 10^14 expanded into 10^14
  /// requests in silence; a line of more than 2^20 is now refused, and so
  /// is one whose blocks run past the largest key (they wrapped to 0).
  @Test func oneLineOfBillionsOfRequestsIsRefused() throws {
    let dir = try scratchDirectory()
    try "5 100000000000000 0 1\n".write(to: dir.appendingPathComponent("t.arc"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "t.arc", "--policy", "lru", "--size", "100"], in: dir)
    #expect(
      run.status == 1 && run.stderr.contains("t.arc:1: one line asks for 100000000000000 requests"), "\(run.stderr)")
    // 2^32 blocks ran for minutes in silence; blocks past 2^64 - 1 wrapped to key 0.
    for (line, words) in [
      ("0 4294967296 0 0", "more than 2^20"), ("18446744073709551615 3 0 0", "run past the largest key"),
    ] {
      try (line + "\n").write(to: dir.appendingPathComponent("w.arc"), atomically: true, encoding: .utf8)
      let refused = try evlab(["trace-info", "w.arc"], in: dir)
      #expect(refused.status == 1 && refused.stderr.contains("w.arc:1: ") && refused.stderr.contains(words))
    }
    try "0 1048576 0 0\n".write(to: dir.appendingPathComponent("m.arc"), atomically: true, encoding: .utf8)
    let most = try evlab(["trace-info", "m.arc"], in: dir)
    #expect(most.status == 0, "2^20 blocks in a line are read: \(most.stderr)")
  }

  /// `bench throughput --baseline FILE` of another workload measured every
  /// policy first, then refused.
  @Test func aBaselineOfAnotherWorkloadIsRefusedBeforeTheRun() throws {
    let dir = try ThirdHostilePassTests.folder()
    let recorded = try evlab(
      ["bench", "throughput", "t.txt", "--size", "2", "--policy", "lru", "--runs", "2", "--json", "b.json"], in: dir)
    #expect(recorded.status == 0, "\(recorded.stderr)")
    let other = try evlab(
      ["bench", "throughput", "t.txt", "--size", "3", "--policy", "lru", "--runs", "2", "--baseline", "b.json"], in: dir
    )
    #expect(other.status == 1 && other.stderr.contains("measure the same workload"), "\(other.stderr)")
    #expect(!other.stderr.contains("round"), "it measured first: \(other.stderr)")
  }
}

/// The fourth pass's unclear messages, each now clear (or the run now does
/// what was asked).
@Suite struct FourthPassMessageTests {
  /// `--csv /dev/stdout` into a pipe was refused as "a link to nothing"
  /// (its target, `pipe:[…]`, names no file).
  @Test func csvToStandardOutputThroughAPipeIsWritten() throws {
    let dir = try ThirdHostilePassTests.folder()
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "/dev/stdout"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("trace,format,policy,cache_size"), "\(run.stdout)")
  }

  /// `generate -o LINK` replaced the link by a file; every other output
  /// writes through a link to its target.
  @Test func generateWritesThroughALink() throws {
    let dir = try scratchDirectory()
    let first = try evlab(["generate", "loop", "--objects", "10", "--requests", "100", "-o", "g.csv"], in: dir)
    #expect(first.status == 0, "\(first.stderr)")
    try FileManager.default.createSymbolicLink(
      atPath: dir.appendingPathComponent("l.csv").path, withDestinationPath: "g.csv")
    let again = try evlab(["generate", "loop", "--objects", "10", "--requests", "200", "-o", "l.csv"], in: dir)
    #expect(again.status == 0, "\(again.stderr)")
    let link = try FileManager.default.destinationOfSymbolicLink(atPath: dir.appendingPathComponent("l.csv").path)
    #expect(link == "g.csv", "the link was replaced")
    let lines = try String(contentsOf: dir.appendingPathComponent("g.csv"), encoding: .utf8).split(separator: "\n")
    #expect(lines.count >= 200, "the target holds \(lines.count) lines")
  }

  /// After "write ./t.txt for the current folder's", `./t.txt` was refused
  /// the same way: `./` now means the current folder only.
  @Test func theAdviceForAPathNamingTwoFilesWorks() throws {
    let dir = try ThirdHostilePassTests.folder()
    let catalog = dir.appendingPathComponent("cat")
    try FileManager.default.createDirectory(at: catalog, withIntermediateDirectories: true)
    try "7\n8\n9\n7\n".write(to: catalog.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    for path in ["t.txt", "./t.txt"] {
      try "[[traces]]\npath = \"\(path)\"\n".write(
        to: catalog.appendingPathComponent("catalog.toml"), atomically: true, encoding: .utf8)
      let run = try evlab(
        ["compare", "--collection", "cat/catalog.toml", "--policy", "lru", "--size", "2", "-o", "out"], in: dir)
      if path == "t.txt" {
        #expect(run.status == 1 && run.stderr.contains("write the path you mean (./t.txt"), "\(run.stderr)")
        continue
      }
      #expect(run.status == 0, "\(run.stderr)")
      // The current folder's trace: five requests (the other has four).
      let csv = try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8)
      #expect(rows(csv).map { $0["requests"] } == ["5"], "\(csv)")
    }
  }

  /// An integer past 64 bits was "not an integer" in a configuration (read
  /// as a float) and ArgumentParser's usage text on the command line.
  @Test func anIntegerPast64BitsIsNamedAsSuch() throws {
    let dir = try ThirdHostilePassTests.folder()
    try "policies = [\"lru\"]\nsizes = [2]\nseeds = [99999999999999999999]\n[[traces]]\npath = \"t.txt\"\n".write(
      to: dir.appendingPathComponent("c.toml"), atomically: true, encoding: .utf8)
    let config = try evlab(["compare", "--config", "c.toml", "-o", "out"], in: dir)
    #expect(config.status == 1 && config.stderr.contains("c.toml:3: '99999999999999999999' is an integer past 64 bits"))
    let flag = try evlab(
      ["replay", "t.txt", "--policy", "lru", "--size", "2", "--jobs", "99999999999999999999"], in: dir)
    #expect(flag.status == 1 && flag.stderr.split(separator: "\n").count == 1, "\(flag.stderr)")
    #expect(flag.stderr.contains("--jobs 99999999999999999999: outside the range --jobs takes"))
  }

  /// SHARDS at a rate that kept one object drew a curve without a word.
  @Test func aShardsCurveFromAHandfulOfObjectsIsFlagged() throws {
    let trace = repositoryRoot.appendingPathComponent("traces/loop-3000.oracleGeneral.zst").path
    for policy in ["lru", "fifo"] {
      let run = try evlab(
        ["mrc", trace, "--policy", policy, "--method", "shards", "--rate", "0.001", "--sizes", "100,1000"])
      #expect(run.status == 0 && run.stderr.contains("SHARDS at rate 0.001 kept 1 object"), "\(run.stderr)")
    }
    let ample = try evlab(["mrc", trace, "--method", "shards", "--rate", "0.5", "--sizes", "100,1000"])
    #expect(ample.status == 0 && !ample.stderr.contains("rough estimate"), "\(ample.stderr)")
  }
}

/// What a helper's attack on this stop's first fixes found.
@Suite struct FifthPassTests {
  static let trace = repositoryRoot.appendingPathComponent("traces/loop-3000.oracleGeneral.zst").path

  /// `-o` naming a link to nothing: the link was deleted, and the error
  /// said "a file with the same name already exists".
  @Test func aLinkToNothingAsTheOutputFolderIsRefusedAndKept() throws {
    let dir = try scratchDirectory()
    let link = dir.appendingPathComponent("dg").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/nonexistent/x")
    let run = try evlab(["compare", "--trace", Self.trace, "--policy", "fifo", "--size", "5%", "-o", "dg"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("dg is a link to nothing"), "\(run.stderr)")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "/nonexistent/x")
  }

  /// A folder where a figure goes failed the move half-way: the old report
  /// lost its provenance and kept half its files. Now nothing is moved.
  @Test func aFolderWhereAFigureGoesIsRefusedBeforeAnythingMoves() throws {
    let dir = try scratchDirectory()
    let first = try evlab(["compare", "--trace", Self.trace, "--policy", "lru", "--size", "1%", "-o", "r"], in: dir)
    #expect(first.status == 0, "\(first.stderr)")
    let before = treeDigest(dir.appendingPathComponent("r").path)
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("r/figures/bars-loop-3000-5pct.svg"), withIntermediateDirectories: true)
    let withFolder = treeDigest(dir.appendingPathComponent("r").path)
    let run = try evlab(["compare", "--trace", Self.trace, "--policy", "fifo", "--size", "5%", "-o", "r"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("is a folder where the report writes a file"), "\(run.stderr)")
    #expect(treeDigest(dir.appendingPathComponent("r").path) == withFolder, "the old report changed")
    #expect(withFolder.count == before.count + 1)
  }

  /// A configuration's dotted key of thousands of parts took memory
  /// quadratic in its length (the kernel killed evlab).
  @Test func aDottedKeyOfThousandsOfPartsIsRefused() throws {
    let key = Array(repeating: "a", count: 8000).joined(separator: ".")
    for text in ["\(key) = 1\n", "[\(key)]\n"] {
      #expect(throws: ConfigError.self) { try TOMLParser.parse(text, file: "d.toml") }
    }
    let deep = Array(repeating: "a", count: 64).joined(separator: ".")
    #expect(try TOMLParser.parse("\(deep) = 1\n", file: "d.toml")["a"] != nil)
  }

  /// A trace with zero-size requests: its report could not be drawn again
  /// (its skipped requests were counted against the trace's), and a forged
  /// row with one request fewer, or the warm-up of another run, merged.
  @Test func everyRunReadsTheWholeTraceTheSameWay() throws {
    let dir = try scratchDirectory()
    try "time,key,size\n1,1,10\n2,2,0\n3,1,10\n4,3,5\n5,2,0\n6,3,5\n".write(
      to: dir.appendingPathComponent("z.csv"), atomically: true, encoding: .utf8)
    let made = try evlab(["compare", "--trace", "z.csv", "--policy", "lru,fifo", "--size", "1,2", "-o", "o"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let redrawn = try evlab(["report", "o", "-o", "again"], in: dir)
    #expect(redrawn.status == 0, "\(redrawn.stderr)")
    let parts = try ComparePartial.load([dir.appendingPathComponent("o").path])
    func refusal(_ edit: (inout ReplayResult) -> Void) -> String {
      var forged = parts
      edit(&forged[0].partial.results[1])
      forged[0].partial.countsDigest = ComparePartial.countsDigest(
        runs: forged[0].partial.runs, results: forged[0].partial.results, intervals: forged[0].partial.intervals,
        traces: forged[0].partial.traces, stress: forged[0].partial.stress, disk: forged[0].partial.disk)
      do {
        _ = try ComparePartial.merge(forged)
        return "merged"
      } catch { return error.description }
    }
    #expect(
      refusal {
        $0.counts.requests -= 1
        $0.counts.hits -= 1
      }.contains("every run reads the whole trace"))
    let warm = refusal { result in
      result.fields.warmupRequests += 1
      result.counts.requests -= 1
      result.counts.hits -= 1
    }
    #expect(warm.contains("every run of a trace reads it the same way"), "\(warm)")
  }
}
