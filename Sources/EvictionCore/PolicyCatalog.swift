import Synchronization

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
    guard let descriptor = PolicyCatalog.entry(named: name) else {
      throw .unknownPolicy(trimmed)
    }
    var parameters: [String: String] = [:]
    if parts.count == 2 {
      for pair in parts[1].split(separator: ",") {
        let kv = pair.split(separator: "=", maxSplits: 1)
        guard kv.count == 2 else { throw .malformedParameter(policy: name, text: String(pair)) }
        let key = String(kv[0]).trimmingWhitespace().lowercased()
        let value = String(kv[1]).trimmingWhitespace()
        guard let parameter = descriptor.parameters.first(where: { $0.name == key }) else {
          throw .unknownParameter(policy: name, parameter: key, known: descriptor.parameters.map(\.name))
        }
        try parameter.validate(value, policy: name)
        guard parameters[key] == nil else { throw .duplicateParameter(policy: name, parameter: key) }
        parameters[key] = value
      }
    }
    self.name = descriptor.name
    self.parameters = parameters
    try PolicyCatalog.definition(named: descriptor.name)?.check(self)
  }

  /// A comma-separated list of specs, as `--policy` and a configuration's
  /// `policies` take it: `lru,slru:segments=4,random:seed=2`. A piece with
  /// `=` but no `:` continues the previous policy's parameters
  /// (`slru:segments=4,probation=1`); `all` stands for every catalog entry,
  /// `online` for every one that is neither an offline bound nor a model of
  /// a shipped cache.
  public static func list(_ text: String) throws(PolicyError) -> [PolicySpec] {
    let pieces = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    guard !pieces.contains(where: { $0.allSatisfy(\.isWhitespace) }) else { throw .emptyListItem(text) }
    var specs: [String] = []
    for piece in pieces {
      if piece.contains("=") && !piece.contains(":"), let last = specs.popLast() {
        specs.append(last + "," + piece)
      } else {
        specs.append(piece)
      }
    }
    var list: [PolicySpec] = []
    func expand(_ piece: String) -> [String] {
      switch piece.trimmingWhitespace().lowercased() {
      case "all": PolicyCatalog.names
      case "online": PolicyCatalog.entries.filter { !$0.isOffline && !$0.isModel }.map(\.name)
      default: [piece]
      }
    }
    for text in specs.flatMap(expand) {
      list.append(try PolicySpec(text))
    }
    return list
  }

  /// The spec as it would be written: `name` or `name:key=value,...` (keys sorted).
  public var description: String {
    parameters.isEmpty
      ? name : name + ":" + parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: ",")
  }

  /// The catalog's descriptor of this policy.
  public var descriptor: PolicyDescriptor { PolicyCatalog.entry(named: name)! }

  /// A parameter's value, or its default.
  public func integer(_ key: String) -> Int64 { Int64(text(of: key))! }

  /// A fraction parameter's value, or its default.
  public func fraction(_ key: String) -> Double { Double(text(of: key))! }

  /// A switch parameter's value, or its default.
  public func isOn(_ key: String) -> Bool { Bool(text(of: key))! }

  /// Every parameter's value as the policy reads it, defaults filled in:
  /// `slru` and `slru:segments=4` build the same policy, and so do
  /// `random:seed=07` and `random:seed=7`.
  public var settings: [String: String] {
    var values: [String: String] = [:]
    for parameter in descriptor.parameters {
      let text = text(of: parameter.name)
      let value: String?
      if parameter.isSwitch {
        value = Bool(text).map { String($0) }
      } else if parameter.isFraction {
        value = Double(text).map { String($0) }
      } else {
        value = Int64(text).map { String($0) }
      }
      values[parameter.name] = value ?? text
    }
    return values
  }

  /// Whether the two specs build the same policy (``settings`` equal).
  public func isSamePolicy(as other: PolicySpec) -> Bool { name == other.name && settings == other.settings }

  func text(of key: String) -> String {
    if let given = parameters[key] { return given }
    guard let parameter = descriptor.parameters.first(where: { $0.name == key }) else {
      preconditionFailure("policy '\(name)' reads a parameter its descriptor does not declare: \(key)")
    }
    return parameter.defaultValue
  }

  /// Builds the policy over `capacity` with index type `index` and hands it
  /// to `visitor`, specialised: for a built-in policy the visitor's generic
  /// code runs on the concrete policy type (``BuiltinPolicies`` dispatches
  /// generically, one name test per policy); a registered policy reaches a
  /// simulator visitor through its own specialised closures.
  @inlinable
  public func withPolicy<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    if let built = BuiltinPolicies.dispatch(self, capacity: capacity, index: index, visitor: &visitor) {
      return built
    }
    guard let definition = PolicyCatalog.registered(named: name) else {
      preconditionFailure("PolicySpec holds a name the catalog does not build: \(name)")
    }
    if Index.self == IntegerSlotIndex<UInt64>.self {
      let boxed = definition.simulatorPolicy(self, capacity: capacity)
      return visitor.visit(BoxedPolicy(boxed as! AnyCachePolicy<Visitor.Key>))
    }
    return Self.build(definition, self, capacity: capacity, index: index, visitor: &visitor)
  }

  @usableFromInline
  static func build<Definition: PolicyBuilder, Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ definition: Definition.Type, _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    definition.build(spec, capacity: capacity, index: index, visitor: &visitor)
  }
}

