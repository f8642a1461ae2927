import ArgumentParser
import EvictionCore
import EvictionReports
import EvictionTraces

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

struct Formats: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the trace formats evlab reads, their other names and the file names that imply them.",
    discussion:
      "--markdown prints docs/traces.md's format table, from the same definitions. A file named after none of them needs --format."
  )

  @Flag(help: "Print the formats as docs/traces.md's Markdown table.")
  var markdown = false

  func run() {
    let definitions = TraceFormats.definitions
    writeStandardOutput(markdown ? FormatTable.markdown(definitions) : FormatTable.text(definitions))
  }
}
