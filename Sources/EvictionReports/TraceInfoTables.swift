import EvictionSim

/// `evlab trace-info`'s text for people.
public enum TraceInfoTables {
  public static func text(_ infos: [TraceInfo]) -> String {
    func rounded(_ x: Double, _ digits: Double) -> String { String((x * digits).rounded() / digits) }
    return infos.map { info in
      """
      \(info.trace) (\(info.format))
        requests \(info.requests), unique objects \(info.uniqueObjects), one-hit wonders \(rounded(info.oneHitWonderShare * 100, 10))%
        bytes requested \(info.bytesRequested), footprint \(info.footprintBytes) bytes
        Zipf alpha \(rounded(info.zipfAlpha, 100)) (R² \(rounded(info.zipfR2, 100))), time span \(info.lastTime - info.firstTime) s
        object sizes p50 \(info.sizePercentiles[2]), p90 \(info.sizePercentiles[4]), max \(info.sizePercentiles[6])
        sizes to sweep: \(info.suggestedSizes.map(String.init).joined(separator: ",")) (count); \
      \(info.suggestedByteSizes.map(String.init).joined(separator: ",")) (bytes)

      """
    }.joined()
  }
}
