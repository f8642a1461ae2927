import ArgumentParser
import CAllocator
import EvictionCore
import EvictionExperiments
import EvictionRun
import EvictionSim
import EvictionTraces
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The `evlab` command line as a library.
///
/// ```swift
/// import EvictionLab
/// EvictionLab.main(extraPolicies: [LRU2.self], extraFormats: [MyFormat.self])
/// ```
/// is the whole `evlab` tool (replay, compare with its reports, charts and
/// confidence intervals, mrc, stress, …) with `LRU2` in its catalog beside
/// the built-in policies, and `MyFormat`'s traces read like the built-in
/// formats' (``TraceFormatDefinition``).
public enum EvictionLab {
  /// How the libraries' messages name a setting on the command line: its
  /// flag (`keyColumn` is `--key-column`), or the command that takes it
  /// (`evlab disk check --repair`).
  public static let flagSpelling: @Sendable (Setting) -> String = { setting in
    var flag = setting.name.isEmpty ? "" : "--"
    for character in setting.name {
      if character.isUppercase { flag += "-" + character.lowercased() } else { flag.append(character) }
    }
    guard let command = setting.command else { return flag }
    return flag.isEmpty ? "evlab \(command)" : "evlab \(command) \(flag)"
  }

  /// Runs the command line on the process's arguments and exits. `caller`
  /// (the calling file, by default) tells a plug-in binary's package from
  /// evlab's own, so that `--version` and every output's provenance name
  /// both packages' commits.
  public static func main(
    extraPolicies: [any PolicyDefinition.Type] = [], extraFormats: [any TraceFormatDefinition.Type] = [],
    caller: String = #filePath
  ) -> Never {
    EvlabVersion.caller = caller
    do {
      try PolicyCatalog.register(extraPolicies)
      try TraceFormats.register(extraFormats)
    } catch {
      printError("evlab: error: \(error)")
      exit(1)
    }
    Setting.spell(flagSpelling)
    Interruption.install()
    watchMemory()
    do {
      let arguments = try checkOptions(Array(CommandLine.arguments.dropFirst()))
      var command = try Evlab.parseAsRoot(arguments)
      try command.run()
      try checkStandardOutput()
      exit(0)
    } catch {
      exit(report(error))
    }
  }

  /// Stops the run with one line when a policy's structures would grow
  /// past the memory the process may use (``GrowthWatch``, ``MemoryBudget``).
  static func watchMemory() {
    // Below this, a run dies wherever its next buffer, thread stack or
    // allocator arena does not fit: say so once, before anything starts.
    // An arena reserved by a thread that allocated first is room, not use.
    let floor: Int64 = 40 << 20
    if let room = MemoryBudget.headrooms(countingReserves: true).first, room.bytes < floor {
      printError(
        "evlab: error: not enough memory to start: \(MemoryBudget.describe(room.bytes)) are left under "
          + "\(room.limit), and a run needs at least \(MemoryBudget.describe(floor)) beyond evlab's libraries "
          + "(its buffers, threads and allocator); raise the limit (ulimit -v, the container's or job's memory) "
          + "or free memory")
      exit(1)
    }
    // What no announcement covers (a buffer, an arena, a structure too small
    // to announce itself) fails where it fails: say so in words, not a backtrace.
    callocator_note_allocation_failures(
      "evlab: error: not enough memory: the run stopped with less than 128 MiB left under the address-space "
        + "limit (ulimit -v), most likely on a failed allocation (the line above); raise the limit, or use smaller "
        + "cache sizes, a shorter trace (fewer --repeat copies) or fewer runs at once (--jobs 1)\n", 128 << 20)
    GrowthWatch.install { bytes, what, from in
      // One of several per-object tables needs only fit with a small margin.
      let margin =
        from < GrowthWatch.threshold
        ? MemoryBudget.tableMargin(for: Int64(bytes)) : MemoryBudget.margin(for: Int64(bytes))
      let wayOut =
        "use smaller cache sizes or a shorter trace (fewer --repeat copies), fewer runs at once (--jobs 1), or run where more memory is free"
      guard MemoryBudget.shortage(Int64(bytes), for: what, wayOut: wayOut, margin: margin) != nil,
        let room = MemoryBudget.headroom()
      else { return }
      Interruption.stop(
        printing: "evlab: error: "
          + MemoryBudget.shortageText(
            what: what, needed: Int64(bytes), spare: margin, available: room.bytes, limit: room.limit, wayOut: wayOut))
    }
  }

