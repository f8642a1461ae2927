import CXGBoost
import Foundation

/// XGBoost's C API as GL-Cache uses it: dense float matrices, a gradient-
/// boosted regression model trained one round at a time, predictions.
/// Handles are freed when their owner goes; a failing call stops the process
/// with XGBoost's own message (a policy cannot throw from inside a replay,
/// and every call here fails only on a broken installation or exhausted memory).
enum XGBoost {
  /// The linked library's version, `major.minor.patch`.
  static var version: String {
    var major: Int32 = 0
    var minor: Int32 = 0
    var patch: Int32 = 0
    XGBoostVersion(&major, &minor, &patch)
    return "\(major).\(minor).\(patch)"
  }

  static func check(_ code: Int32, _ call: @autoclosure () -> String) {
    guard code != 0 else { return }
    let message = String(cString: XGBGetLastError())
    if message.contains("bad_alloc") {
      // Memory ran out inside XGBoost (its C++ allocator threw): one line
      // that says so, as every other memory shortage ends, not a backtrace.
      FileHandle.standardError.write(
        Data(
          ("evlab: error: not enough memory: XGBoost's \(call()) could not allocate (std::bad_alloc); "
            + "raise the memory limit (ulimit -v, the container's or job's), or use smaller cache sizes, "
            + "a shorter trace or fewer runs at once (--jobs 1)\n").utf8))
      exit(1)
    }
    fatalError("XGBoost's \(call()) failed: \(message)")
  }

  /// A dense row-major matrix of `rows` × `columns` floats; `missing` marks
  /// absent values (GL-Cache passes -2, which no feature takes).
  static func matrix(_ values: UnsafePointer<Float>, rows: Int, columns: Int, missing: Float) -> DMatrixHandle? {
    var handle: DMatrixHandle? = nil
    check(
      XGDMatrixCreateFromMat(values, bst_ulong(rows), bst_ulong(columns), missing, &handle),
      "XGDMatrixCreateFromMat")
    return handle
  }

  static func setLabels(_ matrix: DMatrixHandle?, _ labels: UnsafePointer<Float>, count: Int) {
    check(XGDMatrixSetFloatInfo(matrix, "label", labels, bst_ulong(count)), "XGDMatrixSetFloatInfo(label)")
  }

  static func free(matrix: DMatrixHandle?) {
    if let matrix { check(XGDMatrixFree(matrix), "XGDMatrixFree") }
  }

  static func free(booster: BoosterHandle?) {
    if let booster { check(XGBoosterFree(booster), "XGBoosterFree") }
  }

  static func setParameter(_ booster: BoosterHandle?, _ name: String, _ value: String) {
    check(XGBoosterSetParam(booster, name, value), "XGBoosterSetParam(\(name))")
  }
}
