import EvictionCore
import EvictionRun
import EvictionTraces

/// One replay, described once, as every front end asks for it: the command
/// line's `replay` and `compare`, a configuration file, a program that uses
/// the libraries. Each setting is declared once in ``settings`` (its name,
/// what it takes, its default, its help, the commands and configuration
/// keys that take it, and how it combines with the others); ``check(spelling:)``
/// is the one validation, and every front end calls it before any work.
///
/// A value that no part of the run would use is refused by its
/// declaration: a setting that only has an effect beside another one
/// (``RunSetting/onlyWith``) is refused without it, and two that are not
/// replayed together (``RunSetting/notWith``) are refused together.
public struct RunDescription: Sendable, Hashable {
  /// How records are read (``KVRule``).
  public enum Semantics: String, Sendable, Hashable, CaseIterable {
    /// Every record a request, as libCacheSim replays it.
    case libcachesim
    /// Records are gets, sets and deletes of a look-aside key-value cache.
    case kv
  }

  /// The tier stacks a replay can run through real caches.
  public enum Tier: String, Sendable, Hashable, CaseIterable {
    /// A `MemoryCache` over a `DiskCache`.
    case memoryDisk = "memory+disk"
  }

  public var policies: [PolicySpec] = []
  public var sizes: [CacheSize] = []
  public var sizeMode: SizeMode = .count
  /// Admission policies, each in front of every policy.
  public var admissions: [AdmissionSpec] = [.none]
  /// The warm-up left out of the counts, and the intervals counted apart.
  public var window = ReplayWindow()
  public var attribution = false
  /// What misses are attributed against.
  public var attributionReference: AttributionReferenceKind = .belady
  public var useTTL = false
  public var semantics: Semantics = .libcachesim
  public var fillOnMiss = false
  /// When expired objects leave; nil for the default (lazy).
  public var expiration: Expiration? = nil
  /// Seconds an object lives past its last hit (0: hits extend nothing).
  public var idleTTL: Int64 = 0
  /// How many times each trace is tiled (`repeat`).
  public var copies = 1
  /// Cells replayed at once; nil for one per core.
  public var jobs: Int? = nil
  public var tier: Tier? = nil
  /// The disk tier's capacity, in the size mode's unit.
  public var diskSize: Int64? = nil
  /// The folder for the disk tier's scratch store.
  public var diskDirectory: String? = nil
  /// Requests replayed of each trace (the tiered replay's limit).
  public var limit: Int? = nil
  /// What each request costs, when misses are weighed (``PenaltyModel``).
  public var penalty: PenaltyModel? = nil

  public init() {}

  /// How each cell replays: what ``ReplayCell/grid(_:policies:sizes:sizeMode:admissions:settings:)`` takes.
  public var replaySettings: ReplaySettings {
    let expiry = expiration ?? .lazy
    var settings = ReplaySettings(
      window: window, attribution: attribution, ttl: useTTL ? TTLRule(expiration: expiry, idleTTL: idleTTL) : nil,
      kv: semantics == .kv ? KVRule(fillOnMiss: fillOnMiss, expiration: expiry, idleTTL: idleTTL) : nil)
    settings.attributionReference = attributionReference
    settings.penalty = penalty
    return settings
  }

  /// Whether objects expire or are set and deleted: runs where an offline
  /// bound ranks by the wrong thing.
  public var hasOperations: Bool { useTTL || semantics == .kv }
}

/// Why a run description cannot run: one line naming the setting to change.
public struct RunError: Error, CustomStringConvertible, Equatable {
  /// The setting the message asks its reader to change.
  public let setting: Setting
  public let description: String
  public init(_ setting: Setting, _ description: String) {
    self.setting = setting
    self.description = description
  }
}

/// A replay setting's declaration and its rules (``RunDescription/settings``).
public struct RunSetting: Sendable {
  /// What a setting's rule is stated against: another setting given (with
  /// the value it must have, for those that take a choice).
  public struct Condition: Sendable {
    public let setting: Setting
    /// The value shown after the setting's name (`kv` of `semantics kv`).
    public let value: String?
    let holds: @Sendable (RunDescription) -> Bool

