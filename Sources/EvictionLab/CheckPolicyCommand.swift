import ArgumentParser
import EvictionConformance
import EvictionCore
import EvictionReports

/// `evlab check-policy`: the conformance checks every built-in policy
/// passes, run on any policy of the catalog (a registered one included).
struct CheckPolicy: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check-policy",
    abstract: "Check that a policy keeps the guarantees every built-in policy keeps.",
    discussion: """
      Runs the EvictionConformance battery: streams of unit weights, of weights 1 to 64 and with weightless \
      objects, at capacities from 1 object up, checking after every request that the capacity holds, that hits \
      and misses are on resident and absent keys, that evictions remove what they report, that the counts add \
      up, and that the same seed gives the same hits. A policy of your own takes part once registered \
      (EvictionLab.main(extraPolicies:)); docs/adding-a-policy.md shows how.
        evlab check-policy lru2
        evlab check-policy slru:segments=4,s3fifo
      """)

  @Argument(
    help: "Policies, comma-separated or one per argument, with parameters (slru:segments=4); all for every one.")
  var policies: [String]

  @Option(help: "Requests in each stream (1,000 to 10,000,000).")
  var requests = 6_000

  func validate() throws {
    guard !policies.isEmpty else { throw ArgumentError("name a policy, e.g. evlab check-policy lru") }
    guard requests >= 1_000 else { throw ArgumentError("--requests \(requests): at least 1,000 are needed") }
    // Each stream is held in memory (48 bytes a request) and checked at every step.
    guard requests <= 10_000_000 else {
      throw ArgumentError("--requests \(requests): at most 10,000,000; a longer stream checks nothing more, slower")
    }
  }

  func run() throws {
    var specs: [PolicySpec] = []
    for text in policies {
      do throws(PolicyError) { specs += try PolicySpec.list(text) } catch { throw fail(error) }
    }
    var failed: [String] = []
    for spec in specs {
      let report = PolicyConformance.check(spec, requests: requests)
      let served = report.runs.reduce(0) { $0 + $1.hits + $1.misses }
      guard !report.passed else {
        writeStandardOutput(
          "\(spec): passed (\(report.runs.count) runs, \(ReplayTables.grouped(Int64(served))) requests)\n")
        continue
      }
      failed.append(spec.description)
      let total =
        report.runs.reduce(0) { $0 + $1.violationCount } + report.violations.count
        - report.runs.reduce(0) { $0 + $1.violations.count }
      var text = "\(spec): FAILED, \(total) broken guarantees; the first:\n"
      for violation in report.violations.prefix(12) { text += "  \(violation)\n" }
      writeStandardOutput(text)
    }
    guard failed.isEmpty else {
      throw fail(
        "\(failed.joined(separator: ", ")) broke the guarantees above: its results are not comparable with the built-in policies' until it keeps them"
      )
    }
  }
}
