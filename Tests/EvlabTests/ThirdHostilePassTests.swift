import EvictionRun
import EvictionTestSupport
import Foundation
import Testing

/// What a third hostile pass (443 runs over every command) found: a user's
/// file deleted, wrong answers with exit 0, silent hours of work, and
/// messages that said the wrong thing. Each test fails on the build that
/// pass ran.
@Suite struct ThirdHostilePassTests {
  /// A folder holding `t.txt` (five requests over three keys).
  static func folder() throws -> URL {
    let dir = try scratchDirectory()
    try "1\n2\n3\n1\n2\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    return dir
  }

  /// A trace is written under a name of its own write, never `OUT.partial`,
  /// which may be the user's.
  @Test func aUsersPartialFileIsKept() throws {
    let dir = try Self.folder()
    for output in ["c.csv", "g.oracleGeneral.zst"] {
      try "mine\n".write(to: dir.appendingPathComponent(output + ".partial"), atomically: true, encoding: .utf8)
    }
    let convert = try evlab(["convert", "t.txt", "--to", "csv", "-o", "c.csv"], in: dir)
    #expect(convert.status == 0, "\(convert.stderr)")
    let generate = try evlab(["generate", "zipf", "--requests", "100", "-o", "g.oracleGeneral.zst"], in: dir)
    #expect(generate.status == 0, "\(generate.stderr)")
    for output in ["c.csv", "g.oracleGeneral.zst"] {
      let kept = try String(contentsOf: dir.appendingPathComponent(output + ".partial"), encoding: .utf8)
      #expect(kept == "mine\n", "\(output).partial")
      #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(output).path))
    }
    // Nothing else is left behind.
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(names.filter { $0.hasSuffix(".partial") } == ["c.csv.partial", "g.oracleGeneral.zst.partial"], "\(names)")
  }

  /// `convert -o -` wrote a file named `-`.
  @Test func convertToStandardOutputIsRefused() throws {
    let dir = try Self.folder()
    let run = try evlab(["convert", "t.txt", "--to", "csv", "-o", "-"], in: dir)
    #expect(run.status != 0 && run.stderr.contains("convert writes a file"), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path))
  }