    func spelled(_ spell: (Setting) -> String) -> String {
      value.map { RunDescription.spelled(setting, $0, spell) } ?? spell(setting)
    }
  }

  /// Two settings not replayed together, and why (nil: not yet built).
  public struct Conflict: Sendable {
    public let other: Condition
    public let reason: String?
  }

  public let declaration: SettingDeclaration
  /// The value it is shown with in messages (`kv` of `semantics kv`).
  let shownAs: String?
  /// Whether the description gives it a value other than its default.
  let isGiven: @Sendable (RunDescription) -> Bool
  /// Reads its value from text, as a front end was given it; messages
  /// name the setting as the last argument does.
  let read: @Sendable (inout RunDescription, String, String) throws(RunError) -> Void
  /// What is wrong with its value, if anything (its range).
  let problem: @Sendable (RunDescription) -> String?
  /// The settings it has an effect with: one of them must be given too.
  public let onlyWith: [Condition]
  /// What it needs beside it, all of them.
  public let needs: [Condition]
  /// The settings it is not replayed with.
  public let notWith: [Conflict]

  public var setting: Setting { declaration.setting }

  /// How it combines with the others, one line per rule, settings named as
  /// `spell` does: "only with --semantics kv", "needs --disk-size", "not
  /// with --interval: why".
  public func rules(spelling spell: (Setting) -> String) -> [String] {
    var lines: [String] = []
    if !onlyWith.isEmpty { lines.append("only with " + onlyWith.map { $0.spelled(spell) }.joined(separator: " or ")) }
    lines += needs.map { "needs " + $0.spelled(spell) }
    lines += notWith.map { conflict in
      "not with \(conflict.other.spelled(spell))" + (conflict.reason.map { ": \($0)" } ?? " (not built yet)")
    }
    return lines
  }

  func spelled(_ spell: (Setting) -> String) -> String {
    shownAs.map { RunDescription.spelled(setting, $0, spell) } ?? spell(setting)
  }
}

extension Setting {
  public static let admission = Setting("admission")
  public static let fillOnMiss = Setting("fillOnMiss")
  public static let expiration = Setting("expiration")
  public static let idleTTL = Setting("idleTtl")
  public static let jobs = Setting("jobs")
  public static let tier = Setting("tier")
  public static let diskSize = Setting("diskSize")
  public static let diskDirectory = Setting("diskDir")
  public static let limit = Setting("limit")
  public static let attributionReference = Setting("attributionReference")
  public static let penalty = Setting("penalty")
}

