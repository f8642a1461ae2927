import EvictionDisk
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
    for i in 0..<20 { try disk.set([UInt8](repeating: UInt8(i), count: i * 300), forKey: "key-\(i)") }
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
      let run = try runProgram("/usr/bin/timeout", ["-s", "INT", "3", evlabPath] + arguments, in: dir)
      #expect(run.stderr.contains("Ctrl-C stops it"), "\(arguments): \(run.stderr)")
      #expect(run.stderr.contains(" days") || run.stderr.contains(" years"), "\(arguments): \(run.stderr)")
    }
  }

  /// A one-line ARC trace with a count of 10^14 expanded into 10^14
  /// requests in silence; a line of more than 2^32 is now refused.
  @Test func oneLineOfBillionsOfRequestsIsRefused() throws {
    let dir = try scratchDirectory()
    try "5 100000000000000 0 1\n".write(to: dir.appendingPathComponent("t.arc"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "t.arc", "--policy", "lru", "--size", "100"], in: dir)
    #expect(
      run.status == 1 && run.stderr.contains("t.arc:1: one line asks for 100000000000000 requests"), "\(run.stderr)")
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
