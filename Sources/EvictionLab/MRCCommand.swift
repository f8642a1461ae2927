import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTraces
import Foundation

struct MRC: ParsableCommand, TakesPolicies, TakesSizes, TakesSizeMode {
  static let configuration = CommandConfiguration(
    commandName: "mrc",
    abstract: "Miss-ratio curves: every size in one pass (exact LRU, multi-size simulation, SHARDS sampling).",
    discussion: """
      Methods: exact (LRU only: stack distances, every size exact), simulate (any online policy: one \
      reader, one cache per size), shards (spatial sampling at --rate, sizes scaled; LRU by stack \
      distances on the sample; with --max-objects, fixed-size SHARDS). A curve behind an admission \
      policy is simulated. Examples:
        evlab mrc trace.oracleGeneral.bin --sizes 100..100000:log50
        evlab mrc trace.oracleGeneral.bin --policy arc --method shards --rate 0.01 --sizes 1000,10000,100000
      """)

  @Argument(help: "The trace.")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions

  // One curve per policy; offline ones are left out of `all`.
  @OptionGroup var policyOptions: PolicyOptions
  @OptionGroup var sizeOptions: SizeOptions
  @OptionGroup var sizeModeOption: SizeModeOption

  @OptionGroup var admissions: AdmissionOptions

  @Option(help: "exact (LRU), simulate or shards (default: exact for LRU, simulate otherwise).")
  var method: Checked<CurveMethod>?

  @Option(help: "With --method shards: the sampling rate in (0, 1] (default 0.01).")
  var rate: Double?

  @Option(
    help: "Fixed-size SHARDS (LRU): sample at most N distinct objects, lowering the rate as needed (instead of --rate)."
  )
  var maxObjects: Int?

  @Option(
    help:
      "Requests served before counting starts, or a duration on the trace's clock (3600s, 90m, 6h, 2d); every point counts the same requests as evlab replay --warmup."
  )
  var warmup: Checked<SpanValue>?

  @OptionGroup var output: OutputOptions

  /// The policies, `all` meaning every online one (the offline ones need the future).
  func specs() throws -> [PolicySpec] {
    try policies.specs(or: DefaultJob.lru).filter { !($0.descriptor.isOffline && policies.namesAll) }
  }

  /// Every policy × admission, with the method each is computed by.
  func plans() throws -> [(policy: PolicySpec, admission: AdmissionSpec, plan: MissRatioCurves.Plan)] {
    let admissionSpecs = try admissions.specs(sizeMode: sizeMode, policies: try specs())
    return try specs().flatMap { spec in
      try admissionSpecs.map { admission in
        let plan = try failing { () throws(CurveError) in
          try MissRatioCurves.plan(
            for: spec, method: method?.value.method, rate: rate ?? 0.01, maxObjects: maxObjects, admission: admission)
        }
        return (spec, admission, plan)
      }
    }
  }

  func validate() throws {
    try method?.check()
    try OutputCheck.notAnInput([("--csv", output.csv), ("--json", output.json)], inputs: [trace])
    guard !sizes.isEmpty else { throw ArgumentError("--sizes is empty; e.g. --sizes 100..100000:log20") }
    try sizes.check()
    try warmup?.check()
    if rate != nil && method?.value.method != .shards {
      throw ArgumentError("--rate is SHARDS' sampling rate: add --method shards, or leave --rate out")
    }
    if rate != nil && maxObjects != nil {
      throw ArgumentError(
        "--max-objects sets the rate itself (fixed-size SHARDS): give --rate or --max-objects, not both")
    }
    if warmup != nil && maxObjects != nil {
      throw ArgumentError(
        "--warmup does not apply to fixed-size SHARDS (--max-objects), whose rate changes as it reads; use --rate")
    }
    _ = try plans()
  }

  func run() throws {
    let plans = try plans()
    let source = try traceSource(trace, traceOptions)
    let cacheSizes = try resolveSizes(sizes.sizes, for: source, sizeMode: sizeMode).sorted()
    let progress = try failing { () throws(TraceError) in
      try ReplayCell.expectedWork(
        plans.map { ReplayCell(trace: source, policy: $0.policy, cacheSize: 1, sizeMode: sizeMode) },
        interactive: isatty(2) == 1)
    }
    let display = ProgressLine(progress, total: plans.count, label: "mrc")
    display.begin()
    defer { display.end() }
    let curves = try failing { () throws(TraceError) in
      try MissRatioCurves.curves(
        source, plans: plans, sizes: cacheSizes, sizeMode: sizeMode, warmup: warmup?.value.span, progress: progress)
    }
    display.end()
    if let first = curves.first { warnSkipped(first.skipped, path: source.path) }
    for curve in curves where !curve.simulatedSizes.isEmpty {
      let sizes = curve.simulatedSizes.map(String.init).joined(separator: ", ")
      printError(
        "note: \(curve.policy): at \(curve.simulatedSizes.count == 1 ? "size" : "sizes") \(sizes) an object is heavier than the cache or changes size, so stack distances do not decide hits there; "
          + "those points were simulated (method simulate in the output), every other point is exact")
    }
    for curve in curves where !curve.belowLargestObject.isEmpty {
      let sizes = curve.belowLargestObject
      printError(
        "warning: \(curve.policy): SHARDS at rate \(curve.rate) scales \(sizes.count == 1 ? "size" : "sizes") "
          + "\(sizes.map(String.init).joined(separator: ", ")) below the largest sampled object "
          + "(\(curve.largestSampledObject) bytes), which the full-size cache holds: the estimate there can be far off "
          + "(scaled_below_largest_object in the CSV and JSON); raise --rate, or use --method simulate for those sizes")
    }
    for curve in curves
    where curve.method == .shards && curve.sampledObjects > 0
      && curve.sampledObjects < MissRatioCurve.fewSampledObjects
    {
      printError(
        "warning: \(curve.policy): SHARDS at rate \(curve.rate) kept \(Wording.count(curve.sampledObjects, "object")) "
          + "of the trace: a curve from so few is a rough estimate at best; raise --rate, or use --method "
          + (curve.policy == "lru" ? "exact" : "simulate"))
    }
    try output.emit(table: CurveTables.table(curves), json: CurveTables.json(curves), csv: CurveTables.csv(curves))
  }
}

/// A curve method: exact, simulate or shards.
struct CurveMethod: ArgumentValue {
  var method: MissRatioCurve.Method
  init(parsing text: String) throws(ArgumentError) {
    guard let method = MissRatioCurve.Method(rawValue: text.lowercased()) else {
      throw ArgumentError("--method '\(text)': use exact, simulate or shards")
    }
    self.method = method
  }
}
