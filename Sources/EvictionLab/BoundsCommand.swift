import ArgumentParser
import EvictionReports
import EvictionSim
import EvictionTraces
import Foundation

struct Bounds: ParsableCommand, TakesSizes, TakesSizeMode {
  static let configuration = CommandConfiguration(
    commandName: "bounds",
    abstract: "Bounds on the fewest misses any cache can have: FOO's and PFOO's, exact for objects of any size.",
    discussion: """
      Belady is the optimum only when every object weighs the same. With sizes, the optimum lies between \
      a lower bound (no cache misses less) and an upper bound (a schedule of whole objects that fits the \
      cache at every moment): foo-l and foo-u from one min-cost flow (Berger et al., SIGMETRICS'18), \
      pfoo-l (space-time only; any length) and pfoo-u (FOO on bands of intervals; long traces). \
      Misses of a lower bound are fractional. Examples:
        evlab bounds trace.oracleGeneral.bin --size-mode bytes --sizes 64m,256m,1g
        evlab bounds long.oracleGeneral.bin --size-mode bytes --sizes 1% --methods pfoo-l,pfoo-u
      """)

  @Argument(help: "The trace.")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions
  @OptionGroup var sizeOptions: SizeOptions
  @OptionGroup var sizeModeOption: SizeModeOption

  @Option(
    help:
      "Bounds to compute, comma-separated: foo (foo-l and foo-u), pfoo-l, pfoo-u (default: foo and pfoo-l up to --foo-limit requests, pfoo-l and pfoo-u past it)."
  )
  var methods: [String] = []

  @Option(
    help:
      "The most requests FOO solves (a min-cost flow of one node and two arcs a request, its time growing as their square; default 250000)."
  )
  var fooLimit: Int = FlowBound.defaultFOOLimit

  @Option(help: "Bound the trace's first N requests only (default: all of them).")
  var requests: Int64?

  @Option(help: "Intervals in each of PFOO-U's bands (more is closer to FOO and slower; default 200000).")
  var step: Int = 200_000

  @OptionGroup var output: OutputOptions

  enum Method: String, CaseIterable {
    case foo
    case pfooL = "pfoo-l"
    case pfooU = "pfoo-u"
  }

  func chosen() throws -> Set<Method>? {
    guard !methods.isEmpty else { return nil }
    var set: Set<Method> = []
    for item in try listItems(methods, option: "--methods") {
      guard let method = Method(rawValue: item.lowercased()) else {
        throw ArgumentError(
          "--methods '\(item)': use \(Method.allCases.map(\.rawValue).joined(separator: ", ")) (foo gives foo-l and foo-u)"
        )
      }
      set.insert(method)
    }
    return set
  }

  func validate() throws {
    try OutputCheck.notAnInput([("--csv", output.csv), ("--json", output.json)], inputs: [trace])
    guard !sizes.isEmpty else { throw ArgumentError("--sizes is empty; e.g. --sizes 1%,10% or --sizes 64m") }
    try sizes.check()
    _ = try chosen()
    guard fooLimit >= 1 && fooLimit <= FlowIntervals.maximumRequests else {
      throw ArgumentError("--foo-limit \(fooLimit): give 1 to \(FlowIntervals.maximumRequests) requests")
    }
    if let requests, requests < 1 { throw ArgumentError("--requests \(requests): give at least 1") }
    guard step >= 2 && step <= FlowIntervals.maximumRequests else {
      throw ArgumentError("--step \(step): give 2 to \(FlowIntervals.maximumRequests) intervals a band")
    }
  }

  func run() throws {
    let rows = try results(say: printError)
    let provenance = runProvenance()
    try output.emit(
      table: BoundRow.table(rows),
      json: "{\n  \"provenance\": \(provenance.json),\n  \"results\": [\n    "
        + rows.map { ResultWriter.object($0, columns: BoundRow.columns) }.joined(separator: ",\n    ") + "\n  ]\n}\n",
      csv: BoundRow.csv(rows))
  }

