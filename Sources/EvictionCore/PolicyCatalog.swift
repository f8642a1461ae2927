/// A policy named on a command line or in a config: `name[:key=value,...]`,
/// e.g. `lru`, `SLRU:segments=5`, `random:seed=42`. Names are case-insensitive.
public struct PolicySpec: Hashable, Sendable, CustomStringConvertible {
  /// The catalog name, lower-cased.
  public let name: String
  /// Parameters as given, keys lower-cased.
  public let parameters: [String: String]

  /// Parses and validates `text` against the catalog.
  public init(_ text: String) throws(PolicyError) {
    let trimmed = text.trimmingWhitespace()
    let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let name = String(parts[0]).lowercased()
    guard let entry = PolicyCatalog.entry(named: name) else {
      throw .unknownPolicy(trimmed)
    }
    var parameters: [String: String] = [:]
    if parts.count == 2 {
      for pair in parts[1].split(separator: ",") {
        let kv = pair.split(separator: "=", maxSplits: 1)
        guard kv.count == 2 else { throw .malformedParameter(policy: name, text: String(pair)) }
        let key = String(kv[0]).trimmingWhitespace().lowercased()
        let value = String(kv[1]).trimmingWhitespace()
        guard let parameter = entry.parameters.first(where: { $0.name == key }) else {
          throw .unknownParameter(policy: name, parameter: key, known: entry.parameters.map(\.name))
        }
        try parameter.validate(value, policy: name)
        guard parameters[key] == nil else { throw .duplicateParameter(policy: name, parameter: key) }
        parameters[key] = value
      }
    }
    self.name = entry.name
    self.parameters = parameters
  }

  /// The spec as it would be written: `name` or `name:key=value,...` (keys sorted).
  public var description: String {
    parameters.isEmpty
      ? name : name + ":" + parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: ",")
  }

  /// A parameter's value, or its default.
  public func integer(_ key: String) -> Int64 {
    let entry = PolicyCatalog.entry(named: name)!
    let text = parameters[key] ?? entry.parameters.first { $0.name == key }!.defaultValue
    return Int64(text)!
  }

  /// A fraction parameter's value, or its default.
  public func fraction(_ key: String) -> Double {
    let entry = PolicyCatalog.entry(named: name)!
    let text = parameters[key] ?? entry.parameters.first { $0.name == key }!.defaultValue
    return Double(text)!
  }

  /// Builds the policy over `capacity` with index type `index` and hands it
  /// to `visitor`, specialised: the visitor's generic code runs on the
  /// concrete policy type, never on an existential.
  @inlinable
  public func withPolicy<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    switch name {
    case "lru": return visitor.visit(LRUPolicy<Index>(capacity: capacity))
    case "fifo": return visitor.visit(FIFOPolicy<Index>(capacity: capacity))
    case "mru": return visitor.visit(MRUPolicy<Index>(capacity: capacity))
    case "lfu": return visitor.visit(LFUPolicy<Index>(capacity: capacity))
    case "arc": return visitor.visit(ARCPolicy<Index>(capacity: capacity))
    case "slru":
      return visitor.visit(SLRUPolicy<Index>(capacity: capacity, segments: Int(integer("segments"))))
    case "clock":
      return visitor.visit(
        ClockPolicy<Index>(capacity: capacity, bits: Int(integer("bits")), initial: Int(integer("init"))))
    case "sieve": return visitor.visit(SievePolicy<Index>(capacity: capacity))
    case "lirs": return visitor.visit(LIRSPolicy<Index>(capacity: capacity, hirPercent: Int(integer("hir"))))
    case "gdsf": return visitor.visit(GDSFPolicy<Index>(capacity: capacity))
    case "belady": return visitor.visit(BeladyPolicy<Index>(capacity: capacity))
    case "belady-size":
      return visitor.visit(
        BeladySizePolicy<Index>(capacity: capacity, samples: Int(integer("samples")), seed: UInt64(integer("seed"))))
    case "wtinylfu": return visitor.visit(WTinyLFUPolicy<Index>(capacity: capacity, window: fraction("window")))
    case "nscache-linux":
      return visitor.visit(NSCacheLinuxModel<Index>(capacity: capacity, countLimit: Int(integer("count"))))
    case "yy-memory":
      return visitor.visit(
        PurgingLRUModel<Index>(capacity: capacity, flavor: .yyMemory(countLimit: Int(integer("count")))))
    case "af-autopurging":
      return visitor.visit(PurgingLRUModel<Index>(capacity: capacity, flavor: .afAutoPurging(after: fraction("after"))))
    case "yy-disk":
      return visitor.visit(
        TimedTrimModel<Index>(
          capacity: capacity, flavor: .yyDisk(countLimit: Int(integer("count")), interval: integer("interval"))))
    case "sd-disk":
      return visitor.visit(
        TimedTrimModel<Index>(capacity: capacity, flavor: .sdDisk(maxAge: integer("age"), interval: integer("interval"))))
    case "lfuda": return visitor.visit(LFUDAPolicy<Index>(capacity: capacity))
    case "2q":
      return visitor.visit(TwoQueuePolicy<Index>(capacity: capacity, inShare: fraction("in"), outShare: fraction("out")))
    case "s3fifo":
      return visitor.visit(
        S3FIFOPolicy<Index>(
          capacity: capacity, small: fraction("small"), ghost: fraction("ghost"),
          threshold: Int(integer("threshold"))))
    case "random":
      return visitor.visit(RandomPolicy<Index>(capacity: capacity, seed: UInt64(integer("seed"))))
    default:
      preconditionFailure("PolicySpec holds a name the catalog does not build: \(name)")
    }
  }
}

