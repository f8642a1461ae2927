import EvictionCache
import EvictionCore
import EvictionReports
import EvictionTestSupport
import Foundation
import Testing

/// Issue 16: no plausible-looking wrong answer with exit 0. Each test here
/// failed on the main before it.
@Suite struct HonestyTests {
  // Item 2: every list value runs, or the command refuses.
  @Test func mrcAndStressRunEveryPolicyGivenAsAListOrRepeated() throws {
    let dir = try scratchDirectory()
    try (0..<3000).map { String(($0 * 7919) % 300) }.joined(separator: "\n").write(
      to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    for arguments in [["--policy", "lru,arc"], ["--policy", "arc,lru"], ["--policy", "lru", "--policy", "arc"]] {
      let run = try evlab(["mrc", "t.txt", "--sizes", "10,50", "--csv", "-"] + arguments, in: dir)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(Set(rows(run.stdout).map { $0["policy"]! }) == ["lru", "arc"], "\(arguments)")
    }
    let stress = try evlab(
      [
        "stress", "t.txt", "--policy", "lru", "--policy", "fifo", "--size", "50", "--threads", "1", "--lock", "mutex",
        "--csv", "-",
      ],
      in: dir)
    #expect(stress.status == 0, "\(stress.stderr)")
    #expect(Set(rows(stress.stdout).filter { $0["lock"] == "mutex" }.map { $0["policy"]! }) == ["lru", "fifo"])
  }

  @Test func emptyListsAndDuplicateParametersAreErrors() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    for arguments in [
      ["replay", "t.txt", "--policy", "lru", "--size", ""], ["replay", "t.txt", "--policy", "lru", "--size", ",,"],
      ["replay", "t.txt", "--policy", "lru,,arc", "--size", "2"], ["mrc", "t.txt", "--sizes", ""],
      ["stress", "t.txt", "--size", "2", "--threads", ""],
      ["replay", "t.txt", "--policy", "slru:segments=4,segments=8", "--size", "8"],
    ] {
      let run = try evlab(arguments, in: dir)
      #expect(run.status != 0 && !run.stderr.isEmpty && run.stdout.isEmpty, "\(arguments): \(run.status) \(run.stdout)")
    }
    #expect(throws: PolicyError.duplicateParameter(policy: "slru", parameter: "segments")) {
      try PolicySpec("slru:segments=4,segments=8")
    }
  }

  // Item 3: striped:N uses all N shards, and more shards than objects is refused.
  @Test func stripedSpreadsKeysOverEveryShard() throws {
    for n in [3, 7, 8, 1000] {
      let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 4000, lock: .striped(shards: n))
      for key in 0..<40_000 { cache.setValue(key, forKey: key) }
      // Every shard filled to its share: the cache holds its whole limit.
      #expect(cache.count == 4000, "striped:\(n) held \(cache.count) of 4000")
    }
    #expect(throws: CacheError.moreShardsThanCapacity(shards: 4096, capacity: 100)) {
      try MemoryCache<Int, Int>(policy: "lru", countLimit: 100, lock: .striped(shards: 4096))
    }
  }

  // Item 4: text traces read as meant.
  @Test func aSemicolonCSVWithAHeaderAndABOMIsReadAsMeant() throws {
    let dir = try scratchDirectory()
    let text = "\u{FEFF}Timestamp;ObjectID;Size\n1;10;100\n2;11;0\n3;10;100\n4;12;50\n"
    try text.write(to: dir.appendingPathComponent("semi.csv"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "semi.csv", "--policy", "lru", "--size", "2", "--csv", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let row = try #require(rows(run.stdout).first)
    #expect(row["requests"] == "3" && row["hits"] == "1" && row["bytes_requested"] == "250", "\(row)")
    #expect(row["skipped_zero_size"] == "1")
    #expect(run.stderr.contains("skipped 1 zero-size request") && run.stderr.contains("line 3"), "\(run.stderr)")
    // A delimiter that splits nothing, where another splits every line, names the fix.
    let wrong = try evlab(["replay", "semi.csv", "--policy", "lru", "--size", "2", "--delimiter", ","], in: dir)
    #expect(wrong.status == 1 && wrong.stderr.contains("--delimiter ';'"), "\(wrong.stderr)")
    try "\u{FEFF}7\n7\n".write(to: dir.appendingPathComponent("bom.txt"), atomically: true, encoding: .utf8)
    let bom = try evlab(["replay", "bom.txt", "--policy", "lru", "--size", "2", "--csv", "-"], in: dir)
    #expect(rows(bom.stdout).first?["hits"] == "1", "a byte-order mark is not part of the first key")
  }

  @Test func aHeaderIsToldFromDataByItsColumnsOfNumbers() throws {
    let dir = try scratchDirectory()
    try "when|item|bytes\n1|5|10\n2|5|10\n".write(
      to: dir.appendingPathComponent("pipe.csv"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["replay", "pipe.csv", "--policy", "lru", "--size", "100", "--size-mode", "bytes", "--csv", "-"], in: dir)
    let row = try #require(rows(run.stdout).first, "\(run.stderr)")
    #expect(row["requests"] == "2" && row["hits"] == "1" && row["bytes_requested"] == "20", "\(row)")
  }

  // Item 6: sizes that would overflow are an error, never a crash or a 0.0000.
  @Test func hugeSizesAreAClearError() throws {
    let dir = try scratchDirectory()
    try "time,key,size\n1,1,4611686018427387904\n2,2,4611686018427387904\n".write(
      to: dir.appendingPathComponent("big.csv"), atomically: true, encoding: .utf8)
    for command in [
      ["replay", "big.csv", "--policy", "lru", "--size", "1g", "--size-mode", "bytes"], ["trace-info", "big.csv"],
    ] {
      let run = try evlab(command, in: dir)
      #expect(
        run.status == 1 && run.stderr.contains("big.csv:2:") && run.stderr.contains("above 1 TiB"),
        "\(command): \(run.stderr)")
    }
  }

  // Item 1: every row says the most it held, and whether that broke its capacity.
  @Test func rowsReportPeakOccupancyAndTimedModelsExceedTheirCapacity() throws {
    let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    let run = try evlab(["replay", trace, "--policy", "lru,sd-disk", "--size", "1000", "--csv", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    let byPolicy = Dictionary(uniqueKeysWithValues: rows(run.stdout).map { ($0["policy"]!, $0) })
    #expect(byPolicy["lru"]?["max_occupancy"] == "1000" && byPolicy["lru"]?["exceeds_capacity"] == "false")
    #expect(
      Int(byPolicy["sd-disk"]?["max_occupancy"] ?? "") ?? 0 > 1000 && byPolicy["sd-disk"]?["exceeds_capacity"] == "true"
    )
  }

  // Item 5: below its minimum a policy is refused, never a row of misses.
  @Test func aCapacityBelowThePolicysMinimumIsRefusedNamingIt() throws {
    #expect(try PolicySpec("s3fifo").minimumCapacity == 10)
    #expect(try PolicySpec("s3fifo:small=0.001").minimumCapacity == 1000)
    #expect(try PolicySpec("slru").minimumCapacity == 4 && PolicySpec("2q").minimumCapacity == 4)
    #expect(try PolicySpec("lru").minimumCapacity == 1)
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    for (policy, size, minimum) in [
      ("s3fifo", "9", "10"), ("s3fifo:small=0.001", "100", "1000"), ("slru", "3", "4"), ("2q", "3", "4"),
    ] {
      for command in [["replay", "t.txt", "--size", size], ["mrc", "t.txt", "--sizes", size]] {
        let run = try evlab(command + ["--policy", policy], in: dir)
        #expect(
          run.status == 1 && run.stderr.contains("needs at least \(minimum)"), "\(command) \(policy): \(run.stderr)")
      }
    }
    for countLimit in [3, 9] {
      #expect(throws: CacheError.self) { try MemoryCache<Int, Int>(policy: "s3fifo", countLimit: countLimit) }
    }
  }
}

/// Item 9: every output says what made it.
@Suite struct ProvenanceTests {
  /// A plug-in binary's provenance names its own package beside evlab;
  /// evlab's own binaries (and a helper built in evlab's package) name none.
  @Test func aPlugInsProvenanceNamesItsPackage() throws {
    var provenance = Provenance(version: "0.3.0", commit: "abc", arguments: ["lru2-evlab", "replay"])
    #expect(!provenance.json.contains("plugin") && !provenance.markdown.contains("plug-in"))
    provenance.plugin = Provenance.Plugin(package: "custom-policy", commit: "def")
    #expect(provenance.json.contains(#""plugin": {"package": "custom-policy", "commit": "def"}"#))
    #expect(provenance.markdown.contains("- plug-in package: custom-policy (commit def)"))
    #expect(provenance.html.contains("with the plug-in package custom-policy (commit def)"))
    for binary in [evlabPath, faultyEvlabPath] {
      let version = try runProgram(binary, ["--version"])
      #expect(version.status == 0 && !version.stdout.contains("plug-in"), "\(version.stdout)")
    }
  }

  @Test func versionAndEveryOutputCarryTheirProvenance() throws {
    let version = try evlab(["--version"])
    #expect(version.status == 0 && version.stdout.hasPrefix("0."), "\(version.stdout)")
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      [
        "replay", "t.txt", "--policy", "lru,random:seed=7", "--size", "2", "--json", "out/r.json", "--csv", "out/r.csv",
      ], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let json =
      try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("out/r.json")))
      as! [String: Any]
    let provenance = try #require(json["provenance"] as? [String: Any])
    #expect(provenance["tool"] as? String == "evlab" && (provenance["cores"] as? Int ?? 0) >= 1)
    #expect(
      (provenance["command"] as? String)?.contains("random:seed=7") == true && provenance["seeds"] as? [Int] == [7])
    #expect((provenance["os"] as? String)?.hasPrefix("Linux") == true && provenance["date"] is String)
    #expect((json["results"] as? [Any])?.count == 2)
    // The CSV stays plain; its provenance stands beside it.
    let csv = try String(contentsOf: dir.appendingPathComponent("out/r.csv"), encoding: .utf8)
    #expect(csv.hasPrefix("trace,format,policy"))
    let beside =
      try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("out/r.csv.provenance.json")))
      as! [String: Any]
    #expect((beside["provenance"] as? [String: Any])?["version"] as? String == provenance["version"] as? String)
  }

  /// Output to a device is written into it: /dev/null stays a device (an
  /// atomic write's rename once replaced it with a file), and nothing lands beside it.
  @Test func outputToADeviceNeverReplacesIt() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    for command in [
      ["replay", "t.txt", "--policy", "lru", "--size", "2", "--csv", "/dev/null", "--json", "/dev/null"],
      ["convert", "t.txt", "--to", "csv", "-o", "/dev/null"], ["trace-info", "t.txt", "--json", "/dev/null"],
    ] {
      let run = try evlab(command, in: dir)
      #expect(run.status == 0, "\(command): \(run.stderr)")
      var info = stat()
      #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "\(command) replaced /dev/null")
      #expect(!FileManager.default.fileExists(atPath: "/dev/null.provenance.json"))
      #expect(!FileManager.default.fileExists(atPath: "/dev/null.partial"))
    }
  }
}