  /// The bounds asked for, one row per bound and size; `say` hears each step.
  func results(say: (String) -> Void) throws -> [BoundRow] {
    let source = try traceSource(trace, traceOptions)
    let cacheSizes = try resolveSizes(sizes.sizes, for: source, sizeMode: sizeMode)
    let estimate = min(
      try failing { () throws(TraceError) in try source.estimatedRequests() }, requests ?? .max)
    try failing { () throws(TraceError) in
      try MemoryBudget.check(
        FlowIntervals.footprint(requests: estimate), for: "reading \(source.path)'s requests for the bounds",
        wayOut: "bound a shorter trace")
    }
    say("bounds: reading \(source.path)")
    let intervals = try failing { () throws(TraceError) in
      try FlowIntervals.read(source, sizeMode: sizeMode, limit: requests)
    }
    let n = intervals.count
    let methods = try chosen() ?? (n <= fooLimit ? [.foo, .pfooL] : [.pfooL, .pfooU])
    if methods.contains(.foo) || methods.contains(.pfooU) {
      if methods.contains(.foo) && n > fooLimit {
        throw fail(
          "FOO on \(n) requests is past --foo-limit \(fooLimit): it would take about \(FlowBound.describeFOOTime(requests: n)) "
            + "and \(MemoryBudget.describe(FlowBound.fooFootprint(requests: Int64(n)))); raise --foo-limit, "
            + "bound the first requests (--requests), or use --methods pfoo-l,pfoo-u")
      }
      try failing { () throws(TraceError) in
        try MemoryBudget.check(
          FlowBound.fooFootprint(requests: Int64(methods.contains(.foo) ? n : min(n, 2 * step))),
          for: "the min-cost flow of \(n) requests", wayOut: "use --methods pfoo-l, which needs no flow")
      }
    }
    var rows: [BoundRow] = []
    let name = (source.path as NSString).lastPathComponent
    for size in cacheSizes {
      func row(_ method: String, _ kind: String, _ misses: Double, _ started: Date) {
        rows.append(
          BoundRow(
            trace: name, sizeMode: sizeMode.rawValue, cacheSize: size, bound: method, kind: kind, requests: Int64(n),
            objects: intervals.objects, misses: misses, missRatio: misses / Double(n),
            seconds: Date().timeIntervalSince(started)))
      }
      if methods.contains(.foo) {
        say("bounds: FOO at \(size)")
        let started = Date()
        let solution = try failing { () throws(TraceError) in try FlowBound.foo(intervals, capacity: size) }
        row("foo-l", "lower", solution.lower, started)
        row("foo-u", "upper", Double(solution.misses), started)
      }
      if methods.contains(.pfooL) {
        let started = Date()
        row("pfoo-l", "lower", FlowBound.pfooLower(intervals, capacity: size), started)
      }
      if methods.contains(.pfooU) {
        say("bounds: PFOO-U at \(size)")
        let started = Date()
        let solution = try failing { () throws(TraceError) in
          try FlowBound.pfooUpper(intervals, capacity: size, step: step)
        }
        row("pfoo-u", "upper", Double(solution.misses), started)
      }
    }
    return rows
  }
}

/// One bound at one size.
struct BoundRow: Encodable {
  var trace: String
  var sizeMode: String
  var cacheSize: Int64
  /// foo-l, foo-u, pfoo-l or pfoo-u.
  var bound: String
  /// lower (no cache misses less) or upper (a schedule that misses this many exists).
  var kind: String
  var requests: Int64
  var objects: Int64
  var misses: Double
  var missRatio: Double
  var seconds: Double

  static let columns = [
    "trace", "size_mode", "cache_size", "bound", "kind", "requests", "objects", "misses", "miss_ratio", "seconds",
  ]

  enum CodingKeys: String, CodingKey {
    case trace, bound, kind, requests, objects, misses, seconds
    case sizeMode = "size_mode"
    case cacheSize = "cache_size"
    case missRatio = "miss_ratio"
  }

  static func csv(_ rows: [BoundRow]) -> String { ResultWriter.csv(rows, columns: columns) }

  static func table(_ rows: [BoundRow]) -> String {
    let body = rows.map { row in
      [
        row.trace, row.sizeMode, String(row.cacheSize), row.bound, row.kind, ReplayTables.fixed(row.misses, 1),
        ReplayTables.fixed(row.missRatio, 4), ReplayTables.fixed(row.seconds, 2),
      ]
    }
    return ReplayTables.render(
      header: ["trace", "size mode", "cache size", "bound", "kind", "misses", "miss ratio", "seconds"], rows: body,
      leftColumns: 2)
  }
}
