import EvictionStats
import Testing

@Suite struct ThroughputComparisonTests {
  // Reference values from SciPy 1.17 (scipy.stats.ttest_ind(current, baseline, equal_var=False)).
  @Test func welchMatchesScipy() {
    let baseline = [100.0, 102, 98, 101, 99]
    let slower = [90.0, 91.5, 89, 92, 90.5]
    let w = ThroughputComparison.welch(baseline, slower)
    #expect(abs(w.t - -10.609453782082293) < 1e-9)
    #expect(abs(w.df - 7.441769190127557) < 1e-9)
    #expect(abs(w.p - 9.320503881903508e-06) / 9.320503881903508e-06 < 1e-6)
    let noise = ThroughputComparison.welch(
      [10.1, 9.7, 10.4, 10.0, 9.9, 10.2, 9.8], [10.0, 10.3, 9.6, 10.1, 10.2, 9.9, 10.05])
    #expect(abs(noise.t - 0.05707301455354184) < 1e-9 && abs(noise.p - 0.9554296655543159) < 1e-9)
  }

  @Test func aRegressionNeedsSignificanceAndSize() {
    let baseline = [100.0, 102, 98, 101, 99]
    // Ten percent slower, clearly: a regression.
    let slower = ThroughputComparison(baseline: baseline, current: [90, 91.5, 89, 92, 90.5])
    #expect(slower.verdict == .regression && abs(slower.change - -0.095) < 0.01)
    // Two percent slower, however certain: below the minimum effect.
    let slight = ThroughputComparison(baseline: baseline, current: [98, 100, 96, 99, 97.02])
    #expect(slight.verdict == .unchanged)
    // Ten percent slower in the median but buried in noise: not significant.
    let noisy = ThroughputComparison(baseline: [100, 60, 140, 100, 100], current: [90, 50, 130, 90, 150])
    #expect(noisy.p > 0.01 && noisy.verdict == .unchanged)
    // Faster is reported as such, never as a regression.
    let faster = ThroughputComparison(baseline: baseline, current: [120, 121, 119, 122, 118])
    #expect(faster.verdict == .improvement)
    // Identical constant samples: no evidence either way.
    #expect(ThroughputComparison(baseline: [5, 5, 5], current: [5, 5, 5]).verdict == .unchanged)
  }
}
