import ArgumentParser
import EvictionCore
import EvictionReports

struct Policies: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the policies evlab knows and their parameters.",
    discussion: "--markdown prints the README's policy tables, from the same descriptors.")

  @Flag(help: "Print the policies as the README's two Markdown tables (policies, then models of shipped caches).")
  var markdown = false

  func run() {
    let entries = PolicyCatalog.entries
    writeStandardOutput(markdown ? PolicyTable.markdown(entries) : PolicyTable.text(entries))
  }
}
