import Synchronization

/// A setting that an error or a warning asks its reader to change, named as
/// that reader gives it. The libraries know a setting by its API name
/// (`format`, `keyColumn`, `warmup`) and never by a command-line flag: a
/// front end decides how settings read in messages (``spell(_:)``). The
/// command line spells `keyColumn` as `--key-column`, and a setting of
/// another command as that command (`evlab disk check --repair`); a program
/// that uses the libraries reads the API names.
public struct Setting: Hashable, Sendable, CustomStringConvertible {
  /// The API name, lowerCamelCase; empty for a command alone.
  public let name: String
  /// The command the setting belongs to, when the way out is to run
  /// another command (`disk check` for a repair); nil for the command that
  /// reported the problem.
  public let command: String?

  public init(_ name: String, command: String? = nil) {
    self.name = name
    self.command = command
  }

  /// How the current front end spells this setting.
  public var description: String { Self.spelling.withLock { $0 }(self) }

  /// The API name, with its command where it has one: `format`, "the
  /// `disk check` command's repair".
  public static let apiSpelling: @Sendable (Setting) -> String = { setting in
    guard let command = setting.command else { return setting.name }
    return setting.name.isEmpty ? "the `\(command)` command" : "the `\(command)` command's \(setting.name)"
  }

  static let spelling = Mutex<@Sendable (Setting) -> String>(apiSpelling)

  /// Sets how every message spells settings from now on.
  public static func spell(_ spelling: @escaping @Sendable (Setting) -> String) {
    self.spelling.withLock { $0 = spelling }
  }
}

extension Setting {
  /// Every setting the libraries name, for front ends to check their spellings against.
  public static let all: [Setting] = [
    .format, .delimiter, .keyColumn, .sizeColumn, .timeColumn, .header, .keysOnly, .skipBadLines, .repeatTrace,
    .warmup, .interval, .method, .rate, .maxObjects, .requests, .objects, .mix, .config, .collection, .trace,
    .policy, .size, .sizeMode, .seeds, .runName, .baseline, .json, .wait, .quick, .convert, .repairStore, .shard,
    .collectionRun, .writeCatalog, .replayCommand, .checkPolicy, .attribution, .useTTL, .semantics,
  ]

  public static let format = Setting("format")
  public static let useTTL = Setting("useTtl")
  public static let semantics = Setting("semantics")
  public static let delimiter = Setting("delimiter")
  public static let keyColumn = Setting("keyColumn")
  public static let sizeColumn = Setting("sizeColumn")
  public static let timeColumn = Setting("timeColumn")
  public static let header = Setting("header")
  public static let keysOnly = Setting("keysOnly")
  public static let skipBadLines = Setting("skipBadLines")
  /// How many times a trace is tiled.
  public static let repeatTrace = Setting("repeat")
  public static let warmup = Setting("warmup")
  public static let interval = Setting("interval")
  /// How a miss-ratio curve is found (exact, simulate, shards).
  public static let method = Setting("method")
  public static let rate = Setting("rate")
  public static let maxObjects = Setting("maxObjects")
  public static let requests = Setting("requests")
  public static let objects = Setting("objects")
  public static let mix = Setting("mix")
  public static let config = Setting("config")
  public static let collection = Setting("collection")
  public static let trace = Setting("trace")
  public static let policy = Setting("policy")
  public static let size = Setting("size")
  public static let sizeMode = Setting("sizeMode")
  public static let seeds = Setting("seeds")
  /// A comparison's name (its output folder).
  public static let runName = Setting("name")
  public static let baseline = Setting("baseline")
  /// Where samples are written as JSON.
  public static let json = Setting("json")
  /// How long to wait for a store's lock.
  public static let wait = Setting("wait")
  /// A check that compares lengths only.
  public static let quick = Setting("quick")
  /// Converting a trace to another format.
  public static let convert = Setting("", command: "convert")
  /// Rebuilding a damaged disk store.
  public static let repairStore = Setting("repair", command: "disk check")
  /// One share of a comparison split across machines.
  public static let shard = Setting("shard", command: "compare")
  /// A comparison over a trace catalog.
  public static let collectionRun = Setting("collection", command: "compare")
  /// Writing a trace catalog.
  public static let writeCatalog = Setting("", command: "catalog")
  /// Replaying a trace, one cell at a time.
  public static let replayCommand = Setting("", command: "replay")
  /// Attributing each miss to its cause against the optimum.
  public static let attribution = Setting("attribution")
  /// The conformance checks a policy of one's own is held to.
  public static let checkPolicy = Setting("", command: "check-policy")
}