extension RunDescription {
  /// Every replay setting, declared once, in the order help lists them.
  public static let settings: [RunSetting] = [
    RunSetting(
      SettingDeclaration(
        .sizeMode, value: "count or bytes", default: "count",
        help: "What capacity counts: count (every object weighs 1) or bytes (objects weigh their size).",
        commands: ["replay", "mrc", "stress", "explain", "compare", "bounds"], configKey: "size_mode"),
      isGiven: { $0.sizeMode != .count },
      read: { run, text, name throws(RunError) in
        guard let mode = SizeMode(rawValue: text.lowercased()) else {
          throw RunError(.sizeMode, "\(name) '\(text)': use count or bytes")
        }
        run.sizeMode = mode
      }),
    RunSetting(
      SettingDeclaration(
        .warmup, value: "a number of requests, or a duration on the trace's clock (3600s, 90m, 6h, 2d)",
        help:
          "Requests each cell serves before counting starts, or a duration on the trace's clock (3600s, 90m, 6h, 2d); warmup_requests says how many.",
        commands: ["replay", "mrc", "explain", "compare"], configKey: "warmup"),
      isGiven: { $0.window.warmup != nil },
      read: { run, text, name throws(RunError) in run.window.warmup = try span(text, .warmup, name) },
      notWith: [.init(other: .tier, reason: nil)]),
    RunSetting(
      SettingDeclaration(
        .interval, value: "a number of requests, or a duration on the trace's clock (1h)",
        help: "Also count per interval of N requests (or of a duration: 1h), a time series of miss ratios.",
        commands: ["replay", "compare"], configKey: "interval"),
      isGiven: { $0.window.interval != nil },
      read: { run, text, name throws(RunError) in run.window.interval = try span(text, .interval, name) },
      notWith: [.init(other: .tier, reason: nil)]),
    RunSetting(
      SettingDeclaration(
        .attribution, value: "true or false", default: "false",
        help:
          "Attribute each counted miss to its cause against Belady's optimum at the same size: compulsory (first request), capacity (Belady misses it too), policy (Belady hits it) or admission (turned away by the admission policy at its last miss); adds compulsory_misses, capacity_misses, policy_misses, admission_misses and their bytes.",
        commands: ["replay", "compare"], configKey: "attribution"),
      isGiven: { $0.attribution },
      read: { run, text, name throws(RunError) in run.attribution = try flag(text, .attribution, name) },
      notWith: [
        .init(other: .given(.interval), reason: "its replay does not cut intervals yet"),
        .init(other: .tier, reason: "a tiered replay runs real caches, with no optimum beside them"),
      ]),
    RunSetting(
      SettingDeclaration(
        .attributionReference, value: "belady, foo or pfoo-u", default: "belady",
        help:
          "With attribution: the schedule misses are attributed against. belady (libCacheSim's: the optimum with equal sizes, a heuristic with sizes), foo (FOO-U's schedule: within FOO-L of the optimum with sizes too; traces of at most 250,000 requests) or pfoo-u (PFOO-U's, for longer traces); see evlab bounds.",
        commands: ["replay", "compare"], configKey: "attribution_reference"),
      isGiven: { $0.attributionReference != .belady },
      read: { run, text, name throws(RunError) in
        guard let kind = AttributionReferenceKind(rawValue: text.lowercased()) else {
          throw RunError(.attributionReference, "\(name) '\(text)': use belady, foo or pfoo-u")
        }
        run.attributionReference = kind
      },
      onlyWith: [.given(.attribution)],
      notWith: [.init(other: .given(.warmup), reason: "its schedule is solved over the whole trace")]),
    RunSetting(
      SettingDeclaration(
        .useTTL, value: "true or false", default: "false",
        help:
          "Honour the trace's TTLs as libCacheSim's TTL build does: an object expires ttl seconds after the request that admitted it, and a later request finds it expired, a miss that admits it again (lcs traces from version 3 carry TTLs); adds use_ttl and expired_requests.",
        commands: ["replay"]),
      isGiven: { $0.useTTL },
      read: { run, text, name throws(RunError) in run.useTTL = try flag(text, .useTTL, name) },
      notWith: [
        .init(other: .given(.attribution), reason: nil), .init(other: .given(.warmup), reason: nil),
        .init(other: .given(.interval), reason: nil), .init(other: .tier, reason: nil),
      ]),
    RunSetting(
      SettingDeclaration(
        .semantics, value: "libcachesim or kv", default: "libcachesim",
        help:
          "How records are read: libcachesim (every record a request, as libCacheSim replays it) or kv (records are get, set and delete of a lookaside key-value cache: a get's miss fills only on the trace's next set or with --fill-on-miss, a set replaces the object, a delete removes it, TTLs always hold; adds gets, get_hits, sets, deletes).",
        commands: ["replay"]),
      shownAs: "kv", isGiven: { $0.semantics == .kv },
      read: { run, text, name throws(RunError) in
        guard let semantics = Semantics(rawValue: text.lowercased()) else {
          throw RunError(.semantics, "\(name) '\(text)': use libcachesim or kv")
        }
        run.semantics = semantics
      },
      notWith: [
        .init(other: .given(.attribution), reason: nil), .init(other: .given(.warmup), reason: nil),
        .init(other: .given(.interval), reason: nil), .init(other: .tier, reason: nil),
        .init(other: .given(.useTTL), reason: "key-value semantics always honour TTLs"),
      ]),
    RunSetting(
      SettingDeclaration(
        .fillOnMiss, value: "true or false", default: "false",
        help: "With key-value semantics: a get's miss admits the object at once, as a cache that loads on a miss.",
        commands: ["replay"]),
      isGiven: { $0.fillOnMiss },
      read: { run, text, name throws(RunError) in run.fillOnMiss = try flag(text, .fillOnMiss, name) },
      onlyWith: [.kv]),
    RunSetting(
      SettingDeclaration(
        .expiration, value: "lazy, scan or scan:interval=SECONDS", default: "lazy",
        help:
          "With TTLs or key-value semantics: when expired objects leave. lazy (the default, as libCacheSim): when next requested or evicted; scan[:interval=S]: also every S seconds of trace time (default 1, 0 before every request), as Segcache removes expired segments. Adds expiration, expired_objects (objects that expired while cached) and mean_expired_bytes (bytes held by expired objects, averaged over the trace's time).",
        commands: ["replay"]),
      isGiven: { $0.expiration != nil },
      read: { run, text, name throws(RunError) in
        do throws(TraceError) { run.expiration = try Expiration(parsing: text) } catch {
          throw RunError(.expiration, "\(name): \(error)")
        }
      },
      onlyWith: [.given(.useTTL), .kv]),
    RunSetting(
      SettingDeclaration(
        .idleTTL, value: "whole seconds of trace time, at least 1", default: "none",
        help:
          "With TTLs or key-value semantics: an object also expires once it has gone this long without a hit (a hit or its admission starts the time again), never living past its own TTL: MemoryCache's timeToIdle (expire after access), replayed. Adds idle_ttl.",
        commands: ["replay"]),
      isGiven: { $0.idleTTL != 0 },
      read: { run, text, name throws(RunError) in
        let seconds = try whole(text, .idleTTL, name)
        guard seconds >= 1 && seconds <= Int(UInt32.max) else {
          throw RunError(.idleTTL, "\(name) \(seconds): the idle time is whole seconds from 1 to \(UInt32.max)")
        }
        run.idleTTL = Int64(seconds)
      },
      onlyWith: [.given(.useTTL), .kv]),
    RunSetting(
      SettingDeclaration(
        .repeatTrace, value: "a whole number of copies, at least 1", default: "1",
        help:
          "Replay each trace this many times in a row, copy k with k·(largest id + 1) added to every id so copies share no object (a longer trace with the same structure).",
        commands: ["replay"]),
      isGiven: { $0.copies != 1 },
      read: { run, text, name throws(RunError) in run.copies = try whole(text, .repeatTrace, name) },
      problem: { $0.copies < 1 ? "\($0.copies): at least one copy is needed" : nil },
      notWith: [
        .init(
          other: .given(.useTTL), reason: "each copy restarts the trace's clock, so objects would expire backwards"),
        .init(other: .kv, reason: "each copy restarts the trace's clock, so objects would expire backwards"),
      ]),
    RunSetting(
      SettingDeclaration(
        .jobs, value: "a whole number, at least 1", default: "the number of cores",
        help: "Cells replayed at once (default: the number of cores).", commands: ["replay", "compare"],
        configKey: "jobs"),
      isGiven: { $0.jobs != nil },
      read: { run, text, name throws(RunError) in run.jobs = try whole(text, .jobs, name) },
      problem: { run in run.jobs.flatMap { $0 < 1 ? "\($0): at least one job is needed" : nil } }),
    RunSetting(
      SettingDeclaration(
        .tier, value: "memory+disk",
        help:
          "memory+disk: replay through a real TieredCache (a MemoryCache of the cache size over a DiskCache of the disk size, same policy); reports memory hits, disk hits, misses, bytes read from disk and latency per class.",
        commands: ["replay"]),
      shownAs: "memory+disk", isGiven: { $0.tier != nil },
      read: { run, text, name throws(RunError) in
        guard let tier = Tier(rawValue: text.lowercased()) else {
          throw RunError(.tier, "\(name) '\(text)': the one tier stack is memory+disk")
        }
        run.tier = tier
      },
      needs: [.given(.diskSize)],
      notWith: [.init(other: .given(.admission), reason: nil)]),
    RunSetting(
      SettingDeclaration(
        .diskSize, value: "a size: objects in count mode, bytes in byte mode (k, m, g suffixes)",
        help: "The disk tier's size (objects in count mode, bytes in byte mode; k/m/g suffixes).",
        commands: ["replay"]),
      isGiven: { $0.diskSize != nil },
      read: { run, text, name throws(RunError) in
        switch CacheSize.parseAbsolute(text) {
        case .size(let value) where value > PolicySpec.maximumCapacity:
          throw RunError(.diskSize, "\(name) '\(text)' is past the largest cache evlab builds, 2⁵⁶")
        case .size(let value) where value > 0: run.diskSize = value
        case .size: throw RunError(.diskSize, "\(name) '\(text)' is zero; a cache needs a positive size")
        case .tooLarge: throw RunError(.diskSize, "\(name) '\(text)' is past the largest cache evlab builds, 2⁵⁶")
        case .notANumber:
          throw RunError(.diskSize, "\(name) '\(text)' is not a number; write e.g. 5000, 64k, 16m or 1g")
        }
      },
      problem: { run in run.diskSize.flatMap { $0 < 1 ? "\($0): a cache needs a positive size" : nil } },
      onlyWith: [.tier]),
    RunSetting(
      SettingDeclaration(
        .diskDirectory, value: "a folder", default: "the system's temporary folder",
        help: "The folder for the disk tier's scratch store.", commands: ["replay"]),
      isGiven: { $0.diskDirectory != nil },
      read: { run, text, name throws(RunError) in run.diskDirectory = text },
      problem: { $0.diskDirectory?.isEmpty == true ? "is an empty path; name a folder for the scratch store" : nil },
      onlyWith: [.tier]),
    RunSetting(
      SettingDeclaration(
        .limit, value: "a whole number of requests, at least 1", default: "every request",
        help: "Replay only the first N requests of each trace.", commands: ["replay"]),
      isGiven: { $0.limit != nil },
      read: { run, text, name throws(RunError) in run.limit = try whole(text, .limit, name) },
      problem: { run in run.limit.flatMap { $0 < 1 ? "\($0): at least 1 request" : nil } },
      onlyWith: [.tier]),
    RunSetting(
      SettingDeclaration(
        .penalty, value: "trace, constant:miss=M[,hit=H] (or M) or size:base=B,per-byte=P[,hit=H]",
        default: "none",
        help:
          "Weigh each request by what it costs: trace (the trace's own hit and miss penalties; address-penalties traces), constant:miss=M[,hit=H] (or just M) or size:base=B,per-byte=P[,hit=H] (a miss costs B + P × the object's bytes). Cost-aware policies (camp, gdwheel) rank by the miss penalty; adds penalty_model, total_penalty, average_penalty, hit_penalty and miss_penalty.",
        commands: ["replay", "compare"], configKey: "penalty"),
      isGiven: { $0.penalty != nil },
      read: { run, text, name throws(RunError) in
        do throws(TraceError) { run.penalty = try PenaltyModel(parsing: text) } catch {
          throw RunError(.penalty, "\(name): \(error)")
        }
      },
      notWith: [
        .init(other: .given(.attribution), reason: nil), .init(other: .given(.useTTL), reason: nil),
        .init(other: .kv, reason: nil), .init(other: .tier, reason: nil),
      ]),
    RunSetting(
      SettingDeclaration(
        .admission,
        value:
          "admission policies: none, bloom-filter, prob:p=F[,seed=N], size:max=BYTES, adaptsize[:interval=N], tinylfu",
        default: "none",
        help:
          "Admission policies in front of every policy, comma-separated or repeated: none (the default), bloom-filter (admit on the second miss), prob:p=F[,seed=N] (admit with probability F), size:max=BYTES (admit objects of at most BYTES; byte mode), adaptsize[:interval=N] (AdaptSize's tuned size filter; byte mode), tinylfu (admit a miss rated above each victim the policy would evict for it; every online policy). Each gives rows of its own.",
        commands: ["replay", "mrc", "stress", "explain", "compare"], configKey: "admissions"),
      isGiven: { $0.admissions != [.none] },
      read: { run, text, name throws(RunError) in
        do throws(AdmissionError) { run.admissions = try AdmissionSpec.list(text) } catch {
          throw RunError(.admission, "\(name): \(error.description)")
        }
      }),
  ]

