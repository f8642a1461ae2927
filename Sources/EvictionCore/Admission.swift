#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An admission policy: which missed objects a cache lets in at all. It
/// sits in front of any eviction policy (``AdmittedPolicy``), is asked once
/// per miss, before the eviction policy makes room, and never sees hits, as
/// libCacheSim asks its admissioners (`cache_can_insert_default`).
///
/// Written as libCacheSim's `-a NAME --admission-params ...` with our
/// spelling: `none`, `bloom-filter`, `prob:p=0.5,seed=1`, `size:max=65535`;
/// beyond libCacheSim, `tinylfu` and `adaptsize`.
public struct AdmissionSpec: Hashable, Sendable, CustomStringConvertible {
  public enum Kind: Hashable, Sendable {
    /// Every missed object is admitted.
    case none
    /// An object is admitted on its second miss (libCacheSim's
    /// `bloom-filter`, which counts misses per id in an exact hash table:
    /// no false positives, and memory for every id ever missed).
    case secondRequest
    /// Each miss is admitted with probability `p`, an independent draw per
    /// miss, made before the eviction policy's own size check (libCacheSim's
    /// `prob`, in 0.3.5 as in the 2024 snapshot, whose chance is p cut to
    /// 7 decimals, ⌊p·10⁷⌋/10⁷).
    case probability(p: Double, seed: UInt64)
    /// Objects of at most `max` bytes are admitted (libCacheSim's
    /// `size=N` admits sizes below N: `size:max=N-1` here).
    case size(max: Int64)
    /// An object of `s` bytes is admitted with probability e^(−s/c), `c`
    /// retuned every `interval` requests by a model of the cache (AdaptSize,
    /// Berger et al., NSDI'17; see ``AdaptSizeTuner``).
    case adaptSize(interval: Int, seed: UInt64)
    /// A missed object replaces the eviction policy's next victim only if
    /// a frequency sketch of all requests rates it strictly higher
    /// (TinyLFU, Einziger, Friedman and Manes, ACM TOS 2017; ``FrequencySketch``).
    /// Composes with every policy whose evictions can be vetoed
    /// (``PolicyDescriptor/approvesVictims``): every online one.
    case tinyLFU
  }

  public let kind: Kind

  public static let none = AdmissionSpec(kind: .none)

  public init(kind: Kind) { self.kind = kind }

  /// The admission names `evlab` takes.
  public static let names = ["none", "bloom-filter", "prob", "size", "adaptsize", "tinylfu"]

