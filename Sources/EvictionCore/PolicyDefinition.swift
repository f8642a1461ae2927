/// How a built-in policy enters the catalog: its descriptor and how to build
/// it from a parsed ``PolicySpec``. A policy's file holds this beside its
/// code, and ``BuiltinPolicies`` lists it: nothing else names it. A policy
/// from another package conforms to ``PolicyDefinition``, which adds how the
/// simulator runs it, and is registered (``PolicyCatalog/register(_:)``).
///
/// ```swift
/// public enum Sieve: PolicyBuilder {
///   public static let descriptor = PolicyDescriptor(
///     name: "sieve", displayName: "SIEVE", summary: "SIEVE", citation: "Zhang et al., NSDI'24")
///   @inlinable public static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
///     _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
///   ) -> Visitor.Output where Index.Key == Visitor.Key {
///     visitor.visit(SievePolicy<Index>(capacity: capacity))
///   }
/// }
/// ```
public protocol PolicyBuilder {
  /// The catalog name, summary, citation, parameters and traits.
  static var descriptor: PolicyDescriptor { get }

  /// Builds the policy over `capacity`, its parameters read from `spec`
  /// (already validated against ``descriptor``), and hands it to `visitor`.
  /// Written `@inlinable`, so the visitor's loop is specialised for the policy.
  static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key

  /// Whether the policy, with `spec`'s parameters, caches anything at
  /// `capacity`: false where a share of the capacity rounds down to zero
  /// (an SLRU segment, S3-FIFO's small FIFO). Default: `capacity >= 1`.
  static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool

  /// What to change when the capacity is too small for ``cachesAnything(at:_:)``
  /// (appended to the error). Default: nothing.
  static func minimumCapacityHint(_ spec: PolicySpec) -> String

  /// Refuses parameters that are each in range but do not go together (a
  /// value the policy would otherwise clamp, running as something other
  /// than its label says). Called when a spec is parsed. Default: none.
  static func check(_ spec: PolicySpec) throws(PolicyError)
}

/// A policy defined in another package, as it is registered
/// (``PolicyCatalog/register(_:)``): a ``PolicyBuilder`` whose conformance
/// also boxes the policy over integer keys where its type is known, so the
/// simulator runs it at specialised speed.
///
/// The built-in policies are ``PolicyBuilder``s only: the engine boxes them
/// itself, and a box for each in EvictionCore would compile every policy's
/// closures into every program that links it (about a minute of a release
/// build on two cores), the memory cache's users' included.
public protocol PolicyDefinition: PolicyBuilder {
  /// The policy over integer keys, behind closures made here, where the
  /// definition's type is known. Keep the default.
  static func simulatorPolicy(_ spec: PolicySpec, capacity: Int64) -> AnyCachePolicy<UInt64>
}

extension PolicyBuilder {
  @inlinable
  public static func cachesAnything(at capacity: Int64, _ spec: PolicySpec) -> Bool { capacity >= 1 }

  @inlinable
  public static func minimumCapacityHint(_ spec: PolicySpec) -> String { "" }

  public static func check(_ spec: PolicySpec) throws(PolicyError) {}
}

extension PolicyDefinition {
  @inlinable
  public static func simulatorPolicy(_ spec: PolicySpec, capacity: Int64) -> AnyCachePolicy<UInt64> {
    var visitor = BoxingVisitor<UInt64>()
    return build(spec, capacity: capacity, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
  }
}

/// What sets a policy apart in reports and checks.
public struct PolicyTraits: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Reads each request's next-access time (an offline bound such as Belady's).
  public static let offline = PolicyTraits(rawValue: 1 << 0)
  /// Draws from a seeded random stream (a `seed` parameter makes it reproducible).
  public static let randomized = PolicyTraits(rawValue: 1 << 1)
  /// Models a shipped cache rather than defining a policy: it keeps its
  /// library's behaviour where that departs from the simulator's rules (it
  /// may insert before evicting), and reports list it apart, never ranked.
  public static let model = PolicyTraits(rawValue: 1 << 2)
  /// May hold more than its capacity between trims (it trims on a timer).
  public static let mayExceedCapacity = PolicyTraits(rawValue: 1 << 3)
  /// Names the entry it would evict next before evicting it
  /// (``ReplacementPolicy/nextVictim()``), and makes room only by evicting
  /// such entries, so TinyLFU admission can compare a missed object with it.
  public static let namesVictims = PolicyTraits(rawValue: 1 << 4)
  /// Asks before each eviction it makes for an admission
  /// (``ReplacementPolicy/admit(_:onEvict:approve:)``, its own rather than
  /// the default over ``ReplacementPolicy/nextVictim()``): its victims
  /// depend on the request or are chosen in the middle of admitting it.
  public static let asksBeforeEvicting = PolicyTraits(rawValue: 1 << 5)
  /// May evict on a hit: promoting an entry overflows a segment whose
  /// victims then leave (SLRU's lowest segment, W-TinyLFU's probation
  /// segment or its hill climber's resizing). Under `MemoryCache`'s
  /// `buffered` lock strategy such an eviction waits until the hit is
  /// replayed, at the reading thread's next miss or write, and the victim
  /// can still be read until then.
  public static let evictsOnHit = PolicyTraits(rawValue: 1 << 6)
}

