import CGSL
#if canImport(Glibc)
  import Glibc
#endif
import EvictionStats

/// Synthetic request streams, reproducible from a seed (GSL's MT19937).
///
/// - `zipf`: object ranks drawn from a Zipf(α) popularity over `objects`
///   (Walker's alias table via `gsl_ran_discrete`, O(1) per draw);
/// - `uniform`: every object equally likely;
/// - `loop`: objects 0, 1, …, objects−1, 0, 1, … (cyclic);
/// - `scan`: objects requested once each, in order, never again;
/// - `zipf-scan`: Zipf(α), with a one-time scan of `scanLength` new objects
///   every `scanEvery` requests (where LRU collapses and ARC shines).
public struct SyntheticWorkload: Sendable {
  public enum Kind: String, Sendable, CaseIterable {
    case zipf, uniform, loop, scan
    case zipfScan = "zipf-scan"
  }

  public var kind: Kind
  public var objects: Int
  public var requests: Int
  public var alpha: Double = 0.9
  public var seed: UInt64 = 1
  /// Every object's size in bytes.
  public var objectSize: Int64 = 4096
  public var scanEvery: Int = 50_000
  public var scanLength: Int = 5_000

  public init(kind: Kind, objects: Int, requests: Int) {
    self.kind = kind
    self.objects = objects
    self.requests = requests
  }

  /// The requests, with timestamps of one per 1000 requests and next-access fields filled.
  public func generate() -> [TraceRecord] {
    cgsl_disable_abort()
    let rng = gsl_rng_alloc(cgsl_rng_mt19937())!
    defer { gsl_rng_free(rng) }
    gsl_rng_set(rng, UInt(truncatingIfNeeded: seed))
    var records: [TraceRecord] = []
    records.reserveCapacity(requests)
    func record(_ key: UInt64) -> TraceRecord {
      TraceRecord(key: key, size: objectSize, time: Int64(records.count / 1000))
    }
    switch kind {
    case .loop:
      for i in 0..<requests { records.append(record(UInt64(i % objects))) }
    case .scan:
      for i in 0..<requests { records.append(record(UInt64(i))) }
    case .uniform:
      for _ in 0..<requests { records.append(record(UInt64(gsl_rng_uniform_int(rng, UInt(objects))))) }
    case .zipf, .zipfScan:
      let weights = (1...objects).map { 1 / pow(Double($0), alpha) }
      let table = weights.withUnsafeBufferPointer { gsl_ran_discrete_preproc($0.count, $0.baseAddress) }!
      defer { gsl_ran_discrete_free(table) }
      var nextScanKey = UInt64(objects)
      while records.count < requests {
        if kind == .zipfScan && records.count > 0 && records.count % scanEvery == 0 {
          for _ in 0..<min(scanLength, requests - records.count) {
            records.append(record(nextScanKey))
            nextScanKey += 1
          }
          if records.count >= requests { break }
        }
        records.append(record(UInt64(gsl_ran_discrete(rng, table))))
      }
    }
    fillNextAccess(&records)
    return records
  }
}
