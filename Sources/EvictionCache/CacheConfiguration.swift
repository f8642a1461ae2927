import EvictionCore

/// The replacement policy of a ``MemoryCache``, as a value: `.lru`,
/// `.s3fifo(small: 0.1)`, `.wtinylfu()`, a policy you defined
/// (``registered(_:parameters:)``), or the catalog's text form, `"slru:segments=2"`,
/// as a configuration file spells it (a string literal is one).
///
/// A value made by the static members always names a catalog policy with
/// parameters in range; the text form is checked when the cache is built
/// (``CacheError/policy(_:)``).
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The catalog spelling: `name[:key=value,...]`.
  public let text: String
  /// A definition from another package, registered with the catalog when a
  /// cache is first built with it.
  let definition: DefinitionReference?

  /// The catalog's text form (`"lru"`, `"slru:segments=2"`), checked when the cache is built.
  public init(_ text: String) {
    self.text = text
    definition = nil
  }

  public init(stringLiteral text: String) { self.init(text) }

  /// A policy the simulator describes.
  public init(_ spec: PolicySpec) { self.init(spec.description) }

  public var description: String { text }

  /// The parsed and validated specification (registering ``registered(_:parameters:)``'s definition first).
  public func spec() throws(PolicyError) -> PolicySpec {
    if let definition, PolicyCatalog.definition(named: definition.type.descriptor.name) == nil {
      // Two caches built at once may both try: the loser finds it registered.
      do { try PolicyCatalog.register([definition.type]) } catch {
        guard case .alreadyRegistered = error else { throw error }
      }
    }
    return try PolicySpec(text)
  }

  // MARK: Queues

  /// Least recently used.
  public static let lru: CachePolicy = "lru"
  /// First in, first out.
  public static let fifo: CachePolicy = "fifo"
  /// Most recently used.
  public static let mru: CachePolicy = "mru"
  /// CLOCK with `bits` of frequency per entry (1: second chance).
  public static func clock(bits: Int = 1) -> CachePolicy { named("clock", ("bits", "\(bits)", bits == 1)) }
  /// SIEVE (Zhang et al., NSDI'24).
  public static let sieve: CachePolicy = "sieve"

  // MARK: Segmented

  /// S3-FIFO (Yang et al., SOSP'23): a small FIFO of `small` of the capacity
  /// in front of the main one, a ghost FIFO of `ghost`.
  public static func s3fifo(small: Double = 0.1, ghost: Double = 0.9, threshold: Int = 2) -> CachePolicy {
    named(
      "s3fifo", ("small", "\(small)", small == 0.1), ("ghost", "\(ghost)", ghost == 0.9),
      ("threshold", "\(threshold)", threshold == 2))
  }
  /// Segmented LRU with `segments` segments.
  public static func slru(segments: Int = 4) -> CachePolicy {
    named("slru", ("segments", "\(segments)", segments == 4))
  }
  /// 2Q (Johnson and Shasha, VLDB'94).
  public static let twoQueue: CachePolicy = "2q"

  // MARK: Adaptive

  /// ARC (Megiddo and Modha, FAST'03).
  public static let arc: CachePolicy = "arc"
  /// CAR, ARC over clocks (Bansal and Modha, FAST'04).
  public static let car: CachePolicy = "car"
  /// LIRS (Jiang and Zhang, SIGMETRICS'02).
  public static let lirs: CachePolicy = "lirs"
  /// CLOCK-Pro (Jiang et al., USENIX ATC'05).
  public static let clockPro: CachePolicy = "clock-pro"

  // MARK: Frequency

  /// Least frequently used.
  public static let lfu: CachePolicy = "lfu"
  /// W-TinyLFU (Einziger et al., ToS'17) as libCacheSim defines it: a
  /// window LRU of `window` of the capacity, admission to the main SLRU by a
  /// frequency sketch; `adaptive` climbs the window's size as Caffeine does.
  public static func wtinylfu(window: Double = 0.01, adaptive: Bool = false) -> CachePolicy {
    named("wtinylfu", ("window", "\(window)", window == 0.01), ("adaptive", "\(adaptive)", !adaptive))
  }
  /// Caffeine 2.6.2's bounded cache as the library ships it (the model
  /// `caffeine`, checked request for request against the library): its
  /// lazily sized sketch, lossy read buffer and admission jitter, the
  /// jitter's draws from `seed`.
  public static func caffeine(seed: Int64 = 0) -> CachePolicy {
    named("caffeine", ("seed", "\(seed)", seed == 0))
  }

  /// CAMP (Ghandeharizadeh et al., Middleware 2014): GreedyDual-Size over
  /// each entry's miss penalty per unit of cost, rounded to `precision`
  /// significant bits; give the cache a `penalty:` (``MemoryCache/MissPenalty``).
  public static func camp(precision: Int = 5) -> CachePolicy {
    named("camp", ("precision", "\(precision)", precision == 5))
  }
  /// GD-Wheel (Li and Cox, EuroSys 2015): GreedyDual over each entry's miss
  /// penalty on `wheels` cost wheels of `queues` queues; give the cache a
  /// `penalty:` (``MemoryCache/MissPenalty``).
  public static func gdwheel(wheels: Int = 2, queues: Int = 256) -> CachePolicy {
    named("gdwheel", ("wheels", "\(wheels)", wheels == 2), ("queues", "\(queues)", queues == 256))
  }

  // MARK: Yours

  /// A policy defined in another package (`PolicyDefinition`), with
  /// `parameters` as its descriptor names them: registered with the
  /// catalog when the first cache is built with it.
  public static func registered(_ definition: any PolicyDefinition.Type, parameters: String = "") -> CachePolicy {
    CachePolicy(
      text: definition.descriptor.name + (parameters.isEmpty ? "" : ":" + parameters),
      definition: DefinitionReference(type: definition))
  }

  /// `name` with the parameters that are not at their defaults, as the catalog prints it.
  static func named(_ name: String, _ parameters: (key: String, value: String, isDefault: Bool)...) -> CachePolicy {
    let given = parameters.filter { !$0.isDefault }.map { "\($0.key)=\($0.value)" }
    return CachePolicy(given.isEmpty ? name : name + ":" + given.joined(separator: ","))
  }

  init(text: String, definition: DefinitionReference?) {
    self.text = text
    self.definition = definition
  }

  public static func == (a: CachePolicy, b: CachePolicy) -> Bool { a.text == b.text }
  public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// A policy definition's metatype, shareable (metatypes of definitions are immutable).
