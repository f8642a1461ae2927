import ArgumentParser
import EvictionConformance
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionRun
import EvictionTraces
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What the Python binding (`python/evictionlab`, through the
/// `EvictionLabNative` library) reaches of evlab in-process: the command
/// line's own parsing, checks and tables, so a replay from Python has the
/// CLI's names, semantics, columns and numbers, and its errors the CLI's
/// words. Nothing here exits the process or installs a signal handler.
public enum NativeBridge {
  /// Registers `extraPolicies` (the learned ones) once, and the flags'
  /// spelling in messages; later calls do nothing.
  public static func prepare(extraPolicies: [any PolicyDefinition.Type]) {
    prepared.withLock { done in
      guard !done else { return }
      done = true
      Setting.spell(EvictionLab.flagSpelling)
      try? PolicyCatalog.register(extraPolicies)
    }
  }

  static let prepared = SharedFlag()

  /// `evlab replay ARGUMENTS`' CSV (what `--csv` writes), or the error
  /// `evlab` would print, without its `evlab: error:` prefix. Notes and
  /// warnings go to standard error, as the CLI's do; there is no progress
  /// line: `progress`, when given, hears how far the run is instead (see
  /// ``CallbackProgress``). A run `--tier`, `--timeseries` or `--regret` ask for, or one
  /// without a trace, is refused.
  public static func replayCSV(
    _ arguments: [String], progress: (@Sendable (ReplayProgressReport) -> Void)? = nil
  ) -> Result<String, NativeFailure> {
    do {
      let checked = try EvictionLab.checkOptions(["replay"] + arguments)
      guard let command = try Evlab.parseAsRoot(checked) as? Replay else {
        throw ArgumentError("expected the options of evlab replay")
      }
      guard !command.traces.isEmpty else { throw ArgumentError("name a trace to replay") }
      let run = try command.described()
      guard run.tier == nil, command.timeseries == nil, command.regret == nil else {
        throw ArgumentError("--tier, --timeseries and --regret run from the command line only (evlab replay)")
      }
      let (sources, _, results) = try command.sweep(
        run, paths: command.traces, interactive: progress != nil,
        display: { shared, cells in progress.map { CallbackProgress(shared, cells: cells, report: $0) } })
      announceCSVMappings(sources)
      warnFaulty(results)
      warnUntrained(results)
      return .success(ReplayTables.csv(results))
    } catch {
      return .failure(NativeFailure(error))
    }
  }

  /// `evlab compare ARGUMENTS` run in-process: the folder it wrote its
  /// results and report to, or the error `evlab` would print. Its table
  /// goes to standard output and its notes to standard error, as the CLI's.
  public static func compare(_ arguments: [String]) -> Result<String, NativeFailure> {
    do {
      let checked = try EvictionLab.checkOptions(["compare"] + arguments)
      guard let command = try Evlab.parseAsRoot(checked) as? Compare else {
        throw ArgumentError("expected the options of evlab compare")
      }
      guard command.shard == nil else { throw ArgumentError("--shard runs from the command line only") }
      try command.run()
      return .success(try command.outputFolder())
    } catch {
      return .failure(NativeFailure(error))
    }
  }

  /// The policy catalog as JSON: each policy's name, display name,
  /// summary, citation, whether it can drive a live cache or is offline,
  /// and its parameters (name, default, help).
  public static func policiesJSON() -> String {
    let entries = PolicyCatalog.entries.map { d -> [String: Any] in
      [
        "name": d.name, "display_name": d.displayName, "summary": d.summary, "citation": d.citation,
        "offline": d.isOffline, "live_cache": d.canDriveACache, "model": d.isModel,
        "parameters": d.parameters.map { ["name": $0.name, "default": $0.defaultValue, "help": $0.help] },
      ]
    }
    return json(entries)
  }

  /// The trace formats as JSON: name, other names, file suffixes, whether
  /// records carry sizes, summary.
  public static func formatsJSON() -> String {
    json(
      TraceFormats.definitions.map { d -> [String: Any] in
        [
          "name": d.name, "aliases": d.aliases, "suffixes": d.fileSuffixes, "sizes": d.carriesSizes,
          "summary": d.summary,
        ]
      })
  }

  /// `evlab check-policy SPEC --requests N`, run in this process (a policy
  /// written in Python lives here, not in a child): the battery's report as
  /// JSON (`policy`, `passed`, `requests_served`, `runs` with each run's
  /// name, hits, misses and violations, and `violations`), or the error for
  /// a spec or count evlab refuses. A policy that traps ends the process
  /// here, where the CLI's child process would report it; the Python
  /// policies' own hooks cannot trap (their errors stop the policy instead).
  public static func checkPolicy(_ text: String, requests: Int) -> Result<String, NativeFailure> {
    do {
      guard (1_000...10_000_000).contains(requests) else {
        throw ArgumentError("requests \(requests): from 1,000 to 10,000,000")
      }
      let specs: [PolicySpec]
      do throws(PolicyError) { specs = try PolicySpec.list(text) } catch { throw ArgumentError("\(error)") }
      guard specs.count == 1 else { throw ArgumentError("check one policy at a time, not \(specs.count)") }
      let report = PolicyConformance.check(specs[0], requests: requests)
      func describe(_ v: PolicyConformance.Violation) -> [String: Any] {
        ["run": v.run, "request": v.request.map { $0 as Any } ?? NSNull(), "message": v.message]
      }
      let runs = report.runs.map { run -> [String: Any] in
        [
          "name": run.name, "hits": run.hits, "misses": run.misses, "admitted": run.admitted,
          "violations": run.violationCount,
        ]
      }
      return .success(
        json(
          [
            "policy": report.policy, "passed": report.passed, "runs": runs,
            "requests_served": report.runs.reduce(0) { $0 + $1.hits + $1.misses },
            "violations": report.violations.map(describe),
          ] as [String: Any]))
    } catch {
      return .failure(NativeFailure(error))
    }
  }

  /// The requests of the trace `arguments` name (a path, then `evlab
  /// replay`'s trace options: `--format`, the CSV columns, `--renumber-ids`,
  /// `--skip-bad-lines`), read whole, as a replay reads them; or the error
  /// evlab would print. What a replay notes about skipped lines goes to
  /// standard error, as the CLI's notes do.
  public static func readTrace(_ arguments: [String]) -> Result<[TraceRecord], NativeFailure> {
    do {
      guard let path = arguments.first, !path.hasPrefix("-") else {
        throw ArgumentError("name the trace first, then its options (a name starting with '-' as ./-name)")
      }
      let options = try TraceOptions.parse(Array(arguments.dropFirst()))
      let source = try traceSource(path, options)
      let reader = try failing { () throws(TraceError) in try source.open() }
      let records = try failing { () throws(TraceError) in try reader.readAll() }
      warnSkipped(reader.skipped, path: path)
      return .success(records)
    } catch {
      return .failure(NativeFailure(error))
    }
  }

  /// What `evlab explain ARGUMENTS` prints, or the error it would print.
  public static func explain(_ arguments: [String]) -> Result<String, NativeFailure> {
    do {
      let checked = try EvictionLab.checkOptions(["explain"] + arguments)
      guard let command = try Evlab.parseAsRoot(checked) as? Explain else {
        throw ArgumentError("expected the options of evlab explain")
      }
      return .success(try command.text())
    } catch {
      return .failure(NativeFailure(error))
    }
  }

  /// `evlab bounds`' CSV for `arguments` (its options, no subcommand).
  public static func bounds(_ arguments: [String]) -> Result<String, NativeFailure> {
    do {
      let checked = try EvictionLab.checkOptions(["bounds"] + arguments)
      guard let command = try Evlab.parseAsRoot(checked) as? Bounds else {
        throw ArgumentError("expected the options of evlab bounds")
      }
      return .success(BoundRow.csv(try command.results(say: { _ in })))
    } catch {
      return .failure(NativeFailure(error))
    }
  }

  /// The version line `evlab --version` prints.
  public static var version: String { EvlabVersion.description }

  static func json(_ value: Any) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("[]".utf8)
    return String(decoding: data, as: UTF8.self)
  }
}

