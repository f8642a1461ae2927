import Dispatch
import EvictionCore

/// Trains S4-FIFO's tuner (``EvictionCore/S4FIFOTuning``): for each
/// workload (a trace at a cache size), the features of its window and the
/// misses each of the 20 candidate settings has after it; then one XGBoost
/// regression over (features, knobs) → miss ratio above the workload's best
/// candidate, in points. `scripts/s4fifo-tuner.sh` runs it on the shared
/// traces and writes the model as Swift source (``swiftSource(_:provenance:)``).
/// Everything is deterministic: one XGBoost thread, seed 0.
public enum S4FIFOTunerTraining {
  /// A trace's requests at one cache size.
  public struct Workload {
    public var name: String
    public var requests: [Request<UInt64>]
    public var capacity: Int64

    public init(name: String, requests: [Request<UInt64>], capacity: Int64) {
      self.name = name
      self.requests = requests
      self.capacity = capacity
    }
  }

  /// What a workload teaches: its window's features and, per candidate,
  /// the misses after the window.
  public struct Outcome: Sendable {
    public var name: String
    public var capacity: Int64
    public var features: [Float]
    /// Hits in the window: below ``EvictionCore/S4FIFOTuning/minimumHits``
    /// the tuner keeps its knobs, so such a workload teaches nothing.
    public var windowHits: Int64
    /// Requests after the decision.
    public var requestsAfter: Int64
    /// Misses after the decision with the knobs kept (S3-FIFO's).
    public var keptMisses: Int64
    /// Misses after the decision per candidate, in ``S4FIFOKnobs/candidates`` order.
    public var candidateMisses: [Int64]

    public init(
      name: String, capacity: Int64, features: [Float], windowHits: Int64, requestsAfter: Int64, keptMisses: Int64,
      candidateMisses: [Int64]
    ) {
      self.name = name
      self.capacity = capacity
      self.features = features
      self.windowHits = windowHits
      self.requestsAfter = requestsAfter
      self.keptMisses = keptMisses
      self.candidateMisses = candidateMisses
    }

    /// The choice with the fewest misses, as the tuner breaks ties: nil
    /// (keep S3-FIFO's knobs) first, then the first candidate.
    public var best: Int? {
      var best: Int? = nil
      var fewest = keptMisses
      for (candidate, misses) in candidateMisses.enumerated() where misses < fewest {
        fewest = misses
        best = candidate
      }
      return best
    }

    /// The miss ratio after the window with a candidate's knobs, or with
    /// S3-FIFO's kept (nil).
    public func missRatio(_ choice: Int?) -> Double {
      Double(choice.map { candidateMisses[$0] } ?? keptMisses) / Double(requestsAfter)
    }
    public var keptMissRatio: Double { missRatio(nil) }

    /// Whether the tuner decides on this workload (enough hits in the window).
    public var isDecided: Bool { windowHits >= S4FIFOTuning.minimumHits }
  }

  /// Replays `workload` once per candidate (and once with the knobs kept),
  /// each switching at the same request; nil when the window never closes
  /// or too few requests follow it to judge (`minimumAfter`).
  public static func measure(_ workload: Workload, window: Int64, minimumAfter: Int = 10_000) -> Outcome? {
    let capacity = workload.capacity
    return workload.requests.withUnsafeBufferPointer { requests -> Outcome? in
      let observed = replay(
        requests, capacity: capacity, S4FIFOTuning(capacity: capacity, window: window, predicts: false))
      guard let features = observed.tuning.features, requests.count - Int(observed.tuning.decidedAfter) >= minimumAfter
      else { return nil }
      // The candidates' replays are independent: one per core at a time.
      var misses = [Int64](repeating: 0, count: S4FIFOKnobs.candidates.count)
      misses.withUnsafeMutableBufferPointer { slots in
        nonisolated(unsafe) let slots = slots
        nonisolated(unsafe) let requests = requests
        DispatchQueue.concurrentPerform(iterations: slots.count) { candidate in
          let tuning = S4FIFOTuning(capacity: capacity, window: window, forcedChoice: candidate)
          slots[candidate] = replay(requests, capacity: capacity, tuning).misses
        }
      }
      return Outcome(
        name: workload.name, capacity: capacity, features: features, windowHits: observed.tuning.windowHits,
        requestsAfter: Int64(requests.count) - observed.tuning.decidedAfter, keptMisses: observed.misses,
        candidateMisses: misses)
    }
  }

  /// Replays `requests` through S4-FIFO with S3-FIFO's knobs and `tuning`;
  /// the misses after the tuner's decision, and the tuner as it ended.
  static func replay(_ requests: UnsafeBufferPointer<Request<UInt64>>, capacity: Int64, _ tuning: S4FIFOTuning)
    -> (misses: Int64, tuning: S4FIFOTuning)
  {
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(capacity: capacity, knobs: S4FIFOKnobs(), tuning: tuning)
    var misses: Int64 = 0
    for request in requests {
      let hit = policy.access(request)
      if !hit && policy.tuning!.decided { misses += 1 }
    }
    return (misses, policy.tuning!)
  }

  /// The model input width: the features, then five knobs.
  public static let width = S4FIFOTuning.featureCount + 5

  /// Fits the tuner's model to `outcomes`: one row per (workload,
  /// candidate) and one for S3-FIFO's knobs kept, each labelled with its
  /// miss ratio after the window above the workload's best, in points.
  /// Workloads where the tuner would not decide (``Outcome/isDecided``)
  /// are left out.
  public static func fit(_ outcomes: [Outcome], rounds: Int = 120, leaves: Int = 16) -> TreeModel {
    fitWithEnsemblePredictions(outcomes, rounds: rounds, leaves: leaves).model
  }