extension PolicySpec {
  /// The smallest capacity (objects in count mode, bytes in byte mode) at
  /// which this policy, with these parameters, can cache anything: below it
  /// a share of the capacity rounds down to zero (S3-FIFO's small FIFO,
  /// 2Q's A1in, an SLRU segment) and every request misses. Found by
  /// applying the policy's own sizing rule, so it matches the code exactly.
  public var minimumCapacity: Int64 {
    let definition = PolicyCatalog.definition(named: name)!
    var capacity: Int64 = 1
    while capacity < 1 << 24 && !definition.cachesAnything(at: capacity, self) { capacity += 1 }
    return capacity
  }

  /// The largest capacity a policy is built with, objects or bytes: 2⁵⁶
  /// (64 Pi). Far past any cache, and far enough below 2⁶³ that the
  /// policies' own sizing arithmetic (W-TinyLFU's sketch and window, MQ's
  /// queues, CAR's targets) cannot overflow.
  public static let maximumCapacity: Int64 = 1 << 56

  /// What to change when a capacity is below ``minimumCapacity``.
  public var minimumCapacityHint: String { PolicyCatalog.definition(named: name)!.minimumCapacityHint(self) }
}

/// The policies EvictionLab knows by name: ``BuiltinPolicies``, then any a
/// depending package registered.
public enum PolicyCatalog {
  public typealias Entry = PolicyDescriptor
  public typealias Parameter = PolicyParameter

  /// Definitions registered from outside the package, in registration order.
  static let extra = Mutex<[any PolicyDefinition.Type]>([])

  /// Adds policies defined outside EvictionLab to the catalog: from then on
  /// they parse, replay, compare and appear in `evlab policies` like the
  /// built-in ones. A name already in the catalog is refused.
  public static func register(_ definitions: [any PolicyDefinition.Type]) throws(PolicyError) {
    try extra.withLock { (list: inout [any PolicyDefinition.Type]) throws(PolicyError) in
      for definition in definitions {
        let name = definition.descriptor.name
        let folded = name.foldedPolicyName()
        let taken = builtin.map { $0.descriptor.name } + list.map { $0.descriptor.name }
        guard !taken.contains(where: { $0.foldedPolicyName() == folded }) else {
          throw .alreadyRegistered(name)
        }
        list.append(definition)
      }
    }
  }

  /// The built-in definitions, listed once.
  /// (Immutable metatypes of caseless enums: safe to share, though Swift cannot prove it.)
  nonisolated(unsafe) static let builtin: [any PolicyBuilder.Type] = BuiltinPolicies.definitions

  /// Every definition: the built-in ones, then the registered ones.
  public static var definitions: [any PolicyBuilder.Type] {
    builtin + extra.withLock { $0.map { $0 as any PolicyBuilder.Type } }
  }

  /// Every policy's descriptor, in the order reports list them.
  public static var entries: [PolicyDescriptor] { definitions.map { $0.descriptor } }

  /// Names of the policies that read next-access times.
  public static var offline: Set<String> { Set(entries.filter(\.isOffline).map(\.name)) }

  /// The catalog names, in order.
  public static var names: [String] { entries.map(\.name) }

  /// The built-in policies' names in their fixed order (new ones are
  /// appended): what gives each its colour and marker in every chart.
  public static let builtinNames: [String] = builtin.map { $0.descriptor.name }

  /// The definition of `name`: case-insensitive, and `-` and `_` are
  /// ignored, so libCacheSim's spellings find ours (`cr_lfu`, `clockpro`,
  /// `s3fifov0`, `RandomLRU` for `cr-lfu`, `clock-pro`, `s3fifo-v0`,
  /// `randomlru`). Allocates nothing for a catalog name written as the
  /// catalog writes it: it runs whenever a policy reads a parameter.
  public static func definition(named name: String) -> (any PolicyBuilder.Type)? {
    if let found = builtin.first(where: { $0.descriptor.name == name }) { return found }
    let folded = name.foldedPolicyName()
    if let found = builtin.first(where: { $0.descriptor.name.foldedPolicyName() == folded }) { return found }
    return registered(named: name)
  }

