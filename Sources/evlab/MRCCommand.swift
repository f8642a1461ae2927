import ArgumentParser
import EvictionCore
import EvictionReports
import EvictionSim
import EvictionTraces

struct MRC: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mrc",
    abstract: "Miss-ratio curves: every size in one pass (exact LRU, multi-size simulation, SHARDS sampling).",
    discussion: """
      Methods: exact (LRU only: stack distances, every size exact), simulate (any online policy: one \
      reader, one cache per size), shards (spatial sampling at --rate, sizes scaled; LRU by stack \
      distances on the sample; with --max-objects, fixed-size SHARDS). Examples:
        evlab mrc trace.oracleGeneral.bin --sizes 100..100000:log50
        evlab mrc trace.oracleGeneral.bin --policy arc --method shards --rate 0.01 --sizes 1000,10000,100000
      """)

  @Argument(help: "The trace.")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions

  @Option(help: "The policy (default lru).")
  var policy: String = "lru"

  @Option(help: "Cache sizes: A..B:logN (N sizes log-spaced from A to B) or a list, e.g. 1000,5000 (k/m/g suffixes).")
  var sizes: String

  @Option(help: "count or bytes (default count).")
  var sizeMode: SizeMode = .count

  @Option(help: "exact (LRU), simulate or shards (default: exact for LRU, simulate otherwise).")
  var method: String?

  @Option(help: "SHARDS sampling rate in (0, 1] (default 0.01).")
  var rate: Double = 0.01

  @Option(help: "Fixed-size SHARDS (LRU): sample at most N distinct objects, lowering the rate as needed (instead of --rate).")
  var maxObjects: Int?

  @Option(help: "Write the curve as JSON ({\"points\": [...]}, with method and rate) to PATH; - for standard output.")
  var json: String?

  @Option(help: "Write the curve as CSV to PATH; - for standard output.")
  var csv: String?

  func run() throws {
    var spec = try PolicySpec("lru")
    var cacheSizes: [Int64] = []
    var chosen = MissRatioCurve.Method.exact
    try oneLineErrors {
      try traceOptions.checkArguments()
      spec = try parsePolicies([policy]).first!
      if PolicyCatalog.offline.contains(spec.name) {
        throw ValidationError("\(spec.name) is offline; miss-ratio curves run online policies (replay it with evlab replay)")
      }
      do { cacheSizes = try MissRatioCurves.parseSizes(sizes, parse: parseSize) } catch let error as MissRatioCurves.CurveSizeError {
        throw ValidationError(error.description)
      }
      guard !cacheSizes.isEmpty else { throw ValidationError("--sizes is empty; e.g. --sizes 100..100000:log20") }
      if let method {
        guard let m = MissRatioCurve.Method(rawValue: method.lowercased()) else {
          throw ValidationError("--method '\(method)': use exact, simulate or shards")
        }
        chosen = m
      } else {
        chosen = spec.name == "lru" ? .exact : .simulate
      }
      if chosen == .exact && spec.name != "lru" {
        throw ValidationError("--method exact is for LRU (a stack policy); use --method simulate or shards for \(spec.name)")
      }
      guard rate > 0 && rate <= 1 else { throw ValidationError("--rate \(rate): give a sampling rate in (0, 1], e.g. 0.01") }
      if let maxObjects {
        guard chosen == .shards else { throw ValidationError("--max-objects is fixed-size SHARDS: add --method shards") }
        guard spec.name == "lru" else { throw ValidationError("fixed-size SHARDS (--max-objects) is for LRU; use --rate for \(spec.name)") }
        guard maxObjects >= 1 else { throw ValidationError("--max-objects \(maxObjects): at least 1") }
      }
    }
    let source: TraceSource
    do throws(TraceError) { source = try traceOptions.source(trace, copies: 1) } catch { throw fail(error) }
    let progress = ReplayProgress()
    let display = ProgressLine(progress, total: 1, label: "mrc")
    display.begin()
    let curve: MissRatioCurve
    do throws(TraceError) {
      switch chosen {
      case .exact: curve = try MissRatioCurves.exactLRU(source, sizes: cacheSizes, sizeMode: sizeMode, progress: progress)
      case .simulate:
        curve = try MissRatioCurves.simulate(source, policy: spec, sizes: cacheSizes, sizeMode: sizeMode, progress: progress)
      case .shards where maxObjects != nil:
        curve = try MissRatioCurves.shardsFixedSize(
          source, sizes: cacheSizes, sizeMode: sizeMode, maxObjects: maxObjects!, progress: progress)
      case .shards:
        curve = try MissRatioCurves.shards(
          source, policy: spec, sizes: cacheSizes, sizeMode: sizeMode, rate: rate, progress: progress)
      }
      display.end()
      warnSkipped(curve.skipped, path: source.path)
    } catch {
      display.end()
      throw fail(error)
    }
    if json != "-" && csv != "-" { print(CurveTables.table([curve]), terminator: "") }
    try write(CurveTables.json([curve]), to: json)
    try write(CurveTables.csv([curve]), to: csv)
  }
}
