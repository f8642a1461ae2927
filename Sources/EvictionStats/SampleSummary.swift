import CGSL

/// Location and spread of a sample of measurements (run times, ratios), with
/// GSL doing the arithmetic: quantiles from sorted data and Student's t for
/// confidence intervals.
public struct SampleSummary: Sendable, Equatable {
  public let count: Int
  public let mean: Double
  public let median: Double
  public let minimum: Double
  public let maximum: Double
  /// Sample standard deviation (n − 1), 0 for a single value.
  public let standardDeviation: Double
  /// Two-sided 95% confidence interval of the mean (Student's t); the mean
  /// itself for a single value.
  public let ci95: ClosedRange<Double>

  /// Summarises `values`, which must not be empty.
  public init(_ values: [Double]) {
    precondition(!values.isEmpty, "a summary needs at least one value")
    cgsl_disable_abort()
    var sorted = values
    sorted.sort()
    count = sorted.count
    let n = sorted.count
    (mean, median, standardDeviation) = sorted.withUnsafeBufferPointer { b in
      let mean = gsl_stats_mean(b.baseAddress, 1, n)
      let median = gsl_stats_median_from_sorted_data(b.baseAddress, 1, n)
      let sd = n > 1 ? gsl_stats_sd_m(b.baseAddress, 1, n, mean) : 0
      return (mean, median, sd)
    }
    minimum = sorted[0]
    maximum = sorted[n - 1]
    if n > 1 {
      let t = gsl_cdf_tdist_Pinv(0.975, Double(n - 1))
      let half = t * standardDeviation / Double(n).squareRoot()
      ci95 = (mean - half)...(mean + half)
    } else {
      ci95 = mean...mean
    }
  }

  /// The `p`-quantile (0...1) of `values` by linear interpolation, as GSL defines it.
  public static func quantile(_ values: [Double], _ p: Double) -> Double {
    precondition(!values.isEmpty && (0...1).contains(p), "quantile needs values and p in 0...1")
    let sorted = values.sorted()
    return sorted.withUnsafeBufferPointer { gsl_stats_quantile_from_sorted_data($0.baseAddress, 1, $0.count, p) }
  }
}