  /// The descriptor of `name` (case-insensitive).
  public static func entry(named name: String) -> PolicyDescriptor? { definition(named: name)?.descriptor }

  /// The catalog name closest to `name` (case, `-` and `_` ignored, or a
  /// display name such as `W-TinyLFU`), when one is close enough to be a
  /// slip: at most a third of its letters, and at most 3, differ.
  public static func nearestName(to name: String) -> String? {
    let given = name.foldedPolicyName()
    var best: (distance: Int, name: String)? = nil
    for entry in entries {
      for spelling in [entry.name, entry.displayName] {
        let distance = editDistance(given, spelling.foldedPolicyName())
        if distance < (best?.distance ?? Int.max) { best = (distance, entry.name) }
      }
    }
    guard let best, best.distance <= min(3, max(1, given.count / 3)) else { return nil }
    return best.name
  }

  /// Levenshtein distance between two names (the command line's "did you
  /// mean" for options uses it too).
  public static func editDistance(_ a: String, _ b: String) -> Int {
    let b = Array(b)
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1]
      for (j, y) in b.enumerated() {
        current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }

  /// A registered (not built-in) definition, by its name in any spelling
  /// the catalog accepts (``Swift/String/foldedPolicyName()``).
  @usableFromInline
  static func registered(named name: String) -> (any PolicyDefinition.Type)? {
    let folded = name.foldedPolicyName()
    return extra.withLock { list in list.first { $0.descriptor.name.foldedPolicyName() == folded } }
  }
}

/// A policy name or parameter that the catalog does not accept.
public enum PolicyError: Error, Equatable, CustomStringConvertible {
  case unknownPolicy(String)
  case unknownParameter(policy: String, parameter: String, known: [String])
  case malformedParameter(policy: String, text: String)
  case invalidValue(policy: String, parameter: String, value: String, expected: String)
  case duplicateParameter(policy: String, parameter: String)
  case alreadyRegistered(String)
  case emptyListItem(String)

  public var description: String {
    switch self {
    case .emptyListItem(let text):
      return "policy list '\(text)' has an empty item; e.g. lru,arc"
    case .unknownPolicy(let name):
      let known = "known policies: \(PolicyCatalog.names.joined(separator: ", "))"
      guard let nearest = PolicyCatalog.nearestName(to: name) else { return "unknown policy '\(name)'; \(known)" }
      return "unknown policy '\(name)'; did you mean \(nearest)? \(known)"
    case .unknownParameter(let policy, let parameter, let known):
      let list = known.isEmpty ? "it takes no parameters" : "it takes: \(known.joined(separator: ", "))"
      return "policy '\(policy)' has no parameter '\(parameter)'; \(list)"
    case .malformedParameter(let policy, let text):
      return "policy '\(policy)': parameter '\(text)' is not of the form key=value"
    case .invalidValue(let policy, let parameter, let value, let expected):
      return "policy '\(policy)': \(parameter)=\(value) is invalid; expected \(expected)"
    case .duplicateParameter(let policy, let parameter):
      return "policy '\(policy)': \(parameter) is given twice; give each parameter once"
    case .alreadyRegistered(let name):
      return "a policy named '\(name)' is already in the catalog; register yours under another name"
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

extension String {
  /// The name as catalog lookups compare it: lower-cased, without `-` or
  /// `_`. Two catalog names never fold alike (registration refuses it).
  public func foldedPolicyName() -> String {
    String(decoding: lowercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") }, as: UTF8.self)
  }

  /// The string with every `_` written `-`.
  func replacingUnderscores() -> String {
    String(decoding: utf8.map { $0 == UInt8(ascii: "_") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
  }
}

extension [PolicySpec] {
  /// The first spec that names a policy an earlier one already builds, with
  /// the earlier one (`slru` then `slru:segments=4`), or nil.
  public func firstRepeat() -> (earlier: PolicySpec, later: PolicySpec)? {
    for (i, later) in enumerated() {
      if let earlier = self[..<i].first(where: { $0.isSamePolicy(as: later) }) { return (earlier, later) }
    }
    return nil
  }

  /// The words saying which policy is named twice, for an error: `slru twice
  /// (slru and slru:segments=4 are the same policy)`.
  public var repeatNamed: String? {
    guard let (earlier, later) = firstRepeat() else { return nil }
    return earlier == later
      ? "\(later) twice" : "\(later.name) twice (\(earlier) and \(later) are the same policy)"
  }
}