extension PolicySpec {
  /// The smallest capacity (objects in count mode, bytes in byte mode) at
  /// which this policy, with these parameters, can cache anything: below it
  /// a share of the capacity rounds down to zero (S3-FIFO's small FIFO,
  /// 2Q's A1in, an SLRU segment) and every request misses. Found by
  /// applying the policy's own sizing rule, so it matches the code exactly.
  public var minimumCapacity: Int64 {
    var capacity: Int64 = 1
    while capacity < 1 << 24 && !cachesAnything(at: capacity) { capacity += 1 }
    return capacity
  }

  /// Whether every part this policy splits `capacity` into holds at least one unit.
  func cachesAnything(at capacity: Int64) -> Bool {
    switch name {
    case "s3fifo":
      let small = Int64(Double(capacity) * fraction("small"))
      return small >= 1 && capacity - small >= 1
    case "2q":
      let ain = Int64(Double(capacity) * fraction("in"))
      return ain >= 1 && capacity - ain >= 1
    case "slru":
      return capacity / integer("segments") >= 1
    default:
      return capacity >= 1
    }
  }

  /// What to change when a capacity is below ``minimumCapacity``.
  public var minimumCapacityHint: String {
    switch name {
    case "s3fifo": "; its small FIFO is small=\(fraction("small")) of the capacity: raise the size or s3fifo:small="
    case "2q": "; its A1in is in=\(fraction("in")) of the capacity: raise the size or 2q:in="
    case "slru": "; each of its \(integer("segments")) segments needs one: raise the size or lower slru:segments="
    default: ""
    }
  }
}

/// Receives a freshly built policy of a concrete type (see ``PolicySpec/withPolicy(capacity:index:visitor:)``).
public protocol PolicyVisitor: ~Copyable {
  associatedtype Key: Hashable
  associatedtype Output
  mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Output
  where Policy.Key == Key
}

/// The policies EvictionLab knows by name.
public enum PolicyCatalog {
  /// A tunable parameter of a catalog policy: an integer in a range, or a
  /// fraction of the capacity.
  public struct Parameter: Sendable {
    public let name: String
    public let defaultValue: String
    public let range: ClosedRange<Int64>
    public let isFraction: Bool
    public let help: String

    init(name: String, defaultValue: String, range: ClosedRange<Int64>, help: String) {
      self.name = name
      self.defaultValue = defaultValue
      self.range = range
      self.isFraction = false
      self.help = help
    }

    init(fraction name: String, defaultValue: String, help: String) {
      self.name = name
      self.defaultValue = defaultValue
      self.range = 0...1
      self.isFraction = true
      self.help = help
    }

