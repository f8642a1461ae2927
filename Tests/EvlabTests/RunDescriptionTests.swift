import ArgumentParser
import EvictionCore
import EvictionRun
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionExperiments
@testable import EvictionLab

/// The replay's settings, declared once (``RunDescription/settings``): the
/// options, the configuration keys and the one check of every front end
/// come from the declarations.
@Suite struct RunDescriptionTests {
  /// The long options of `command`, from the parser's own description of it.
  func options(of command: String) throws -> Set<String> {
    let type = try #require(Evlab.configuration.subcommands.first { $0._commandName == command })
    return try #require(CommandHelp(type)).longOptions
  }

  /// A declaration names exactly the commands that take its option: a
  /// command that takes a setting without declaring it, or a declaration
  /// that names a command without the option, fails here.
  @Test func eachDeclarationNamesExactlyTheCommandsThatTakeIt() throws {
    let commands = Evlab.configuration.subcommands.map { $0._commandName }
    for declared in RunDescription.settings {
      let flag = EvictionLab.flagSpelling(declared.setting)
      for command in commands {
        let takes = try options(of: command).contains(flag)
        #expect(
          takes == declared.declaration.commands.contains(command),
          "\(flag): \(command) \(takes ? "takes it but is not declared" : "is declared but does not take it")")
      }
    }
  }

  /// The help a command shows for a declared setting is the declaration's.
  @Test func helpComesFromTheDeclaration() throws {
    let replay = Replay.helpMessage(columns: 10_000)
    for declared in RunDescription.settings where declared.declaration.commands.contains("replay") {
      let words = declared.declaration.help.split(separator: " ").prefix(8).joined(separator: " ")
      #expect(replay.contains(words), "\(declared.setting.name): replay's help lacks '\(words)'")
    }
  }

  /// A value of each setting that only has an effect beside another one.
  static let samples: [Setting: String] = [
    .fillOnMiss: "true", .expiration: "scan", .idleTTL: "30", .diskSize: "10", .diskDirectory: "/tmp", .limit: "5",
    .attributionReference: "foo",
  ]

  /// Given alone, each setting with a rule "only with …" is refused, by
  /// the declaration's rule, naming it: no list of special cases to forget.
  @Test func aSettingNoPartOfTheRunUsesIsRefused() throws {
    for declared in RunDescription.settings where !declared.onlyWith.isEmpty {
      let sample = try #require(Self.samples[declared.setting], "no sample value for \(declared.setting.name)")
      var run = RunDescription()
      run.policies = DefaultJob.lru
      try run.set(declared.setting, to: sample, spelling: Setting.apiSpelling)
      #expect {
        try run.check(spelling: Setting.apiSpelling)
      } throws: { error in
        let error = error as! RunError
        return error.setting == declared.setting && error.description.hasPrefix("\(declared.setting.name) is for ")
      }
    }
  }

  /// The same rule, in the same words, from the command line, a
  /// configuration file and the library: each names the setting as its
  /// reader wrote it.
  @Test func everyFrontEndRunsTheOneCheck() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let cli = try evlab(
      [
        "replay", "t.txt", "--policy", "lru", "--size", "2", "--attribution", "--interval", "1", "--timeseries",
        "s.csv",
      ],
      in: dir)
    #expect(cli.status == 1)
    #expect(cli.stderr.contains("--attribution and --interval do not go together"), "\(cli.stderr)")

    let config = dir.appendingPathComponent("c.toml")
    try """
    policies = ["lru"]
    sizes = [2]
    attribution = true
    interval = 1
    [[traces]]
    path = "t.txt"
    """.write(to: config, atomically: true, encoding: .utf8)
    let file = try evlab(["compare", "--config", config.path, "--output", "out"], in: dir)
    #expect(file.status == 1)
    #expect(file.stderr.contains("attribution and interval do not go together"), "\(file.stderr)")
    #expect(!file.stderr.contains("--interval"), "a configuration's reader is told its keys: \(file.stderr)")

    // compare's own flags go through the configuration's reader, and are named as flags.
    let flags = try evlab(
      ["compare", "--trace", "t.txt", "--policy", "lru", "--size", "2", "--attribution", "--interval", "1"], in: dir)
    #expect(flags.status == 1)
    #expect(flags.stderr.contains("--attribution and --interval do not go together"), "\(flags.stderr)")

    var library = RunDescription()
    library.policies = DefaultJob.lru
    (library.attribution, library.window) = (true, ReplayWindow(interval: .requests(1)))
    #expect(throws: RunError.self) { try library.check(spelling: Setting.apiSpelling) }
    let trace = TraceSource(path: dir.appendingPathComponent("t.txt").path, format: .txt)
    let reference = try AttributionReference.make(trace, cacheSize: 2, sizeMode: .count, window: ReplayWindow())
    #expect {
      try TraceReplay.run(
        trace, policy: PolicySpec("lru"), cacheSize: 2, sizeMode: .count,
        window: ReplayWindow(interval: .requests(1)), attributingAgainst: reference)
    } throws: { "\($0)".contains("do not go together") }
  }

  /// TTLs and key-value semantics together replayed the key-value rule
  /// alone and dropped the TTL rule without a word; the declaration refuses it.
  @Test func ttlsBesideKeyValueSemanticsAreRefused() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["replay", "t.txt", "--policy", "lru", "--size", "2", "--use-ttl", "--semantics", "kv"], in: dir)
    #expect(run.status == 1)
    #expect(run.stderr.contains("--semantics kv and --use-ttl do not go together"), "\(run.stderr)")
  }

  /// A configuration takes the keys of the settings `compare` declares,
  /// read and checked by their declarations; a replay-only setting is an
  /// unknown key there, not a value silently dropped.
  @Test func configurationKeysComeFromTheDeclarations() throws {
    #expect(RunDescription.configKeys(of: "compare").isSubset(of: CompareConfig.topKeys))
    let base = "policies = [\"lru\"]\nsizes = [2]\n[[traces]]\npath = \"t.txt\"\n"
    let cases: [(String, String)] = [
      ("use_ttl = true\n", "unknown key 'use_ttl'"),
      ("jobs = 0\n", "jobs 0: at least one job is needed"),
      ("warmup = \"0\"\n", "warmup '0': a span is at least 1"),
      ("attribution = \"yes\"\n", "attribution 'yes': use true or false"),
      ("size_mode = \"pages\"\n", "size_mode 'pages': use count or bytes"),
      ("admissions = [\"size:max=1k\"]\n", "set size_mode = \"bytes\""),
    ]
    for (extra, message) in cases {
      #expect {
        try CompareConfig.parse(extra + base, format: "toml", file: "c.toml", checkFiles: false)
      } throws: { "\($0)".contains(message) }
    }
  }

  /// `evlab settings --json` lists every declared setting, by option and key.
  @Test func theSettingsCommandListsEveryDeclaration() throws {
    let run = try evlab(["settings", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let listed = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
    #expect(
      listed.compactMap { $0["option"] as? String }
        == RunDescription.settings.map { EvictionLab.flagSpelling($0.setting) })
    #expect(listed.contains { $0["config_key"] as? String == "size_mode" })
  }

  /// docs/settings.md's table is `evlab settings --markdown`.
  @Test func theDocsTableIsWhatTheDeclarationsSay() throws {
    let run = try evlab(["settings", "--markdown"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("| `--fill-on-miss` |  | true or false | false | replay | only with --semantics kv |"))
    let page = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/settings.md"), encoding: .utf8)
    #expect(
      page.contains(run.stdout),
      "docs/settings.md's table differs from `evlab settings --markdown`: paste its output over the table")
  }
}

