import EvictionSim
import EvictionStats

/// How policies do across many traces, as today's papers report it (S3-FIFO,
/// SOSP'23; SIEVE, NSDI'24): per trace and size, a policy's miss-ratio
/// reduction from FIFO, (mr_FIFO − mr_X) / mr_FIFO (and from LRU); per
/// policy and size, the distribution of those reductions over the traces,
/// the share of traces where the policy is best, and its worst regression
/// against FIFO; the same per dataset.
///
/// Only contenders count: online, capacity-bound, not models of shipped
/// caches. An offline bound gets its reductions (it shows the headroom) but
/// is never called best. A trace where FIFO (or LRU) misses nothing has no
/// reduction from it.
public enum AcrossTraces {
  /// `(reference − x) / reference`, or nil when the reference misses nothing.
  public static func reduction(_ missRatio: Double, from reference: Double) -> Double? {
    reference > 0 ? (reference - missRatio) / reference : nil
  }

  /// `rows` with their reductions from FIFO and LRU filled in (each row
  /// against the `fifo` and `lru` rows without admission of its trace and size).
  public static func withReductions(_ rows: [CompareRow]) -> [CompareRow] {
    struct Cell: Hashable {
      var trace: String
      var size: String
    }
    var fifo: [Cell: Double] = [:]
    var lru: [Cell: Double] = [:]
    for row in rows where row.admission == "none" {
      let cell = Cell(trace: row.trace, size: row.sizeLabel)
      if row.policy == "fifo" { fifo[cell] = row.missRatio }
      if row.policy == "lru" { lru[cell] = row.missRatio }
    }
    return rows.map { row in
      var row = row
      let cell = Cell(trace: row.trace, size: row.sizeLabel)
      let ranked = row.isContender || row.offline
      row.fields.reductionFromFifo = ranked ? fifo[cell].flatMap { reduction(row.missRatio, from: $0) } : nil
      row.fields.reductionFromLru = ranked ? lru[cell].flatMap { reduction(row.missRatio, from: $0) } : nil
      return row
    }
  }

  /// One policy at one size over a set of traces (all of them, or one dataset's).
  public struct Summary: Sendable, Codable, Equatable {
    public var policy: String
    public var sizeLabel: String
    /// `all`, or the dataset the traces come from.
    public var dataset: String
    /// Traces with a reduction from FIFO.
    public var traces: Int
    public var meanReduction: Double?
    public var medianReduction: Double?
    public var p5Reduction: Double?
    public var p25Reduction: Double?
    public var p75Reduction: Double?
    public var p95Reduction: Double?
    public var meanReductionFromLru: Double?
    /// The share of traces where the policy missed least among the
    /// contenders; `k` policies tied on a trace get `1/k` each.
    public var bestShare: Double?
    /// The largest relative increase in miss ratio over FIFO on any trace,
    /// (mr_X − mr_FIFO) / mr_FIFO, or 0 when the policy never missed more.
    public var worstRegressionVsFifo: Double?
    public var offline: Bool

    public static let columns = [
      "policy", "size_label", "dataset", "traces", "mean_reduction", "median_reduction", "p5_reduction",
      "p25_reduction", "p75_reduction", "p95_reduction", "mean_reduction_from_lru", "best_share",
      "worst_regression_vs_fifo", "offline",
    ]
  }

  /// Per policy label and size, over all traces and then per dataset (in
  /// the order datasets first appear); policies in `labels` order, sizes in
  /// `sizes` order. `rows` must carry their reductions (``withReductions(_:)``).
  public static func summaries(
    _ rows: [CompareRow], labels: [String], sizes: [String], datasets: [String: String]
  ) -> [Summary] {
    var order: [String] = []
    for row in rows {
      let dataset = datasets[row.trace] ?? ""
      if !order.contains(dataset) { order.append(dataset) }
    }
    var out: [Summary] = []
    for scope in ["all"] + (order.count > 1 ? order : []) {
      let scoped = scope == "all" ? rows : rows.filter { datasets[$0.trace] == scope }
      for size in sizes {
        let atSize = scoped.filter { $0.sizeLabel == size }
        let best = bestShares(atSize)
        for label in labels {
          let mine = atSize.filter { $0.label == label && ($0.isContender || $0.offline) }
          guard let first = mine.first else { continue }
          let fromFIFO = mine.compactMap(\.reductionFromFifo)
          let fromLRU = mine.compactMap(\.reductionFromLru)
          func q(_ p: Double) -> Double? { fromFIFO.isEmpty ? nil : SampleSummary.quantile(fromFIFO, p) }
          // best_share counts the traces the other columns count (those with a reduction).
          let counted = mine.filter { $0.reductionFromFifo != nil }.map(\.trace)
          let won = counted.reduce(0.0) { $0 + (best[$1]?[label] ?? 0) }
          out.append(
            Summary(
              policy: label, sizeLabel: size, dataset: scope, traces: fromFIFO.count,
              meanReduction: fromFIFO.isEmpty ? nil : fromFIFO.reduce(0, +) / Double(fromFIFO.count),
              medianReduction: q(0.5), p5Reduction: q(0.05), p25Reduction: q(0.25), p75Reduction: q(0.75),
              p95Reduction: q(0.95),
              meanReductionFromLru: fromLRU.isEmpty ? nil : fromLRU.reduce(0, +) / Double(fromLRU.count),
              bestShare: first.offline || counted.isEmpty ? nil : won / Double(counted.count),
              worstRegressionVsFifo: fromFIFO.min().map { $0 < 0 ? -$0 : 0 }, offline: first.offline))
        }
      }
    }
    return out
  }

  /// Per trace and label (at one size): 1 where the label missed least
  /// among the contenders, a tie of k counting 1/k to each.
  static func bestShares(_ rows: [CompareRow]) -> [String: [String: Double]] {
    // Traces in the rows' order, so the sums (and the bytes written) are the same every run.
    var traces: [String] = []
    var byTrace: [String: [CompareRow]] = [:]
    for row in rows where row.isContender {
      if byTrace[row.trace] == nil { traces.append(row.trace) }
      byTrace[row.trace, default: []].append(row)
    }
    var shares: [String: [String: Double]] = [:]
    for trace in traces {
      let group = byTrace[trace]!
      // Where every contender missed every request, none is best.
      guard let least = group.map(\.missRatio).min(), group.contains(where: { $0.hits > 0 }) else { continue }
      let winners = group.filter { $0.missRatio == least }
      for winner in winners { shares[trace, default: [:]][winner.label, default: 0] += 1 / Double(winners.count) }
    }
    return shares
  }
}
