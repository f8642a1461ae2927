import EvictionRun
import EvictionTraces

/// The trace formats as people read them: `evlab formats`' listing and the
/// table in docs/traces.md, both written from the definitions. A format
/// without file suffixes is named by the format setting, as the front end
/// spells it (``EvictionRun/Setting``).
public enum FormatTable {
  /// One line per format: name, aliases, file suffixes, what a record holds.
  public static func text(_ definitions: [any TraceFormatDefinition.Type]) -> String {
    let width = (definitions.map { $0.name.count }.max() ?? 0) + 2
    return definitions.map { definition in
      let name = definition.name + String(repeating: " ", count: width - definition.name.count)
      let also = definition.aliases.isEmpty ? "" : " (also \(definition.aliases.joined(separator: ", ")))"
      let files =
        definition.fileSuffixes.isEmpty
        ? "; \(Setting.format) only" : "; files " + definition.fileSuffixes.joined(separator: ", ")
      return name + definition.summary + also + files + "\n"
    }.joined()
  }

  /// A Markdown table of the formats.
  public static func markdown(_ definitions: [any TraceFormatDefinition.Type]) -> String {
    var text = "| format | also | file names | sizes | a record |\n| --- | --- | --- | --- | --- |\n"
    for definition in definitions {
      let also = definition.aliases.map { "`\($0)`" }.joined(separator: ", ")
      let suffixes =
        definition.fileSuffixes.isEmpty
        ? "`\(Setting.format)` only" : definition.fileSuffixes.map { "`*\($0)`" }.joined(separator: ", ")
      text += "| `\(definition.name)` | \(also) | \(suffixes) | \(definition.carriesSizes ? "yes" : "no (1)") |"
      text +=
        " \(definition.summary.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")) |\n"
    }
    return text
  }
}
