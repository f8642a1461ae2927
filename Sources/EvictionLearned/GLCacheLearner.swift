import CXGBoost
import Foundation

/// GL-Cache's model and its data: the training rows the snapshots fill, the
/// validation rows split off them, the inference rows of a ranking, and the
/// XGBoost handles. The buffers persist between trainings as libCacheSim's
/// do (a validation row left from an earlier training is still there when
/// a later one writes fewer), so the same rows reach XGBoost.
@usableFromInline
final class GLCacheLearner {
  static let featureCount = 6
  /// libCacheSim's `N_MAX_TRAINING_DATA`.
  static let trainingRows = 8192
  static let validationRows = trainingRows / 10
  static let rounds = 20

  @usableFromInline var trainX: UnsafeMutableBufferPointer<Float>
  @usableFromInline var trainY: UnsafeMutableBufferPointer<Float>
  var validX: UnsafeMutableBufferPointer<Float>
  var validY: UnsafeMutableBufferPointer<Float>
  @usableFromInline var inferenceX = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
  var inferenceRows = 0

  /// Rows the snapshots wrote since the last training.
  @usableFromInline var trainingSamples = 0
  /// -1 until the first eviction's snapshot, then the trainings so far.
  @usableFromInline var trainings = -1
  @usableFromInline var lastTrainTime: Int64 = 0
  /// Seconds spent training and predicting.
  @usableFromInline var seconds = 0.0

  var booster: BoosterHandle? = nil
  var trainMatrix: DMatrixHandle? = nil
  var validMatrix: DMatrixHandle? = nil
  var inferenceMatrix: DMatrixHandle? = nil

  init() {
    func zeros(_ count: Int) -> UnsafeMutableBufferPointer<Float> {
      let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
      buffer.initialize(repeating: 0)
      return buffer
    }
    trainX = zeros(Self.trainingRows * Self.featureCount)
    trainY = zeros(Self.trainingRows)
    validX = zeros(Self.validationRows * Self.featureCount)
    validY = zeros(Self.validationRows)
  }

  deinit {
    XGBoost.free(booster: booster)
    XGBoost.free(matrix: trainMatrix)
    XGBoost.free(matrix: validMatrix)
    XGBoost.free(matrix: inferenceMatrix)
    trainX.deallocate()
    trainY.deallocate()
    validX.deallocate()
    validY.deallocate()
    inferenceX.deallocate()
  }

  @usableFromInline func add(_ duration: Duration) {
    let (whole, attoseconds) = duration.components
    seconds += Double(whole) + Double(attoseconds) * 1e-18
  }

  /// Room for `rows` inference rows (twice that when it grows, zeroed).
  @usableFromInline func prepareInference(rows: Int) {
    guard inferenceRows < rows else { return }
    inferenceX.deallocate()
    inferenceRows = rows * 2
    inferenceX = .allocate(capacity: inferenceRows * Self.featureCount)
    inferenceX.initialize(repeating: 0)
  }

  /// Predictions for the first `rows` inference rows.
  @usableFromInline func predict(rows: Int) -> UnsafeBufferPointer<Float> {
    XGBoost.free(matrix: inferenceMatrix)
    inferenceMatrix = XGBoost.matrix(inferenceX.baseAddress!, rows: rows, columns: Self.featureCount, missing: -2)
    var length: bst_ulong = 0
    var result: UnsafePointer<Float>? = nil
    XGBoost.check(XGBoosterPredict(booster, inferenceMatrix, 0, 0, 0, &length, &result), "XGBoosterPredict")
    precondition(Int(length) == rows, "XGBoost predicted \(length) values for \(rows) rows")
    return UnsafeBufferPointer(start: result, count: rows)
  }

  /// libCacheSim's `prepare_training_data` and `train_xgboost`: labels
  /// normalised to [0, 1], every tenth row to validation, all-zero rows
  /// dropped; up to 20 rounds, stopping early once the validation error
  /// settles.
  func fit() {
    XGBoost.free(booster: booster)
    XGBoost.free(matrix: trainMatrix)
    XGBoost.free(matrix: validMatrix)
    booster = nil
    let n = trainingSamples
    let width = Self.featureCount
    var maxY = trainY[0]
    var minY = trainY[0]
    for j in 1..<max(n, 1) {
      if trainY[j] > maxY { maxY = trainY[j] }
      if trainY[j] < minY { minY = trainY[j] }
    }
    var trainRows = 0
    var validRows = 0
    for i in 0..<n {
      let validation = i % 10 == 0 && validRows < Self.validationRows
      var allZero = true
      for j in 0..<width where trainX[i * width + j] != 0 {
        allZero = false
        break
      }
      if allZero { continue }
      let label = (trainY[i] - minY) / (maxY - minY)
      if validation {
        for j in 0..<width { validX[validRows * width + j] = trainX[i * width + j] }
        if maxY - minY > 0 { validY[validRows] = label }
        validRows += 1
      } else {
        for j in 0..<width { trainX[trainRows * width + j] = trainX[i * width + j] }
        if maxY - minY > 0 { trainY[trainRows] = label }
        trainRows += 1
      }
    }
    trainMatrix = XGBoost.matrix(trainX.baseAddress!, rows: trainRows, columns: width, missing: -2)
    validMatrix = XGBoost.matrix(validX.baseAddress!, rows: validRows, columns: width, missing: -2)
    XGBoost.setLabels(trainMatrix, trainY.baseAddress!, count: trainRows)
    XGBoost.setLabels(validMatrix, validY.baseAddress!, count: validRows)

    var matrices: [DMatrixHandle?] = [trainMatrix, validMatrix]
    XGBoost.check(XGBoosterCreate(&matrices, 1, &booster), "XGBoosterCreate")
    XGBoost.setParameter(booster, "booster", "gbtree")
    // libCacheSim asks for 1 (warnings); 0 keeps XGBoost's "empty dataset"
    // warnings, one per round on a cache of two or three segments, off
    // standard error. Only logging depends on it.
    XGBoost.setParameter(booster, "verbosity", "0")
    XGBoost.setParameter(booster, "nthread", "1")
    XGBoost.setParameter(booster, "objective", "reg:squarederror")
    var lastLoss = 0.0
    var stable = 0
    for round in 0..<Int32(Self.rounds) {
      XGBoost.check(XGBoosterUpdateOneIter(booster, round, trainMatrix), "XGBoosterUpdateOneIter")
      if validRows < 10 { continue }
      let loss = validationLoss(round: round, matrices: &matrices)
      if abs(lastLoss - loss) / loss < 0.01 {
        stable += 1
        if stable > 2 { break }
      } else {
        stable = 0
      }
      lastLoss = loss
    }
    trainingSamples = 0
  }

  /// The validation RMSE XGBoost reports after `round`, read from its text
  /// as libCacheSim reads it (a float).
  func validationLoss(round: Int32, matrices: inout [DMatrixHandle?]) -> Double {
    var result: UnsafePointer<CChar>? = nil
    let names: [StaticString] = ["train", "valid"]
    var namePointers: [UnsafePointer<CChar>?] = names.map {
      UnsafeRawPointer($0.utf8Start).assumingMemoryBound(to: CChar.self)
    }
    XGBoost.check(
      XGBoosterEvalOneIter(booster, round, &matrices, &namePointers, 2, &result), "XGBoosterEvalOneIter")
    guard let result, let found = strstr(result, "valid-rmse") else { return .nan }
    return Double(strtof(found + 11, nil))
  }
}
