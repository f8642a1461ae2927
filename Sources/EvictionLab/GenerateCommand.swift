import ArgumentParser
import EvictionTraces
import EvictionWorkloads

extension SyntheticWorkload.Kind: ExpressibleByArgument {}

struct Generate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a synthetic trace, reproducible from its seed.",
    discussion: """
      The format follows the output name (.oracleGeneral[.zst], .csv[.zst], .txt[.zst]); \
      oracleGeneral output carries next-access times, so Belady's optimum can run on it.
        evlab generate zipf --objects 20000 --requests 300000 --alpha 0.9 --seed 1 -o zipf.oracleGeneral.zst
      """)

  @Argument(help: "Workload: \(SyntheticWorkload.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
  var kind: SyntheticWorkload.Kind

  @Option(help: "Distinct objects.")
  var objects: Int = 10_000

  @Option(help: "Requests to generate.")
  var requests: Int = 100_000

  @Option(help: "Zipf exponent for zipf and zipf-scan.")
  var alpha: Double = 0.9

  @Option(help: "Seed of the random stream.")
  var seed: UInt64 = 1

  @Option(help: "Every object's size in bytes.")
  var objectSize: Int64 = 4096

  @Option(help: "zipf-scan: a scan starts every this many requests.")
  var scanEvery: Int = 50_000

  @Option(help: "zipf-scan: objects per scan, each new.")
  var scanLength: Int = 5_000

  @Option(help: "hotspot: objects in the hot set (default a tenth of --objects).")
  var hotObjects: Int?

  @Option(help: "hotspot: share of requests that go to the hot set.")
  var hotShare: Double = 0.9

  @Option(help: "hotspot: the hot set moves every this many requests.")
  var shiftEvery: Int = 100_000

  @Option(help: "mix: weighted kinds, comma-separated or repeated, e.g. zipf:0.8,scan:0.2 (default that).")
  var mix: [String] = []

  /// The mix as one list, from every --mix given.
  var mixText: String { mix.isEmpty ? "zipf:0.8,scan:0.2" : mix.joined(separator: ",") }

  @Option(help: "Object sizes: fixed (--object-size), uniform:LOW-HIGH, lognormal:MU,SIGMA or pareto:ALPHA,MIN.")
  var sizeDistribution: String = "fixed"

  @Option(name: .shortAndLong, help: "Output path.")
  var output: String

  func validate() throws {
    guard objects >= 1 else { throw ArgumentError("--objects \(objects): need at least one object") }
    guard requests >= 1 else { throw ArgumentError("--requests \(requests): need at least one request") }
    guard objectSize >= 1 && objectSize <= Int64(UInt32.max) else {
      throw ArgumentError("--object-size \(objectSize): must be 1 ... \(UInt32.max) bytes")
    }
    guard alpha > 0 && alpha.isFinite else { throw ArgumentError("--alpha \(alpha): must be positive") }
    guard scanEvery >= 1 && scanLength >= 1 else {
      throw ArgumentError("--scan-every and --scan-length must be positive")
    }
    guard (hotObjects ?? 0) >= 0, shiftEvery >= 1, hotShare >= 0 && hotShare <= 1 else {
      throw ArgumentError("--hot-objects must be 0 or more, --shift-every positive, --hot-share in [0, 1]")
    }
    if !mix.isEmpty { _ = try listItems(mix, option: "--mix") }
    do throws(TraceError) {
      _ = try SyntheticWorkload.Component.parse(mixText)
      _ = try SyntheticWorkload.SizeDistribution(sizeDistribution)
    } catch {
      throw ArgumentError(error.description)
    }
    guard TraceFormat.infer(fromPath: output) != nil else {
      throw ArgumentError(
        "cannot tell the format from '\(output)'; end it in .oracleGeneral, .csv or .txt (optionally .zst)")
    }
  }

  func run() throws {
    var workload = SyntheticWorkload(kind: kind, objects: objects, requests: requests)
    workload.alpha = alpha
    workload.seed = seed
    workload.objectSize = objectSize
    workload.scanEvery = scanEvery
    workload.scanLength = scanLength
    workload.hotObjects = hotObjects ?? 0
    workload.hotShare = hotShare
    workload.shiftEvery = shiftEvery
    do throws(TraceError) {
      workload.components = try SyntheticWorkload.Component.parse(mixText)
      workload.sizes = try SyntheticWorkload.SizeDistribution(sizeDistribution)
      let writer = try TraceWriter(path: output, format: TraceFormat.infer(fromPath: output)!)
      try writer.write(workload.generate())
      try writer.finish()
    } catch {
      throw fail(error)
    }
    printError("wrote \(output): \(requests) requests")
  }
}
