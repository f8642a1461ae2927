import EvictionCore

/// The catalog as people read it: `evlab policies`' listing and the README's
/// policy tables, both written from the descriptors.
public enum PolicyTable {
  /// One line per policy (name, summary, citation), then one per parameter.
  public static func text(_ entries: [PolicyDescriptor]) -> String {
    func padded(_ text: String, _ width: Int) -> String {
      text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
    var text = ""
    for entry in entries {
      text += padded(entry.name, 8) + entry.summaryWithCitation + "\n"
      for p in entry.parameters {
        text += "        " + padded("\(entry.name):\(p.name)=\(p.placeholder)", 22)
        text += "\(p.help) (default \(p.defaultValue))\n"
      }
    }
    return text
  }

  /// Two Markdown tables: the policies (with the libCacheSim release each
  /// reproduces, ``PolicyDescriptor/libCacheSim``), then the models of
  /// shipped caches.
  public static func markdown(_ entries: [PolicyDescriptor]) -> String {
    /// A row; the policies' table also names the libCacheSim release.
    func row(_ entry: PolicyDescriptor, version: Bool) -> String {
      let parameters = entry.parameters.map { "`\($0.name)`=\($0.defaultValue) (\($0.help))" }
      let described = ([entry.summaryWithCitation] + parameters).joined(separator: "; ")
      let checked = entry.checkedAgainst.isEmpty ? "not yet checked" : entry.checkedAgainst
      let release = version ? " \(entry.libCacheSim.isEmpty ? "–" : entry.libCacheSim) |" : ""
      return "| `\(entry.name)` | \(described) |\(release) \(checked) |\n"
    }
    let policies = entries.filter { !$0.isModel }
    let models = entries.filter(\.isModel)
    var text = "| name | policy; parameters (default) | libCacheSim | agrees exactly with |\n"
    text += "| --- | --- | --- | --- |\n"
    text += policies.map { row($0, version: true) }.joined()
    if !models.isEmpty {
      text += "\nModels of shipped caches, listed apart and never ranked:\n\n"
      text += "| name | models; parameters (default) | checked against |\n| --- | --- | --- |\n"
      text += models.map { row($0, version: false) }.joined()
    }
    return text
  }
}