/// An error as `evlab` words it, for the binding to raise.
public struct NativeFailure: Error, CustomStringConvertible {
  /// The message, without `evlab: error:`.
  public let description: String

  init(_ error: Error) {
    if let failure = error as? ArgumentError {
      description = "\(failure)"
    } else {
      let message = Evlab.message(for: error)
      description = EvictionLab.wholeNumberPastRange(message) ?? message
    }
  }
}

/// A flag behind a lock, set once.
final class SharedFlag: @unchecked Sendable {
  private var value = false
  private let lock = NSLock()
  func withLock(_ body: (inout Bool) -> Void) {
    lock.lock()
    defer { lock.unlock() }
    body(&value)
  }
}

/// How far a replay is, as ``CallbackProgress`` reports it.
public struct ReplayProgressReport: Sendable, Equatable {
  /// Requests replayed so far, over every cell.
  public var requests: Int
  /// Requests the whole run will replay (0 while unknown).
  public var expectedRequests: Int
  public var cellsDone: Int
  public var cells: Int
  /// True for the last report, once every cell is done.
  public var finished: Bool
}

/// A replay's progress handed to a callback (the Python binding's tqdm bar)
/// instead of drawn on a terminal: from a thread of its own, every fifth of a
/// second once the run has lasted a second, and once more at the end if it
/// reported before, so a short run reports nothing.
public final class CallbackProgress: ProgressDisplay, @unchecked Sendable {
  let progress: ReplayProgress
  let cells: Int
  let report: @Sendable (ReplayProgressReport) -> Void
  private let done = Atomic<Bool>(false)
  private let reported = Atomic<Bool>(false)
  private var thread: pthread_t?
  private let start = ContinuousClock.now

  public init(_ progress: ReplayProgress, cells: Int, report: @escaping @Sendable (ReplayProgressReport) -> Void) {
    self.progress = progress
    self.cells = cells
    self.report = report
  }

  func snapshot(finished: Bool) -> ReplayProgressReport {
    ReplayProgressReport(
      requests: progress.requests.load(ordering: .relaxed),
      expectedRequests: progress.expectedRequests.load(ordering: .relaxed),
      cellsDone: progress.cellsDone.load(ordering: .relaxed), cells: cells, finished: finished)
  }

  public func begin() {
    let box = Unmanaged.passRetained(self).toOpaque()
    var handle = pthread_t()
    pthread_create(
      &handle, nil,
      { raw in
        let me = Unmanaged<CallbackProgress>.fromOpaque(raw!).takeRetainedValue()
        // Wakes every 10 ms, so that `end` never waits long for it; reports every 200 ms.
        var last = me.start
        while !me.done.load(ordering: .acquiring) {
          usleep(10_000)
          let now = ContinuousClock.now
          guard now - me.start > .seconds(1), now - last >= .milliseconds(200),
            !me.done.load(ordering: .acquiring)
          else { continue }
          last = now
          me.reported.store(true, ordering: .relaxed)
          me.report(me.snapshot(finished: false))
        }
        return nil
      }, box)
    thread = handle
  }

  public func end() {
    done.store(true, ordering: .releasing)
    if let thread { pthread_join(thread, nil) }
    thread = nil
    if reported.load(ordering: .relaxed) { report(snapshot(finished: true)) }
  }
}
