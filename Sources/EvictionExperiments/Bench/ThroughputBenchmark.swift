import EvictionCore
import EvictionRun
import EvictionSim
import EvictionStats
import EvictionTraces
import Foundation

/// `evlab bench throughput`: replay throughput per policy, and a comparison
/// against a baseline that calls a regression only when Welch's test and a
/// minimum effect size both say so. For quiet machines of one's own: a
/// shared 2-core machine is too noisy for wall-clock gates, so CI never
/// runs it as one.
public enum ThroughputBenchmark {
  /// What a run records: requests per second per policy, every run (the
  /// file `--json` writes and `--baseline` reads).
  public struct Samples: Codable, Sendable, Equatable {
    public var trace: String
    public var cacheSize: Int64
    public var sizeMode: String
    public var copies: Int
    public var policies: [String]
    public var samples: [String: [Double]]
    /// Requests in one replay of the workload, and the stream's digest
    /// (``StreamDigest``: every key, size and time): two files of one name
    /// with other contents differ here (absent from files written before).
    public var requests: Int64? = nil
    public var digest: String? = nil

    public init(trace: String, cacheSize: Int64, sizeMode: SizeMode, copies: Int, policies: [String]) {
      self.trace = trace
      self.cacheSize = cacheSize
      self.sizeMode = sizeMode.rawValue
      self.copies = copies
      self.policies = policies
      self.samples = [:]
    }

    /// Explicit keys: the sample map's keys are policy names, which a key strategy must not touch.
    enum CodingKeys: String, CodingKey {
      case trace
      case cacheSize = "cache_size"
      case sizeMode = "size_mode"
      case copies, policies, samples, requests, digest
    }

    /// Whether both measured the same workload.
    public func sameWorkload(as other: Samples) -> Bool {
      trace == other.trace && cacheSize == other.cacheSize && sizeMode == other.sizeMode && copies == other.copies
        && (requests == nil || other.requests == nil || requests == other.requests)
        && (digest == nil || other.digest == nil || digest == other.digest)
    }

    public var workload: String {
      "\(trace)\(requests.map { " (\($0) requests\(digest.map { ", \($0)" } ?? ""))" } ?? "") at \(cacheSize) (\(sizeMode), \(Setting.repeatTrace) \(copies))"
    }

    public func encoded() -> String {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      return String(decoding: try! encoder.encode(self), as: UTF8.self) + "\n"
    }
  }

  /// `rounds` rounds, each replaying every policy once in turn.
  public static func measure(
    _ policies: [PolicySpec], source: TraceSource, cacheSize: Int64, sizeMode: SizeMode, rounds: Int,
    log: (String) -> Void = { _ in }
  ) throws(BenchError) -> Samples {
    var samples = Samples(
      trace: source.name, cacheSize: cacheSize, sizeMode: sizeMode, copies: source.copies,
      policies: policies.map(\.description))
    // The workload's fingerprint, read once: a baseline of another stream is refused.
    var digest = StreamDigest()
    do throws(TraceError) {
      _ = try source.forEachBatch { records, tile in
        for record in records { digest.add(key: record.key &+ tile.idOffset, size: record.size, time: record.time) }
      }
    } catch { throw BenchError(error) }
    samples.digest = digest.description
    for round in 1...rounds {
      for spec in policies {
        do throws(TraceError) {
          let result = try TraceReplay.run(source, policy: spec, cacheSize: cacheSize, sizeMode: sizeMode)
          samples.samples[spec.description, default: []].append(result.requestsPerSecond)
          samples.requests = result.counts.requests
        } catch { throw BenchError(error) }
      }
      if rounds > 1 { log("round \(round)/\(rounds) done") }
    }
    return samples
  }

  /// Two builds in one session, each round running both in alternating
  /// order (what drifts with the machine drifts for both): `arguments(path)`
  /// is the command line of one run that writes its samples to `path`.
  public static func interleave(
    baseline: String, current: String, arguments: (_ samplesPath: String) -> [String], rounds: Int,
    log: (String) -> Void = { _ in }
  ) throws(BenchError) -> (baseline: Samples, current: Samples) {
    var base: Samples? = nil
    var mine: Samples? = nil
    for round in 1...rounds {
      for isBaseline in round % 2 == 1 ? [true, false] : [false, true] {
        let label = isBaseline ? "baseline" : "current"
        let run = try runBuild(isBaseline ? baseline : current, arguments: arguments, label: label)
        if isBaseline { base = merged(base, run) } else { mine = merged(mine, run) }
      }
      log("round \(round)/\(rounds) done (baseline and current)")
    }
    return (base!, mine!)
  }

