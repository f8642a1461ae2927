import CGSL

/// Whether a benchmark got slower: two samples of throughputs (higher is
/// better) compared by Welch's t-test (unequal variances, GSL's t
/// distribution) and by the change of the median. A regression needs both:
/// a difference the test finds unlikely under noise (p below `alpha`) and a
/// drop of at least `minimumEffect` of the baseline's median, so that a
/// real but negligible change, or a large but noisy one, is not called.
public struct ThroughputComparison: Sendable, Equatable {
  public enum Verdict: String, Sendable {
    case regression, improvement, unchanged
  }

  public let baselineMedian: Double
  public let currentMedian: Double
  /// current / baseline − 1 of the medians (−0.1: ten percent slower).
  public let change: Double
  public let t: Double
  public let degreesOfFreedom: Double
  /// Two-sided p-value of Welch's test.
  public let p: Double
  public let verdict: Verdict

  public init(baseline: [Double], current: [Double], alpha: Double = 0.01, minimumEffect: Double = 0.05) {
    precondition(baseline.count >= 2 && current.count >= 2, "Welch's test needs at least two runs on each side")
    let b = SampleSummary(baseline)
    let c = SampleSummary(current)
    baselineMedian = b.median
    currentMedian = c.median
    change = b.median > 0 ? c.median / b.median - 1 : 0
    let welch = Self.welch(baseline, current)
    t = welch.t
    degreesOfFreedom = welch.df
    p = welch.p
    if p < alpha && change <= -minimumEffect {
      verdict = .regression
    } else if p < alpha && change >= minimumEffect {
      verdict = .improvement
    } else {
      verdict = .unchanged
    }
  }

  /// Welch's t statistic (mean of `b` minus mean of `a`), the
  /// Welch–Satterthwaite degrees of freedom, and the two-sided p-value.
  public static func welch(_ a: [Double], _ b: [Double]) -> (t: Double, df: Double, p: Double) {
    cgsl_disable_abort()
    let sa = SampleSummary(a)
    let sb = SampleSummary(b)
    let va = sa.standardDeviation * sa.standardDeviation / Double(a.count)
    let vb = sb.standardDeviation * sb.standardDeviation / Double(b.count)
    let se = (va + vb).squareRoot()
    guard se > 0 else {
      // No spread at all: identical means are no evidence, different ones are certain.
      return (
        sa.mean == sb.mean ? 0 : (sb.mean > sa.mean ? .infinity : -.infinity), Double(a.count + b.count - 2),
        sa.mean == sb.mean ? 1 : 0
      )
    }
    let t = (sb.mean - sa.mean) / se
    let df =
      (va + vb) * (va + vb)
      / (va * va / Double(a.count - 1) + vb * vb / Double(b.count - 1))
    let p = 2 * gsl_cdf_tdist_Q(abs(t), df)
    return (t, df, min(1, p))
  }
}