  /// Parses `name[:key=value,...]`; names are case-insensitive, `_` and `-` alike.
  public init(_ text: String) throws(AdmissionError) {
    let trimmed = text.trimmingWhitespace()
    let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let name = String(parts[0]).lowercased().replacingUnderscores()
    var parameters: [String: String] = [:]
    if parts.count == 2 {
      for pair in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
        let kv = pair.split(separator: "=", maxSplits: 1)
        guard kv.count == 2 else { throw AdmissionError("admission '\(trimmed)': write key=value, not '\(pair)'") }
        let key = String(kv[0]).trimmingWhitespace().lowercased()
        guard parameters[key] == nil else { throw AdmissionError("admission '\(trimmed)' gives \(key) twice") }
        parameters[key] = String(kv[1]).trimmingWhitespace()
      }
    }
    func take(_ allowed: [String]) throws(AdmissionError) {
      for key in parameters.keys where !allowed.contains(key) {
        let known = allowed.isEmpty ? "it takes none" : "it takes " + allowed.joined(separator: ", ")
        throw AdmissionError("admission \(name) has no parameter '\(key)'; \(known)")
      }
    }
    switch name {
    case "none":
      try take([])
      kind = .none
    case "bloom-filter", "bloomfilter":
      try take([])
      kind = .secondRequest
    case "prob":
      try take(["p", "seed"])
      let p = Double(parameters["p"] ?? "0.5")
      guard let p, p > 0, p <= 1 else {
        throw AdmissionError("admission prob: p='\(parameters["p"]!)' must be a probability in (0, 1]")
      }
      guard let seed = UInt64(parameters["seed"] ?? "1") else {
        throw AdmissionError("admission prob: seed='\(parameters["seed"]!)' must be a whole number ≥ 0")
      }
      kind = .probability(p: p, seed: seed)
    case "size":
      try take(["max"])
      guard let text = parameters["max"] else {
        throw AdmissionError("admission size needs max=BYTES, the largest object it admits (e.g. size:max=64k)")
      }
      guard let max = Self.bytes(text), max > 0 else {
        throw AdmissionError("admission size: max='\(text)' must be a positive size such as 65536, 64k or 1m")
      }
      kind = .size(max: max)
    case "adaptsize":
      try take(["interval", "seed"])
      guard let interval = Int(parameters["interval"] ?? "100000"), interval >= 1_000 else {
        throw AdmissionError(
          "admission adaptsize: interval='\(parameters["interval"]!)' must be a whole number of requests ≥ 1000")
      }
      guard let seed = UInt64(parameters["seed"] ?? "1") else {
        throw AdmissionError("admission adaptsize: seed='\(parameters["seed"]!)' must be a whole number ≥ 0")
      }
      kind = .adaptSize(interval: interval, seed: seed)
    case "tinylfu":
      try take([])
      kind = .tinyLFU
    default:
      throw AdmissionError("unknown admission '\(trimmed)'; choose from \(Self.names.joined(separator: ", "))")
    }
  }

  /// A comma-separated list, as `--admission` takes it; a piece with `=` but
  /// no `:` continues the previous one's parameters (`prob:p=0.25,seed=3`).
  public static func list(_ text: String) throws(AdmissionError) -> [AdmissionSpec] {
    var specs: [String] = []
    for piece in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
      guard !piece.allSatisfy(\.isWhitespace) else {
        throw AdmissionError("admission list '\(text)' has an empty item; e.g. none,tinylfu")
      }
      if piece.contains("=") && !piece.contains(":"), let last = specs.popLast() {
        specs.append(last + "," + piece)
      } else {
        specs.append(piece)
      }
    }
    var list: [AdmissionSpec] = []
    for spec in specs {
      let parsed = try AdmissionSpec(spec)
      guard !list.contains(parsed) else {
        throw AdmissionError("admission list '\(text)' names \(parsed) twice; name each once")
      }
      list.append(parsed)
    }
    return list
  }

  /// `65536`, `64k`, `1m`, `1g` (powers of 1024).
  static func bytes(_ text: String) -> Int64? {
    let lower = text.lowercased()
    let shifts: [Character: Int64] = ["k": 10, "m": 20, "g": 30, "t": 40]
    guard let last = lower.last else { return nil }
    guard let shift = shifts[last] else { return Int64(lower) }
    guard let number = Int64(lower.dropLast()), number <= Int64.max >> shift else { return nil }
    return number << shift
  }

  /// The spec as written in rows and labels: `none`, `bloom-filter`,
  /// `prob:p=0.5` (`,seed=N` unless the seed is the default 1), `size:max=65535`.
  public var description: String {
    switch kind {
    case .none: "none"
    case .secondRequest: "bloom-filter"
    case .probability(let p, let seed): seed == 1 ? "prob:p=\(p)" : "prob:p=\(p),seed=\(seed)"
    case .size(let max): "size:max=\(max)"
    case .tinyLFU: "tinylfu"
    case .adaptSize(let interval, let seed):
      switch (interval == 100_000, seed == 1) {
      case (true, true): "adaptsize"
      case (false, true): "adaptsize:interval=\(interval)"
      case (true, false): "adaptsize:seed=\(seed)"
      case (false, false): "adaptsize:interval=\(interval),seed=\(seed)"
      }
    }
  }

  /// This spec with its seed replaced by `seed` (itself when it draws nothing).
  public func withSeed(_ seed: UInt64) -> AdmissionSpec {
    switch kind {
    case .probability(let p, _): AdmissionSpec(kind: .probability(p: p, seed: seed))
    case .adaptSize(let interval, _): AdmissionSpec(kind: .adaptSize(interval: interval, seed: seed))
    default: self
    }
  }

  /// The seed of a randomized admission (1 for the others).
  public var seed: UInt64 {
    switch kind {
    case .probability(_, let seed), .adaptSize(_, let seed): seed
    default: 1
    }
  }

  /// Whether decisions are drawn at random (seeded).
  public var isRandomized: Bool {
    switch kind {
    case .probability, .adaptSize: true
    default: false
    }
  }

  /// Whether it compares a missed object with each victim, so composes only
  /// with policies that ask before evicting (``PolicyDescriptor/approvesVictims``).
  public var comparesWithVictims: Bool {
    if case .tinyLFU = kind { return true }
    return false
  }

  /// Throws unless this admission can sit in front of `policy`.
  public func check(composesWith policy: PolicyDescriptor) throws(AdmissionError) {
    guard comparesWithVictims, !policy.approvesVictims else { return }
    let why =
      policy.isOffline
      ? "is an offline bound"
      : policy.isModel ? "models a shipped cache" : "cannot name a victim before evicting it"
    let others = PolicyCatalog.entries.filter { !$0.isOffline && !$0.isModel && !$0.approvesVictims }.map(\.name)
    throw AdmissionError(
      "admission \(self) compares a missed object with each victim, and \(policy.name) \(why); "
        + "tinylfu composes with every other online policy"
        + (others.isEmpty ? "" : " (all but \(others.joined(separator: ", ")))"))
  }

  /// Whether decisions depend on object sizes (meaningless in count mode,
  /// where every object weighs 1).
  /// The heaviest object the admission lets in by its size alone:
  /// `size`'s maximum, else `Int64.max`.
  public var largestAdmitted: Int64 {
    if case .size(let max) = kind { return max }
    return .max
  }

  public var judgesSizes: Bool {
    switch kind {
    case .size, .adaptSize: true
    default: false
    }
  }
}

