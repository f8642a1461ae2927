import ArgumentParser
import EvictionReports
import EvictionSim
import EvictionTraces

/// `evlab convert`: any readable trace into oracleGeneral, csv or txt.
struct Convert: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a trace in another format (oracleGeneral output gains next-access times).",
    discussion: """
      The whole trace is read into memory (a backward pass fills in each request's next access). Examples:
        evlab convert ../shared/traces/libcachesim/cloudPhysicsIO.txt --to oracleGeneral -o cp.oracleGeneral.zst
        evlab convert w106.trace.xz --format cloud-physics --to csv -o w106.csv
      """)

  @Argument(help: "The trace to read.")
  var input: String

  @OptionGroup var traceOptions: TraceOptions

  @Option(help: "The output format: oracleGeneral, csv or txt.")
  var to: String

  @Option(name: .shortAndLong, help: "Output path (.zst compresses).")
  var output: String

  func validate() throws {
    guard let format = try? TraceFormat(name: to), [.oracleGeneral, .csv, .txt].contains(format) else {
      throw ArgumentError("--to '\(to)': write oracleGeneral, csv or txt")
    }
  }

  func run() throws {
    let format = try TraceFormat(name: to)
    let written = try failing { () throws(TraceError) in
      try TraceWriter.convert(traceOptions.source(input), to: output, format: format)
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
