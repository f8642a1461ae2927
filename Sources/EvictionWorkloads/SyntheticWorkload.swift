import EvictionRun
import EvictionStats
import EvictionTraces
import Foundation

/// Synthetic request streams, reproducible from a seed (GSL's MT19937).
///
/// - `zipf`: object ranks drawn from a Zipf(α) popularity over `objects`
///   (Walker's alias table, ``DiscreteDistribution``, O(1) per draw);
/// - `uniform`: every object equally likely;
/// - `loop`: objects 0, 1, …, objects−1, 0, 1, … (cyclic);
/// - `scan`: objects requested once each, in order, never again;
/// - `zipf-scan`: Zipf(α), with a one-time scan of `scanLength` new objects
///   every `scanEvery` requests (where LRU collapses and ARC shines);
/// - `hotspot`: `hotShare` of the requests go uniformly to a hot set of
///   `hotObjects` consecutive objects, the rest uniformly to all; every
///   `shiftEvery` requests the hot set moves to a random place;
/// - `mix`: a weighted interleaving of the kinds above (`mix`), each with its
///   own objects (component k's ids are offset by k·2⁴⁰): every request draws
///   its component by weight.
///
/// Object sizes: `objectSize` for all, or drawn once per object from a
/// ``SizeDistribution``.
public struct SyntheticWorkload: Sendable {
  public enum Kind: String, Sendable, CaseIterable {
    case zipf, uniform, loop, scan
    case zipfScan = "zipf-scan"
    case hotspot, mix
  }

  /// How object sizes are drawn (once per object, from the same stream).
  /// Every size is an integer from 1 to ``largestSize``.
  public enum SizeDistribution: Sendable, Equatable {
    case fixed
    /// Uniform integers in `low...high`.
    case uniform(low: Int64, high: Int64)
    /// exp(N(mu, sigma²)), rounded, at least 1; a draw above ``largestSize``
    /// is an error (``SyntheticWorkload/generate()``).
    case lognormal(mu: Double, sigma: Double)
    /// Pareto with shape `alpha` and scale (minimum) `minimum`, truncated at
    /// `maximum` (the distribution conditioned on at most `maximum`), rounded.
    case pareto(alpha: Double, minimum: Double, maximum: Double = SizeDistribution.paretoMaximum)

    /// The largest object size a workload may hold (1 TiB, as the trace readers).
    public static let largestSize: Int64 = 1 << 40
    /// Pareto's truncation when `pareto:ALPHA,MIN` names none (4 × 10⁹ bytes).
    public static let paretoMaximum: Double = 4e9

    /// Parses `fixed`, `uniform:LOW-HIGH`, `lognormal:MU,SIGMA` or
    /// `pareto:ALPHA,MIN[,MAX]`, refusing what would not give sizes of 1 to
    /// ``largestSize`` bytes.
    public init(_ text: String) throws(TraceError) {
      let usage =
        "use fixed, uniform:LOW-HIGH (integers, 1 ≤ LOW ≤ HIGH ≤ 2^40), lognormal:MU,SIGMA (sigma > 0, "
        + "e^MU ≤ 2^40) or pareto:ALPHA,MIN[,MAX] (alpha ≥ 1e-6, 1 ≤ MIN < MAX ≤ 2^40; MAX 4e9 if not given)"
      let parts = text.lowercased().split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        .map(String.init)
      // uniform's bounds are separated by '-', the others' parameters by ','
      // (so a negative parameter keeps its sign).
      let separator: Character = parts[0] == "uniform" ? "-" : ","
      let fields = parts.count == 2 ? parts[1].split(separator: separator, omittingEmptySubsequences: false) : []
      let numbers = fields.compactMap { Double($0) }.filter(\.isFinite)
      guard numbers.count == fields.count else {
        throw .invalidOption("size distribution '\(text)': a parameter is not a finite number; \(usage)")
      }
      let largest = Double(Self.largestSize)
      switch (parts[0], numbers.count) {
      case ("fixed", 0) where parts.count == 1: self = .fixed
      case ("uniform", 2)
      where numbers[0] >= 1 && numbers[1] >= numbers[0] && numbers[1] <= largest
        && numbers.allSatisfy({ $0.rounded() == $0 }):
        self = .uniform(low: Int64(numbers[0]), high: Int64(numbers[1]))
      case ("lognormal", 2) where numbers[1] > 0 && exp(numbers[0]) <= largest:
        self = .lognormal(mu: numbers[0], sigma: numbers[1])
      case ("pareto", 2) where numbers[0] >= 1e-6 && numbers[1] >= 1 && numbers[1] < Self.paretoMaximum:
        self = .pareto(alpha: numbers[0], minimum: numbers[1])
      case ("pareto", 3)
      where numbers[0] >= 1e-6 && numbers[1] >= 1 && numbers[2] > numbers[1] && numbers[2] <= largest:
        self = .pareto(alpha: numbers[0], minimum: numbers[1], maximum: numbers[2])
      default:
        throw .invalidOption("size distribution '\(text)': \(usage)")
      }
    }
  }