  /// ``fit(_:rounds:leaves:)``, with the ensemble as read out of XGBoost
  /// beside it (its own prediction, which a test compares with the model's).
  public static func fitWithEnsemblePredictions(_ outcomes: [Outcome], rounds: Int = 120, leaves: Int = 16)
    -> (model: TreeModel, ensemble: ([Float]) -> Float)
  {
    let outcomes = outcomes.filter(\.isDecided)
    precondition(!outcomes.isEmpty, "no workload to train the S4-FIFO tuner on")
    let learner = TreeLearner(
      width: width, rounds: rounds, leaves: leaves, batchSize: outcomes.count * 21, rankedRows: 1)
    let choices: [(Int?, S4FIFOKnobs)] = [(nil, S4FIFOKnobs())] + S4FIFOKnobs.candidates.enumerated().map { ($0, $1) }
    for outcome in outcomes {
      let best = outcome.missRatio(outcome.best)
      for (choice, knobs) in choices {
        learner.features += S4FIFOTuning.row(features: outcome.features, knobs: knobs)
        learner.labels.append(Float(100 * (outcome.missRatio(choice) - best)))
      }
    }
    learner.fit()
    let ensemble = learner.model
    let model = TreeModel(
      base: ensemble.base, roots: ensemble.roots, features: ensemble.nodes.map(\.feature),
      values: ensemble.nodes.map(\.value), lefts: ensemble.nodes.map(\.left), rights: ensemble.nodes.map(\.right))
    return (model, { row in row.withUnsafeBufferPointer { ensemble.predict($0.baseAddress!) } })
  }

  /// The outcomes as CSV, one workload per line: what training learns
  /// from, kept beside the model so that it can be refitted without
  /// replaying (``readOutcomes(_:)``). Features are written exactly (`Float`
  /// bit patterns in hexadecimal).
  public static func outcomesCSV(_ outcomes: [Outcome]) -> String {
    let candidates = S4FIFOKnobs.candidates.indices
    var lines = [
      (["trace", "cache_size", "window_hits", "requests_after", "kept_misses"] + candidates.map { "misses_\($0)" }
        + (0..<S4FIFOTuning.featureCount).map { "feature_\($0)" }).joined(separator: ",")
    ]
    for o in outcomes {
      let fields =
        [o.name, String(o.capacity), String(o.windowHits), String(o.requestsAfter), String(o.keptMisses)]
        + o.candidateMisses.map(String.init)
        + o.features.map { "0x" + String($0.bitPattern, radix: 16) }
      lines.append(fields.joined(separator: ","))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Outcomes from ``outcomesCSV(_:)``'s text; nil if it is not such a file.
  public static func readOutcomes(_ text: String) -> [Outcome]? {
    let count = S4FIFOKnobs.candidates.count
    var outcomes: [Outcome] = []
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 5 + count + S4FIFOTuning.featureCount, let capacity = Int64(fields[1]),
        let hits = Int64(fields[2]), let after = Int64(fields[3]), let kept = Int64(fields[4])
      else { return nil }
      let misses = fields[5..<(5 + count)].compactMap { Int64($0) }
      let features = fields[(5 + count)...].compactMap { field in
        field.hasPrefix("0x") ? UInt32(field.dropFirst(2), radix: 16).map(Float.init(bitPattern:)) : nil
      }
      guard misses.count == count, features.count == S4FIFOTuning.featureCount else { return nil }
      outcomes.append(
        Outcome(
          name: fields[0], capacity: capacity, features: features, windowHits: hits, requestsAfter: after,
          keptMisses: kept, candidateMisses: misses))
    }
    return outcomes
  }

  /// `model` as the Swift source of `S4FIFOTunerModel`, headed by `provenance`.
  public static func swiftSource(_ model: TreeModel, provenance: [String]) -> String {
    func list<T>(_ values: [T]) -> String {
      stride(from: 0, to: values.count, by: 12).map { start in
        "    " + values[start..<min(start + 12, values.count)].map { "\($0)" }.joined(separator: ", ") + ","
      }.joined(separator: "\n")
    }
    func floats(_ values: [Float]) -> String { list(values.map { $0.bitPattern }.map { "0x\(String($0, radix: 16))" }) }
    var text = "// Generated by scripts/s4fifo-tuner.sh: do not edit.\n"
    text += provenance.map { "// \($0)\n" }.joined()
    text += """

      /// S4-FIFO's tuner model (``S4FIFOTuning``): XGBoost trees over a
      /// workload's features and one candidate's knobs, predicting the
      /// candidate's miss ratio after the window above the best one's, in
      /// points. Split and leaf values are stored as their `Float` bit patterns.
      public enum S4FIFOTunerModel {
        public static let model = TreeModel(
          base: Float(bitPattern: 0x\(String(model.base.bitPattern, radix: 16))),
          roots: rootList,
          features: featureList,
          values: valueBits.map { Float(bitPattern: $0) },
          lefts: leftList,
          rights: rightList)

        static let rootList: [Int32] = [
      \(list(model.roots))
        ]
        static let featureList: [Int32] = [
      \(list(model.features))
        ]
        static let valueBits: [UInt32] = [
      \(floats(model.values))
        ]
        static let leftList: [Int32] = [
      \(list(model.lefts))
        ]
        static let rightList: [Int32] = [
      \(list(model.rights))
        ]
      }

      """
    return text
  }
}
