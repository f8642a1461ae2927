import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionRun
import EvictionTraces
import Foundation

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
  /// line. A run `--tier`, `--timeseries` or `--regret` ask for, or one
  /// without a trace, is refused.
  public static func replayCSV(_ arguments: [String]) -> Result<String, NativeFailure> {
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
      let (sources, _, results) = try command.sweep(run, paths: command.traces, interactive: false)
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
