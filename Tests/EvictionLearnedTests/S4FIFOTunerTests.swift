import EvictionCore
import EvictionLearned
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// S4-FIFO's tuner: when it decides, what it applies, that a replay is
/// reproducible and reports the choice, and that the committed model is the
/// one `scripts/s4fifo-tuner.sh` trained with today's features.
@Suite struct S4FIFOTunerTests {
  static func requests(_ count: Int, seed: UInt64) -> [Request<UInt64>] {
    conformanceRequests(seed: seed, weighted: false, count: count)
  }

  /// The window opens at the first eviction and the decision comes exactly
  /// `window` requests later; a forced candidate's knobs are then in force.
  @Test func theTunerDecidesAWindowAfterTheCacheFills() {
    let window: Int64 = 3_000
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(
      capacity: 200, knobs: S4FIFOKnobs(), tuning: S4FIFOTuning(capacity: 200, window: window, forcedChoice: 7))
    var firstEviction: Int64 = -1
    for (n, request) in Self.requests(20_000, seed: 5).enumerated() {
      if policy.lookup(request, onEvict: { _, _ in }) == nil {
        _ = policy.admit(request) { _, _ in if firstEviction < 0 { firstEviction = Int64(n) } }
      }
    }
    let tuning = policy.tuning!
    // The request whose admission first evicted opens the window (the
    // next lookup sees eviction begun): window requests later, the decision.
    #expect(tuning.decided && tuning.decidedAfter == firstEviction + 1 + window)
    #expect(tuning.choice == 7 && policy.currentKnobs == S4FIFOKnobs.candidates[7])
    #expect(tuning.features?.count == S4FIFOTuning.featureCount)
    #expect(tuning.summary == "7: \(S4FIFOKnobs.candidates[7])")
    policy.checkInvariants()
  }

  /// Every candidate applied mid-replay (queues resized by eviction, the
  /// ghost shrunk or grown) keeps the policy's invariants, among them that
  /// the queues' capacities are the shares of the knobs in force.
  @Test(arguments: S4FIFOKnobs.candidates.indices)
  func everyCandidateAppliesCleanly(candidate: Int) {
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(
      capacity: 3_000, knobs: S4FIFOKnobs(),
      tuning: S4FIFOTuning(capacity: 3_000, window: 2_000, forcedChoice: candidate))
    for (n, request) in conformanceRequests(seed: 9, weighted: true, count: 15_000).enumerated() {
      _ = policy.access(request)
      if n % 1_000 == 0 { policy.checkInvariants() }
    }
    // Candidate 17 asks for no ghost: libCacheSim keeps the ghost's size then.
    var expected = S4FIFOKnobs.candidates[candidate]
    if expected.ghost == 0 { expected.ghost = S4FIFOKnobs().ghost }
    #expect(policy.currentKnobs == expected)
    #expect(policy.usedWeight <= policy.capacity)
    policy.checkInvariants()
  }

  /// libCacheSim's rule when knobs change: a small share that rounds to
  /// nothing is not applied, nor is a ghost given to a cache built without
  /// one; the knobs in force say so.
  @Test func sharesThatCannotApplyAreKept() {
    // Capacity 20: candidate 4's small share (0.015) rounds to 0.
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(capacity: 20, knobs: S4FIFOKnobs(small: 0.1, ghost: 0))
    policy.apply(S4FIFOKnobs.candidates[4])
    var expected = S4FIFOKnobs.candidates[4]
    expected.small = 0.1
    expected.ghost = 0
    #expect(policy.currentKnobs == expected)
    for (n, request) in Self.requests(5_000, seed: 2).enumerated() {
      _ = policy.access(request)
      if n % 500 == 0 { policy.checkInvariants() }
    }
    #expect(policy.lists().first { $0.name == "ghost" }!.keys.isEmpty)
    #expect(policy.name == "S4FIFO(\(S4FIFOKnobs(small: 0.1, ghost: 0)))")
  }

  /// A window with fewer than 100 hits decides nothing: the knobs stay.
  @Test func aQuietWindowKeepsTheKnobs() {
    // Every key new: no hit at all.
    var policy = S4FIFOPolicy<IntegerSlotIndex<UInt64>>(
      capacity: 100, knobs: S4FIFOKnobs(), tuning: S4FIFOTuning(capacity: 100, window: 1_000))
    for key in UInt64(0)..<5_000 { _ = policy.access(Request(key: key)) }
    let tuning = policy.tuning!
    #expect(tuning.decided && tuning.choice == nil && !tuning.keptByModel && policy.currentKnobs == S4FIFOKnobs())
    #expect(tuning.windowHits == 0 && tuning.summary == "kept (fewer than 100 hits in the window)")
  }