    func validate(_ value: String, policy: String) throws(PolicyError) {
      if isFraction {
        guard let number = Double(value), number > 0, number <= 1 else {
          throw .invalidValue(policy: policy, parameter: name, value: value, expected: "a fraction in (0, 1]")
        }
        return
      }
      guard let number = Int64(value), range.contains(number) else {
        throw .invalidValue(
          policy: policy, parameter: name, value: value,
          expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
      }
    }
  }

  /// A catalog policy: its name, a one-line summary and its parameters.
  public struct Entry: Sendable {
    public let name: String
    public let summary: String
    public let parameters: [Parameter]
    /// Whether this models a shipped cache rather than defining a policy.
    /// Models keep their library's behaviour where it departs from the
    /// simulator's rules: they may insert before evicting, so an object
    /// heavier than the cache is inserted and then purged with others.
    public let isModel: Bool
    /// Whether it trims only on a timer, holding more than its capacity in between.
    public let trimsOnATimer: Bool

    init(name: String, summary: String, parameters: [Parameter], isModel: Bool = false, trimsOnATimer: Bool = false) {
      self.name = name
      self.summary = summary
      self.parameters = parameters
      self.isModel = isModel
      self.trimsOnATimer = trimsOnATimer
    }
  }

  /// Every policy, in the order reports list them.
  public static let entries: [Entry] = [
    Entry(name: "lru", summary: "least recently used", parameters: []),
    Entry(name: "fifo", summary: "first in, first out", parameters: []),
    Entry(name: "lfu", summary: "least frequently used, oldest first among equals", parameters: []),
    Entry(name: "mru", summary: "most recently used", parameters: []),
    Entry(
      name: "random", summary: "uniformly random victim",
      parameters: [
        Parameter(name: "seed", defaultValue: "1", range: 0...Int64.max, help: "random stream seed")
      ]),
    Entry(name: "arc", summary: "adaptive replacement cache (Megiddo and Modha, FAST'03)", parameters: []),
    Entry(
      name: "slru", summary: "segmented LRU with equal segments",
      parameters: [
        Parameter(name: "segments", defaultValue: "4", range: 1...64, help: "number of segments")
      ]),
    Entry(
      name: "clock", summary: "CLOCK / second chance (FIFO with reinsertion)",
      parameters: [
        Parameter(name: "bits", defaultValue: "1", range: 1...8, help: "bits of the access counter"),
        Parameter(name: "init", defaultValue: "0", range: 0...255, help: "counter of a new entry"),
      ]),
    Entry(name: "sieve", summary: "SIEVE (Zhang et al., NSDI'24)", parameters: []),
    Entry(
      name: "s3fifo", summary: "S3-FIFO: small, main and ghost FIFOs (Yang et al., SOSP'23)",
      parameters: [
        Parameter(fraction: "small", defaultValue: "0.1", help: "small FIFO's share of the capacity"),
        Parameter(fraction: "ghost", defaultValue: "0.9", help: "ghost FIFO's weight as a share of the capacity"),
        Parameter(name: "threshold", defaultValue: "2", range: 1...255, help: "hits in the small FIFO that earn main"),
      ]),
    Entry(
      name: "2q", summary: "2Q: A1in FIFO, A1out ghost, Am LRU (Johnson and Shasha, VLDB'94)",
      parameters: [
        Parameter(fraction: "in", defaultValue: "0.25", help: "A1in's share of the capacity"),
        Parameter(fraction: "out", defaultValue: "0.5", help: "A1out's (ghost) weight as a share of the capacity"),
      ]),
    Entry(
      name: "lirs", summary: "LIRS, as its authors' code (Jiang and Zhang, SIGMETRICS'02)",
      parameters: [
        Parameter(name: "hir", defaultValue: "1", range: 1...99, help: "HIR share of the capacity, percent (at least 2 objects)")
      ]),
    Entry(name: "lfuda", summary: "LFU with dynamic aging (Arlitt et al., 2000)", parameters: []),
    Entry(name: "gdsf", summary: "Greedy-Dual-Size-Frequency (Cherkasova, 1998), size-aware", parameters: []),
    Entry(
      name: "wtinylfu", summary: "W-TinyLFU: LRU window, frequency-filtered SLRU main (Einziger et al., TOS'17)",
      parameters: [
        Parameter(fraction: "window", defaultValue: "0.01", help: "window LRU's share of the capacity")
      ]),
    Entry(name: "belady", summary: "Belady's offline optimum: evict the farthest next request", parameters: []),
    Entry(
      name: "belady-size", summary: "size-aware Belady: evict the most size × time-to-next-request, sampled",
      parameters: [
        Parameter(name: "samples", defaultValue: "128", range: 1...65536, help: "objects sampled per eviction"),
        Parameter(name: "seed", defaultValue: "1", range: 0...Int64.max, help: "sampling stream seed"),
      ]),
    Entry(
      name: "nscache-linux", summary: "model of Foundation's NSCache on Linux (cheapest first, newest among equals)",
      parameters: [
        Parameter(name: "count", defaultValue: "0", range: 0...Int64(Int32.max), help: "countLimit, 0 for none")
      ], isModel: true),
    Entry(
      name: "yy-memory", summary: "model of YYMemoryCache (LRU, trims after insertion)",
      parameters: [
        Parameter(name: "count", defaultValue: "0", range: 0...Int64(Int32.max), help: "countLimit, 0 for none")
      ], isModel: true),
    Entry(
      name: "af-autopurging", summary: "model of AFNetworking's AFAutoPurgingImageCache (LRU, purges to a preferred usage)",
      parameters: [
        Parameter(fraction: "after", defaultValue: "0.6", help: "usage to purge down to, share of the capacity")
      ], isModel: true),
    Entry(
      name: "yy-disk", summary: "model of YYDiskCache (LRU by access second, trimmed on a timer)",
      parameters: [
        Parameter(name: "count", defaultValue: "0", range: 0...Int64(Int32.max), help: "countLimit, 0 for none"),
        Parameter(name: "interval", defaultValue: "60", range: 1...Int64(Int32.max), help: "autoTrimInterval, seconds"),
      ], isModel: true, trimsOnATimer: true),
    Entry(
      name: "sd-disk", summary: "model of SDImageCache's disk clean-up (expire by age, then oldest to half the limit)",
      parameters: [
        Parameter(name: "age", defaultValue: "604800", range: 1...Int64.max, help: "maxDiskAge, seconds (one week)"),
        Parameter(name: "interval", defaultValue: "86400", range: 1...Int64(Int32.max), help: "seconds between clean-ups"),
      ], isModel: true, trimsOnATimer: true),
  ]