struct DefinitionReference: @unchecked Sendable {
  let type: any PolicyDefinition.Type
}

/// What a ``MemoryCache`` lets in before its policy sees a new entry, as a
/// value (`.bloomFilter`, `.probability(0.5)`, `.size(max: 65_536)`) or in
/// `evlab replay --admission`'s text form (`"prob:p=0.5"`). A set the
/// admission refuses stores nothing (reason ``EvictionReason/rejected``).
public struct CacheAdmission: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The text form: `none`, `bloom-filter`, `prob:p=0.5`, `size:max=64k`, …
  public let text: String

  /// The text form, checked when the cache is built (``CacheError/admission(_:)``).
  public init(_ text: String) { self.text = text }
  public init(stringLiteral text: String) { self.init(text) }
  /// An admission the simulator describes.
  public init(_ spec: AdmissionSpec) { self.init(spec.description) }

  public var description: String { text }

  /// The parsed specification.
  public func spec() throws(AdmissionError) -> AdmissionSpec { try AdmissionSpec(text) }

  /// Everything is admitted.
  public static let none: CacheAdmission = "none"
  /// A key is admitted on its second request within the filter's window (a
  /// Bloom filter of one-hit wonders, as Akamai's CDN does: Maggs and Sitaraman, 2015).
  public static let bloomFilter: CacheAdmission = "bloom-filter"
  /// Each new key admitted with probability `p`, from a seeded stream.
  public static func probability(_ p: Double, seed: UInt64 = 1) -> CacheAdmission {
    CacheAdmission(AdmissionSpec(kind: .probability(p: p, seed: seed)))
  }
  /// Entries costing more than `max` refused (needs a cost limit).
  public static func size(max: Int) -> CacheAdmission { CacheAdmission(AdmissionSpec(kind: .size(max: Int64(max)))) }
  /// TinyLFU's frequency sketch in front of any policy.
  public static let tinyLFU: CacheAdmission = "tinylfu"
}