/// A catalog policy's self-description: the source of `evlab policies`, the
/// parameter errors and the README's policy table.
public struct PolicyDescriptor: Sendable {
  /// The catalog name, lower-case, as written on a command line.
  public let name: String
  /// The name papers use (`S3-FIFO`, `W-TinyLFU`): what figures and
  /// reports show. By default the catalog name.
  public let displayName: String
  /// One line: what the policy does.
  public let summary: String
  /// Where it comes from (authors, venue, year), or "" for folklore.
  public let citation: String
  public let parameters: [PolicyParameter]
  public let traits: PolicyTraits
  /// What the implementation is checked against, and how closely
  /// (e.g. "libCacheSim, both size modes"), or "" if nothing yet.
  public let checkedAgainst: String
  /// The libCacheSim release whose results this policy reproduces exactly
  /// (or, for a randomised policy, statistically): "0.3.5", the 2024
  /// snapshot "aa0fc40" for a behaviour libCacheSim has since changed (kept
  /// under a `-v0` name), or "" where libCacheSim has no such policy or
  /// defines it differently (the policy's file says how).
  public let libCacheSim: String

  public init(
    name: String, displayName: String? = nil, summary: String, citation: String = "",
    parameters: [PolicyParameter] = [], traits: PolicyTraits = [], checkedAgainst: String = "", libCacheSim: String = ""
  ) {
    precondition(
      name == name.lowercased() && !name.isEmpty && !name.contains(":") && !name.contains("_"),
      "a catalog name is lower-case, with no ':' or '_' (lookups read '_' as '-')")
    self.name = name
    self.displayName = displayName ?? name
    self.summary = summary
    self.citation = citation
    self.parameters = parameters
    self.traits = traits
    self.checkedAgainst = checkedAgainst
    self.libCacheSim = libCacheSim
  }

  /// The summary with its citation, as `evlab policies` prints it.
  public var summaryWithCitation: String { citation.isEmpty ? summary : "\(summary) (\(citation))" }

  /// Whether this models a shipped cache (see ``PolicyTraits/model``).
  public var isModel: Bool { traits.contains(.model) }
  /// Whether it trims only on a timer (see ``PolicyTraits/mayExceedCapacity``).
  public var trimsOnATimer: Bool { traits.contains(.mayExceedCapacity) }
  /// Whether the policy can run a real cache: online, and bound by its capacity.
  public var canDriveACache: Bool { !isOffline && !trimsOnATimer }
  /// Whether it reads next-access times (see ``PolicyTraits/offline``).
  public var isOffline: Bool { traits.contains(.offline) }
  /// Whether it names its next victim (see ``PolicyTraits/namesVictims``).
  public var namesVictims: Bool { traits.contains(.namesVictims) }
  /// Whether every eviction it makes for an admission can be vetoed
  /// (``ReplacementPolicy/admit(_:onEvict:approve:)``): it names its
  /// victims, or asks before evicting each. TinyLFU admission needs this.
  public var approvesVictims: Bool { namesVictims || traits.contains(.asksBeforeEvicting) }
  /// Whether a hit may evict (see ``PolicyTraits/evictsOnHit``).
  public var evictsOnHit: Bool { traits.contains(.evictsOnHit) }
}

/// A tunable parameter: an integer in a range, a fraction of the capacity,
/// a real number in a range, or a switch (`true` or `false`).
public struct PolicyParameter: Sendable {
  public let name: String
  public let defaultValue: String
  public let range: ClosedRange<Int64>
  /// True for a fraction and for a real number (read with ``PolicySpec/fraction(_:)``).
  public let isFraction: Bool
  public let isSwitch: Bool
  /// A real number's range (nil for a fraction, which is in (0, 1]).
  public let numberRange: ClosedRange<Double>?
  public let help: String

  /// An integer parameter in `range`.
  public init(_ name: String, default defaultValue: Int64, range: ClosedRange<Int64>, help: String) {
    precondition(range.contains(defaultValue), "\(name)'s default is outside its range")
    self.name = name
    self.defaultValue = String(defaultValue)
    self.range = range
    self.isFraction = false
    self.isSwitch = false
    self.numberRange = nil
    self.help = help
  }

