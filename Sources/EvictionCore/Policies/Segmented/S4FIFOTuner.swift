/// S4-FIFO's tuner (`s4fifo:tune=true`): it watches the cache for a window
/// of requests once the cache has filled, describes the workload by
/// cache-level features, and sets the knobs of the candidate a trained
/// model expects to miss least on what follows. After the OSDI'26 paper's
/// learned control plane; the model here is EvictionLab's own.
///
/// libCacheSim's tuner is a LightGBM classifier over 76 features that names
/// one of 20 settings (``S4FIFOKnobs/candidates``). This one is a
/// gradient-boosted regression on XGBoost (``S4FIFOTunerModel``), trained
/// by `scripts/s4fifo-tuner.sh` on the shared traces: its input is the
/// workload's ``featureCount`` features followed by one candidate's five
/// knobs, its output the candidate's expected miss ratio after the window
/// above the best candidate's, in points. The tuner evaluates the 20
/// candidates and the knobs in force, and takes the lowest (the knobs in
/// force on a tie, then the first candidate): a workload the model expects
/// no candidate to serve better keeps its knobs. One regression
/// over (workload, setting) pairs lets the settings share what each
/// workload teaches, which a 20-way classifier cannot on a few hundred
/// training workloads.
///
/// The features, each over the window only:
/// 0. the capacity in mean-sized objects (trees need no logarithm);
/// 1. the hit ratio; 2–4. hits in small, in main, and misses found in the
///    ghost, each per request; 5. misses found nowhere, per request;
/// 6. objects leaving small for the ghost, as a share of all that leave
///    small (the rest are promoted); 7. main's reinsertions as a share of
///    its reinsertions and evictions;
/// 8–11, 12–15, 16–19. where hits land in small, main and the ghost: the
///    share of each queue's hits in each quarter of its length, by age in
///    admissions to that queue (newest quarter first);
/// 20. the hit ratio's trend: the window's second half minus its first.
///
/// A window with fewer than 100 hits keeps the knobs: the decision is
/// made (`trainings` 1), and the row's `tuned` says `kept` and why. Before
/// the decision `tuned` says `filling` (no eviction yet) or `watching`.
/// Neither the decision nor the features depend on a clock: a replay is
/// reproducible to the miss.
public struct S4FIFOTuning: Sendable {
  /// Where a hit landed.
  public enum Queue: Int, Sendable {
    case small = 0
    case main = 1
    case ghost = 2
  }

  public static let featureCount = 21
  /// Hits the window must see before the tuner decides.
  public static let minimumHits: Int64 = 100

  /// Requests watched after the cache first evicts.
  public let window: Int64
  /// The candidate to apply instead of the model's choice (training), or nil.
  public let forcedChoice: Int?
  /// Whether the model is consulted at all (false: features only, for training).
  public let predicts: Bool

  @usableFromInline var filled = false
  @usableFromInline var watched: Int64 = 0
  @usableFromInline var weightSum = 0.0
  @usableFromInline var hits: [Int64] = [0, 0, 0]
  @usableFromInline var positions = [Int64](repeating: 0, count: 12)
  @usableFromInline var hitsAtHalf: Int64 = 0
  @usableFromInline var coldMisses: Int64 = 0
  @usableFromInline var smallEvictions: Int64 = 0
  @usableFromInline var promotions: Int64 = 0
  @usableFromInline var reinsertions: Int64 = 0
  @usableFromInline var mainEvictions: Int64 = 0
  @usableFromInline var capacity: Int64

  /// The window's features once it has passed (``featureCount`` values).
  public private(set) var features: [Float]? = nil
  /// The candidate chosen (an index in ``S4FIFOKnobs/candidates``), nil
  /// before the decision, when the window was too quiet to decide, or when
  /// the model expected the knobs in force to do best.
  public private(set) var choice: Int? = nil
  /// Whether the model chose to keep the knobs in force.
  public private(set) var keptByModel = false
  /// Whether the decision has been made (or declined).
  public private(set) var decided = false
  /// Requests the policy had looked up when it decided.
  public var decidedAfter: Int64 { decided ? decidedAt : -1 }
  @usableFromInline var decidedAt: Int64 = 0
  @usableFromInline var requests: Int64 = 0
  /// Seconds spent predicting.
  public private(set) var seconds = 0.0

  public init(capacity: Int64, window: Int64, forcedChoice: Int? = nil, predicts: Bool = true) {
    precondition(window > 0)
    self.capacity = capacity
    self.window = window
    self.forcedChoice = forcedChoice
    self.predicts = predicts
  }

  /// Hits seen in the window (the tuner decides only from ``minimumHits``).
  public var windowHits: Int64 { hits[0] + hits[1] }

  /// Whether the window is open: counters move.
  @inlinable public var isWatching: Bool { filled && !decided }

  @inlinable
  mutating func hit(_ queue: Queue, age: Int64, of length: Int64) {
    hits[queue.rawValue] += 1
    let quarter = min(3, Int((4 * max(0, age - 1)) / max(1, length)))
    positions[queue.rawValue * 4 + quarter] += 1
  }