  /// `s4fifo:tune=true` in a replay: reproducible to the miss, and its row
  /// says what it chose.
  @Test func aTunedReplayIsReproducibleAndReportsItsChoice() throws {
    let trace = TraceSource(
      path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)
    let cell = ReplayCell(
      trace: trace, policy: try PolicySpec("s4fifo:tune=true,window=20000"), cacheSize: 2_000, sizeMode: .count)
    let runs = try TraceReplay.runAll([cell, cell], parallelism: 2)
    #expect(runs[0].misses == runs[1].misses)
    let tuned = try #require(runs[0].fields.tuned)
    #expect(tuned == runs[1].fields.tuned && tuned.contains(": small="), "\(tuned)")
    #expect(runs[0].fields.trainings == 1)
    #expect(ReplayResult.columns(ReplayResult.columns, of: runs).contains("tuned"))
  }

  /// The tree walker predicts what the ensemble read out of XGBoost does,
  /// row for row (`LRBTests` holds that ensemble to XGBoost's own predictor).
  @Test func theModelPredictsAsTheEnsembleReadOutOfXGBoost() throws {
    var outcomes: [S4FIFOTunerTraining.Outcome] = []
    for seed: UInt64 in 1...6 {
      let workload = S4FIFOTunerTraining.Workload(
        name: "synthetic \(seed)", requests: Self.requests(40_000, seed: seed), capacity: Int64(100 * seed))
      outcomes.append(try #require(S4FIFOTunerTraining.measure(workload, window: 5_000, minimumAfter: 5_000)))
    }
    let (model, ensemblePredictions) = S4FIFOTunerTraining.fitWithEnsemblePredictions(outcomes)
    var rows = 0
    for outcome in outcomes {
      for knobs in S4FIFOKnobs.candidates + [S4FIFOKnobs()] {
        let row = S4FIFOTuning.row(features: outcome.features, knobs: knobs)
        #expect(model.predict(row) == ensemblePredictions(row))
        rows += 1
      }
    }
    #expect(rows == 126 && !model.roots.isEmpty)
    // The workloads file keeps every outcome exactly.
    let reread = try #require(S4FIFOTunerTraining.readOutcomes(S4FIFOTunerTraining.outcomesCSV(outcomes)))
    #expect(reread.map(\.features) == outcomes.map(\.features))
    #expect(reread.map(\.candidateMisses) == outcomes.map(\.candidateMisses))
    // Fitting twice gives the same trees (one XGBoost thread, seed 0).
    let again = S4FIFOTunerTraining.fit(outcomes)
    #expect(again.values == model.values && again.features == model.features)
  }

  /// The committed model is the trained one for today's features: on a
  /// workload of the training set, it picks what `results/s4fifo/tuner.csv`
  /// says it picked when it was trained.
  @Test func theCommittedModelMatchesItsTrainingRecord() throws {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/s4fifo/tuner.csv"), encoding: .utf8)
    var lines = text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
    let header = lines.removeFirst()
    let rows = lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    #expect(rows.count >= 60)
    let row = try #require(
      rows.first { $0["trace"] == "libcachesim/cloudPhysicsIO.oracleGeneral.bin" && $0["cache_size"] == "489" })
    let source = TraceSource(
      path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)
    var requests: [Request<UInt64>] = []
    _ = try source.forEachBatch { records, tile in
      for record in records { requests.append(Request(key: record.key &+ tile.idOffset)) }
    }
    let workload = S4FIFOTunerTraining.Workload(name: "cloudPhysicsIO", requests: requests, capacity: 489)
    let outcome = try #require(S4FIFOTunerTraining.measure(workload, window: 20_000))
    #expect(String(format: "%.6f", outcome.keptMissRatio) == row["kept_miss_ratio"])
    func label(_ choice: Int?) -> String { choice.map(String.init) ?? "kept" }
    #expect(label(outcome.best) == row["best"])
    let chosen = S4FIFOTunerModel.model.bestCandidate(features: outcome.features, current: S4FIFOKnobs())
    #expect(label(chosen) == row["model_choice"])
  }
}