  /// A name that fits alone but not with `.provenance.json` beside it was
  /// written, then failed on its provenance.
  @Test func anOutputNameLeavesRoomForItsProvenance() throws {
    let dir = try Self.folder()
    let name = String(repeating: "y", count: 245) + ".csv"
    for arguments in [
      ["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", name],
      ["convert", "t.txt", "--to", "csv", "-o", name],
    ] {
      let run = try evlab(arguments, in: dir)
      #expect(run.status != 0 && run.stderr.contains("so keep it to 239"), "\(arguments[0]): \(run.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["t.txt"])
    // JSON carries its provenance inside: a name up to 255 bytes is fine, whatever its extension.
    let json = String(repeating: "j", count: 250) + ".out"
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--json", json], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(json).path))
  }

  /// A collection's relative trace path that names one file here and
  /// another beside the collection was read from here: wrong numbers.
  @Test func aTracePathThatNamesTwoFilesIsRefused() throws {
    let dir = try Self.folder()
    let catalog = dir.appendingPathComponent("cat")
    try FileManager.default.createDirectory(at: catalog, withIntermediateDirectories: true)
    try "7\n8\n9\n7\n".write(to: catalog.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    try "[[traces]]\npath = \"t.txt\"\n".write(
      to: catalog.appendingPathComponent("catalog.toml"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["compare", "--collection", "cat/catalog.toml", "--policy", "lru", "--size", "2", "-o", "out"], in: dir)
    #expect(run.status != 0 && run.stderr.contains("names two different files"), "\(run.stderr)")
    // From elsewhere, the one beside the collection is the only one: it runs.
    let elsewhere = try evlab(
      ["compare", "--collection", "catalog.toml", "--policy", "lru", "--size", "2", "-o", "../out"], in: catalog)
    #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
  }

  /// trace-info said "deletes 0" of a trace whose deletes were of 0 bytes.
  @Test func traceInfoCountsZeroSizeWrites() throws {
    let dir = try Self.folder()
    let trace = "time,key,size,op\n1,1,10,set\n2,1,0,delete\n3,1,10,get\n4,2,0,set\n5,2,0,delete\n6,2,5,get\n"
    try trace.write(to: dir.appendingPathComponent("kv.csv"), atomically: true, encoding: .utf8)
    let run = try evlab(["trace-info", "kv.csv", "--op-column", "4"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("gets 2, sets 1, deletes 0 (and 1 set and 2 deletes of 0 bytes"), "\(run.stdout)")
    #expect(run.stderr.contains("1 set and 2 deletes among them"), "\(run.stderr)")
  }

  /// `explain --around` ignored `--events` and `--warmup`.
  @Test(arguments: [["--events", "1"], ["--warmup", "2"]])
  func explainAroundRefusesWhatItWouldIgnore(extra: [String]) throws {
    let dir = try Self.folder()
    let run = try evlab(["explain", "t.txt", "--policy", "lru", "--size", "2", "--around", "3"] + extra, in: dir)
    #expect(
      run.status != 0 && run.stderr.contains("\(extra[0])") && run.stderr.contains("leave it out"), "\(run.stderr)")
  }

  /// evlab's zstd carried no checksum, so damaged bytes could decode to
  /// other requests; now a frame says it has one, and damage is found.
  @Test func zstdTracesCarryAChecksumThatFindsDamage() throws {
    let dir = try Self.folder()
    let made = try evlab(
      ["generate", "zipf", "--objects", "1000", "--requests", "20000", "-o", "z.oracleGeneral.zst"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let path = dir.appendingPathComponent("z.oracleGeneral.zst")
    var bytes = try Data(contentsOf: path)
    // The frame header's descriptor (after the 4-byte magic): bit 2 is the content checksum flag.
    #expect(bytes[bytes.startIndex + 4] & 0b100 != 0)
    let middle = bytes.startIndex + bytes.count / 2
    bytes[middle] ^= 0x5A
    try bytes.write(to: path)
    let read = try evlab(["replay", "z.oracleGeneral.zst", "--policy", "lru", "--size", "10"], in: dir)
    #expect(read.status != 0, "\(read.stdout)")
  }

  /// `--repeat 10^12` ran in silence for hours; now it says first how much.
  @Test func hugeWorkIsAnnouncedBeforeItStarts() throws {
    let dir = try Self.folder()
    for arguments in [
      ["replay", "t.txt", "--policy", "lru", "--size", "2", "--repeat", "1000000000000"],
      ["stress", "t.txt", "--size", "2", "--threads", "1", "--lock", "mutex", "--ops", "99999999999999"],
    ] {
      let run = try runProgram(evlabPath, arguments, in: dir, interruptingOnceStderrSays: "Ctrl-C stops it")
      #expect(run.stderr.contains("requests; at") && run.stderr.contains("Ctrl-C stops it"), "\(run.stderr)")
    }
    // A small run says nothing of the kind.
    let small = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--repeat", "1000"], in: dir)
    #expect(small.status == 0 && !small.stderr.contains("Ctrl-C"), "\(small.stderr)")
  }

  /// A warm-up in seconds on a trace without times covered every request;
  /// the message now says why.
  @Test func aWarmupInSecondsOnATraceWithoutTimesSaysWhy() throws {
    let dir = try Self.folder()
    let run = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "2", "--warmup", "5s"], in: dir)
    #expect(run.status != 0 && run.stderr.contains("has every request at time 0"), "\(run.stderr)")
  }

  /// `report` of a folder that does not exist blamed a missing file in it.
  @Test func reportOfAMissingFolderSaysSo() throws {
    let dir = try Self.folder()
    let run = try evlab(["report", "nowhere"], in: dir)
    #expect(run.status != 0 && run.stderr.contains("nowhere: no such folder"), "\(run.stderr)")
  }

  /// `help bogus` printed the general help with status 0.
  @Test func helpForNoSuchCommandSaysSo() throws {
    let run = try evlab(["help", "bogus"])
    #expect(run.status == 1 && run.stderr.contains("'bogus' is no command of evlab"), "\(run.stderr)")
    let nested = try evlab(["help", "bench", "bogus"])
    #expect(nested.status == 1 && nested.stderr.contains("of evlab bench; the commands are"), "\(nested.stderr)")
    let real = try evlab(["help", "bench", "check"])
    #expect(real.status == 0 && real.stdout.contains("baseline"), "\(real.stdout)")
  }

  /// `disk-bench --value-size 0` said "a cache needs a positive size".
  @Test func aZeroValueSizeIsNamedAsOne() throws {
    let run = try evlab(["disk-bench", "--value-size", "0", "--ops", "10"])
    #expect(run.status != 0 && run.stderr.contains("a value of 0 bytes stores nothing"), "\(run.stderr)")
  }

  /// Two runs writing one CSV left one run's rows beside the other's
  /// provenance. The pair is published under a lock on its folder: while
  /// another holds it, nothing is published.
  @Test func aCSVAndItsProvenanceArePublishedTogether() throws {
    let dir = try Self.folder()
    let csv = dir.appendingPathComponent("r.csv").path
    let finished = SharedState<ProgramRun?>(nil)
    let done = DispatchSemaphore(value: 0)
    try FolderLock.holding(dir.path) { () throws in
      Thread.detachNewThread {
        let run = try? evlab(["replay", "t.txt", "--policy", "fifo", "--size", "2", "--csv", "r.csv"], in: dir)
        finished.withLock { $0 = run }
        done.signal()
      }
      // The replay takes milliseconds; held off by the lock, it publishes nothing.
      Thread.sleep(forTimeInterval: 1.5)
      #expect(!FileManager.default.fileExists(atPath: csv))
      #expect(finished.withLock { $0 } == nil)
    }
    done.wait()
    #expect(finished.withLock { $0?.status } == 0)
    let provenance = try String(contentsOfFile: csv + ".provenance.json", encoding: .utf8)
    #expect(try String(contentsOfFile: csv, encoding: .utf8).contains("fifo") && provenance.contains("fifo"))
  }
}

/// What a manual hostile pass (629 runs) on this stop's first build found.
@Suite struct ManualHostilePassTests {
  /// 100,000 nested brackets overflowed the configuration reader's stack.
  @Test(arguments: [
    "x = " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
    "x = " + String(repeating: "{a=", count: 20_000) + String(repeating: "}", count: 20_000),
  ])
  func deeplyNestedConfigurationsAreRefused(text: String) throws {
    let dir = try ThirdHostilePassTests.folder()
    try text.write(to: dir.appendingPathComponent("d.toml"), atomically: true, encoding: .utf8)
    let run = try evlab(["compare", "--config", "d.toml", "-o", "out"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("nest more than 64 deep"), "\(run.stderr.prefix(300))")
  }

  /// A file named .zst whose bytes are not zstd was read as plain records.
  @Test func aCompressedNameOverPlainBytesIsRefused() throws {
    let dir = try ThirdHostilePassTests.folder()
    try "1\n2\n3\n".write(to: dir.appendingPathComponent("plain.txt.zst"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "plain.txt.zst", "--policy", "lru", "--size", "2"], in: dir)
    #expect(run.status == 1 && run.stderr.contains("does not start as a zstd stream does"), "\(run.stderr)")
  }

  /// `compare --shard 1/2 -o F` replaced a user's F/partial-1-of-2.json.
  @Test func aShardKeepsAUsersFile() throws {
    let dir = try ThirdHostilePassTests.folder()
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("F"), withIntermediateDirectories: true)
    let mine = dir.appendingPathComponent("F/partial-1-of-2.json")
    try "mine\n".write(to: mine, atomically: true, encoding: .utf8)
    let run = try evlab(
      ["compare", "--trace", "t.txt", "--policy", "lru", "--size", "2", "--shard", "1/2", "-o", "F"], in: dir)
    #expect(run.status != 0 && run.stderr.contains("no evlab shard wrote it"), "\(run.stderr)")
    #expect(try String(contentsOf: mine, encoding: .utf8) == "mine\n")
    // A shard's own file is replaced when it runs again.
    try FileManager.default.removeItem(at: mine)
    for _ in 0..<2 {
      let again = try evlab(
        ["compare", "--trace", "t.txt", "--policy", "lru", "--size", "2", "--shard", "1/2", "-o", "F"], in: dir)
      #expect(again.status == 0, "\(again.stderr)")
    }
  }

  /// `--csv r.json` writes CSV, so `r.json.provenance.json` beside it:
  /// that sidecar was not checked against the inputs, and replaced one.
  @Test func aCSVNamedJSONStillKeepsItsSidecarOffTheInput() throws {
    let dir = try ThirdHostilePassTests.folder()
    let input = dir.appendingPathComponent("r.json.provenance.json")
    try "time,key,size\n1,1,1\n2,2,1\n3,1,1\n".write(to: input, atomically: true, encoding: .utf8)
    let before = try Data(contentsOf: input)
    let run = try evlab(
      ["replay", "r.json.provenance.json", "--format", "csv", "--policy", "lru", "--size", "2", "--csv", "r.json"],
      in: dir)
    #expect(run.status != 0 && run.stderr.contains("would overwrite the input trace"), "\(run.stderr)")
    #expect(try Data(contentsOf: input) == before)
  }
}
