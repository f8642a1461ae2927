import ArgumentParser
import EvictionCore
import EvictionDisk
import EvictionExperiments
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Synchronization
import Testing

@testable import EvictionLab

/// Arguments parsed in process, in the style of swift-argument-parser's
/// `AssertParse`: the typed values a command gets, and the one-line errors
/// `validate()` gives.
@Suite struct ParseTests {
  func parse<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String]) throws -> Command {
    try #require(try Evlab.parseAsRoot(arguments) as? Command)
  }

  /// The message of the error `arguments` give, and that it is the one-line kind (status 1).
  func error(_ arguments: [String]) -> String {
    do {
      _ = try Evlab.parseAsRoot(arguments)
      return "(parsed)"
    } catch {
      #expect(Evlab.exitCode(for: error) == .failure, "\(arguments)")
      return Evlab.message(for: error)
    }
  }

  @Test func replayTakesRepeatedListsInOrder() throws {
    let replay = try parse(
      Replay.self,
      ["replay", "t.txt", "--policy", "lru,slru:segments=4", "--policy", "arc", "--size", "1%,5000", "--size", "64k"])
    #expect(try replay.policies.specs().map(\.description) == ["lru", "slru:segments=4", "arc"])
    #expect(replay.sizes.sizes == [.fraction(0.01), .absolute(5000), .absolute(65536)])
  }

  @Test func aParameterContinuesItsPolicyAcrossACommaAndAllExpands() throws {
    let replay = try parse(Replay.self, ["replay", "t.txt", "--policy", "random:seed=2,lru", "--size", "10"])
    #expect(try replay.policies.specs().map(\.name) == ["random", "lru"])
    let all = try parse(MRC.self, ["mrc", "t.txt", "--policy", "all", "--sizes", "auto"])
    // `all` in mrc: every online policy, none of the offline ones.
    #expect(try all.specs().count == PolicyCatalog.names.count - PolicyCatalog.offline.count)
  }

  @Test func badValuesAreOneLineErrorsNamingThem() {
    #expect(error(["replay", "t.txt", "--policy", "lru,lru", "--size", "10"]).contains("names lru twice"))
    #expect(error(["replay", "t.txt", "--policy", "nosuch", "--size", "10"]).contains("nosuch"))
    #expect(error(["replay", "t.txt", "--policy", "lru", "--size", "0"]).contains("size"))
    #expect(error(["stress", "t.txt", "--size", "10", "--threads", "1,0"]).contains("'0'"))
    #expect(error(["stress", "t.txt", "--size", "10", "--lock", "spin"]).contains("spin"))
    #expect(error(["stress", "t.txt", "--size", "10,20"]).contains("one size"))
    #expect(error(["mrc", "t.txt", "--policy", "arc", "--method", "exact", "--sizes", "10"]).contains("for LRU"))
    #expect(error(["mrc", "t.txt", "--method", "guess", "--sizes", "10"]).contains("exact, simulate or shards"))
    #expect(error(["generate", "zipf", "--alpha=-1", "-o", "z.txt"]).contains("--alpha -1.0"))
    #expect(error(["generate", "hotspot", "--hot-share", "7", "-o", "z.txt"]).contains("--hot-share 7.0"))
    #expect(error(["generate", "zipf", "--mix", "zipf:0", "-o", "z.txt"]).contains("mix component"))
    #expect(error(["compare", "--shard", "3/2", "--output", "x"]).contains("1 ≤ I ≤ N"))
    #expect(error(["compare", "--shard", "1/2"]).contains("--shard needs --output"))
    #expect(error(["disk-bench", "--mode", "tape"]).contains("tape"))
    #expect(error(["bench", "cache", "--lock", "mutex,queue"]).contains("one lock strategy"))
    #expect(error(["replay", "t.txt", "--format", "nope", "--policy", "lru", "--size", "1"]).contains("nope"))
  }

  @Test func stressAndBenchDefaultsAreTyped() throws {
    let stress = try parse(Stress.self, ["stress", "t.txt", "--size", "1%", "--threads", "1,2", "--threads", "4"])
    #expect(stress.threads.counts() == [1, 2, 4])
    #expect(stress.lock.values() == [.mutex, .pthread, .rwlock, .queue, .barrier, .striped(shards: 8), .buffered])
    let concurrent = try parse(ConcurrentBench.self, ["bench", "concurrent", "--mix", "90/10", "--mix", "50/50"])
    #expect(concurrent.mix.values().map(\.description) == ["90/10", "50/50"])
    #expect(concurrent.lock.values() == [.mutex, .striped(shards: 8), .buffered])
    let cache = try parse(CacheBench.self, ["bench", "cache"])
    #expect(cache.lock.value.items == [.mutex])
    #expect(try cache.policies.specs().map(\.name) == ["lru", "arc"])
  }

  /// Policies, sizes and the size mode are one option group each: every
  /// command that takes them spells them alike (`--policy` or `--policies`,
  /// `--size` or `--sizes`) and says the same of them.
  @Test func policiesSizesAndSizeModeAreSpelledAlikeEverywhere() throws {
    let spellings = [["--policy", "--size"], ["--policies", "--sizes"], ["--policy", "--sizes"]]
    for names in spellings {
      let replay = try parse(Replay.self, ["replay", "t.txt", names[0], "lru,arc", names[1], "10,1%"])
      #expect(try replay.policies.specs().map(\.name) == ["lru", "arc"], "\(names)")
      #expect(replay.sizes.sizes == [.absolute(10), .fraction(0.01)], "\(names)")
      let mrc = try parse(MRC.self, ["mrc", "t.txt", names[0], "arc", names[1], "10..1000:log3"])
      #expect(try mrc.specs().map(\.name) == ["arc"] && mrc.sizes.sizes.count == 3, "\(names)")
      let stress = try parse(Stress.self, ["stress", "t.txt", names[0], "sieve", "--size", "10"])
      #expect(try stress.specs().map(\.name) == ["sieve"])
    }
    // A one-value option in a group is still refused when given twice.
    #expect(throws: ArgumentError.self) {
      try EvictionLab.checkOptions([
        "replay", "t.txt", "--policy", "lru", "--size", "10", "--size-mode", "bytes", "--size-mode", "count",
      ])
    }
    // An unknown option is named before the command's own checks run, with the nearest known one.
    #expect(throws: ArgumentError("evlab replay has no option --bogus; see evlab replay --help")) {
      try EvictionLab.checkOptions(["replay", "t.txt", "--bogus", "1"])
    }
    #expect(
      throws: ArgumentError("evlab compare has no option --polcy; did you mean --policy? see evlab compare --help")
    ) {
      try EvictionLab.checkOptions(["compare", "--trace", "t.txt", "--polcy=lru"])
    }
    // Values and the words after `--` are not options; flags and built-in options are known.
    let plain = ["replay", "t.txt", "--policy", "lru", "--size", "10", "--csv", "-", "--", "--x"]
    #expect(try EvictionLab.checkOptions(plain) == plain)
    #expect(try EvictionLab.checkOptions(["replay", "--help"]) == ["replay", "--help"])
    // A negative number is an option's value, handed on in the form the parser reads as one.
    #expect(
      try EvictionLab.checkOptions([
        "stress", "t.txt", "--size", "-5", "--threads", "-2", "--policy", "lru", "--ops", "-1/2",
      ])
        == ["stress", "t.txt", "--size=-5", "--threads=-2", "--policy", "lru", "--ops=-1/2"])
    func optionHelp(_ command: any ParsableCommand.Type, _ option: String) -> String? {
      Evlab.helpMessage(for: command, columns: 10_000).split(separator: "\n").first {
        $0.drop { $0 == " " }.hasPrefix(option)
      }.map(
        String.init)
    }
    for option in ["--policy, --policies", "--size-mode"] {
      let lines = [Replay.self, MRC.self, Stress.self].map { optionHelp($0, option) }
      #expect(lines[0] != nil && Set(lines).count == 1, "\(option): \(lines)")
    }
    let sizes = [Replay.self, MRC.self].map { optionHelp($0, "--size, --sizes") }
    #expect(sizes[0] != nil && sizes[0] == sizes[1], "\(sizes)")
  }

  /// ArgumentParser appends "(default: …)" to every option with a default
  /// value, so help text that names the default too printed it twice
  /// ("(default: the current folder). (default: .)"). Every command's help,
  /// unwrapped, names each option's default at most once.
  @Test func everyHelpNamesEachDefaultOnce() {
    var visited = 0
    func walk(_ command: any ParsableCommand.Type) {
      visited += 1
      for line in Evlab.helpMessage(for: command, columns: 10_000).split(separator: "\n") {
        #expect(line.ranges(of: "(default").count <= 1, "\(command._commandName): \(line)")
      }
      for sub in command.configuration.subcommands { walk(sub) }
    }
    walk(Evlab.self)
    #expect(visited >= 15, "the walk reached \(visited) commands")
  }
}

/// A full disk under `disk-bench --dir` is the folder's fault, not a cache
/// limit's: the advice says so, for a file store and for SQLite.
@Test func aFullScratchDiskIsTheFoldersFault() {
  let file = scratchFailure(.io(path: "/d/x", operation: "write", errno: ENOSPC, reason: "No space left on device"))
  let sqlite = scratchFailure(.manifest(path: "/d/manifest.sqlite", reason: "database or disk is full", code: 13))
  for error in [file, sqlite] {
    #expect(error.description.contains("the disk under --dir is full") && !error.description.contains("cache's limits"))
  }
  let other = scratchFailure(.io(path: "/d/x", operation: "write", errno: EIO, reason: "Input/output error"))
  #expect(other.description.contains("Input/output error") && !other.description.contains("--dir is full"))
}
