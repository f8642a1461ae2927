import ArgumentParser
import EvictionConformance
import EvictionCore
import EvictionReports
import EvictionRun
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

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

  /// Set in the child process that runs one policy's battery: the file
  /// through which it tells the parent how far it got.
  @Option(name: .customLong("battery-position"), help: .hidden)
  var batteryPosition: String?

  func run() throws {
    var specs: [PolicySpec] = []
    for text in policies {
      do throws(PolicyError) { specs += try PolicySpec.list(text) } catch { throw fail(error) }
    }
    if let batteryPosition {
      guard specs.count == 1 else { throw fail("a battery's child process checks one policy") }
      return runBattery(specs[0], positionFile: batteryPosition)
    }
    var failed: [String] = []
    for spec in specs {
      let outcome = try BatteryOutcome.run(spec, requests: requests)
      guard !outcome.passed else {
        writeStandardOutput(
          "\(spec): passed (\(outcome.runs) runs, \(ReplayTables.grouped(outcome.served)) requests)\n")
        continue
      }
      failed.append(spec.description)
      var text = "\(spec): FAILED, \(outcome.total) broken guarantees; the first:\n"
      for violation in outcome.violations.prefix(12) { text += "  \(violation)\n" }
      if let stop = outcome.stop { text += "  \(stop)\n" }
      writeStandardOutput(text)
    }
    guard failed.isEmpty else {
      throw fail(
        "\(failed.joined(separator: ", ")) broke the guarantees above: its results are not comparable with the built-in policies' until it keeps them"
      )
    }
  }

  /// The child's side: runs the battery, streaming each run's name and
  /// each violation on standard error as it comes and the request it is at
  /// into `positionFile`, so that the parent can say where a trap struck.
  func runBattery(_ spec: PolicySpec, positionFile: String) {
    let position = BatteryPosition(mapping: positionFile)
    let observer = PolicyConformance.Observer(
      runStarted: { name in BatteryOutcome.send("run", name) },
      request: { i in position?.store(i) },
      violation: { violation in
        let data = (try? JSONEncoder().encode(violation)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        BatteryOutcome.send("violation", data)
      })
    let report = PolicyConformance.check(spec, requests: requests, observer: observer)
    // The battery's own findings (nothing admitted, two runs of one seed differ).
    let streamed = report.runs.reduce(0) { $0 + $1.violations.count }
    for violation in report.violations.dropFirst(streamed) {
      BatteryOutcome.send(
        "violation", (try? JSONEncoder().encode(violation)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
    }
    let total =
      report.runs.reduce(0) { $0 + $1.violationCount } + report.violations.count - streamed
    let served = report.runs.reduce(0) { $0 + $1.hits + $1.misses }
    BatteryOutcome.send("done", "\(report.runs.count) \(served) \(total)")
  }
}

/// One policy's battery, run in a child process so that a policy that
/// traps (an overfull cache caught by its own invariant check, a failed
/// precondition) is reported, with what it broke before, instead of
/// ending `evlab check-policy`.
struct BatteryOutcome {
  var runs = 0
  var served: Int64 = 0
  var total = 0
  var violations: [PolicyConformance.Violation] = []
  /// How the child ended, when not of its own accord.
  var stop: String? = nil
  var passed: Bool { total == 0 && violations.isEmpty && stop == nil }

  static let prefix = "evlab-battery "

  /// A line for the parent, on standard error (where a trap's message goes too).
  static func send(_ kind: String, _ text: String) {
    writeStandardError(prefix + kind + " " + text.replacingOccurrences(of: "\n", with: " ") + "\n")
  }

  static func run(_ spec: PolicySpec, requests: Int) throws -> BatteryOutcome {
    let positionPath = FileManager.default.temporaryDirectory.appendingPathComponent(
      "evlab-battery-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).position"
    ).path
    guard FileManager.default.createFile(atPath: positionPath, contents: Data(count: 8)) else {
      throw fail("cannot make \(positionPath) for the policy's child process; is the temporary folder writable?")
    }
    defer { try? FileManager.default.removeItem(atPath: positionPath) }
    let token = ScratchPaths.shared.register(positionPath)
    defer { ScratchPaths.shared.unregister(token) }
    let exit: ChildProcess.Exit
    do {
      exit = try ChildProcess.run(
        "/proc/self/exe",
        ["check-policy", spec.description, "--requests", String(requests), "--battery-position", positionPath],
        // A trap's message without a symbolicated backtrace (slow, and not the policy's author's question).
        environment: ["SWIFT_BACKTRACE": "enable=no"], errorLimit: 1 << 24)
    } catch {
      throw fail("cannot start the child process that checks \(spec): \(error)")
    }
    var outcome = BatteryOutcome()
    var run = "before the first run"
    var done = false
    var trapMessages: [String] = []
    for line in exit.errors.split(separator: "\n").map(String.init) {
      guard line.hasPrefix(prefix) else {
        if line.contains("Fatal error") || line.contains("rror:") || line.contains("Program crashed") {
          trapMessages.append(line.trimmingCharacters(in: .whitespaces))
        }
        continue
      }
      let body = line.dropFirst(prefix.count)
      let kind = body.prefix { $0 != " " }
      let text = String(body.dropFirst(kind.count + 1))
      switch kind {
      case "run": run = text
      case "violation":
        if let violation = try? JSONDecoder().decode(PolicyConformance.Violation.self, from: Data(text.utf8)) {
          outcome.violations.append(violation)
        }
      case "done":
        let numbers = text.split(separator: " ").compactMap { Int64($0) }
        if numbers.count == 3 {
          (outcome.runs, outcome.served, outcome.total) = (Int(numbers[0]), numbers[1], Int(numbers[2]))
          done = true
        }
      default: break
      }
    }
    if !done || exit.status != 0 {
      let at = BatteryPosition.read(positionPath)
      let place = at.map { $0 < 0 ? "\(run), at the end" : "\(run), request \($0)" } ?? run
      let how =
        exit.status > 128
        ? "stopped the process with signal \(exit.status - 128)\(exit.status - 128 == SIGILL || exit.status - 128 == SIGTRAP ? " (a trap: a failed precondition or invariant check)" : "")"
        : "ended its process with status \(exit.status) before the battery finished"
      let said = trapMessages.first.map { ": \($0)" } ?? ""
      outcome.stop = "\(place): the policy \(how)\(said)"
      outcome.total = max(outcome.total, outcome.violations.count) + 1
    }
    return outcome
  }
}

/// The request a battery's child is at, in a file both processes map:
/// one store a request, no system call.
final class BatteryPosition: @unchecked Sendable {
  private let slot: UnsafeMutablePointer<Int64>

  init?(mapping path: String) {
    let fd = open(path, O_RDWR)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let address = mmap(nil, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
    guard let address, address != MAP_FAILED else { return nil }
    slot = address.assumingMemoryBound(to: Int64.self)
  }

  func store(_ request: Int) { slot.pointee = Int64(request) }

  /// The last request the child stored; nil if the file cannot be read.
  static func read(_ path: String) -> Int? {
    guard let data = FileManager.default.contents(atPath: path), data.count >= 8 else { return nil }
    return Int(data.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
  }
}
