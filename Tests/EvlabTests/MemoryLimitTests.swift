import EvictionTestSupport
import Foundation
import Testing

/// Runs that would need more memory than the process may use stop before
/// they start, or as a structure grows, with one line: the estimate, the
/// limit and a way out. The limit is the address space (`ulimit -v`), the one
/// a test can set for a child alone.
@Suite struct MemoryLimitTests {
  /// `evlab ARGUMENTS` under an address-space limit of `megabytes`.
  func limited(_ megabytes: Int, _ arguments: [String], in directory: URL) throws -> Run {
    try runProgram(
      "/bin/sh", ["-c", "ulimit -v \(megabytes * 1024) && exec \"$0\" \"$@\"", evlabPath] + arguments, in: directory)
  }

  /// `orAtStart`: the start's own check (too little left for a run at all)
  /// may speak instead, where this machine's libraries leave less room.
  func expectShortage(_ run: Run, mentions: [String], orAtStart: Bool = false) {
    #expect(run.status == 1, "status \(run.status): \(run.stderr)")
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(run.stderr)")
    let atStart = orAtStart && lines.first?.hasPrefix("evlab: error: not enough memory to start: ") == true
    #expect(atStart || lines.first?.hasPrefix("evlab: error: not enough memory: ") == true, "\(run.stderr)")
    #expect(run.stderr.contains("the address-space limit (ulimit -v)"), "\(run.stderr)")
    for word in mentions { #expect(run.stderr.contains(word), "'\(run.stderr)' lacks '\(word)'") }
    #expect(!run.stderr.contains("Fatal error"))
  }

  @Test func aBenchmarkLargerThanMemoryIsRefusedBeforeItStarts() throws {
    let dir = try scratchDirectory()
    let run = try limited(2048, ["bench", "memory", "--policy", "lru", "--entries", "100000000"], in: dir)
    expectShortage(run, mentions: ["a cache of 100000000 entries", "needs 23.8 GiB", "--entries"])
  }

  @Test func aGeneratedTraceLargerThanMemoryIsRefusedBeforeItIsDrawn() throws {
    let dir = try scratchDirectory()
    let run = try limited(
      2048, ["generate", "uniform", "--objects", "1000", "--requests", "200000000", "-o", "big.csv"], in: dir)
    expectShortage(run, mentions: ["generating 200000000 requests", "--requests"])
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("big.csv").path))
  }

  @Test func aPolicyThatOutgrowsMemoryStopsWithOneLine() throws {
    // 300,000 objects repeated 40 times: LRU's table and index grow to
    // 12 M entries, past what 1 GiB of address space leaves.
    let dir = try scratchDirectory()
    let made = try evlab(
      ["generate", "loop", "--objects", "300000", "--requests", "300000", "-o", "loop.oracleGeneral"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let run = try limited(
      1024, ["replay", "loop.oracleGeneral", "--policy", "lru", "--size", "100000000", "--repeat", "40"], in: dir)
    expectShortage(run, mentions: ["a policy's", "--repeat"])
    // W-TinyLFU's counting Bloom filter (sparse at this capacity) grows a table beside them.
    let sketch = try limited(
      1024, ["replay", "loop.oracleGeneral", "--policy", "wtinylfu", "--size", "100000000", "--repeat", "40"], in: dir)
    expectShortage(sketch, mentions: ["--repeat"])
  }

  @Test func aStressRunWhoseCachesOutgrowMemoryIsRefusedBeforeItStarts() throws {
    // 3 M objects, each held by NSCache (about 256 bytes an entry) at 100%.
    let dir = try scratchDirectory()
    let made = try evlab(
      ["generate", "loop", "--objects", "3000000", "--requests", "3000000", "-o", "loop.oracleGeneral"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let run = try limited(
      1024, ["stress", "loop.oracleGeneral", "--size", "100%", "--threads", "1", "--lock", "mutex"], in: dir)
    expectShortage(run, mentions: ["a cache of up to 3000000 entries", "--size"])
    // A tenth of it fits, and runs.
    let fits = try limited(
      1024,
      ["stress", "loop.oracleGeneral", "--size", "1%", "--threads", "1", "--lock", "mutex", "--ops", "100000"],
      in: dir)
    #expect(fits.status == 0, "\(fits.stderr)")
  }

  /// Under a limit that leaves a run almost nothing beyond evlab's own
  /// libraries, it stops at once with one line; it died wherever its next
  /// allocation failed (a backtrace, or a zstd "allocation error" called a
  /// damaged file).
  @Test func aLimitThatLeavesNoRoomToStartIsNamedAtOnce() throws {
    let dir = try scratchDirectory()
    let trace = "\(repositoryRoot.path)/traces/zipf-0.9.oracleGeneral.zst"
    for megabytes in [100, 110] {
      let run = try limited(megabytes, ["replay", trace, "--policy", "lru", "--size", "1000"], in: dir)
      #expect(run.status == 1, "\(megabytes) MiB: status \(run.status): \(run.stderr)")
      let lines = run.stderr.split(separator: "\n")
      #expect(lines.count <= 1 && !run.stderr.contains("Fatal error"), "\(megabytes) MiB: \(run.stderr)")
      #expect(
        run.stderr.contains("not enough memory") || run.stderr.contains("error while loading shared libraries"),
        "\(megabytes) MiB: \(run.stderr)")
      #expect(!run.stderr.contains("damaged"), "\(megabytes) MiB: \(run.stderr)")
    }
  }

  @Test func traceStatisticsThatOutgrowMemoryStopWithOneLine() throws {
    // 3 M distinct objects: trace-info's tables grow past 400 MiB of address
    // space (a dictionary's failed growth ended in a backtrace).
    let dir = try scratchDirectory()
    let made = try evlab(
      ["generate", "loop", "--objects", "3000000", "--requests", "3000000", "-o", "loop.oracleGeneral"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let run = try limited(400, ["trace-info", "loop.oracleGeneral"], in: dir)
    expectShortage(run, mentions: ["the trace statistics' tables"])
  }

  @Test func beladyOnATraceLargerThanMemoryStopsWhileReadingIt() throws {
    // Belady holds a CSV trace whole (32 bytes a request) to find each next access.
    let dir = try scratchDirectory()
    let made = try evlab(["generate", "loop", "--objects", "1000", "--requests", "6000000", "-o", "loop.csv"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let run = try limited(600, ["replay", "loop.csv", "--policy", "belady", "--size", "100"], in: dir)
    expectShortage(run, mentions: ["holding loop.csv in memory", "oracleGeneral"])
  }

  /// The exact curve's stack-distance tree and table grow with the distinct
  /// objects; their growths short of 64 MiB ended in a backtrace under these
  /// limits (48 MiB at 200 MiB). Each limit now ends in the one line.
  @Test(arguments: [150, 200, 300])
  func anExactCurveThatOutgrowsMemoryStopsWithOneLine(megabytes: Int) throws {
    let dir = try scratchDirectory()
    let made = try evlab(
      ["generate", "uniform", "--objects", "3000000", "--requests", "6000000", "-o", "u.oracleGeneral"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let run = try limited(
      megabytes, ["mrc", "u.oracleGeneral", "--method", "exact", "--sizes", "1000..1000000:log5"], in: dir)
    expectShortage(run, mentions: [])
  }

  /// Miss attribution's lives, index and bit per request grow with the
  /// objects and requests of every copy (`--repeat`): at 300 MiB a 75 MiB
  /// growth ended in a backtrace.
  @Test(arguments: [250, 300, 350])
  func attributionOverManyCopiesThatOutgrowsMemoryStopsWithOneLine(megabytes: Int) throws {
    let dir = try scratchDirectory()
    let made = try evlab(
      ["generate", "zipf", "--objects", "100000", "--requests", "1000000", "-o", "z.oracleGeneral"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    let run = try limited(
      megabytes,
      [
        "replay", "z.oracleGeneral", "--policy", "lru", "--size", "1%", "--attribution", "--repeat", "10", "--jobs",
        "1",
      ],
      in: dir)
    expectShortage(run, mentions: [])
  }

  /// Values that only ask for memory are refused before it is asked for:
  /// a range of 10^11 points and a benchmark of 10^14 keys ended in a backtrace.
  @Test func valuesPastAnyMemoryAreRefusedFirst() throws {
    let dir = try scratchDirectory()
    try "1\n2\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let range = try evlab(["replay", "t.txt", "--policy", "lru", "--size", "10..100:log99999999999"], in: dir)
    #expect(range.status == 1 && range.stderr.contains("a range gives at most 10000"), "\(range.stderr)")
    let keys = try evlab(
      ["bench", "cache", "--policy", "lru", "--capacity", "100", "--keys", "99999999999999", "--runs", "1"], in: dir)
    #expect(keys.status == 1 && keys.stderr.split(separator: "\n").count == 1, "\(keys.stderr)")
    #expect(keys.stderr.hasPrefix("evlab: error: not enough memory: 99999999999999 keys"), "\(keys.stderr)")
  }

  /// What no structure announces (a buffer, a small table, an allocator's
  /// arena) fails where it fails under a tight limit: the run ends with
  /// status 1 and a line that says it ran out of memory, not a backtrace
  /// (these runs ended in "Program crashed", status 134).
  /// (Which allocation fails first depends on the machine: every limit
  /// must end in the one kind of line.)
  @Test(arguments: [150, 165, 180])
  func anAllocationThatFailsUnannouncedEndsInWords(megabytes: Int) throws {
    let dir = try scratchDirectory()
    let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    let run = try limited(
      megabytes,
      [
        "replay", trace, "--policy", "wtinylfu,lhd,hyperbolic", "--size", "90%", "--jobs", "1", "--repeat", "20",
      ], in: dir)
    // One line, evlab's: the runtime's "Fatal error: failed to allocate"
    // no longer comes first (the allocation guard, CAllocGuard, speaks). A
    // CI machine whose process started 40 MiB larger than this one's was
    // refused at start under the highest limit: that line is evlab's too.
    expectShortage(run, mentions: [], orAtStart: true)
    #expect(!run.stderr.contains("Program crashed") && !run.stderr.contains("Backtrac"))
  }

  /// XGBoost's own allocator threw std::bad_alloc inside LRB's training,
  /// and the process ended in a fatal error and a backtrace.
  @Test(arguments: [170, 200, 240])
  func aLearnedPolicyOutOfMemoryEndsInOneLine(megabytes: Int) throws {
    let dir = try scratchDirectory()
    let run = try limited(
      megabytes,
      ["replay", AttributionCommandTests.zipf, "--policy", "lrb", "--size", "5000", "--jobs", "1"], in: dir)
    guard run.status != 0 else { return }  // it fit under this limit here
    expectShortage(run, mentions: [])
    #expect(!run.stderr.contains("Backtrac"))
  }

  /// A comparison of every policy fails on allocations of several MiB that
  /// no structure announces (22 MiB at 146 MB here); the guard names the
  /// request and the room left, in one line.
  @Test(arguments: [146, 160])
  func anUnannouncedAllocationInACompareEndsInOneLine(megabytes: Int) throws {
    let dir = try scratchDirectory()
    let trace = AttributionCommandTests.zipf
    let run = try limited(
      megabytes, ["compare", "--trace", trace, "--policy", "all", "--size", "1%,10%", "-o", "out"], in: dir)
    let errors = run.stderr.split(separator: "\n").filter {
      !$0.hasPrefix("compare:") && !$0.hasPrefix("note:") && !$0.hasPrefix("warning:")
    }
    #expect(run.status == 1, "status \(run.status): \(run.stderr.suffix(300))")
    #expect(errors.count == 1 && errors[0].hasPrefix("evlab: error: not enough memory: "), "\(run.stderr)")
    #expect(!run.stderr.contains("Fatal error"), "\(run.stderr)")
  }
}