  /// Refuses, before the parser sees them, two kinds of argument it would
  /// handle badly: an unknown option (the parser validates the command
  /// first, so `replay T --bogus 1` said "no --policy given"), named with
  /// the nearest known one; and an option that takes one value given twice
  /// (`stress --size 5 --size 10`: the parser would keep the last and drop
  /// the first without a word). Options that take lists (`--policy`,
  /// `--size` of replay) may repeat. What each option is comes from the
  /// command's own description (the parser's `--experimental-dump-help`
  /// document).
  ///
  /// It also mends two things the parser takes for options: a negative
  /// number given to an option (`--size -5`, which it called a missing
  /// value) is passed as `--size=-5`, so the command's own range is what the
  /// user reads; and a word that starts with one dash and is no option (a
  /// trace named `-dash.oracleGeneral`, whose letters the parser read as
  /// `-h` and printed help with status 0) is refused with the spelling that
  /// reads it as a file. Returns the arguments to parse.
  static func checkOptions(_ arguments: [String]) throws(ArgumentError) -> [String] {
    // `evlab help WORDS`: each word must name a command (ArgumentParser
    // printed the general help, with status 0, for a misspelled one).
    if arguments.first == "help" {
      var command: any ParsableCommand.Type = Evlab.self
      for word in arguments.dropFirst() where !word.hasPrefix("-") {
        let subcommands = command.configuration.subcommands
        guard let sub = subcommands.first(where: { $0._commandName == word }) else {
          throw ArgumentError(
            "help: '\(word)' is no command of evlab\(command == Evlab.self ? "" : " " + command._commandName); "
              + "the commands are \(subcommands.map { $0._commandName }.joined(separator: ", "))")
        }
        command = sub
      }
      return arguments
    }
    var path = ["evlab"]
    var command: any ParsableCommand.Type = Evlab.self
    var rest = arguments[...]
    while let word = rest.first,
      let sub = command.configuration.subcommands.first(where: { $0._commandName == word })
    {
      command = sub
      path.append(word)
      rest = rest.dropFirst()
    }
    guard let help = CommandHelp(command) else {
      return arguments
    }
    // Each spelling of a one-value option maps to its first (`-o` and `--output` are one option).
    var single: [String: String] = [:]
    var valued: Set<String> = []
    var known: Set<String> = ["--help", "-h", "--version", "--experimental-dump-help"]
    for argument in help.command.arguments ?? [] {
      let spellings = (argument.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name }
      known.formUnion(spellings)
      guard argument.kind == "option" else { continue }
      for spelled in spellings {
        valued.insert(spelled)
        if !argument.isRepeating { single[spelled] = spellings.joined(separator: "/") }
      }
    }
    var given: [String: (spelled: String, value: String)] = [:]
    var parsed = Array(arguments[..<rest.startIndex])
    var i = rest.startIndex
    while i < rest.endIndex {
      let word = rest[i]
      if word == "--" {
        parsed += rest[i...]
        break
      }
      let name = word.hasPrefix("--") ? String(word.prefix { $0 != "=" }) : word
      if word.hasPrefix("-") && !word.hasPrefix("--") && word.count > 2 && !known.contains(word)
        && !startsNegative(word)
      {
        let command = path.joined(separator: " ")
        let what =
          FileManager.default.fileExists(atPath: word)
          ? "'\(word)' is a file, but a word starting with a dash reads as options"
          : "\(command) has no option \(word)"
        throw ArgumentError("\(what); for a file whose name starts with a dash write ./\(word)")
      }
      if name.hasPrefix("--") && !known.contains(name) {
        let command = path.joined(separator: " ")
        let nearest = known.filter { $0.hasPrefix("--") }.min {
          (PolicyCatalog.editDistance($0, name), $0) < (PolicyCatalog.editDistance($1, name), $1)
        }
        let hint =
          nearest.map { PolicyCatalog.editDistance($0, name) <= max(2, name.count / 3) ? "did you mean \($0)? " : "" }
          ?? ""
        throw ArgumentError("\(command) has no option \(name); \(hint)see \(command) --help")
      }
      var value: String? =
        word.contains("=") && word.hasPrefix("--") ? String(word.drop { $0 != "=" }.dropFirst()) : nil
      if valued.contains(name) && value == nil && i + 1 < rest.endIndex {
        i += 1
        value = rest[i]
        if name.hasPrefix("--"), let given = value, startsNegative(given) {
          parsed.append("\(name)=\(given)")  // else the parser takes -5 for an option
        } else {
          parsed += [word, rest[i]]
        }
      } else {
        parsed.append(word)
      }
      if let option = single[name], let value {
        if let first = given[option] {
          let named = first.spelled == name ? name : "\(first.spelled) and \(name), one option,"
          throw ArgumentError("\(named) is given twice (\(first.value) and \(value)); it takes one value: give it once")
        }
        given[option] = (name, value)
      }
      i += 1
    }
    return parsed
  }

  /// ArgumentParser's "The value 'V' is invalid for '--opt <opt>'" where V
  /// is a whole number past 64 bits: one line that says so, as the
  /// options evlab parses itself say it.
  static func wholeNumberPastRange(_ message: String) -> String? {
    let parts = message.components(separatedBy: "'")
    guard parts.count >= 4, parts[0].hasPrefix("The value "), parts[2].hasPrefix(" is invalid for "),
      isWholeNumber(parts[1]), Int64(parts[1]) == nil
    else { return nil }
    let option = parts[3].split(separator: " ").first.map(String.init) ?? parts[3]
    return "\(option) \(parts[1]): outside the range \(option) takes (a 64-bit whole number); give a number nearer 0"
  }