  /// Each object's time-to-live in seconds, drawn once per object from the
  /// seed and the object (so adding TTLs leaves the keys and sizes as they
  /// were): none, `fixed:SECONDS` or `uniform:LOW-HIGH`.
  public enum TTLDistribution: Sendable, Equatable {
    case none
    case fixed(UInt32)
    case uniform(low: UInt32, high: UInt32)

    /// Parses `none`, `fixed:SECONDS` or `uniform:LOW-HIGH` (1 ≤ LOW ≤ HIGH < 2³²).
    public init(_ text: String) throws(TraceError) {
      let usage = "use none, fixed:SECONDS or uniform:LOW-HIGH (whole seconds, 1 ≤ LOW ≤ HIGH ≤ \(UInt32.max))"
      let parts = text.lowercased().split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      let bounds = parts.count == 2 ? parts[1].split(separator: "-", omittingEmptySubsequences: false) : []
      let numbers = bounds.compactMap { UInt32($0) }
      switch (parts[0], numbers.count == bounds.count ? numbers : []) {
      case ("none", []) where parts.count == 1: self = .none
      case ("fixed", let n) where n.count == 1 && n[0] >= 1: self = .fixed(n[0])
      case ("uniform", let n) where n.count == 2 && n[0] >= 1 && n[1] >= n[0]: self = .uniform(low: n[0], high: n[1])
      default: throw .invalidOption("ttl distribution '\(text)': \(usage)")
      }
    }

    /// Object `key`'s TTL under `seed`: a hash of the two, so the draw
    /// depends on neither the order of requests nor the other draws.
    public func ttl(of key: UInt64, seed: UInt64) -> UInt32 {
      switch self {
      case .none: return 0
      case .fixed(let seconds): return seconds
      case .uniform(let low, let high):
        var x = key &+ seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x632B_E59B_D9B4_E019
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        x ^= x >> 31
        return low + UInt32(x % (UInt64(high - low) + 1))
      }
    }
  }

  /// The share of each operation among the requests (a key-value trace),
  /// drawn per request from the seed and the request's place, so the keys,
  /// sizes and TTLs stay as they were: `get:0.8,set:0.15,delete:0.05`.
  public struct OperationMix: Sendable, Equatable {
    /// Cumulative shares of get, set and delete (the last is 1).
    public private(set) var cumulative: [Double] = [1, 1, 1]

    public static let getsOnly = OperationMix()

    init() {}

    /// Parses `OP:WEIGHT,...` over get, set and delete (weights ≥ 0, summing above 0).
    public init(_ text: String) throws(TraceError) {
      let usage =
        "use OP:WEIGHT,... with OP get, set or delete and weights of 0 or more, e.g. get:0.8,set:0.15,delete:0.05"
      var weights = [0.0, 0.0, 0.0]
      for part in text.split(separator: ",", omittingEmptySubsequences: false) {
        let pair = part.split(separator: ":", omittingEmptySubsequences: false)
        guard pair.count == 2, let weight = Double(pair[1]), weight >= 0, weight.isFinite else {
          throw .invalidOption("operation mix '\(text)': \(usage)")
        }
        switch pair[0].lowercased() {
        case "get": weights[0] += weight
        case "set": weights[1] += weight
        case "delete": weights[2] += weight
        default: throw .invalidOption("operation mix '\(text)': '\(pair[0])' is not get, set or delete; \(usage)")
        }
      }
      // Shares of the largest, so weights near Double's limit do not sum to infinity.
      let largest = weights.max()!
      guard largest > 0 else { throw .invalidOption("operation mix '\(text)': the weights sum to 0; \(usage)") }
      weights = weights.map { $0 / largest }
      let total = weights.reduce(0, +)
      cumulative = [weights[0] / total, (weights[0] + weights[1]) / total, 1]
    }

    /// The operation of request `index` under `seed`.
    public func operation(of index: Int, seed: UInt64) -> TraceRecord.Operation {
      guard cumulative[0] < 1 else { return .get }
      var x = UInt64(index) &+ (seed ^ 0x5851_F42D_4C95_7F2D) &* 0x9E37_79B9_7F4A_7C15
      x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
      x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
      x ^= x >> 31
      let u = Double(x >> 11) / Double(1 << 53)
      return u < cumulative[0] ? .get : u < cumulative[1] ? .set : .delete
    }
  }