  /// Counts `request`; returns nil while nothing is decided, else the knobs
  /// to apply (nil inside: keep the present ones).
  @inlinable
  mutating func watch<Key>(_ request: Request<Key>, filled hasEvicted: Bool, current: S4FIFOKnobs) -> S4FIFOKnobs?? {
    requests += 1
    guard !decided else { return nil }
    if !filled {
      guard hasEvicted else { return nil }
      filled = true
    }
    if watched == window / 2 { hitsAtHalf = hits[0] + hits[1] }
    guard watched == window else {
      watched += 1
      weightSum += Double(request.weight)
      return nil
    }
    return decide(current: current)
  }

  @usableFromInline
  mutating func decide(current: S4FIFOKnobs) -> S4FIFOKnobs?? {
    let start = ContinuousClock.now
    decided = true
    decidedAt = requests - 1
    let features = describe()
    self.features = features
    defer {
      let (whole, atto) = (ContinuousClock.now - start).components
      seconds += Double(whole) + Double(atto) * 1e-18
    }
    if let forcedChoice {
      choice = forcedChoice
      return .some(S4FIFOKnobs.candidates[forcedChoice])
    }
    guard predicts, windowHits >= Self.minimumHits else { return .some(nil) }
    guard let chosen = S4FIFOTunerModel.model.bestCandidate(features: features, current: current) else {
      keptByModel = true
      return .some(nil)
    }
    choice = chosen
    return .some(S4FIFOKnobs.candidates[chosen])
  }

  /// The window's ``featureCount`` features.
  func describe() -> [Float] {
    let n = Double(max(1, watched))
    let meanWeight = max(1, weightSum / n)
    let hitCount = Double(hits[0] + hits[1])
    var row: [Double] = [
      Double(capacity) / meanWeight,
      hitCount / n, Double(hits[0]) / n, Double(hits[1]) / n, Double(hits[2]) / n, Double(coldMisses) / n,
      Double(smallEvictions) / Double(max(1, smallEvictions + promotions)),
      Double(reinsertions) / Double(max(1, reinsertions + mainEvictions)),
    ]
    for queue in 0..<3 {
      let total = Double(max(1, hits[queue]))
      for quarter in 0..<4 { row.append(Double(positions[queue * 4 + quarter]) / total) }
    }
    let half = Double(max(1, window / 2))
    let firstHalf = Double(hitsAtHalf) / half
    let secondHalf = (hitCount - Double(hitsAtHalf)) / max(1, n - half)
    row.append(secondHalf - firstHalf)
    return row.map { Float($0) }
  }

  /// A model input row: the features, then one candidate's knobs.
  public static func row(features: [Float], knobs: S4FIFOKnobs) -> [Float] {
    features + [
      Float(knobs.small), Float(knobs.ghost), Float(knobs.threshold), knobs.ghostThreshold > 0 ? 1 : 0,
      Float(knobs.skip),
    ]
  }

  /// What the tuner did, for a replay row's `tuned` column.
  public var summary: String {
    guard decided else { return filled ? "watching" : "filling" }
    if keptByModel { return "kept: the model expects the knobs in force to miss least" }
    guard let choice else { return "kept (fewer than \(Self.minimumHits) hits in the window)" }
    return "\(choice): \(S4FIFOKnobs.candidates[choice])"
  }
}

/// A gradient-boosted tree ensemble read out of XGBoost and evaluated here
/// (as EvictionLearned does for LRB): a row goes left where its feature is
/// below the split, and the leaves are added to the base score in tree
/// order, in `Float`, as XGBoost's CPU predictor does.
public struct TreeModel: Sendable {
  public let base: Float
  public let roots: [Int32]
  /// Per node: the feature split on (-1 at a leaf), the split value (the
  /// leaf's value at a leaf), and the children.
  public let features: [Int32]
  public let values: [Float]
  public let lefts: [Int32]
  public let rights: [Int32]

  public init(base: Float, roots: [Int32], features: [Int32], values: [Float], lefts: [Int32], rights: [Int32]) {
    precondition(features.count == values.count && values.count == lefts.count && lefts.count == rights.count)
    self.base = base
    self.roots = roots
    self.features = features
    self.values = values
    self.lefts = lefts
    self.rights = rights
  }

  public func predict(_ row: [Float]) -> Float {
    var sum = base
    for root in roots {
      var node = Int(root)
      while features[node] >= 0 {
        node = Int(row[Int(features[node])] < values[node] ? lefts[node] : rights[node])
      }
      sum += values[node]
    }
    return sum
  }
}

extension TreeModel {
  /// The S4-FIFO candidate this tuner model expects to miss least after
  /// the window, or nil where it expects `current`, the knobs in force, to
  /// miss least (`current` wins a tie, then the first candidate).
  public func bestCandidate(features: [Float], current: S4FIFOKnobs) -> Int? {
    var best: Int? = nil
    var lowest = predict(S4FIFOTuning.row(features: features, knobs: current))
    for (index, knobs) in S4FIFOKnobs.candidates.enumerated() {
      let predicted = predict(S4FIFOTuning.row(features: features, knobs: knobs))
      if predicted < lowest {
        lowest = predicted
        best = index
      }
    }
    return best
  }
}