  static func merged(_ into: Samples?, _ run: Samples) -> Samples {
    guard var into else { return run }
    for (policy, values) in run.samples { into.samples[policy, default: []] += values }
    return into
  }

  /// One run of `executable` with `arguments(TEMP)`, its samples (read from TEMP).
  static func runBuild(
    _ executable: String, arguments: (_ samplesPath: String) -> [String], label: String
  ) throws(BenchError) -> Samples {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "evlab-throughput-\(UUID().uuidString).json")
    let token = ScratchPaths.shared.register(output.path)
    defer {
      try? FileManager.default.removeItem(at: output)
      ScratchPaths.shared.unregister(token)
    }
    let exit: ChildProcess.Exit
    do throws(ChildProcess.Failure) { exit = try ChildProcess.run(executable, arguments(output.path)) } catch {
      throw BenchError("cannot run the \(label) build: \(error.description)")
    }
    guard exit.status == 0, let data = FileManager.default.contents(atPath: output.path),
      let samples = try? JSONDecoder().decode(Samples.self, from: data)
    else {
      throw BenchError(
        "the \(label) build \(executable) failed (status \(exit.status)) or wrote no samples; does it have `bench throughput`?"
      )
    }
    return samples
  }

  /// This process's executable (to run interleaved with a baseline build).
  public static var currentExecutable: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  }

  /// The policies that regressed in `verdicts`, as the one-line error the
  /// comparison exits with, or nil when none did.
  public static func regressions(
    _ verdicts: [(policy: String, comparison: ThroughputComparison)], alpha: Double, minimumEffect: Double
  ) -> String? {
    let slower = verdicts.filter { $0.comparison.verdict == .regression }.map(\.policy)
    if slower.isEmpty { return nil }
    return
      "\(slower.joined(separator: ", ")) slower than the baseline (Welch p < \(alpha) and a drop of at least \(Int(minimumEffect * 100))%)"
  }

  /// Whether `path` is a program to run rather than a samples file.
  public static func isExecutable(_ path: String) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: path), let handle = FileHandle(forReadingAtPath: path) else {
      return false
    }
    defer { try? handle.close() }
    return !handle.readData(ofLength: 2).starts(with: Data("{".utf8))  // a samples file is JSON
  }

  /// Reads a samples file written by `--json`.
  public static func load(_ path: String) throws(BenchError) -> Samples {
    do {
      return try JSONDecoder().decode(Samples.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      throw BenchError(
        "\(Setting.baseline) \(path): neither an evlab executable nor a samples file written by \(Setting.json) (\(error.localizedDescription))"
      )
    }
  }

  /// The verdict per policy, in the order of `current.policies`. Refuses
  /// samples of different workloads, and a policy with fewer than 2 samples a side.
  /// Refuses a baseline of another workload, or without two samples of
  /// each of `planned`'s policies: before a run (`planned` with no samples
  /// yet, its stream's length and digest unknown), and again after it.
  public static func check(baseline: Samples, covers planned: Samples) throws(BenchError) {
    guard baseline.sameWorkload(as: planned) else {
      throw BenchError(
        "the baseline measured \(baseline.workload), not \(planned.workload); measure the same workload")
    }
    for policy in planned.policies where (baseline.samples[policy]?.count ?? 0) < 2 {
      throw BenchError("the baseline has no (or fewer than 2) samples of \(policy); record it with that policy")
    }
  }

  public static func compare(
    baseline: Samples, current: Samples, alpha: Double, minimumEffect: Double
  ) throws(BenchError) -> [(policy: String, comparison: ThroughputComparison)] {
    try check(baseline: baseline, covers: current)
    var verdicts: [(String, ThroughputComparison)] = []
    for policy in current.policies {
      guard let before = baseline.samples[policy], before.count >= 2, let after = current.samples[policy],
        after.count >= 2
      else {
        throw BenchError("the baseline has no (or fewer than 2) samples of \(policy); record it with that policy")
      }
      verdicts.append(
        (policy, ThroughputComparison(baseline: before, current: after, alpha: alpha, minimumEffect: minimumEffect)))
    }
    return verdicts
  }
}
