import EvictionCore
import EvictionLearned
import EvictionTraces
import Foundation

// Trains S4-FIFO's tuner on the shared traces (scripts/s4fifo-tuner.sh runs
// it): every trace at three cache sizes in count mode, each workload
// measured under the 20 candidate settings; writes the model's Swift source
// and a leave-one-trace-out evaluation, and keeps the measured workloads so
// that `--refit` can fit again without replaying.
//
//   s4fifo-trainer SHARED MODEL.swift EVALUATION.csv WORKLOADS.csv [--refit]

let arguments = CommandLine.arguments
guard arguments.count == 5 || arguments.count == 6 && arguments[5] == "--refit" else {
  FileHandle.standardError.write(
    Data("usage: s4fifo-trainer SHARED MODEL.swift EVALUATION.csv WORKLOADS.csv [--refit]\n".utf8))
  exit(2)
}
let refit = arguments.count == 6
let shared = arguments[1]
let window: Int64 = 20_000
let shares = [0.01, 0.05, 0.2]
// trace (under traces/)|format
let traces = [
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|oracleGeneral",
  "libcachesim/twitter_cluster52.oracleGeneral.zst|oracleGeneral",
  "arc/OLTP.lis.zst|arc", "arc/P2.lis.zst|arc", "arc/P3.lis.zst|arc", "arc/P6.lis.zst|arc", "arc/P12.lis.zst|arc",
  "caffeine/lirs/multi1.trace.gz|lirs", "caffeine/lirs/multi2.trace.gz|lirs", "caffeine/lirs/multi3.trace.gz|lirs",
  "caffeine/lirs/2_pools.trace.gz|lirs", "caffeine/lirs/sprite.trace.gz|lirs", "caffeine/lirs/ps.trace.gz|lirs",
  "caffeine/lirs/cs.trace.gz|lirs", "caffeine/lirs/gli.trace.gz|lirs", "caffeine/lirs/cpp.trace.gz|lirs",
  "caffeine/lirs/loop.trace.gz|lirs", "caffeine/lirs/zigzag.trace.gz|lirs", "caffeine/lirs/scan.trace.gz|lirs",
  "caffeine/lirs/backf.trace.gz|lirs",
  "caffeine/cache2k/web07.trace.xz|cache2k", "caffeine/cache2k/web12.trace.xz|cache2k",
  "caffeine/cache2k/orm-busy.trace.xz|cache2k", "caffeine/cache2k/orm-night.trace.xz|cache2k",
  "caffeine/corda/trace_vaultservice.gz|corda", "caffeine/scarab/scarab-recs.trace.xz|scarab",
  "caffeine/cloud_physics/w106.trace.xz|cloud-physics",
  "caffeine/address/gcc.trace.gz|address", "caffeine/address/gzip.trace.gz|address",
  "caffeine/address/mcf.trace.gz|address", "caffeine/address/swim.trace.gz|address",
  "caffeine/address/twolf.trace.gz|address",
]

func log(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

var outcomes: [S4FIFOTunerTraining.Outcome] = []
if refit {
  guard let text = try? String(contentsOfFile: arguments[4], encoding: .utf8),
    let read = S4FIFOTunerTraining.readOutcomes(text)
  else {
    log("error: \(arguments[4]) is not a workloads file this trainer wrote: run without --refit")
    exit(1)
  }
  outcomes = read
}
for entry in traces where !refit {
  let parts = entry.split(separator: "|").map(String.init)
  let path = shared + "/traces/" + parts[0]
  var requests: [Request<UInt64>] = []
  var keys = Set<UInt64>()
  do {
    let source = try TraceSource(checking: path, formatName: parts[1])
    _ = try source.forEachBatch { records, tile in
      for record in records {
        let key = record.key &+ tile.idOffset
        requests.append(Request(key: key))
        keys.insert(key)
      }
    }
  } catch {
    log("skipped \(parts[0]): \(error)")
    continue
  }
  var measured = 0
  // Small traces give one capacity for several shares: measured once.
  for capacity in Set(shares.map { max(100, Int64(Double(keys.count) * $0)) }).sorted() {
    let workload = S4FIFOTunerTraining.Workload(name: parts[0], requests: requests, capacity: capacity)
    guard let outcome = S4FIFOTunerTraining.measure(workload, window: window) else { continue }
    outcomes.append(outcome)
    measured += 1
  }
  log("\(parts[0]): \(requests.count) requests, \(keys.count) objects, \(measured) workloads")
}
if !refit {
  try S4FIFOTunerTraining.outcomesCSV(outcomes).write(toFile: arguments[4], atomically: true, encoding: .utf8)
}
var trained: [String] = []
for outcome in outcomes where trained.last != outcome.name { trained.append(outcome.name) }
func label(_ choice: Int?) -> String { choice.map(String.init) ?? "kept" }

let model = S4FIFOTunerTraining.fit(outcomes)
// Leave one trace out: each trace's workloads judged by a model fitted to
// the others (`tuned`), beside what the shipped model, fitted to all, picks.
var rows = [
  "trace,cache_size,window_hits,requests_after,kept_miss_ratio,tuned_miss_ratio,best_miss_ratio,tuned,best,model_choice"
]
for trace in trained {
  let heldOut = S4FIFOTunerTraining.fit(outcomes.filter { $0.name != trace })
  for outcome in outcomes where outcome.name == trace {
    // As the tuner: a window with too few hits keeps the knobs.
    let chosen =
      outcome.isDecided ? heldOut.bestCandidate(features: outcome.features, current: S4FIFOKnobs()) : nil
    rows.append(
      [
        trace, String(outcome.capacity), String(outcome.windowHits), String(outcome.requestsAfter),
        String(format: "%.6f", outcome.keptMissRatio),
        String(format: "%.6f", outcome.missRatio(chosen)), String(format: "%.6f", outcome.missRatio(outcome.best)),
        label(chosen), label(outcome.best),
        outcome.isDecided ? label(model.bestCandidate(features: outcome.features, current: S4FIFOKnobs())) : "kept",
      ].joined(separator: ","))
  }
}
try (rows.joined(separator: "\n") + "\n").write(toFile: arguments[3], atomically: true, encoding: .utf8)

let source = S4FIFOTunerTraining.swiftSource(
  model,
  provenance: [
    "Trained on \(outcomes.filter(\.isDecided).count) workloads (\(trained.count) shared traces × up to \(shares.count) sizes,",
    "count mode; workloads with fewer than \(S4FIFOTuning.minimumHits) hits in the window left out),",
    "window \(window) requests, XGBoost \(EvictionLearned.xgboostVersion); \(model.roots.count) trees.",
  ])
try source.write(toFile: arguments[2], atomically: true, encoding: .utf8)
log(
  "\(outcomes.count) workloads, \(outcomes.filter(\.isDecided).count) decided; model: \(model.roots.count) trees, \(model.features.count) nodes"
)
