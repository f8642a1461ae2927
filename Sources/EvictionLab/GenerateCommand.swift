import ArgumentParser
import EvictionTraces
import EvictionWorkloads

extension SyntheticWorkload.Kind: ExpressibleByArgument {}

struct Generate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a synthetic trace, reproducible from its seed.",
    discussion: """
      The format follows the output name (.oracleGeneral, .lcs, .csv or .txt, each optionally .zst); \
      oracleGeneral and lcs output carry next-access times, so Belady's optimum can run on it, and lcs TTLs (--ttl).
        evlab generate zipf --objects 20000 --requests 300000 --alpha 0.9 --seed 1 -o zipf.oracleGeneral.zst
      """)

  @Argument(help: "Workload: \(SyntheticWorkload.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
  var kind: SyntheticWorkload.Kind

  @Option(help: "Distinct objects.")
  var objects: Int = 10_000

  @Option(help: "Requests to generate.")
  var requests: Int = 100_000

  @Option(help: "Zipf exponent for zipf and zipf-scan (default 0.9).")
  var alpha: Double?

  @Option(help: "Seed of the random stream.")
  var seed: UInt64 = 1

  @Option(help: "Every object's size in bytes (default 4096).")
  var objectSize: Int64?

  @Option(help: "zipf-scan: a scan starts every this many requests (default 50000).")
  var scanEvery: Int?

  @Option(help: "zipf-scan: objects per scan, each new (default 5000).")
  var scanLength: Int?

  @Option(help: "hotspot: objects in the hot set (default a tenth of --objects).")
  var hotObjects: Int?

  @Option(help: "hotspot: share of requests that go to the hot set (default 0.9).")
  var hotShare: Double?

  @Option(help: "hotspot: the hot set moves every this many requests (default 100000).")
  var shiftEvery: Int?

  @Option(help: "mix: weighted kinds, comma-separated or repeated, e.g. zipf:0.8,scan:0.2 (default that).")
  var mix: [String] = []

  /// The mix as one list, from every --mix given.
  var mixText: String { mix.isEmpty ? "zipf:0.8,scan:0.2" : mix.joined(separator: ",") }

  @Option(
    help: "Object sizes: fixed (--object-size), uniform:LOW-HIGH, lognormal:MU,SIGMA or pareto:ALPHA,MIN[,MAX].")
  var sizeDistribution: String = "fixed"

  @Option(
    help:
      "Each object's time-to-live: none, fixed:SECONDS or uniform:LOW-HIGH (drawn once per object; needs .lcs output, the format that carries TTLs). Requests are timed 1000 to a second, so a trace of N requests spans N/1000 s."
  )
  var ttl: String = "none"

  @Option(
    help:
      "The operations' shares for a key-value trace: get:W,set:W,delete:W (drawn per request; needs .lcs output). Default: gets only."
  )
  var ops: String?

  @Option(name: .shortAndLong, help: "Output path.")
  var output: String

  /// The workload the options describe (``SyntheticWorkload/check()`` judges it).
  func workload() throws(TraceError) -> SyntheticWorkload {
    var workload = SyntheticWorkload(kind: kind, objects: objects, requests: requests)
    workload.alpha = alpha ?? workload.alpha
    workload.seed = seed
    workload.objectSize = objectSize ?? 4096
    workload.scanEvery = scanEvery ?? workload.scanEvery
    workload.scanLength = scanLength ?? workload.scanLength
    workload.hotObjects = hotObjects ?? 0
    workload.hotShare = hotShare ?? workload.hotShare
    workload.shiftEvery = shiftEvery ?? workload.shiftEvery
    workload.components = try SyntheticWorkload.Component.parse(mixText)
    workload.sizes = try SyntheticWorkload.SizeDistribution(sizeDistribution)
    workload.ttls = try SyntheticWorkload.TTLDistribution(ttl)
    if let ops { workload.operations = try SyntheticWorkload.OperationMix(ops) }
    return workload
  }

  func validate() throws {
    if !mix.isEmpty { _ = try listItems(mix, option: "--mix") }
    let workload: SyntheticWorkload
    do throws(TraceError) { workload = try self.workload() } catch { throw ArgumentError(error.description) }
    // The library names the parameter; here it is an option.
    do throws(TraceError) { try workload.check() } catch { throw ArgumentError("--\(error.description)") }
    do throws(TraceError) { try TraceWriter.checkName(output) } catch { throw ArgumentError(error.description) }
    try OutputCheck.trace(output, option: "--output")
    guard let format = TraceFormat.infer(fromPath: output) else {
      throw ArgumentError(
        "cannot tell the format from '\(output)'; end it in "
          + TraceWriter.formats.map { "." + $0.rawValue }.joined(separator: ", ") + " (optionally .zst)")
    }
    guard TraceWriter.formats.contains(format) else {
      throw ArgumentError(
        "\(output) names \(format.rawValue), which evlab does not write; end it in "
          + TraceWriter.formats.map { "." + $0.rawValue }.joined(separator: ", "))
    }
    if workload.ttls != .none && format != .lcs {
      throw ArgumentError("--ttl \(ttl): \(output) is \(format.rawValue), which holds no TTLs; write .lcs")
    }
    if ops != nil && format != .lcs {
      throw ArgumentError("--ops: \(output) is \(format.rawValue), which holds no operations; write .lcs")
    }
    // Every value given is used: an option of another kind is refused.
    let kinds = Set(kind == .mix ? workload.components.map(\.kind) : [kind])
    let uses: [(given: Bool, option: String, kinds: Set<SyntheticWorkload.Kind>)] = [
      (alpha != nil, "--alpha", [.zipf, .zipfScan]), (scanEvery != nil, "--scan-every", [.zipfScan]),
      (scanLength != nil, "--scan-length", [.zipfScan]), (hotObjects != nil, "--hot-objects", [.hotspot]),
      (hotShare != nil, "--hot-share", [.hotspot]), (shiftEvery != nil, "--shift-every", [.hotspot]),
      (!mix.isEmpty, "--mix", [.mix]),
    ]
    for use in uses where use.given && kinds.isDisjoint(with: use.kinds) && !(use.option == "--mix" && kind == .mix) {
      throw ArgumentError(
        "\(use.option) is for \(use.kinds.map(\.rawValue).sorted().joined(separator: ", ")), and this workload is "
          + "\(kind == .mix ? "a mix of " + kinds.map(\.rawValue).sorted().joined(separator: ", ") : kind.rawValue)"
          + ": leave \(use.option) out")
    }
    if objectSize != nil && workload.sizes != .fixed {
      throw ArgumentError(
        "--object-size is the fixed size; with --size-distribution \(sizeDistribution) give one of the two")
    }
    // Every value given is used: txt holds keys only.
    if format == .txt && (objectSize != nil || workload.sizes != .fixed) {
      throw ArgumentError(
        "\(output) is txt, which holds keys only: the sizes asked for (--object-size, --size-distribution) "
          + "would be lost; write .csv or .oracleGeneral, or leave the sizes out")
    }
  }

  func run() throws {
    do throws(TraceError) {
      let writer = try TraceWriter(path: output, format: TraceFormat.infer(fromPath: output)!)
      // txt output is the keys (sizes given are refused in validate; the
      // times, one a thousand requests, are the generator's own).
      writer.keysOnly = true
      writer.companion = { stampTrace(output) }
      try writer.write(workload().generate())
      try writer.finish()
    } catch {
      throw fail(error)
    }
    printError("wrote \(output): \(requests) requests")
  }
}
