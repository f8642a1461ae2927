import EvictionCore
import EvictionTraces
import Foundation

/// A cache size as written: absolute (objects in count mode, bytes in byte
/// mode) or a share of each trace's footprint (its distinct objects, or their
/// bytes). One grammar for every command and configuration:
///
/// - `5000`, `64k`, `16m`, `1g`, `1t`: absolute; suffixes are powers of 1024,
///   as in libCacheSim (`16m` = 16777216).
/// - `1%`, `0.1%`: a share of the footprint; also written as a fraction,
///   `0.01`, as libCacheSim writes it (a number with a decimal point, above 0
///   and at most 1).
/// - `A..B:logN`: N sizes spaced evenly on a log scale from A to B (both
///   absolute or both shares).
/// - `auto`: libCacheSim's set, 0.1%, 0.3%, 1%, 3%, 10%, 20%, 40% and 80% of
///   the footprint.
/// - Any comma-separated mix of these.
public enum CacheSize: Sendable, Hashable, CustomStringConvertible {
  case absolute(Int64)
  case fraction(Double)

  /// libCacheSim's `auto` sizes, as shares of the footprint.
  public static let auto: [CacheSize] = [0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.4, 0.8].map { .fraction($0) }

  /// What the grammar looks like, for errors.
  /// The most sizes one range gives.
  public static let maximumRangePoints = 10_000

  public static let grammar = "write e.g. 5000, 64m, 1%, 0.01, 100..100000:log20 or auto"

  /// Parses one size (no list, no range).
  public init(_ text: String) throws(SizeError) {
    let t = text.trimmingCharacters(in: .whitespaces).lowercased()
    if t.hasSuffix("%") {
      guard let percent = Double(t.dropLast()), percent > 0, percent <= 100 else {
        throw SizeError(
          "size '\(text)': a share of the footprint is written like 0.1%, 1% or 10% (above 0, at most 100)")
      }
      self = .fraction(Self.fraction(percent: String(t.dropLast()), value: percent))
      return
    }
    if t.contains(".") {
      guard let fraction = Double(t), fraction > 0, fraction <= 1 else {
        throw SizeError(
          "size '\(text)': a number with a decimal point is a fraction of the footprint, above 0 and at most 1 (0.01 is 1%); \(Self.grammar)"
        )
      }
      self = .fraction(fraction)
      return
    }
    switch Self.parseAbsolute(t) {
    case .size(let value) where value > PolicySpec.maximumCapacity: throw Self.pastTheLargest(text)
    case .size(let value) where value > 0: self = .absolute(value)
    case .size: throw SizeError("size '\(text)' is zero; a cache needs a positive size")
    case .tooLarge: throw Self.pastTheLargest(text)
    case .notANumber: throw SizeError("size '\(text)' is not a size; \(Self.grammar)")
    }
  }