  /// The declaration of `setting`, when it is a replay setting.
  public static func declaration(of setting: Setting) -> SettingDeclaration? {
    settings.first { $0.setting == setting }?.declaration
  }

  /// How a configuration file names the replay settings it takes: their
  /// keys (`size_mode`); any other setting by its API name.
  public static let configSpelling: @Sendable (Setting) -> String = { setting in
    // Policies and sizes are the configuration's own lists, not declared settings.
    declaration(of: setting)?.configKey ?? [Setting.policy: "policies", .size: "sizes"][setting]
      ?? Setting.apiSpelling(setting)
  }

  /// The configuration keys of the settings `command` takes.
  public static func configKeys(of command: String) -> Set<String> {
    Set(settings.filter { $0.declaration.commands.contains(command) }.compactMap(\.declaration.configKey))
  }

  /// Sets `setting` from text, as a front end was given it (a flag's value,
  /// a configuration value written as text; `true` or `false` for a switch).
  public mutating func set(
    _ setting: Setting, to text: String, spelling spell: (Setting) -> String = { $0.description }
  ) throws(RunError) {
    guard let declared = Self.settings.first(where: { $0.setting == setting }) else {
      throw RunError(setting, "\(spell(setting)) is no replay setting")
    }
    try declared.read(&self, text, spell(setting))
  }