/// A bad admission spec, in one line that says what to write instead.
public struct AdmissionError: Error, Equatable, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// The state of one admission policy, asked once per miss.
public struct AdmissionGate<Key: Hashable> {
  @usableFromInline let kind: AdmissionSpec.Kind
  /// Ids missed once (``AdmissionSpec/Kind/secondRequest``).
  @usableFromInline var seen = MissedKeys<Key>()
  @usableFromInline var generator: SeededGenerator
  /// p · 2⁶⁴, saturated: a miss is admitted when a draw falls below it.
  @usableFromInline let threshold: UInt64
  @usableFromInline let maxWeight: Int64
  /// AdaptSize's statistics and model (nil for the other kinds).
  @usableFromInline let tuner: AdaptSizeTuner<Key>?
  /// TinyLFU's sketch of every request (nil for the other kinds).
  @usableFromInline var sketch: FrequencySketch?

  /// `capacity` is the policy's; TinyLFU sizes its sketch by it (for at
  /// most 2¹⁶ objects at first; see ``fitSketch(to:)``).
  public init(_ spec: AdmissionSpec, capacity: Int64 = 1 << 16) {
    kind = spec.kind
    var seed: UInt64 = 0
    var p = 1.0
    var maxWeight = Int64.max
    var tuner: AdaptSizeTuner<Key>? = nil
    sketch = nil
    switch spec.kind {
    case .none, .secondRequest: break
    case .tinyLFU: sketch = FrequencySketch(entries: Int(min(capacity, 1 << 16)))
    case .probability(let probability, let s): (p, seed) = (probability, s)
    case .size(let max): maxWeight = max
    case .adaptSize(let interval, let s):
      seed = s
      tuner = AdaptSizeTuner(interval: interval)
    }
    generator = SeededGenerator(seed: seed)
    threshold = p >= 1 ? .max : UInt64(p * 0x1p64)
    self.maxWeight = maxWeight
    self.tuner = tuner
  }

  /// Counts a request, hit or miss, where the admission keeps statistics
  /// (AdaptSize, TinyLFU); `capacity` is the cache's.
  @inlinable @inline(__always)
  public mutating func observe(_ request: Request<Key>, capacity: Int64) {
    tuner?.observe(request.key, size: request.weight, capacity: capacity)
    if sketch != nil { sketch!.increment(stableBits(of: request.key)) }
  }

  /// Whether TinyLFU rates `candidate` strictly above `victim` (always true
  /// for the other kinds, which never compare).
  @inlinable @inline(__always)
  public func prefers(_ candidate: Key, over victim: Key) -> Bool {
    guard let sketch else { return true }
    return sketch.estimate(stableBits(of: candidate)) > sketch.estimate(stableBits(of: victim))
  }

  /// Resizes TinyLFU's sketch once the cache holds more objects than it was
  /// sized for (a byte-mode cache of small objects, or a count-mode cache of
  /// more than 2¹⁶), as Caffeine's sketch grows with a weighted cache.
  @inlinable @inline(__always)
  public mutating func fitSketch(to residents: Int) {
    if let entries = sketch?.entries, residents > entries { sketch!.grow(toFit: residents) }
  }

  /// Whether the missed `request` may enter the cache; records the miss.
  @inlinable @inline(__always)
  public mutating func admits(_ request: Request<Key>) -> Bool {
    switch kind {
    case .none: return true
    case .secondRequest: return !seen.insert(request.key)
    case .probability: return generator.next() < threshold
    case .size: return request.weight <= maxWeight
    case .tinyLFU: return true
    case .adaptSize:
      // e^(−s/c) against a uniform draw in [0, 1).
      let draw = Double(generator.next() >> 11) * 0x1p-53
      return draw < exp(-Double(request.weight) / tuner!.c)
    }
  }
}

