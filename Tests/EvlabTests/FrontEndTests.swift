import EvictionLab
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