  /// A real number in `range`: a share that may be 0, a multiple that may pass 1.
  public init(number name: String, default defaultValue: Double, range: ClosedRange<Double>, help: String) {
    precondition(range.contains(defaultValue), "\(name)'s default is outside its range")
    self.name = name
    self.defaultValue = String(defaultValue)
    self.range = 0...1
    self.isFraction = true
    self.isSwitch = false
    self.numberRange = range
    self.help = help
  }

  /// A fraction in (0, 1].
  public init(fraction name: String, default defaultValue: Double, help: String) {
    precondition(defaultValue > 0 && defaultValue <= 1, "\(name)'s default is outside (0, 1]")
    self.name = name
    self.defaultValue = String(defaultValue)
    self.range = 0...1
    self.isFraction = true
    self.isSwitch = false
    self.numberRange = nil
    self.help = help
  }

  /// A switch, written `true` or `false`.
  public init(switch name: String, default defaultValue: Bool, help: String) {
    self.name = name
    self.defaultValue = String(defaultValue)
    self.range = 0...1
    self.isFraction = false
    self.isSwitch = true
    self.numberRange = nil
    self.help = help
  }

  /// The accepted values, for help and errors.
  public var expected: String {
    if isSwitch { return "true or false" }
    if let numberRange { return "a number from \(numberRange.lowerBound) to \(numberRange.upperBound)" }
    return isFraction ? "a fraction in (0, 1]" : "an integer in \(range.lowerBound)...\(range.upperBound)"
  }

  /// How `evlab policies` writes the value: `F`, `N`, or `true|false`.
  public var placeholder: String { isSwitch ? "true|false" : isFraction ? "F" : "N" }

  func validate(_ value: String, policy: String) throws(PolicyError) {
    let valid: Bool
    if isSwitch {
      valid = Bool(value) != nil
    } else if let numberRange {
      valid = Double(value).map(numberRange.contains) ?? false
    } else if isFraction {
      valid = Double(value).map { $0 > 0 && $0 <= 1 } ?? false
    } else {
      valid = Int64(value).map(range.contains) ?? false
    }
    guard valid else { throw .invalidValue(policy: policy, parameter: name, value: value, expected: expected) }
  }
}

/// A list of policy definitions as a type, so dispatch over it is generic
/// and specialised: ``dispatch(_:capacity:index:visitor:)`` compiles to a
/// chain of name tests, each calling its policy's specialised build. Written
/// one definition per line: `PolicyList.And<LRU>.And<FIFO>…`.
public protocol PolicyListProtocol {
  /// The definitions, in order.
  static var definitions: [any PolicyBuilder.Type] { get }

  /// Builds the policy `spec` names, if it is on the list.
  static func dispatch<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output? where Index.Key == Visitor.Key
}

extension PolicyListProtocol {
  /// This list with `Definition` appended.
  public typealias And<Definition: PolicyBuilder> = PolicyListLink<Self, Definition>
}

/// The empty list, where a list starts.
public enum PolicyList: PolicyListProtocol {
  public static var definitions: [any PolicyBuilder.Type] { [] }

  @inlinable
  public static func dispatch<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output? where Index.Key == Visitor.Key { nil }
}

/// A list, `Rest`, followed by one more definition.
public enum PolicyListLink<Rest: PolicyListProtocol, Definition: PolicyBuilder>: PolicyListProtocol {
  public static var definitions: [any PolicyBuilder.Type] { Rest.definitions + [Definition.self] }

  @inlinable
  public static func dispatch<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output? where Index.Key == Visitor.Key {
    if spec.name == Definition.descriptor.name {
      return Definition.build(spec, capacity: capacity, index: index, visitor: &visitor)
    }
    return Rest.dispatch(spec, capacity: capacity, index: index, visitor: &visitor)
  }
}

/// Two lists, the first's definitions then the second's: a long list kept
/// as two shallow types, since Swift's generic specialiser leaves code over
/// a type nested more than 50 deep unspecialised (``BuiltinPolicies``).
public enum PolicyListPair<First: PolicyListProtocol, Second: PolicyListProtocol>: PolicyListProtocol {
  public static var definitions: [any PolicyBuilder.Type] { First.definitions + Second.definitions }

  @inlinable
  public static func dispatch<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output? where Index.Key == Visitor.Key {
    if let built = First.dispatch(spec, capacity: capacity, index: index, visitor: &visitor) { return built }
    return Second.dispatch(spec, capacity: capacity, index: index, visitor: &visitor)
  }
}

/// Receives a freshly built policy of a concrete type (see ``PolicySpec/withPolicy(capacity:index:visitor:)``).
public protocol PolicyVisitor: ~Copyable {
  associatedtype Key: Hashable
  associatedtype Output
  mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Output
  where Policy.Key == Key
}
