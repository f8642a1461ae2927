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

  @Option(
    name: .customLong("policy"),
    help: "Policies, comma-separated or repeated (default lru); all for every online one. One curve each.")
  var policies: [String] = []

  @Option(
    help:
      "Cache sizes, comma-separated or repeated: A..B:logN (N sizes log-spaced from A to B), values (1000, 64m), shares of the footprint (1%, 0.01), or auto (libCacheSim's 0.1%...80%)."
  )
  var sizes: [String] = []

  @Option(help: "count or bytes.")
  var sizeMode: SizeMode = .count

  @Option(help: "exact (LRU), simulate or shards (default: exact for LRU, simulate otherwise).")
  var method: String?

  @Option(help: "SHARDS sampling rate in (0, 1].")
  var rate: Double = 0.01

  @Option(
    help: "Fixed-size SHARDS (LRU): sample at most N distinct objects, lowering the rate as needed (instead of --rate)."
  )
  var maxObjects: Int?

  @Option(help: "Write the curve as JSON ({\"points\": [...]}, with method and rate) to PATH; - for standard output.")
  var json: String?

  @Option(help: "Write the curve as CSV to PATH; - for standard output.")
  var csv: String?

  /// The method for `spec`: the one asked for, or exact for LRU and simulate otherwise.
  func method(for spec: PolicySpec) throws -> MissRatioCurve.Method {
    guard let method else { return spec.name == "lru" ? .exact : .simulate }
    guard let chosen = MissRatioCurve.Method(rawValue: method.lowercased()) else {
      throw ValidationError("--method '\(method)': use exact, simulate or shards")
    }
    if chosen == .exact && spec.name != "lru" {
      throw ValidationError(
        "--method exact is for LRU (a stack policy); use --method simulate or shards for \(spec.name)")
    }
    if maxObjects != nil && spec.name != "lru" {
      throw ValidationError("fixed-size SHARDS (--max-objects) is for LRU; use --rate for \(spec.name)")
    }
    return chosen
  }

  func run() throws {
    var specs: [PolicySpec] = []
    var requested: [CacheSize] = []
    var methods: [MissRatioCurve.Method] = []
    try oneLineErrors {
      try traceOptions.checkArguments()
      // `all` means every online policy here: the offline ones need the future.
      let named = policies.isEmpty ? ["lru"] : policies
      specs = try parsePolicies(named).filter {
        !($0.descriptor.isOffline && named.contains { $0.lowercased() == "all" })
      }
      for spec in specs where spec.descriptor.isOffline {
        throw ValidationError(
          "\(spec.name) is offline; miss-ratio curves run online policies (replay it with evlab replay)")
      }
      guard Set(specs).count == specs.count else {
        throw ValidationError("--policy names a policy twice; name each once")
      }
      guard !sizes.isEmpty else { throw ValidationError("--sizes is empty; e.g. --sizes 100..100000:log20") }
      requested = try parseCacheSizes(sizes, option: "--sizes")
      methods = try specs.map(method(for:))
      guard rate > 0 && rate <= 1 else {
        throw ValidationError("--rate \(rate): give a sampling rate in (0, 1], e.g. 0.01")
      }
      if let maxObjects {
        guard methods.allSatisfy({ $0 == .shards }) else {
          throw ValidationError("--max-objects is fixed-size SHARDS: add --method shards")
        }
        guard maxObjects >= 1 else { throw ValidationError("--max-objects \(maxObjects): at least 1") }
      }
    }
    let source: TraceSource
    do throws(TraceError) { source = try traceOptions.source(trace, copies: 1) } catch { throw fail(error) }
    let cacheSizes = try resolveSizes(requested, for: source, sizeMode: sizeMode).sorted()
    let progress = ReplayProgress()
    let display = ProgressLine(progress, total: specs.count, label: "mrc")
    display.begin()
    var curves: [MissRatioCurve] = []
    do throws(TraceError) {
      for (spec, chosen) in zip(specs, methods) {
        let curve: MissRatioCurve
        switch chosen {
        case .exact:
          curve = try MissRatioCurves.exactLRU(source, sizes: cacheSizes, sizeMode: sizeMode, progress: progress)
        case .simulate:
          curve = try MissRatioCurves.simulate(
            source, policy: spec, sizes: cacheSizes, sizeMode: sizeMode, progress: progress)
        case .shards where maxObjects != nil:
          curve = try MissRatioCurves.shardsFixedSize(
            source, sizes: cacheSizes, sizeMode: sizeMode, maxObjects: maxObjects!, progress: progress)
        case .shards:
          curve = try MissRatioCurves.shards(
            source, policy: spec, sizes: cacheSizes, sizeMode: sizeMode, rate: rate, progress: progress)
        }
        progress.cellsDone.add(1, ordering: .relaxed)
        curves.append(curve)
      }
      display.end()
      if let first = curves.first { warnSkipped(first.skipped, path: source.path) }
    } catch {
      display.end()
      throw fail(error)
    }
    if json != "-" && csv != "-" { print(CurveTables.table(curves), terminator: "") }
    try write(CurveTables.json(curves), to: json)
    try write(CurveTables.csv(curves), to: csv)
  }
}