/// Values that no part of a run would use, in the commands beyond replay:
/// each was accepted and dropped without a word (a hostile pass).
@Suite struct IgnoredValueTests {
  @Test(arguments: [
    (["replay", "t.oracleGeneral", "--policy", "lru", "--size", "2", "--key-column", "2"], "--key-column reads CSV"),
    (["trace-info", "t.oracleGeneral", "--delimiter", ";"], "--delimiter reads CSV"),
    (
      ["explain", "t.oracleGeneral", "--policy", "lru", "--size", "2", "--key", "1", "--shown", "3"],
      "--shown is for --around"
    ),
    (["disk", "check", "store", "--wait", "5"], "--wait is for --repair"),
    (
      ["bench", "throughput", "t.oracleGeneral", "--policy", "lru", "--size", "2", "--alpha", "0.5"],
      "--alpha is for --baseline"
    ),
  ])
  func aValueNothingUsesIsRefused(arguments: [String], message: String) throws {
    let dir = try scratchDirectory()
    let made = try evlab(
      ["generate", "zipf", "--objects", "50", "--requests", "500", "-o", "t.oracleGeneral"], in: dir)
    #expect(made.status == 0, "\(made.stderr)")
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("store"), withIntermediateDirectories: true)
    let run = try evlab(arguments, in: dir)
    #expect(run.status == 1 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
  }

  /// A label given twice kept the later and dropped the earlier.
  @Test func aLabelGivenTwiceIsRefused() throws {
    let dir = try scratchDirectory()
    try "1\n2\n1\n".write(to: dir.appendingPathComponent("t.txt"), atomically: true, encoding: .utf8)
    let run = try evlab(
      ["compare", "--trace", "t.txt", "--policy", "lru", "--size", "2", "--label", "lru=X", "--label", "lru=Y"], in: dir
    )
    #expect(run.status == 1 && run.stderr.contains("--label names lru twice"), "\(run.stderr)")
  }
}