  /// One component of a `mix`: a kind and its weight.
  public struct Component: Sendable, Equatable {
    public var kind: Kind
    public var weight: Double
    public init(kind: Kind, weight: Double) {
      self.kind = kind
      self.weight = weight
    }

    /// Parses `zipf:0.7,scan:0.2,loop:0.1`.
    public static func parse(_ text: String) throws(TraceError) -> [Component] {
      var components: [Component] = []
      for piece in text.split(separator: ",") {
        let kv = piece.split(separator: ":")
        guard kv.count == 2, let kind = Kind(rawValue: String(kv[0]).lowercased()), kind != .mix,
          let weight = Double(kv[1]), weight > 0
        else {
          throw .invalidOption(
            "mix component '\(piece)': write KIND:WEIGHT with a kind other than mix and a positive weight, e.g. zipf:0.8,scan:0.2"
          )
        }
        components.append(Component(kind: kind, weight: weight))
      }
      guard !components.isEmpty else { throw .invalidOption("\(Setting.mix) is empty; e.g. zipf:0.8,scan:0.2") }
      return components
    }
  }

  public var kind: Kind
  public var objects: Int
  public var requests: Int
  public var alpha: Double = 0.9
  public var seed: UInt64 = 1
  /// Every object's size in bytes.
  public var objectSize: Int64 = 4096
  public var scanEvery: Int = 50_000
  public var scanLength: Int = 5_000
  public var hotObjects: Int = 0
  public var hotShare: Double = 0.9
  public var shiftEvery: Int = 100_000
  public var components: [Component] = []
  public var sizes: SizeDistribution = .fixed
  /// Each object's TTL (carried by every request for it).
  public var ttls: TTLDistribution = .none
  /// The operations of the requests (all gets by default).
  public var operations: OperationMix = .getsOnly

  public init(kind: Kind, objects: Int, requests: Int) {
    self.kind = kind
    self.objects = objects
    self.requests = requests
  }

  /// Refuses parameters outside the workload's definition, naming the
  /// parameter as `evlab generate` spells it (a configuration's key is the
  /// same in snake case): an exponent that is not positive would turn Zipf's
  /// popularity around, a hot share above 1 would not be a share.
  public func check() throws(TraceError) {
    guard objects >= 1 else { throw .invalidOption("objects \(objects): need at least one object") }
    guard requests >= 1 else { throw .invalidOption("requests \(requests): need at least one request") }
    guard objectSize >= 1 && objectSize <= Int64(UInt32.max) else {
      throw .invalidOption("object-size \(objectSize): must be 1 ... \(UInt32.max) bytes")
    }
    guard alpha > 0 && alpha.isFinite else { throw .invalidOption("alpha \(alpha): must be positive and finite") }
    guard scanEvery >= 1 && scanLength >= 1 else {
      throw .invalidOption("scan-every \(scanEvery), scan-length \(scanLength): both must be positive")
    }
    guard hotObjects >= 0 && shiftEvery >= 1 else {
      throw .invalidOption("hot-objects must be 0 or more (0: a tenth of the objects), shift-every positive")
    }
    guard hotShare >= 0 && hotShare <= 1 else { throw .invalidOption("hot-share \(hotShare): must be in [0, 1]") }
    guard hotObjects <= objects else {
      throw .invalidOption(
        "hot-objects \(hotObjects) exceeds objects \(objects): the hot set is part of the objects; give at most \(objects)"
      )
    }
  }

