import EvictionLab
import EvictionRun
import EvictionTraces
import Foundation
import Testing

/// The libraries name settings by their API names and the command line
/// spells them as flags: every spelling must be a flag that exists, on the
/// command it names, or the way out an error gives leads nowhere.
@Suite struct SettingSpellingTests {
  /// Each command's path (`disk check`) and its long flags, from the built tool's own description.
  func commandFlags() throws -> [String: Set<String>] {
    let run = try evlab(["--experimental-dump-help"])
    #expect(run.status == 0)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    var flags: [String: Set<String>] = [:]
    func walk(_ command: [String: Any], path: [String]) {
      let arguments = command["arguments"] as? [[String: Any]] ?? []
      let names = arguments.flatMap { ($0["names"] as? [[String: Any]]) ?? [] }
        .filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String }
      flags[path.joined(separator: " "), default: []].formUnion(names)
      for sub in command["subcommands"] as? [[String: Any]] ?? [] {
        walk(sub, path: path + [sub["commandName"] as? String ?? "?"])
      }
    }
    walk(try #require(document["command"] as? [String: Any]), path: [])
    return flags
  }

  @Test func everySettingIsSpelledAsAFlagThatExists() throws {
    let flags = try commandFlags()
    let anyCommand = flags.values.reduce(into: Set<String>()) { $0.formUnion($1) }
    for setting in Setting.all {
      let spelled = EvictionLab.flagSpelling(setting)
      if let command = setting.command {
        #expect(spelled.hasPrefix("evlab \(command)"), "\(setting.name): \(spelled)")
        let known = try #require(flags[command], "no command '\(command)' for \(setting.name)")
        if !setting.name.isEmpty {
          let flag = String(spelled.split(separator: " ").last!.dropFirst(2))
          #expect(known.contains(flag), "evlab \(command) has no --\(flag)")
        }
      } else {
        #expect(spelled.hasPrefix("--"), "\(setting.name): \(spelled)")
        #expect(anyCommand.contains(String(spelled.dropFirst(2))), "no command takes \(spelled)")
      }
    }
    #expect(EvictionLab.flagSpelling(.keyColumn) == "--key-column")
    #expect(EvictionLab.flagSpelling(.repairStore) == "evlab disk check --repair")
    #expect(EvictionLab.flagSpelling(.convert) == "evlab convert")
  }

  @Test func aLibraryMessageNamesTheSettingAsTheToolSpellsIt() throws {
    let dir = try scratchDirectory()
    try "1\n2\n".write(to: dir.appendingPathComponent("keys.data"), atomically: true, encoding: .utf8)
    let run = try evlab(["replay", "keys.data", "--policy", "lru", "--size", "2"], in: dir)
    #expect(run.status == 1)
    #expect(run.stderr.contains("pass --format ("), "\(run.stderr)")
    // Through the library alone, the same message names the API's setting.
    #expect(TraceError.cannotInferFormat(path: "keys.data").description.contains("pass format ("))
  }
}

/// The terminal's progress line: what it estimates.
@Suite struct ProgressLineTests {
  @Test func progressEstimatesWaitForAHundredthOfTheWork() {
    #expect(ProgressLine.estimate(elapsed: 1, done: 5, expected: 1000) == nil)
    #expect(ProgressLine.estimate(elapsed: 2, done: 100, expected: 1000) == 18)
    #expect(ProgressLine.estimate(elapsed: 2, done: 1000, expected: 1000) == nil)
    #expect(ProgressLine.estimate(elapsed: 2, done: 10, expected: 0) == nil)
  }
}

/// What `replay` prints answers the question asked: rows grouped by size,
/// each size as it was given beside what it came to, the byte miss ratio
/// only where it says something, and how a CSV trace's columns were read.
@Suite struct ReplayTerminalTests {
  @Test func theTableGroupsBySizeAndShowsSizesAsGiven() throws {
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path
    let run = try evlab(["replay", trace, "--policy", "lru,arc", "--size", "1%,100"])
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines[0].hasPrefix("trace") && lines[0].contains("  size  ") && !lines[0].contains("byte miss ratio"))
    // Both policies at 1%, a blank line, both at 100.
    #expect(lines[2].contains("1% (185 objects)") && lines[2].contains(" lru "))
    #expect(lines[3].contains("1% (185 objects)") && lines[3].contains(" arc "))
    #expect(lines[4].isEmpty)
    #expect(lines[5].contains(" 100 ") && lines[5].contains(" lru ") && lines[6].contains(" arc "))
    // Objects of different sizes: the byte miss ratio is shown; the CSV
    // mapping read off the header is said once.
    let dir = try scratchDirectory()
    let csv = dir.appendingPathComponent("sized.csv")
    // A small object every other request, between large ones that never stay.
    let requests = (0..<400).map { i in i % 2 == 0 ? "\(i),0,100" : "\(i),\(1 + i % 37),5000" }
    try (["time,obj_id,obj_size"] + requests).joined(separator: "\n").write(
      to: csv, atomically: true, encoding: .utf8)
    let sized = try evlab(["replay", csv.path, "--policy", "lru", "--size", "10"])
    #expect(sized.status == 0, "\(sized.stderr)")
    #expect(sized.stdout.contains("byte miss ratio"))
    #expect(
      sized.stderr.contains(
        "sized.csv: read as CSV with key column 2 (obj_id), size column 3 (obj_size), time column 1 (time); a header line"
      ), "\(sized.stderr)")
    // Columns all given: nothing to announce.
    let given = try evlab([
      "replay", csv.path, "--policy", "lru", "--size", "10", "--key-column", "2", "--size-column", "3",
      "--time-column", "1",
    ])
    #expect(given.status == 0 && !given.stderr.contains("read as CSV"), "\(given.stderr)")
  }
}

/// `evlab check-policy` runs the conformance battery on catalog policies.
@Suite struct CheckPolicyCommandTests {
  @Test func builtInPoliciesPassAndMistakesAreNamed() throws {
    let run = try evlab(["check-policy", "lru,slru:segments=4", "--requests", "1000"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stdout == "lru: passed (15 runs, 15,000 requests)\nslru:segments=4: passed (15 runs, 15,000 requests)\n")
    let unknown = try evlab(["check-policy", "lru3"])
    #expect(unknown.status == 1 && unknown.stderr.contains("unknown policy 'lru3'"), "\(unknown.stderr)")
    let few = try evlab(["check-policy", "lru", "--requests", "10"])
    #expect(few.status == 1 && few.stderr.contains("--requests 10"), "\(few.stderr)")
  }
}
