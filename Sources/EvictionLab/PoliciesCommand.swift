import ArgumentParser
import EvictionCore

struct Policies: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the policies evlab knows and their parameters.",
    discussion: "--markdown prints the README's policy tables, from the same descriptors.")

  @Flag(help: "Print the policies as the README's two Markdown tables (policies, then models of shipped caches).")
  var markdown = false

  func run() {
    if markdown {
      writeStandardOutput(PolicyTable.markdown(PolicyCatalog.entries))
      return
    }
    for entry in PolicyCatalog.entries {
      print(entry.name.padding(8) + entry.summaryWithCitation)
      for p in entry.parameters {
        print(
          "        " + "\(entry.name):\(p.name)=\(p.placeholder)".padding(22)
            + "\(p.help) (default \(p.defaultValue))")
      }
    }
  }
}

/// The README's policy tables, written from the descriptors.
enum PolicyTable {
  static func markdown(_ entries: [PolicyDescriptor]) -> String {
    func row(_ entry: PolicyDescriptor) -> String {
      let parameters = entry.parameters.map { "`\($0.name)`=\($0.defaultValue) (\($0.help))" }
      let described = ([entry.summaryWithCitation] + parameters).joined(separator: "; ")
      let checked = entry.checkedAgainst.isEmpty ? "not yet checked" : entry.checkedAgainst
      return "| `\(entry.name)` | \(described) | \(checked) |\n"
    }
    let policies = entries.filter { !$0.isModel }
    let models = entries.filter(\.isModel)
    var text = "| name | policy; parameters (default) | agrees exactly with |\n| --- | --- | --- |\n"
    text += policies.map(row).joined()
    if !models.isEmpty {
      text += "\nModels of shipped caches, listed apart and never ranked:\n\n"
      text += "| name | models; parameters (default) | checked against |\n| --- | --- | --- |\n"
      text += models.map(row).joined()
    }
    return text
  }
}

extension String {
  func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