  /// The one validation of a replay, before any work: each setting's range,
  /// each setting given only beside what it has an effect with, no two given
  /// that are not replayed together, and the policies, sizes and admission
  /// policies as the other settings need them. Messages name settings as
  /// `spell` does (the front end's spelling by default).
  public func check(spelling spell: (Setting) -> String = { $0.description }) throws(RunError) {
    let given = Self.settings.filter { $0.isGiven(self) }
    for declared in Self.settings {
      if let problem = declared.problem(self) {
        throw RunError(declared.setting, "\(spell(declared.setting)) \(problem)")
      }
    }
    for declared in given {
      let name = declared.spelled(spell)
      if !declared.onlyWith.isEmpty && !declared.onlyWith.contains(where: { $0.holds(self) }) {
        let others = declared.onlyWith.map { $0.spelled(spell) }
        throw RunError(
          declared.setting,
          "\(name) is for \(others.joined(separator: " or ")); add \(others[0]) or leave \(spell(declared.setting)) out"
        )
      }
      for need in declared.needs where !need.holds(self) {
        throw RunError(need.setting, "\(name) needs \(need.spelled(spell))")
      }
      for conflict in declared.notWith where conflict.other.holds(self) {
        let other = conflict.other.spelled(spell)
        guard let reason = conflict.reason else {
          throw RunError(declared.setting, "\(name) is not yet replayed with \(other); drop one of them")
        }
        throw RunError(declared.setting, "\(name) and \(other) do not go together: \(reason); drop one of them")
      }
    }
    try checkPolicies(spell)
  }

