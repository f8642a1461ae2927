import ArgumentParser
import EvictionCache
import EvictionReports
import EvictionStats
import EvictionTraces

/// How fast a reader streams a trace from the page cache.
struct ReadBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "read",
    abstract: "Median records per second of reading a trace (warm page cache; decompression included).",
    discussion: """
      Reads the whole trace --runs times after one warm-up read and reports the median. Example:
        evlab bench read ../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin --runs 9
      """)

  @Argument(help: "Trace files.")
  var traces: [String]

  @OptionGroup var traceOptions: TraceOptions

  @Option(help: "Timed reads per trace.")
  var runs: Int = 7

  func run() throws {
    try oneLineErrors {
      try traceOptions.checkArguments()
      guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }
    var rows: [[String]] = []
    for path in traces {
      var rates: [Double] = []
      var records = 0
      do throws(TraceError) {
        let source = try traceOptions.source(path, copies: 1)
        let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 1 << 14)
        defer { buffer.deallocate() }
        for round in 0...runs {
          let reader = try source.open()
          let start = monotonicNanoseconds()
          var count = 0
          var checksum: UInt64 = 0
          while true {
            let n = try reader.read(into: buffer)
            if n == 0 { break }
            count += n
            checksum &+= buffer[n - 1].key
          }
          let seconds = Double(monotonicNanoseconds() - start) / 1e9
          if round > 0 { rates.append(Double(count) / seconds) }  // round 0 warms the page cache
          records = count
          if checksum == 42 { printError("") }  // keeps the loop from being optimised away
        }
      } catch {
        throw fail(error)
      }
      let summary = SampleSummary(rates)
      rows.append([
        path.split(separator: "/").last.map(String.init) ?? path, String(records),
        ReplayTables.fixed(summary.median / 1e6, 1), ReplayTables.fixed(summary.minimum / 1e6, 1),
        ReplayTables.fixed(summary.maximum / 1e6, 1),
      ])
    }
    print(
      ReplayTables.render(header: ["trace", "records", "median M rec/s", "min", "max"], rows: rows, leftColumns: 1),
      terminator: "")
  }
}
