import EvictionDisk
import EvictionExperiments
import EvictionTestSupport
import Foundation
import Testing

@Suite struct DiskCommandTests {
  /// Key i's value as `disk-helper write-stream` writes it.
  static func value(_ i: Int) -> [UInt8] {
    let sizes = [0, 10, 700, 2048, 2049, 9000, 40_000]
    return (0..<sizes[i % sizes.count]).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
  }

  @Test func aWriterKilledAtRandomLosesNothingItAcknowledged() throws {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<20 {
      let dir = try scratchDirectory().appendingPathComponent("store").path
      // Kill at a random point after the first acknowledgement.
      var (process, output, acknowledged) = try startWriter(dir)
      usleep(UInt32.random(in: 1_000...150_000, using: &generator))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      acknowledged.append(output.readDataToEndOfFile())
      let acks = String(decoding: acknowledged, as: UTF8.self).split(separator: "\n").compactMap {
        Int($0.dropFirst(4))
      }
      #expect(process.terminationReason == .uncaughtSignal, "round \(round)")
      // Reopen (the new owner sweeps what the writer left), then check.
      let store = try DiskStore(directory: dir, inlineThreshold: 2048)
      for i in acks {
        let key = "key-\(i)"
        #expect(try store.value(forKey: key) == Self.value(i), "round \(round): \(key) acknowledged but not readable")
      }
      store.close()
      let check = try evlab(["disk", "check", dir])
      #expect(
        check.status == 0 && check.stdout.contains("consistent"),
        "round \(round) after \(acks.count) acks: \(check.stdout)\(check.stderr)")
    }
  }

  /// Starts `disk-helper write-stream DIR` and waits for its first acknowledgement.
  func startWriter(_ dir: String) throws -> (process: Process, output: FileHandle, acknowledged: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: diskHelperPath)
    process.arguments = ["write-stream", dir]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    var acknowledged = Data()
    while !String(decoding: acknowledged, as: UTF8.self).contains("ack 0\n") {
      acknowledged.append(out.fileHandleForReading.availableData)
    }
    return (process, out.fileHandleForReading, acknowledged)
  }

  @Test func repairRefusesALiveWriterNamingItAndEveryAcknowledgedWriteSurvives() throws {
    for round in 0..<4 {
      let dir = try scratchDirectory().appendingPathComponent("store").path
      var (writer, output, acknowledged) = try startWriter(dir)
      usleep(UInt32(20_000 * (round + 1)))
      let repair = try evlab(["disk", "check", dir, "--repair"])
      #expect(
        repair.status == 1 && repair.stderr.contains("in use by process \(writer.processIdentifier)"),
        "\(repair.stderr)")
      let check = try evlab(["disk", "check", dir, "--quick"])
      #expect(check.status == 0, "a check beside a writer sees a consistent store: \(check.stdout)\(check.stderr)")
      kill(writer.processIdentifier, SIGKILL)
      writer.waitUntilExit()
      acknowledged.append(output.readDataToEndOfFile())
      let acks = String(decoding: acknowledged, as: UTF8.self).split(separator: "\n").compactMap {
        Int($0.dropFirst(4))
      }
      let store = try DiskStore(directory: dir, inlineThreshold: 2048)
      for i in acks {
        #expect(try store.value(forKey: "key-\(i)") == Self.value(i), "round \(round): key-\(i) acknowledged but lost")
      }
      store.close()
    }
  }

  @Test func checkAndRepairRefuseWhatIsNotAStoreAndWriteNothing() throws {
    let root = try scratchDirectory()
    let project = root.appendingPathComponent("project").path
    try FileManager.default.createDirectory(atPath: project + "/data", withIntermediateDirectories: true)
    for i in 0..<5 { try Data("a,b\n".utf8).write(to: URL(fileURLWithPath: project + "/data/f\(i).csv")) }
    let before = treeDigest(root.path)
    for arguments in [["disk", "check", project, "--repair"], ["disk", "check", root.path + "/no/such/dir"]] {
      let run = try evlab(arguments)
      #expect(run.status == 1 && run.stderr.contains("is not an EvictionLab store"), "\(arguments): \(run.stderr)")
    }
    #expect(treeDigest(root.path) == before)
    for arguments in [
      ["disk", "check", ""], ["disk-bench", "--dir", ""],
      [
        "replay", "x.txt", "--policy", "lru", "--size", "2", "--tier", "memory+disk", "--disk-size", "4", "--disk-dir",
        "",
      ],
    ] {
      let run = try evlab(arguments, in: root)
      #expect(run.status != 0 && run.stderr.contains("empty path"), "\(arguments): \(run.stderr)")
    }
  }

  /// SIGINT or SIGTERM in the middle of a run that keeps scratch stores and
  /// generated traces: exit 128 + the signal, and nothing left behind.
  @Test(arguments: [("disk-bench", SIGINT), ("compare", SIGTERM), ("tiered", SIGINT)])
  func anInterruptedRunLeavesNoScratchBehind(command: String, signal: Int32) throws {
    let root = try scratchDirectory()
    let temporary = root.appendingPathComponent("tmp").path
    try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    try (0..<400_000).map { String($0 % 20_000) }.joined(separator: "\n").write(
      to: root.appendingPathComponent("loop.txt"), atomically: true, encoding: .utf8)
    let arguments: [String]
    switch command {
    case "disk-bench": arguments = ["disk-bench", "--dir", temporary, "--ops", "4000", "--value-size", "64k,1m"]
    case "compare":
      try """
      policies = ["lru", "fifo"]
      sizes = [100, 1000]
      seeds = [1, 2, 3]
      [[traces]]
      generate = "zipf"
      objects = 200000
      requests = 3000000
      [disk]
      value_sizes = ["1m"]
      ops = 2000
      """.write(to: root.appendingPathComponent("c.toml"), atomically: true, encoding: .utf8)
      arguments = ["compare", "--config", "c.toml", "--output", "out"]
    default:
      arguments = [
        "replay", "loop.txt", "--tier", "memory+disk", "--policy", "lru", "--size", "100", "--disk-size", "10000",
      ]
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: evlabPath)
    process.arguments = arguments
    process.currentDirectoryURL = root
    process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary]) { $1 }
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // Until the run has made its scratch folder (and a little more), then interrupt.
    let deadline = Date().addingTimeInterval(30)
    while (try FileManager.default.contentsOfDirectory(atPath: temporary)).isEmpty && Date() < deadline {
      usleep(10_000)
    }
    usleep(300_000)
    #expect(process.isRunning, "the run was still going when interrupted")
    kill(process.processIdentifier, signal)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 128 + signal, "\(stderr)")
    #expect(stderr.contains("interrupted"), "\(stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "scratch left behind: \(stderr)")
  }

  @Test func aSecondProcessHoldingTheDatabaseMakesWritesWaitNotFail() throws {
    let dir = try scratchDirectory().appendingPathComponent("store").path
    do {
      let store = try DiskStore(directory: dir)
      try store.setValue([1, 2, 3], forKey: "before")
      store.close()
    }
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: diskHelperPath)
    // Three seconds held: a loaded machine may take a second or more to
    // come back from the read below (the busy timeout is ten).
    holder.arguments = ["hold", dir, "3000"]
    let out = Pipe()
    holder.standardOutput = out
    try holder.run()
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains("held") {
      seen.append(out.fileHandleForReading.availableData)
    }
    let heldSince = ContinuousClock.now
    let store = try DiskStore(directory: dir)
    let start = ContinuousClock.now
    for i in 0..<5 { try store.setValue([UInt8(i)], forKey: "during-\(i)") }
    let waited = ContinuousClock.now - start
    holder.waitUntilExit()
    #expect(holder.terminationStatus == 0)
    if start - heldSince < .milliseconds(2_500) {
      #expect(waited > .milliseconds(200), "the writes waited for the lock (\(waited))")
    }
    #expect(try store.value(forKey: "before") == [1, 2, 3], "nothing was wiped")
    for i in 0..<5 { #expect(try store.value(forKey: "during-\(i)") == [UInt8(i)]) }
  }

  @Test func checkExitsNonZeroOnAnInconsistentStoreAndRepairSaysWhatWasLost() throws {
    let dir = try scratchDirectory().appendingPathComponent("store").path
    do {
      let store = try DiskStore(directory: dir, inlineThreshold: 10)
      for i in 0..<3 { try store.setValue(Array(repeating: UInt8(i), count: 100), forKey: "k\(i)") }
      store.close()
    }
    let clean = try evlab(["disk", "check", dir])
    #expect(clean.status == 0 && clean.stdout.contains("3 rows, 3 value files"))
    let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/data").sorted()
    try FileManager.default.removeItem(atPath: dir + "/data/" + files[0])
    let broken = try evlab(["disk", "check", dir])
    #expect(broken.status == 1 && broken.stdout.contains("1 rows name a missing file"))
    #expect(broken.stderr.contains("evlab disk check --repair"))
    let repaired = try evlab(["disk", "check", dir, "--repair"])
    #expect(
      repaired.status == 0 && repaired.stdout.contains("lost 1 values") && repaired.stdout.contains("consistent now"))
    let file = try scratchDirectory().appendingPathComponent("plain").path
    #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
    let notDir = try evlab(["disk", "check", file])
    #expect(notDir.status == 1 && notDir.stderr.contains("is a file, not a folder"))
  }

  @Test func diskBenchMeasuresEveryModeSizeAndPhase() throws {
    let dir = try scratchDirectory()
    let run = try evlab(["disk-bench", "--dir", dir.path, "--ops", "20", "--value-size", "256,64k", "--json", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let rows = try #require(object["results"] as? [[String: Any]])
    #expect(rows.count == 3 * 2 * 4)
    for mode in ["file", "sqlite", "mixed"] {
      for phase in ["write", "read-hit", "read-miss", "delete"] {
        #expect(
          rows.contains {
            $0["mode"] as? String == mode && $0["phase"] as? String == phase
              && ($0["ops_per_second"] as? Double ?? 0) > 0
          })
      }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "scratch stores are removed")
    let bad = try evlab(["disk-bench", "--mode", "tape"])
    #expect(bad.status == 1 && bad.stderr.contains("--mode 'tape'"))
    // The mixed mode's threshold without the mixed mode would change nothing: refused.
    let unused = try evlab(["disk-bench", "--dir", dir.path, "--mode", "file,sqlite", "--inline-threshold", "100"])
    #expect(unused.status == 1 && unused.stderr.contains("--inline-threshold is the mixed mode's"), "\(unused.stderr)")
  }

  /// `--mode plist`: the plist store's phases, then the plist experiment's
  /// rows, where the serial design loses nothing.
  @Test func diskBenchRunsThePlistExperiment() throws {
    let dir = try scratchDirectory()
    let rows = dir.appendingPathComponent("plist.csv").path
    let run = try evlab([
      "disk-bench", "--dir", dir.path, "--mode", "plist", "--ops", "20", "--value-size", "256", "--rounds", "1",
      "--plist-writers", "1,4", "--plist-entries", "10", "--plist-csv", rows,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stdout.contains("plist  256         write") && run.stdout.contains("updates lost by concurrent writers"))
    let lines = try String(contentsOfFile: rows, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines.first == DiskBench.PlistResult.columns.joined(separator: ","))
    // 2 designs x 2 writer counts, then 3 stores at one size.
    #expect(lines.count == 1 + 4 + 3)
    for line in lines where line.hasPrefix("lost-updates,plist-serial") {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      #expect(fields[6] == "0" && fields[7] == "0", "the serial design loses nothing: \(line)")
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
      !$0.hasPrefix("plist.csv") && !$0.hasPrefix("target.csv") && $0 != "link.csv"
    }
    #expect(left.isEmpty, "scratch stores are removed")
    // A link is written through, its provenance beside the target; an
    // option is named in its own error; one output at most on stdout.
    let target = dir.appendingPathComponent("target.csv").path
    let link = dir.appendingPathComponent("link.csv").path
    #expect(FileManager.default.createFile(atPath: target, contents: nil))
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let quick = [
      "disk-bench", "--dir", dir.path, "--mode", "plist", "--ops", "10", "--value-size", "256", "--rounds", "1",
      "--plist-writers", "1", "--plist-entries", "5",
    ]
    #expect(try evlab(quick + ["--plist-csv", link]).status == 0)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("experiment,store"))
    #expect(FileManager.default.fileExists(atPath: target + ".provenance.json"))
    for (arguments, message) in [
      (["--plist-writers", "0"], "--plist-writers '0'"), (["--plist-csv", ""], "--plist-csv is an empty path"),
      (["--csv", "-", "--plist-json", "-"], "only one of --csv, --json"),
    ] {
      let refused = try evlab(quick + arguments)
      #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
    }
    let wrong = try evlab(["disk-bench", "--dir", dir.path, "--plist-csv", rows])
    #expect(wrong.status != 0 && wrong.stderr.contains("runs with plist in --mode"))
  }

  /// A folder the user may not enter is a clear error. Root enters every
  /// folder, so as root the command runs as `nobody` (util-linux's setpriv).
  @Test func aFolderWithoutPermissionIsAClearError() throws {
    let dir = try scratchDirectory()
    let store = dir.appendingPathComponent("store").path
    try DiskStore(directory: store).close()
    chmod(dir.path, 0o755)
    chmod(store, 0o700)
    let run: Run
    if geteuid() == 0 {
      let setpriv = "/usr/bin/setpriv"
      try #require(
        FileManager.default.isExecutableFile(atPath: setpriv), "util-linux's setpriv runs the command as nobody")
      let process = Process()
      process.executableURL = URL(fileURLWithPath: setpriv)
      process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", evlabPath, "disk", "check", store]
      let err = Pipe()
      process.standardError = err
      process.standardOutput = Pipe()
      try process.run()
      let errData = err.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      run = Run(status: process.terminationStatus, stdout: "", stderr: String(decoding: errData, as: UTF8.self))
    } else {
      chmod(store, 0o500)
      defer { chmod(store, 0o700) }
      run = try evlab(["disk", "check", store])
    }
    #expect(run.status == 1)
    #expect(run.stderr.contains(store) && run.stderr.contains("permission denied"), "\(run.stderr)")
  }

  @Test func tieredReplayReportsWhereRequestsWereServed() throws {
    let dir = try scratchDirectory()
    try (0..<120).map { String($0 % 30) }.joined(separator: "\n").write(
      to: dir.appendingPathComponent("loop.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      [
        "replay", "loop.txt", "--tier", "memory+disk", "--policy", "lru", "--size", "5", "--disk-size", "50",
        "--disk-dir", dir.path, "--csv", "-",
      ],
      in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n")
    #expect(
      lines.first?.hasPrefix(
        "trace,policy,memory_size,disk_size,size_mode,requests,memory_hits,disk_hits,misses,bytes_read_from_disk")
        == true)
    try #require(lines.count == 2)
    let fields = lines[1].split(separator: ",")
    #expect(fields[5] == "120" && fields[6] == "0" && fields[7] == "90" && fields[8] == "30")
    // --repeat 2 replays a second copy whose 30 objects are new: 30 more
    // first misses, then 90 more disk hits (it was ignored: the same 120).
    let twice = try evlab(
      [
        "replay", "loop.txt", "--tier", "memory+disk", "--policy", "lru", "--size", "5", "--disk-size", "50",
        "--disk-dir", dir.path, "--csv", "-", "--repeat", "2",
      ],
      in: dir)
    #expect(twice.status == 0, "\(twice.stderr)")
    let again = try #require(twice.stdout.split(separator: "\n").last).split(separator: ",")
    #expect(again[5] == "240" && again[7] == "180" && again[8] == "60", "\(twice.stdout)")
    let noDisk = try evlab(["replay", "loop.txt", "--tier", "memory+disk", "--policy", "lru", "--size", "5"], in: dir)
    #expect(noDisk.status == 1 && noDisk.stderr.contains("--disk-size"))
  }
}