  /// Whether `word` is digits, with a sign or without.
  static func isWholeNumber(_ word: String) -> Bool {
    let digits = word.first == "-" || word.first == "+" ? word.dropFirst() : Substring(word)
    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
  }

  /// Whether `word` reads as a negative value (`-5`, `-0.5`, `-1/2`): a
  /// dash, then a digit or a point.
  static func startsNegative(_ word: String) -> Bool {
    guard word.hasPrefix("-"), let next = word.dropFirst().first else { return false }
    return next.isASCII && (next.isNumber || next == ".")
  }

  /// The one error formatter: a bad value or a failed run is one line,
  /// `evlab: error: …`, and status 1; help, version and usage errors (an
  /// unknown option, a missing argument) are ArgumentParser's.
  static func report(_ error: Error) -> Int32 {
    if let code = error as? ExitCode { return code.rawValue }
    if let failure = error as? ArgumentError {
      printError("evlab: error: \(failure)")
      return 1
    }
    let code = Evlab.exitCode(for: error)
    let message = Evlab.message(for: error)
    if let line = wholeNumberPastRange(message) {
      printError("evlab: error: \(line)")
      return 1
    }
    if code == .failure && !message.isEmpty {
      printError("evlab: error: \(message)")
      return code.rawValue
    }
    Evlab.exit(withError: error)
  }
}

struct Evlab: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evlab",
    abstract: "EvictionLab: replay cache traces through replacement policies and compare them.",
    version: EvlabVersion.description,
    subcommands: [
      Compare.self, Merge.self, Report.self, Disk.self, DiskBenchCommand.self, Replay.self, Explain.self, MRC.self,
      Bounds.self, Stress.self,
      Generate.self,
      Convert.self, TraceInfoCommand.self, Catalog.self, Policies.self, Formats.self, Settings.self, CheckPolicy.self,
      Bench.self,
    ])
}

/// A failed run: `main` prints it as the tool's one-line error and exits 1.
func fail(_ message: CustomStringConvertible) -> ArgumentError { ArgumentError(message.description) }

func printError(_ text: String) {
  // An interrupted run's later errors are consequences of its cleanup, not news.
  if Interruption.interrupted { return }
  var stderr = StandardError()
  print(text, to: &stderr)
}

struct StandardError: TextOutputStream {
  mutating func write(_ string: String) { writeStandardError(string) }
}

/// Writes to file descriptor 2 directly (no shared C stream).
func writeStandardError(_ string: String) { writeFully(string, descriptor: 2) }

/// Writes to file descriptor 1 at once (no buffer a kill could lose).
func writeStandardOutput(_ string: String) {
  if let error = writeFully(string, descriptor: 1) { standardOutputError.withLock { $0 = $0 ?? error } }
}

/// The first error writing standard output (`errno`), if any.
let standardOutputError = Mutex<Int32?>(nil)

/// Refuses to end a run with status 0 when what it printed did not all
/// reach standard output (a full disk, `> /dev/full`): the output a user
/// redirected is not there. Flushes the C stream `print` writes to first.
func checkStandardOutput() throws {
  if fflush(nil) != 0 { standardOutputError.withLock { $0 = $0 ?? errno } }
  guard let error = standardOutputError.withLock({ $0 }) else { return }
  throw ArgumentError(
    "cannot write standard output (\(String(cString: strerror(error)))): the results did not all reach it; "
      + "free space where it goes, or write them to a file (--csv, --json or -o where the command takes one)")
}

/// Writes all of `string` to `fd`, retrying short writes and EINTR; returns
/// the error (`errno`) that stopped it, if any.
@discardableResult
func writeFully(_ string: String, descriptor fd: Int32) -> Int32? {
  let bytes = Array(string.utf8)
  var offset = 0
  while offset < bytes.count {
    let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n < 0 { return errno }
    if n == 0 { return EIO }
    offset += n
  }
  return nil
}

/// A command's options as the parser describes them (its
/// `--experimental-dump-help` document): what ``EvictionLab/checkOptions(_:)``
/// and the tests read.
struct CommandHelp: Decodable {
  struct Command: Decodable { var arguments: [Argument]? }
  struct Argument: Decodable {
    struct Name: Decodable {
      var kind: String
      var name: String
    }
    var kind: String
    var isRepeating: Bool
    var names: [Name]?
  }
  var command: Command

  init?(_ type: any ParsableCommand.Type) {
    guard let help = try? JSONDecoder().decode(Self.self, from: Data(type._dumpHelp().utf8)) else { return nil }
    self = help
  }

  /// Every long option, as `--name`.
  var longOptions: Set<String> {
    Set((command.arguments ?? []).flatMap { $0.names ?? [] }.filter { $0.kind == "long" }.map { "--" + $0.name })
  }
}
