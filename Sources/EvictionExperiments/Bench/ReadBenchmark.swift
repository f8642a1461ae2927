import EvictionCache
import EvictionSim
import EvictionStats
import EvictionTraces

/// `evlab bench read`: how fast the request pipeline streams a trace from
/// the page cache (decompression included): one warm-up pass, then `rounds`
/// timed passes.
public enum ReadBenchmark {
  public struct Row: Codable, Sendable, Equatable {
    public var trace: String
    public var records: Int64
    public var medianRecordsPerSecond: Double
    public var minRecordsPerSecond: Double
    public var maxRecordsPerSecond: Double
  }

  public static func run(_ source: TraceSource, rounds: Int) throws(BenchError) -> Row {
    var rates: [Double] = []
    var records: Int64 = 0
    for round in 0...rounds {
      let start = monotonicNanoseconds()
      var count: Int64 = 0
      do throws(TraceError) {
        // The reader is opaque to the optimiser: counting is enough to keep every batch read.
        try source.forEachBatch { batch, _ in count &+= Int64(batch.count) }
      } catch { throw BenchError(error) }
      let seconds = Double(monotonicNanoseconds() - start) / 1e9
      // A trace with no records has no reading rate to report.
      guard count > 0 else { throw BenchError(TraceError.emptyTrace(path: source.path)) }
      if round > 0 { rates.append(Double(count) / seconds) }  // round 0 warms the page cache
      records = count
    }
    let s = SampleSummary(rates)
    return Row(
      trace: source.name, records: records, medianRecordsPerSecond: s.median,
      minRecordsPerSecond: s.minimum, maxRecordsPerSecond: s.maximum)
  }
}
