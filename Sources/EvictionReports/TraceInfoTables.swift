import EvictionExperiments
import EvictionSim

/// `evlab trace-info`'s text for people and its JSON (`{"traces": [...]}`,
/// also the comparison's `traces.json`).
public enum TraceInfoTables {
  public static func json(_ infos: [TraceInfo]) -> String {
    "{\"traces\": [\n  " + infos.map(object).joined(separator: ",\n  ") + "\n]}\n"
  }

  /// One trace's object; strings escaped, ratios in shortest exact form.
  static func object(_ info: TraceInfo) -> String {
    func list(_ values: [Int64]) -> String { "[" + values.map(String.init).joined(separator: ", ") + "]" }
    let text = ReplayTables.jsonString
    let exact = ReplayTables.exact
    let percentiles = zip(TraceInfo.percentileLevels, info.sizePercentiles).map { "\"p\(Int($0))\": \($1)" }
    return """
      {"trace": \(text(info.trace)), "format": \(text(info.format)), "requests": \(info.requests), \
      "unique_objects": \(info.uniqueObjects), "bytes_requested": \(info.bytesRequested), \
      "footprint_bytes": \(info.footprintBytes), "one_hit_wonder_share": \(exact(info.oneHitWonderShare)), \
      "zipf_alpha": \(exact(info.zipfAlpha)), "zipf_r2": \(exact(info.zipfR2)), \
      "first_requests": \(info.firstRequests), "reuse_distance_log2_buckets": \(list(info.reuseDistanceBuckets)), \
      "stack_distance_log2_buckets": \(list(info.stackDistanceBuckets)), \
      "size_percentiles": {\(percentiles.joined(separator: ", "))}, \
      "first_time": \(info.firstTime), "last_time": \(info.lastTime), "time_span": \(info.timeSpan), \
      "time_span_overflows": \(info.timeSpanOverflows), \
      "suggested_sizes": \(list(info.suggestedSizes)), "suggested_byte_sizes": \(list(info.suggestedByteSizes)), \
      "skipped_bad_lines": \(info.skipped.count), "gets": \(info.gets), "sets": \(info.sets), \
      "deletes": \(info.deletes), "requests_with_ttl": \(info.requestsWithTtl), "ttl_min": \(info.ttlMin), \
      "ttl_mean": \(exact(info.ttlMean)), "ttl_max": \(info.ttlMax), "digest": \(text(info.digest))}
      """
  }

  public static func text(_ infos: [TraceInfo]) -> String {
    func rounded(_ x: Double, _ digits: Double) -> String { String((x * digits).rounded() / digits) }
    return infos.map { info in
      var operations = ""
      let zeroSize = info.skipped.zeroSizeWrites
      if info.sets + info.deletes + Int64(zeroSize.sets + zeroSize.deletes) > 0 || info.requestsWithTtl > 0 {
        operations = "  gets \(info.gets), sets \(info.sets), deletes \(info.deletes)"
        if zeroSize.sets + zeroSize.deletes > 0 {
          // Skipped as libCacheSim skips zero-size requests; key-value
          // semantics apply them, so the trace holds them all the same.
          operations +=
            " (and \(zeroSize.sets) set\(zeroSize.sets == 1 ? "" : "s") and \(zeroSize.deletes) delete\(zeroSize.deletes == 1 ? "" : "s") of 0 bytes, skipped as zero-size requests; --semantics kv applies them)"
        }
        if info.requestsWithTtl > 0 {
          operations +=
            "; TTLs on \(info.requestsWithTtl) request\(info.requestsWithTtl == 1 ? "" : "s"): min \(info.ttlMin) s, mean \(rounded(info.ttlMean, 10)) s, "
            + "max \(info.ttlMax) s"
        }
        operations += "\n"
      }
      return """
        \(info.trace) (\(info.format))
          requests \(info.requests), unique objects \(info.uniqueObjects), one-hit wonders \(rounded(info.oneHitWonderShare * 100, 10))%
          bytes requested \(info.bytesRequested), footprint \(info.footprintBytes) bytes
          Zipf alpha \(rounded(info.zipfAlpha, 100)) (R² \(rounded(info.zipfR2, 100))), time span \(info.timeSpanOverflows ? "past 2⁶³−1" : String(info.timeSpan)) s
          object sizes p50 \(info.sizePercentiles[2]), p90 \(info.sizePercentiles[4]), max \(info.sizePercentiles[6])
          sizes to sweep: \(info.suggestedSizes.map(String.init).joined(separator: ",")) (count); \
        \(info.suggestedByteSizes.map(String.init).joined(separator: ",")) (bytes)
        \(operations)
        """
    }.joined()
  }
}
