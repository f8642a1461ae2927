import CXGBoost
import EvictionCore
import Foundation

/// The model of LRB and 3L-Cache and its training rows: gradient-boosted
/// regression trees predicting log(1 + requests until an object's next
/// request) from its features, trained on XGBoost where libCacheSim trains
/// LightGBM.
///
/// libCacheSim's LightGBM settings (LRB's; 3L-Cache's are the same with
/// 16 trees) and what stands for each here:
///
/// | LightGBM (libCacheSim)           | XGBoost (here)                                  |
/// |----------------------------------|-------------------------------------------------|
/// | `boosting=gbdt`, `objective=regression` | `booster=gbtree`, `objective=reg:squarederror` |
/// | histogram bins (255)             | `tree_method=hist`, `max_bin=255`               |
/// | leaf-wise growth, `num_leaves=32`| `grow_policy=lossguide`, `max_leaves=32`, `max_depth=0` |
/// | `num_iterations=32` (16), `learning_rate=0.1` | 32 (16) rounds, `eta=0.1`         |
/// | `min_data_in_leaf=20` (default)  | `min_child_weight=20` (a row's hessian is 1)    |
/// | `lambda_l2=0` (default)          | `lambda=0`                                      |
/// | `boost_from_average` (default)   | `base_score` = the labels' mean                 |
/// | `feature_fraction=0.8` per tree  | `colsample_bytree=0.8`                          |
/// | `bagging_fraction=0.8`, `bagging_freq=5` | `subsample=0.8`, a new sample every tree |
/// | `num_threads=1`                  | `nthread=1`, `seed=0`                           |
///
/// What still differs: the two libraries choose bin boundaries, break ties
/// between equally good splits and draw their row and feature samples
/// differently, and LightGBM draws a new bag every fifth tree where XGBoost
/// draws one per tree; so the trees differ and so, after the first
/// training, do the evictions. Absent features (past distances an object
/// does not have yet) are zeros in both: LightGBM reads a sparse row's
/// absent entries as 0, and the rows here are dense with explicit zeros.
@usableFromInline final class TreeLearner {
  /// Features per row.
  let width: Int

  let rounds: Int
  let leaves: Int
  /// Training rows, row-major, and their labels.
  var features: [Float] = []
  var labels: [Float] = []
  var booster: BoosterHandle? = nil
  var model = TreeEnsemble()
  var trainings: Int64 = 0
  /// Sees each batch's rows and labels before it is fitted (tests compare
  /// them with libCacheSim's).
  var inspect: ((_ features: [Float], _ labels: [Float]) -> Void)? = nil
  /// Seconds spent training and ranking.
  var seconds = 0.0

  /// The rows of a ranking's candidates.
  let rows: UnsafeMutablePointer<Float>

  init(width: Int, rounds: Int, leaves: Int, batchSize: Int, rankedRows: Int) {
    self.width = width
    self.rounds = rounds
    self.leaves = leaves
    rows = .allocate(capacity: rankedRows * width)
    rows.initialize(repeating: 0, count: rankedRows * width)
    // Room for a default batch at most: a batch-size far above the trace's
    // samples must not reserve gigabytes it never fills.
    features.reserveCapacity(min(batchSize, 131_072) * width)
    labels.reserveCapacity(min(batchSize, 131_072))
  }

  deinit {
    XGBoost.free(booster: booster)
    rows.deallocate()
  }

  var isTrained: Bool { !model.isEmpty }

  func add(_ duration: Duration) {
    let (whole, attoseconds) = duration.components
    seconds += Double(whole) + Double(attoseconds) * 1e-18
  }

  /// Fits a new model to the rows gathered and clears them.
  func fit() {
    let start = ContinuousClock.now
    inspect?(features, labels)
    XGBoost.free(booster: booster)
    booster = nil
    let rows = labels.count
    let matrix = features.withUnsafeBufferPointer {
      XGBoost.matrix($0.baseAddress!, rows: rows, columns: width, missing: .nan)
    }
    defer { XGBoost.free(matrix: matrix) }
    labels.withUnsafeBufferPointer { XGBoost.setLabels(matrix, $0.baseAddress!, count: rows) }
    var matrices: [DMatrixHandle?] = [matrix]
    XGBoost.check(XGBoosterCreate(&matrices, 1, &booster), "XGBoosterCreate")
    var mean = 0.0
    for label in labels { mean += Double(label) }
    mean /= Double(max(rows, 1))
    let parameters: KeyValuePairs<String, String> = [
      "booster": "gbtree", "objective": "reg:squarederror", "tree_method": "hist", "max_bin": "255",
      "grow_policy": "lossguide", "max_leaves": String(leaves), "max_depth": "0", "eta": "0.1",
      "min_child_weight": "20", "lambda": "0", "base_score": String(mean), "colsample_bytree": "0.8",
      "subsample": "0.8", "seed": "0", "nthread": "1", "verbosity": "0",
    ]
    for (name, value) in parameters { XGBoost.setParameter(booster, name, value) }
    for round in 0..<Int32(rounds) {
      XGBoost.check(XGBoosterUpdateOneIter(booster, round, matrix), "XGBoosterUpdateOneIter")
    }
    model = TreeEnsemble(booster)
    features.removeAll(keepingCapacity: true)
    labels.removeAll(keepingCapacity: true)
    trainings += 1
    add(ContinuousClock.now - start)
  }
}

extension TreeLearner {
  /// The catalog parameters of a policy learning on these trees (LRB,
  /// 3L-Cache), with its defaults and libCacheSim's name for it.
  static func catalogParameters(batchSize: Int64, iterations: Int64, libCacheSimName name: String)
    -> [PolicyParameter]
  {
    [
      PolicyParameter("batch-size", default: batchSize, range: 1...100_000_000, help: "labelled samples per training"),
      PolicyParameter("num-iterations", default: iterations, range: 1...1_000, help: "trees per model"),
      PolicyParameter("num-leaves", default: 32, range: 2...4_096, help: "leaves per tree"),
      PolicyParameter(
        switch: "object-miss-ratio", default: false,
        help: "rank by predicted distance × size (libCacheSim's \(name)-OMR) instead of distance (\(name)-BMR)"),
    ]
  }

  /// What these policies are checked against.
  static let checkedAgainst =
    "libCacheSim 0.3.5 built with LightGBM 4.6.0: equal until the first training (its first batch of rows too); "
    + "miss ratios beside it after"
}