  /// The requests, with timestamps of one per 1000 requests and next-access
  /// fields filled. A lognormal size drawn above
  /// ``SizeDistribution/largestSize`` is an error naming the object.
  public func generate() throws(TraceError) -> [TraceRecord] {
    try MemoryBudget.check(
      memoryNeeded, for: "generating \(requests) requests over \(objects) objects",
      wayOut:
        "generate fewer requests (\(Setting.requests)) or objects (\(Setting.objects)), or run where more memory is free"
    )
    let rng = RandomStream(seed: seed)
    var records: [TraceRecord] = []
    records.reserveCapacity(requests)
    var objectSizes: [UInt64: Int64] = [:]
    func size(of key: UInt64) throws(TraceError) -> Int64 {
      if sizes == .fixed { return objectSize }
      if let known = objectSizes[key] { return known }
      let drawn: Int64
      switch sizes {
      case .fixed: drawn = objectSize
      case .uniform(let low, let high): drawn = low + Int64(rng.integer(below: UInt64(high - low + 1)))
      case .lognormal(let mu, let sigma):
        let draw = rng.lognormal(mu: mu, sigma: sigma).rounded()
        guard draw <= Double(SizeDistribution.largestSize) else {
          throw .invalidOption(
            "size distribution lognormal:\(mu),\(sigma) drew \(draw) bytes for object \(key), above 2^40 (1 TiB), the "
              + "largest object size; lower mu or sigma")
        }
        drawn = max(1, Int64(draw))
      case .pareto(let alpha, let minimum, let maximum):
        // The truncated distribution's inverse CDF, one uniform draw (drawing
        // again above `maximum` would loop for ever at a tiny alpha):
        // x = min · (1 − u·c)^(−1/α), c = 1 − (min/max)^α.
        let c = -expm1(alpha * log(minimum / maximum))
        let draw = minimum * exp(-log1p(-rng.uniform() * c) / alpha)
        drawn = max(1, Int64(min(draw, maximum).rounded()))
      }
      objectSizes[key] = drawn
      return drawn
    }
    func append(_ key: UInt64) throws(TraceError) {
      records.append(
        TraceRecord(
          key: key, size: try size(of: key), time: Int64(records.count / 1000), ttl: ttls.ttl(of: key, seed: seed),
          op: operations.operation(of: records.count, seed: seed)))
    }
    if kind == .mix {
      let parts =
        components.isEmpty ? [Component(kind: .zipf, weight: 0.8), Component(kind: .scan, weight: 0.2)] : components
      var streams = parts.enumerated().map { i, part in Stream(kind: part.kind, workload: self, offset: UInt64(i) << 40)
      }
      let chooser = DiscreteDistribution(weights: parts.map(\.weight))
      while records.count < requests {
        let i = chooser.draw(rng)
        try append(streams[i].next(rng, count: records.count))
      }
    } else {
      var stream = Stream(kind: kind, workload: self, offset: 0)
      while records.count < requests {
        if kind == .zipfScan && records.count > 0 && records.count % scanEvery == 0 {
          for _ in 0..<min(scanLength, requests - records.count) { try append(stream.nextScanKey()) }
          if records.count >= requests { break }
        }
        try append(stream.next(rng, count: records.count))
      }
    }
    try fillNextAccess(&records, of: "the generated trace")
    return records
  }

  /// What ``generate()`` surely needs, in bytes: its requests (40 bytes
  /// each, held at once) and each Zipf stream's table of object weights
  /// (about 40 bytes an object while it is built). Checked against
  /// ``MemoryBudget`` before anything is drawn.
  public var memoryNeeded: Int64 {
    let kinds = kind == .mix ? (components.isEmpty ? [.zipf, .scan] : components.map(\.kind)) : [kind]
    let zipfTables = kinds.filter { $0 == .zipf || $0 == .zipfScan }.count
    let bytes = Double(requests) * Double(MemoryLayout<TraceRecord>.stride) + Double(zipfTables) * Double(objects) * 40
    return bytes >= 9e18 ? .max : Int64(bytes)
  }

  /// One kind's request stream (its own counters and tables).
  struct Stream {
    let kind: Kind
    let workload: SyntheticWorkload
    let offset: UInt64
    var table: DiscreteDistribution? = nil
    var position: UInt64 = 0
    var scanKey: UInt64
    var hotBase: UInt64 = 0

    init(kind: Kind, workload: SyntheticWorkload, offset: UInt64) {
      self.kind = kind
      self.workload = workload
      self.offset = offset
      scanKey = UInt64(workload.objects)
      if kind == .zipf || kind == .zipfScan {
        let weights = (1...workload.objects).map { 1 / pow(Double($0), workload.alpha) }
        table = DiscreteDistribution(weights: weights)
      }
    }

    /// The next new key of a zipf-scan's scan.
    mutating func nextScanKey() -> UInt64 {
      defer { scanKey += 1 }
      return offset + scanKey
    }

    /// The next key; `count` is the number of requests generated so far.
    mutating func next(_ rng: RandomStream, count: Int) -> UInt64 {
      let objects = UInt64(workload.objects)
      switch kind {
      case .loop:
        defer { position += 1 }
        return offset + position % objects
      case .scan:
        defer { position += 1 }
        return offset + position
      case .uniform:
        return offset + rng.integer(below: objects)
      case .zipf, .zipfScan:
        return offset + UInt64(table!.draw(rng))
      case .hotspot:
        let hot = UInt64(workload.hotObjects > 0 ? workload.hotObjects : max(1, workload.objects / 10))
        if count > 0 && count % workload.shiftEvery == 0 { hotBase = rng.integer(below: objects) }
        if rng.uniform() < workload.hotShare {
          return offset + (hotBase + rng.integer(below: min(hot, objects))) % objects
        }
        return offset + rng.integer(below: objects)
      case .mix:
        preconditionFailure("a mix does not nest")
      }
    }
  }
}
