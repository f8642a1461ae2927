import ArgumentParser
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTraces
import Foundation

/// `evlab convert`: any readable trace into one of the formats evlab writes.
struct Convert: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a trace in another format (oracleGeneral and lcs output gain next-access times).",
    discussion: """
      The whole trace is read into memory (a backward pass fills in each request's next access). Examples:
        evlab convert ../shared/traces/libcachesim/cloudPhysicsIO.txt --to oracleGeneral -o cp.oracleGeneral.zst
        evlab convert w106.trace.xz --format cloud-physics --to csv -o w106.csv
      """)

  @Argument(help: "The trace to read.")
  var input: String

  @OptionGroup var traceOptions: TraceOptions

  @Option(help: "The output format: \(TraceWriter.formats.map(\.rawValue).joined(separator: ", ")).")
  var to: String

  @Option(name: .shortAndLong, help: "Output path (.zst compresses).")
  var output: String

  @Flag(help: "txt: write the keys alone, dropping sizes and times (without it, a trace that has either is refused).")
  var keysOnly = false

  func validate() throws {
    guard let format = try? TraceFormat(name: to), TraceWriter.formats.contains(format) else {
      throw ArgumentError("--to '\(to)': write \(TraceWriter.formats.map(\.rawValue).joined(separator: ", "))")
    }
    do throws(TraceError) { try TraceWriter.checkName(output) } catch { throw ArgumentError(error.description) }
    if let named = TraceFormat.infer(fromPath: output), named != format {
      throw ArgumentError(
        "--output \(output) names the \(named.rawValue) format, but --to writes \(format.rawValue): evlab would read it back as \(named.rawValue); end the name in .\(format.rawValue) (optionally .zst)"
      )
    }
    guard output != "-" else {
      throw ArgumentError(
        "--output -: convert writes a file (written whole, then renamed into place), not standard output; name a file, e.g. trace.\(format.rawValue)"
      )
    }
    try OutputCheck.file(output, option: "--output")
    if keysOnly && format != .txt { throw ArgumentError("--keys-only is for --to txt; \(to) keeps sizes and times") }
    try OutputCheck.notAnInput([("--output", output)], inputs: [input])
    try OutputCheck.trace(output, option: "--output")
  }

  func run() throws {
    let format = try TraceFormat(name: to)
    let written = try failing { () throws(TraceError) in
      try TraceWriter.convert(traceOptions.source(input), to: output, format: format, keysOnly: keysOnly) {
        stampTrace(output)
      }
    }
    warnSkipped(written.skipped, path: input)
    printError("wrote \(written.requests) requests to \(output)")
  }
}

/// `evlab trace-info`: statistics before choosing cache sizes.
struct TraceInfoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "trace-info",
    abstract: "Requests, objects, footprint, one-hit wonders, reuse and stack distances, Zipf fit, sizes to sweep.")

  @Argument(help: "Trace files.")
  var traces: [String]

  @OptionGroup var traceOptions: TraceOptions

  @Option(help: "Write {\"traces\": [...]} as JSON to PATH; - for standard output.")
  var json: String?

  func validate() throws {
    guard !traces.isEmpty else { throw ArgumentError("name at least one trace") }
    if let json { try OutputCheck.file(json, option: "--json") }
    try OutputCheck.notAnInput([("--json", json)], inputs: traces)
  }

  func run() throws {
    var infos: [TraceInfo] = []
    do throws(TraceError) {
      for path in traces {
        let info = try TraceInfo.measure(traceOptions.source(path, copies: 1))
        warnSkipped(info.skipped, path: path)
        infos.append(info)
      }
    } catch {
      throw fail(error)
    }
    if json != "-" { print(TraceInfoTables.text(infos), terminator: "") }
    try write(TraceInfoTables.json(infos), to: json)
  }
}

/// `evlab catalog`: every trace under some folders, written down for
/// `evlab compare --collection`.
struct Catalog: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List every trace under folders with format, dataset, request and object counts and checksum (TOML).",
    discussion: """
      Folders are walked in name order. A file's format comes from its name, else from its folder's \
      (Caffeine's <format>/<file> layout); its dataset is its folder's name. README, LICENSE and REFERENCE \
      files, files of no known format and a trace already listed in another format are passed over, each \
      noted at the end of the file. Paths are written relative to the catalog's folder.
        evlab catalog ../shared/traces -o traces/catalog.toml
        evlab compare --collection traces/catalog.toml
      """)

  @Argument(help: "Folders (walked) or trace files.")
  var roots: [String]

  @Option(name: .shortAndLong, help: "The catalog to write (- for standard output).")
  var output: String

  func validate() throws {
    guard !roots.isEmpty else { throw ArgumentError("name at least one folder, e.g. ../shared/traces") }
    try OutputCheck.file(output, option: "--output")
    try OutputCheck.notAnInput([("--output", output)], inputs: roots)
    // A walked folder's traces are inputs too, and one passed over (listed in
    // another format) is read all the same: replace only a catalog.
    if output != "-", let handle = FileHandle(forReadingAtPath: output) {
      defer { try? handle.close() }
      let start = (try? handle.read(upToCount: 64)) ?? Data()
      guard start.starts(with: Data("# Trace catalog for ".utf8)) else {
        throw ArgumentError(
          "--output \(output) exists and is not a catalog evlab wrote (it may be a trace); name a new file, or remove it first"
        )
      }
    }
  }

  func run() throws {
    let base = output == "-" ? "." : output.parentPath
    let folder = base.isEmpty ? "." : base
    let catalog = try failing { () throws(TraceError) in
      try TraceCatalog.scan(roots, relativeTo: folder) { path in
        if isatty(2) == 1 { printError("catalog: reading \(path)") }
      }
    }
    // The header says what made it; no provenance file beside it, so a
    // catalog rewritten from the same traces is the same file.
    let text = catalog.toml(
      header: catalog.header(
        tool: "evlab \(EvlabVersion.description)", command: "evlab catalog \(roots.joined(separator: " ")) -o \(output)"
      ))
    guard output != "-" else { return writeStandardOutput(text) }
    do {
      try text.write(toFile: output, atomically: true, encoding: .utf8)
    } catch {
      throw fail("cannot write \(output): \(error.localizedDescription); check that the folder exists and is writable")
    }
    printError("wrote \(catalog.entries.count) traces (\(catalog.skipped.count) files passed over) to \(output)")
  }
}