  /// The policies, sizes and admission policies, as the rest of the run needs them.
  func checkPolicies(_ spell: (Setting) -> String) throws(RunError) {
    if let twice = policies.repeatNamed {
      throw RunError(.policy, "\(spell(.policy)) names \(twice); name each once")
    }
    guard Set(sizes).count == sizes.count else {
      throw RunError(.size, "\(spell(.size)) names a size twice; name each once")
    }
    guard !admissions.isEmpty, Set(admissions).count == admissions.count else {
      throw RunError(.admission, "\(spell(.admission)) names one twice (or none at all); name each once")
    }
    for admission in admissions {
      if admission.judgesSizes, sizeMode == .count {
        throw RunError(
          .admission,
          "\(spell(.admission)) \(admission) judges sizes, but in count mode every object weighs 1; "
            + "set \(Self.spelled(.sizeMode, "bytes", spell))")
      }
      for policy in policies {
        do throws(AdmissionError) { try admission.check(composesWith: policy.descriptor) } catch {
          throw RunError(.admission, "\(spell(.admission)): \(error.description)")
        }
      }
    }
    if hasOperations, let offline = policies.first(where: { $0.descriptor.isOffline }) {
      let cause = useTTL ? spell(.useTTL) : "\(spell(.semantics)) kv"
      throw RunError(
        .policy,
        "\(offline.name) is no bound once objects expire or are set and deleted (it ranks by the next request and "
          + "ignores TTLs and operations); leave it out with \(cause)")
    }
    if tier != nil {
      let name = "\(spell(.tier)) memory+disk"
      for policy in policies where !policy.descriptor.canDriveACache {
        throw RunError(.policy, "\(name) runs real caches: \(policy.name) cannot drive one; choose an online policy")
      }
      for size in sizes {
        guard case .absolute = size else {
          throw RunError(.size, "\(name) takes absolute memory sizes (5000, 64m), not shares of the footprint")
        }
      }
    }
  }