  /// Policies that read each request's next-access time (offline policies).
  public static let offline: Set<String> = ["belady", "belady-size"]

  /// The catalog names, in order.
  public static var names: [String] { entries.map(\.name) }

  /// The entry for `name` (case-insensitive).
  public static func entry(named name: String) -> Entry? {
    let lower = name.lowercased()
    return entries.first { $0.name == lower }
  }
}

/// A policy name or parameter that the catalog does not accept.
public enum PolicyError: Error, Equatable, CustomStringConvertible {
  case unknownPolicy(String)
  case unknownParameter(policy: String, parameter: String, known: [String])
  case malformedParameter(policy: String, text: String)
  case invalidValue(policy: String, parameter: String, value: String, expected: String)
  case duplicateParameter(policy: String, parameter: String)

  public var description: String {
    switch self {
    case .unknownPolicy(let name):
      return "unknown policy '\(name)'; known policies: \(PolicyCatalog.names.joined(separator: ", "))"
    case .unknownParameter(let policy, let parameter, let known):
      let list = known.isEmpty ? "it takes no parameters" : "it takes: \(known.joined(separator: ", "))"
      return "policy '\(policy)' has no parameter '\(parameter)'; \(list)"
    case .malformedParameter(let policy, let text):
      return "policy '\(policy)': parameter '\(text)' is not of the form key=value"
    case .invalidValue(let policy, let parameter, let value, let expected):
      return "policy '\(policy)': \(parameter)=\(value) is invalid; expected \(expected)"
    case .duplicateParameter(let policy, let parameter):
      return "policy '\(policy)': \(parameter) is given twice; give each parameter once"
    }
  }
}

extension StringProtocol {
  @usableFromInline
  func trimmingWhitespace() -> String {
    var s = Substring(self)
    while let first = s.first, first.isWhitespace { s.removeFirst() }
    while let last = s.last, last.isWhitespace { s.removeLast() }
    return String(s)
  }
}