/// `Policy` behind an admission policy: a miss the gate refuses is served
/// without caching (no eviction, no insertion); everything else is the
/// policy's own. The same wrapper runs in the simulator and in the caches.
///
/// TinyLFU decides victim by victim: before each eviction the policy makes
/// for the missed object, the object must be rated above that victim, else
/// it is refused and the victim stays (victims already evicted for it stay
/// evicted, as in Caffeine's simulator). The policy asks
/// (``ReplacementPolicy/admit(_:onEvict:approve:)``), so the victims are
/// exactly those the policy alone would evict.
public struct AdmittedPolicy<Policy: ReplacementPolicy & ~Copyable>: ReplacementPolicy, ~Copyable {
  public typealias Key = Policy.Key
  public var policy: Policy
  public var gate: AdmissionGate<Key>
  public let admission: AdmissionSpec

  @inlinable
  public init(_ policy: consuming Policy, admission: AdmissionSpec) {
    self.policy = policy
    self.gate = AdmissionGate(admission, capacity: self.policy.capacity)
    self.admission = admission
  }

  public var name: String { "\(policy.name) + \(admission)" }
  @inlinable public var capacity: Int64 { policy.capacity }
  @inlinable public var usedWeight: Int64 { policy.usedWeight }
  @inlinable public var count: Int { policy.count }
  @inlinable public var flashWrites: TierWrites? { policy.flashWrites }
  @inlinable public var learning: LearningCounts? { policy.learning }
  @inlinable public mutating func willServe(penalty: Float) { policy.willServe(penalty: penalty) }
  @inlinable public var sketchBytes: Int { policy.sketchBytes + (gate.sketch?.entries ?? 0) * 8 }

  @inlinable @inline(__always)
  public mutating func lookup(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    gate.observe(request, capacity: policy.capacity)
    return policy.lookup(request, onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public mutating func lookupResident(_ request: Request<Key>, at slot: Slot, onEvict: (Slot, Key) -> Void) -> Slot? {
    gate.observe(request, capacity: policy.capacity)
    return policy.lookupResident(request, at: slot, onEvict: onEvict)
  }

  @inlinable @inline(__always)
  public mutating func admit(_ request: Request<Key>, onEvict: (Slot, Key) -> Void) -> Slot? {
    guard admission.comparesWithVictims else {
      return gate.admits(request) ? policy.admit(request, onEvict: onEvict) : nil
    }
    return admit(request, onEvict: onEvict) { _ in true }
  }

  /// Admits as the gate and `approve` both allow: TinyLFU asks the policy
  /// to approve each victim with it (``ReplacementPolicy/admit(_:onEvict:approve:)``).
  @inlinable @inline(__always)
  public mutating func admit(
    _ request: Request<Key>, onEvict: (Slot, Key) -> Void, approve: (Key) -> Bool
  ) -> Slot? {
    guard gate.admits(request) else { return nil }
    guard admission.comparesWithVictims, request.weight <= policy.capacity else {
      return policy.admit(request, onEvict: onEvict, approve: approve)
    }
    gate.fitSketch(to: policy.count)
    // The policy is borrowed mutably while the closure reads the sketch: a
    // copy of the gate shares its storage and is only read.
    let judge = gate
    return policy.admit(request, onEvict: onEvict) { judge.prefers(request.key, over: $0) && approve($0) }
  }

  @inlinable public mutating func remove(_ key: Key) -> Slot? { policy.remove(key) }
  @inlinable public mutating func evictOne(onEvict: (Slot, Key) -> Void) -> Bool { policy.evictOne(onEvict: onEvict) }
  @inlinable public func contains(_ key: Key) -> Bool { policy.contains(key) }
  @inlinable public func key(at slot: Slot) -> Key { policy.key(at: slot) }
  public func checkInvariants() { policy.checkInvariants() }
  public func lists() -> [(name: String, keys: [Key])] { policy.lists() }
  public func explain(_ key: Key) -> String? { policy.explain(key) }
}

/// Puts the admission policy `admission` in front of every policy the
/// catalog builds, then hands the pair to `inner` (the policy alone for
/// `none`, so a run without admission is the policy's own code).
///
/// An admitted policy reaches `inner` as ``AdmittedPolicy`` over a
/// ``BoxedPolicy``: `inner` is then specialised once for all admitted
/// policies instead of once per policy, and the boxes are those
/// ``BoxingVisitor`` makes, so a release build compiles each policy's
/// closures once per key type. The price is an indirect call per policy
/// operation, paid only by runs with an admission policy.
public struct AdmissionVisitor<Inner: PolicyVisitor>: PolicyVisitor {
  public typealias Key = Inner.Key
  public var inner: Inner
  public let admission: AdmissionSpec

  public init(_ inner: Inner, admission: AdmissionSpec) {
    self.inner = inner
    self.admission = admission
  }

  @inlinable
  public mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Inner.Output
  where Policy.Key == Key {
    if case .none = admission.kind { return inner.visit(policy) }
    return inner.visit(AdmittedPolicy(BoxedPolicy(AnyCachePolicy(policy)), admission: admission))
  }
}
