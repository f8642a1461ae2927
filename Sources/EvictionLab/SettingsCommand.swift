import ArgumentParser
import EvictionRun
import EvictionSim
import Foundation

/// `evlab settings`: the replay's settings as they are declared once
/// (``RunDescription/settings``), the source of every command's options,
/// the configuration keys and the one check.
struct Settings: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the replay's settings: option, configuration key, value, default, and how each combines.",
    discussion:
      "Each setting is declared once; the commands' options, a configuration's keys and the check every front end runs come from that declaration. --markdown prints docs/settings.md's table."
  )

  @Flag(help: "Print the settings as docs/settings.md's Markdown table.")
  var markdown = false

  @Flag(help: "Print the settings as JSON (one object per setting; the keys name the fields).")
  var json = false

  func validate() throws {
    if markdown && json { throw ArgumentError("give --markdown or --json, not both") }
  }

  func run() throws {
    let spell = EvictionLab.flagSpelling
    let rows = RunDescription.settings.map { declared in
      let d = declared.declaration
      return (
        option: spell(d.setting), key: d.configKey, value: d.value, defaultValue: d.defaultValue,
        commands: d.commands, rules: declared.rules(spelling: spell), help: d.help
      )
    }
    if json {
      let objects: [[String: Any]] = rows.map { row in
        [
          "option": row.option, "config_key": row.key ?? NSNull(), "value": row.value,
          "default": row.defaultValue ?? NSNull(), "commands": row.commands, "rules": row.rules, "help": row.help,
        ]
      }
      let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
      writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
    } else if markdown {
      var text = "| option | configuration key | value | default | commands | combines |\n"
      text += "| --- | --- | --- | --- | --- | --- |\n"
      for row in rows {
        let cells = [
          "`\(row.option)`", row.key.map { "`\($0)`" } ?? "", row.value, row.defaultValue ?? "",
          row.commands.joined(separator: ", "), row.rules.joined(separator: "; "),
        ]
        text += "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
      }
      writeStandardOutput(text)
    } else {
      var text = ""
      for row in rows {
        text += "\(row.option)" + (row.key.map { "  (configuration: \($0))" } ?? "") + "\n"
        text += "  value: \(row.value)" + (row.defaultValue.map { "; default \($0)" } ?? "") + "\n"
        text += "  commands: \(row.commands.joined(separator: ", "))\n"
        for rule in row.rules { text += "  \(rule)\n" }
      }
      writeStandardOutput(text)
    }
  }
}