  /// Parses a list: comma-separated sizes, ranges and `auto`, in order, each
  /// size once (the first time it appears).
  public static func list(_ text: String) throws(SizeError) -> [CacheSize] {
    var out: [CacheSize] = []
    for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
      let item = piece.trimmingCharacters(in: .whitespaces)
      guard !item.isEmpty else { throw SizeError("sizes '\(text)' have an empty item; \(grammar)") }
      for size in try expand(item) where !out.contains(size) { out.append(size) }
    }
    return out
  }

  /// The error for a size past ``EvictionCore/PolicySpec/maximumCapacity``.
  static func pastTheLargest(_ text: String) -> SizeError {
    SizeError(
      "size '\(text)' is past the largest cache evlab builds, 2⁵⁶ (\(PolicySpec.maximumCapacity)); give a smaller size")
  }

  /// One item of a list: a size, a range or `auto`.
  static func expand(_ item: String) throws(SizeError) -> [CacheSize] {
    if item.lowercased() == "auto" { return auto }
    guard let dots = item.range(of: "..") else { return [try CacheSize(item)] }
    let rest = item[dots.upperBound...]
    guard let colon = rest.firstIndex(of: ":"), rest[rest.index(after: colon)...].lowercased().hasPrefix("log"),
      let n = Int(rest[rest.index(after: colon)...].dropFirst(3)), n >= 2
    else {
      throw SizeError(
        "sizes '\(item)': a range is A..B:logN (N ≥ 2 sizes from A to B, e.g. 100..100000:log20 or 0.1%..80%:log8)")
    }
    // More points than any sweep runs would only ask for memory (log99999999999 asked for 800 GB).
    guard n <= Self.maximumRangePoints else {
      throw SizeError(
        "sizes '\(item)': \(n) points; a range gives at most \(Self.maximumRangePoints) (e.g. 100..100000:log20)")
    }
    let low = try CacheSize(String(item[..<dots.lowerBound]))
    let high = try CacheSize(String(rest[..<colon]))
    switch (low, high) {
    case (.absolute(let a), .absolute(let b)) where b > a:
      // Whole sizes: steps that round onto one size would run it twice.
      let sizes = logSpaced(Double(a), Double(b), n).map { CacheSize.absolute(Int64($0.rounded())) }
      guard sizes.uniqued().count == n else {
        throw SizeError(
          "sizes '\(item)': \(n) log-spaced whole sizes from \(a) to \(b) round onto \(sizes.uniqued().count) distinct "
            + "sizes; ask for fewer points or a wider range")
      }
      return sizes
    case (.fraction(let a), .fraction(let b)) where b > a:
      return logSpaced(a, b, n).map { .fraction($0) }
    case (.absolute, .absolute), (.fraction, .fraction):
      throw SizeError("sizes '\(item)': a range A..B:logN goes from a smaller size A to a larger B")
    default:
      throw SizeError("sizes '\(item)': both ends of a range are absolute (100..5000) or both shares (1%..50%)")
    }
  }

  static func logSpaced(_ low: Double, _ high: Double, _ n: Int) -> [Double] {
    (0..<n).map { low * pow(high / low, Double($0) / Double(n - 1)) }
  }

  public enum Parsed: Equatable {
    case size(Int64)
    case notANumber
    case tooLarge
  }

  /// A non-negative integer with an optional binary suffix `k`, `m`, `g`
  /// or `t` (powers of 1024, as in libCacheSim: `16m` = 16777216).
  public static func parseAbsolute(_ text: String) -> Parsed {
    let multipliers: [Character: Int64] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40]
    var digits = Substring(text.lowercased().trimmingCharacters(in: .whitespaces))
    var multiplier: Int64 = 1
    if let last = digits.last, let m = multipliers[last] {
      multiplier = m
      digits = digits.dropLast()
    }
    guard let value = Int64(digits), value >= 0 else {
      // Digits alone that Int64 cannot hold: a number, past the largest size.
      return !digits.isEmpty && digits.allSatisfy({ $0.isASCII && $0.isNumber }) ? .tooLarge : .notANumber
    }
    let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
    return overflow ? .tooLarge : .size(product)
  }

  /// Whether the size depends on the trace (a share of its footprint).
  public var isShare: Bool {
    if case .fraction = self { return true }
    return false
  }

  /// The share `text`% as the fraction libCacheSim reads from the same
  /// decimal (`0.1%` is the double nearest 0.001, as `atof("0.001")`, not
  /// 0.1 / 100, which is one unit in the last place away), so that a cache
  /// size truncated from it is libCacheSim's.
  static func fraction(percent text: String, value: Double) -> Double {
    let digits = text.split(separator: ".", omittingEmptySubsequences: false)
    guard digits.count <= 2, digits.allSatisfy({ $0.allSatisfy(\.isNumber) }), !digits[0].isEmpty else {
      return value / 100
    }
    let whole = String(repeating: "0", count: max(0, 3 - digits[0].count)) + digits[0]
    let shifted = whole.dropLast(2) + "." + whole.suffix(2) + (digits.count == 2 ? digits[1] : "")
    return Double(String(shifted)) ?? value / 100
  }

  /// The label rows carry (`size_label`): the size as written.
  public var description: String {
    switch self {
    case .absolute(let n): String(n)
    case .fraction(let f): Self.percent(f)
    }
  }

  static func percent(_ f: Double) -> String {
    let p = f * 100
    var text = String(format: "%.4g", p)
    if text.contains("e") { text = String(p) }
    return text + "%"
  }

  /// The cache size for a trace with `info`'s footprint.
  public func resolve(_ info: TraceInfo, sizeMode: SizeMode) -> Int64 {
    resolve(footprint: sizeMode == .count ? Int64(info.uniqueObjects) : info.footprintBytes)
  }

  /// The cache size for a footprint of `footprint` objects or bytes: a
  /// share is truncated, as libCacheSim truncates it (`0.1%` of 143,542
  /// objects is 143 in both), and is at least 1.
  public func resolve(footprint: Int64) -> Int64 {
    switch self {
    case .absolute(let n): return n
    case .fraction(let f): return max(1, Int64(Double(footprint) * f))
    }
  }

  /// `sizes` resolved against `trace` in `sizeMode`, in the order given:
  /// absolute sizes as they are; shares measured against the trace's
  /// footprint (one pass over it that counts distinct objects and their
  /// bytes, only if a share is given: ``TraceInfo/footprint(_:)``). Sizes that
  /// resolve to one cache size (`1%` and `5` on a trace of 500 objects, or
  /// all of `auto` on a handful) are refused: each row would be the same
  /// cache under another label.
  public static func resolve(
    _ sizes: [CacheSize], for trace: TraceSource, sizeMode: SizeMode
  ) throws(TraceError) -> [Int64] {
    try resolveMeasuring(sizes, for: trace, sizeMode: sizeMode).sizes
  }

  /// ``resolve(_:for:sizeMode:)``, and the footprint the shares were taken
  /// of (distinct objects, or their bytes, as `sizeMode`): nil when every
  /// size was absolute, so the trace was not read to measure it.
  public static func resolveMeasuring(
    _ sizes: [CacheSize], for trace: TraceSource, sizeMode: SizeMode
  ) throws(TraceError) -> (sizes: [Int64], footprint: Int64?) {
    var measured: (objects: Int, bytes: Int64)?
    if sizes.contains(where: \.isShare) { measured = try TraceInfo.footprint(trace) }
    let total = measured.map { sizeMode == .count ? Int64($0.objects) : $0.bytes } ?? 0
    let resolved = sizes.map { $0.resolve(footprint: total) }
    if let same = coinciding(resolved).first {
      let names = same.map { sizes[$0].description }
      let footprint = measured == nil ? "?" : sizeMode == .count ? "\(total) objects" : "\(total) bytes"
      throw .invalidOption(
        "sizes \(names.dropLast().joined(separator: ", ")) and \(names.last!) \(names.count == 2 ? "both" : "all") come to \(resolved[same[0]]) on "
          + "\(trace.name), whose footprint is \(footprint): each would be the same cache; give sizes that differ on "
          + "this trace (absolute sizes, or fewer points in a range)")
    }
    return (resolved, measured == nil ? nil : total)
  }

  /// The positions of `resolved` that hold one value, in groups of two or
  /// more (each group in order, groups by their first position).
  public static func coinciding(_ resolved: [Int64]) -> [[Int]] {
    var groups: [Int64: [Int]] = [:]
    for (i, size) in resolved.enumerated() { groups[size, default: []].append(i) }
    return groups.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
  }
}

/// A size the grammar does not accept.
public struct SizeError: Error, CustomStringConvertible, Equatable {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

extension Array where Element: Hashable {
  func uniqued() -> [Element] {
    var seen = Set<Element>()
    return filter { seen.insert($0).inserted }
  }
}