@Suite struct RenumberTests {
  /// `--renumber-ids`: ids 1, 2, 3, … by first appearance (libCacheSim's string ids).
  @Test func renumberedIdsFollowFirstAppearance() throws {
    let dir = try scratchDirectory()
    try "50\n7\n50\n900\n7\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(["convert", "t.txt", "--renumber-ids", "--to", "txt", "-o", "out.txt"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("out.txt"), encoding: .utf8) == "1\n2\n1\n3\n2\n")
  }
}

@Suite struct RepeatedListOptionTests {
  /// A list option given twice runs both values, in every command that has one.
  @Test func repeatedListOptionsRunEveryValue() throws {
    let dir = try scratchDirectory()
    let bench = try evlab(
      [
        "disk-bench", "--dir", dir.path, "--ops", "10", "--rounds", "1", "--mode", "file", "--mode", "sqlite",
        "--value-size", "256",
        "--value-size", "1k", "--csv", "-",
      ])
    #expect(bench.status == 0, "\(bench.stderr)")
    let modes = Set(bench.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] })
    let sizes = Set(bench.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] })
    #expect(modes == ["file", "sqlite"] && sizes == ["256", "1024"], "\(modes) \(sizes)")
    let generate = try evlab(
      [
        "generate", "mix", "--objects", "100", "--requests", "1000", "--mix", "zipf:0.5", "--mix", "loop:0.5", "-o",
        "m.csv",
      ], in: dir)
    #expect(generate.status == 0, "\(generate.stderr)")
    let keys = try String(contentsOf: dir.appendingPathComponent("m.csv"), encoding: .utf8).split(separator: "\n")
      .dropFirst()
      .compactMap { UInt64($0.split(separator: ",")[1]) }
    #expect(Set(keys.map { $0 >> 40 }) == [0, 1], "both components ran")
  }
}