  /// A setting with its value, as its reader writes them: `--semantics kv`
  /// on a command line, `size_mode = "bytes"` in a configuration.
  static func spelled(_ setting: Setting, _ value: String, _ spell: (Setting) -> String) -> String {
    let name = spell(setting)
    return name.hasPrefix("-") ? "\(name) \(value)" : "\(name) = \"\(value)\""
  }

  static func span(_ text: String, _ setting: Setting, _ name: String) throws(RunError) -> ReplayWindow.Span {
    do throws(TraceError) { return try ReplayWindow.Span(parsing: text, option: name) } catch {
      throw RunError(setting, error.description)
    }
  }

  static func whole(_ text: String, _ setting: Setting, _ name: String) throws(RunError) -> Int {
    guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
      throw RunError(setting, "\(name) '\(text)' is not a whole number")
    }
    return value
  }

  static func flag(_ text: String, _ setting: Setting, _ name: String) throws(RunError) -> Bool {
    switch text.lowercased() {
    case "true": return true
    case "false": return false
    default: throw RunError(setting, "\(name) '\(text)': use true or false")
    }
  }
}

extension RunSetting {
  init(
    _ declaration: SettingDeclaration, shownAs: String? = nil, isGiven: @escaping @Sendable (RunDescription) -> Bool,
    read: @escaping @Sendable (inout RunDescription, String, String) throws(RunError) -> Void,
    problem: @escaping @Sendable (RunDescription) -> String? = { _ in nil }, onlyWith: [Condition] = [],
    needs: [Condition] = [], notWith: [Conflict] = []
  ) {
    self.declaration = declaration
    self.shownAs = shownAs
    self.isGiven = isGiven
    self.read = read
    self.problem = problem
    self.onlyWith = onlyWith
    self.needs = needs
    self.notWith = notWith
  }
}

extension RunSetting.Condition {
  /// The setting given a value other than its default.
  /// (Looked up when the rule is checked: the declarations name each other.)
  static func given(_ setting: Setting) -> Self {
    Self(setting: setting, value: nil) { run in
      RunDescription.settings.first { $0.setting == setting }?.isGiven(run) ?? false
    }
  }

  /// A tiered replay.
  static let tier = Self(setting: .tier, value: "memory+disk") { $0.tier != nil }

  /// Key-value semantics.
  static let kv = Self(setting: .semantics, value: "kv") { $0.semantics == .kv }
}
