import ArgumentParser
import EvictionCore
import EvictionReports
import EvictionSim
import EvictionStats
import EvictionTraces
import Foundation

/// `evlab bench throughput`: replay throughput per policy, and, for people
/// who want a speed gate on a quiet machine of their own, a comparison
/// against a baseline that calls a regression only when Welch's test and a
/// minimum effect size both say so. Never run as a gate in CI (a shared
/// 2-core machine is too noisy for wall-clock gates).
struct ThroughputBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "throughput",
    abstract:
      "Replay throughput per policy; with --baseline, a statistical regression check against another build or a recorded run.",
    discussion: """
      Record a baseline, change the code, rebuild, compare:
        evlab bench throughput --runs 9 --json base.json
        evlab bench throughput --runs 9 --baseline base.json
      Or interleave runs of two builds in one session (what drifts with the machine drifts for both):
        cp .build/release/evlab /tmp/evlab-before; <change, rebuild>
        evlab bench throughput --runs 9 --baseline /tmp/evlab-before
      A policy regressed when its samples differ by Welch's t-test at --alpha AND its median dropped by at \
      least --min-effect; the exit status is 1 then.
      """)

  @Argument(help: "The trace to replay (default: the bundled traces/zipf-0.9.oracleGeneral.zst).")
  var trace: String = "traces/zipf-0.9.oracleGeneral.zst"

  @OptionGroup var traceOptions: TraceOptions

  @Option(name: .customLong("policy"), help: "Policies (default: lru, fifo, clock, sieve, arc, s3fifo, wtinylfu).")
  var policies: [String] = ["lru,fifo,clock,sieve,arc,s3fifo,wtinylfu"]

  @Option(help: "Cache size.")
  var size: String = "2000"

  @Option(help: "count or bytes.")
  var sizeMode: SizeMode = .count

  @Option(
    name: .customLong("repeat"),
    help: "Tile the trace this many times per run, so a run lasts long enough to time (default 5).")
  var copies: Int = 5

  @Option(help: "Runs per side (at least 2 with --baseline).")
  var runs: Int = 7

  @Option(help: "Write the samples as JSON to PATH (a baseline for a later --baseline).")
  var json: String?

  @Option(help: "A samples file written by --json, or another evlab executable to run interleaved with this one.")
  var baseline: String?

  @Option(help: "Significance level of Welch's test.")
  var alpha: Double = 0.01

  @Option(help: "Smallest drop of the median called a regression, as a fraction.")
  var minEffect: Double = 0.05

  /// What a run records: requests per second per policy, every run.
  struct Samples: Codable {
    var trace: String
    var cacheSize: Int64
    var sizeMode: String
    var copies: Int
    var policies: [String]
    var samples: [String: [Double]]

    enum CodingKeys: String, CodingKey {
      case trace
      case cacheSize = "cache_size"
      case sizeMode = "size_mode"
      case copies, policies, samples
    }
  }

  func run() throws {
    try oneLineErrors {
      try traceOptions.checkArguments()
      guard copies >= 1 else { throw ValidationError("--repeat must be at least 1") }
      guard runs >= (baseline == nil ? 1 : 2) else {
        throw ValidationError("--runs \(runs): a comparison needs at least 2 runs per side")
      }
      guard alpha > 0 && alpha < 1 else {
        throw ValidationError("--alpha \(alpha): a significance level lies between 0 and 1")
      }
      guard minEffect >= 0 && minEffect < 1 else {
        throw ValidationError("--min-effect \(minEffect): a fraction from 0 to below 1")
      }
      _ = try parseSize(size)
      _ = try parsePolicies(policies)
    }
    let specs = try parsePolicies(policies)
    let capacity = try parseSize(size)
    let source: TraceSource
    do throws(TraceError) { source = try traceOptions.source(trace, copies: copies) } catch { throw fail(error) }

    var current = Samples(
      trace: source.name, cacheSize: capacity, sizeMode: sizeMode.rawValue, copies: copies,
      policies: specs.map(\.description), samples: [:])
    var base: Samples? = nil
    if let baseline, isExecutable(baseline) {
      // Interleaved: each round runs both builds, in alternating order.
      var baseSamples = current
      for round in 1...runs {
        let order = round % 2 == 1 ? [true, false] : [false, true]
        for isBaseline in order {
          let run = try runBuild(
            isBaseline ? baseline : currentExecutable(), label: isBaseline ? "baseline" : "current")
          for (policy, values) in run.samples {
            if isBaseline {
              baseSamples.samples[policy, default: []] += values
            } else {
              current.samples[policy, default: []] += values
            }
          }
        }
        printError("round \(round)/\(runs) done (baseline and current)")
      }
      base = baseSamples
    } else {
      if let baseline {
        do {
          base = try JSONDecoder().decode(Samples.self, from: Data(contentsOf: URL(fileURLWithPath: baseline)))
        } catch {
          throw fail(
            "--baseline \(baseline): neither an evlab executable nor a samples file written by --json (\(error.localizedDescription))"
          )
        }
      }
      current.samples = try measure(specs, source: source, capacity: capacity, rounds: runs)
    }
    if let json { try write(String(decoding: try encoded(current), as: UTF8.self) + "\n", to: json) }

    guard let base else {
      print("policy          median Mreq/s   min     max     runs")
      for spec in specs {
        let s = SampleSummary(current.samples[spec.description]!)
        print(
          spec.description.padding(16) + ReplayTables.fixed(s.median / 1e6, 2).padding(16)
            + ReplayTables.fixed(s.minimum / 1e6, 2).padding(8) + ReplayTables.fixed(s.maximum / 1e6, 2).padding(8)
            + String(s.count))
      }
      return
    }
    guard
      base.trace == current.trace && base.cacheSize == current.cacheSize && base.sizeMode == current.sizeMode
        && base.copies == current.copies
    else {
      throw fail(
        "the baseline measured \(base.trace) at \(base.cacheSize) (\(base.sizeMode), --repeat \(base.copies)), not \(current.trace) at \(current.cacheSize) (\(current.sizeMode), --repeat \(current.copies)); measure the same workload"
      )
    }
    print("policy          baseline Mreq/s   current Mreq/s   change    p (Welch)   verdict")
    var regressions: [String] = []
    for spec in specs {
      let name = spec.description
      guard let before = base.samples[name], before.count >= 2, let after = current.samples[name] else {
        throw fail("the baseline has no (or fewer than 2) samples of \(name); record it with that policy")
      }
      let c = ThroughputComparison(baseline: before, current: after, alpha: alpha, minimumEffect: minEffect)
      if c.verdict == .regression { regressions.append(name) }
      print(
        name.padding(16) + ReplayTables.fixed(c.baselineMedian / 1e6, 2).padding(18)
          + ReplayTables.fixed(c.currentMedian / 1e6, 2).padding(17)
          + (String(format: "%+.1f%%", c.change * 100)).padding(10) + String(format: "%.2g", c.p).padding(12)
          + c.verdict.rawValue)
    }
    if !regressions.isEmpty {
      throw fail(
        "\(regressions.joined(separator: ", ")) slower than the baseline (Welch p < \(alpha) and a drop of at least \(Int(minEffect * 100))%)"
      )
    }
  }

  /// `rounds` rounds, each replaying every policy once in turn.
  func measure(_ specs: [PolicySpec], source: TraceSource, capacity: Int64, rounds: Int) throws -> [String: [Double]] {
    var samples: [String: [Double]] = [:]
    for round in 1...rounds {
      for spec in specs {
        let result: ReplayResult
        do throws(TraceError) {
          result = try TraceReplay.run(source, policy: spec, cacheSize: capacity, sizeMode: sizeMode)
        } catch { throw fail(error) }
        samples[spec.description, default: []].append(result.requestsPerSecond)
      }
      if rounds > 1 { printError("round \(round)/\(rounds) done") }
    }
    return samples
  }

  /// One run of `executable` (this command with --runs 1), its samples.
  func runBuild(_ executable: String, label: String) throws -> Samples {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "evlab-throughput-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: output) }
    var arguments = [
      "bench", "throughput", trace, "--size", size, "--size-mode", sizeMode.rawValue,
      "--repeat", String(copies), "--runs", "1", "--json", output.path,
    ]
    arguments += ["--policy", policies.joined(separator: ",")]
    if let format = traceOptions.format { arguments += ["--format", format] }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch {
      throw fail("cannot run the \(label) build \(executable): \(error.localizedDescription)")
    }
    process.waitUntilExit()
    guard process.terminationStatus == 0, let data = FileManager.default.contents(atPath: output.path),
      let samples = try? JSONDecoder().decode(Samples.self, from: data)
    else {
      throw fail(
        "the \(label) build \(executable) failed (status \(process.terminationStatus)) or wrote no samples; does it have `bench throughput`?"
      )
    }
    return samples
  }

  func currentExecutable() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  }

  func isExecutable(_ path: String) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: path) else { return false }
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = handle.readData(ofLength: 2)
    return !head.starts(with: Data("{".utf8))  // a samples file is JSON
  }

  func encoded(_ samples: Samples) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(samples)
  }
}
