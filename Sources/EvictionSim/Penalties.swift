import EvictionCore
import EvictionTraces
import Foundation

/// What serving a request costs, on a hit and on a miss: the time to fetch
/// the object again (or to recompute it, or the money a request to the
/// origin costs). Miss ratios treat every miss alike; a cost-aware run
/// weighs each miss by its penalty, reports the totals (`total_penalty`,
/// `average_penalty`: Caffeine's simulator's measures) and hands each
/// request's miss penalty to the cost-aware policies (``CAMPPolicy``,
/// ``GDWheelPolicy``), which keep the objects that are dear to fetch.
///
/// | spelling | a miss costs | a hit costs |
/// | --- | --- | --- |
/// | `trace` | the trace's miss penalty for it | the trace's hit penalty for it |
/// | `constant:miss=M[,hit=H]` (or just `M`) | M | H (default 0) |
/// | `size:base=B,per-byte=P[,hit=H]` | B + P × the object's bytes | H (default 0) |
///
/// `trace` needs a format that carries penalties
/// (``EvictionTraces/TraceFormat/carriesPenalties``: `address-penalties`).
/// The size model reads each record's size in bytes in either size mode (1
/// where the format carries no sizes). Every value is a finite number from
/// 0 to 10^15, so no total can overflow.
public enum PenaltyModel: Sendable, Hashable, CustomStringConvertible {
  case trace
  case constant(miss: Double, hit: Double)
  case size(base: Double, perByte: Double, hit: Double)

  /// The largest value a model takes.
  public static let largest = 1e15

  /// Reads a model as `--penalty` spells it (the table above).
  public init(parsing text: String) throws(TraceError) {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let usage =
      "use trace (the trace's own penalties), constant:miss=M[,hit=H] (or just M) or size:base=B,per-byte=P[,hit=H]"
    if let miss = Double(trimmed) {
      self = .constant(miss: try Self.value(miss, "the miss penalty", text), hit: 0)
      return
    }
    let (name, rest) = trimmed.split(separator: ":", maxSplits: 1).map(String.init).splitFirst()
    var values: [String: Double] = [:]
    for pair in (rest ?? "").split(separator: ",", omittingEmptySubsequences: false) where rest != nil {
      let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      guard parts.count == 2, !parts[0].isEmpty else {
        throw .invalidOption("penalty model '\(text)': '\(pair)' is not key=value; \(usage)")
      }
      guard values[parts[0].lowercased()] == nil else {
        throw .invalidOption("penalty model '\(text)' gives \(parts[0]) twice; give it once")
      }
      guard let number = Double(parts[1]) else {
        throw .invalidOption("penalty model '\(text)': \(parts[0]) '\(parts[1])' is not a number")
      }
      values[parts[0].lowercased()] = try Self.value(number, parts[0], text)
    }
    func take(_ keys: [String], required: [String]) throws(TraceError) -> [String: Double] {
      if let unknown = values.keys.sorted().first(where: { !keys.contains($0) }) {
        throw .invalidOption(
          "penalty model '\(text)': \(name.lowercased()) takes \(keys.joined(separator: ", ")), not \(unknown)")
      }
      if let missing = required.first(where: { values[$0] == nil }) {
        throw .invalidOption("penalty model '\(text)' needs \(missing)=N; \(usage)")
      }
      return values
    }
    switch name.lowercased() {
    case "trace":
      _ = try take([], required: [])
      self = .trace
    case "constant":
      let v = try take(["miss", "hit"], required: ["miss"])
      self = .constant(miss: v["miss"]!, hit: v["hit"] ?? 0)
    case "size":
      let v = try take(["base", "per-byte", "hit"], required: ["per-byte"])
      self = .size(base: v["base"] ?? 0, perByte: v["per-byte"]!, hit: v["hit"] ?? 0)
    default:
      throw .invalidOption("penalty model '\(text)' is unknown: \(usage)")
    }
  }

  static func value(_ number: Double, _ name: String, _ text: String) throws(TraceError) -> Double {
    guard number.isFinite, number >= 0, number <= largest else {
      throw .invalidOption("penalty model '\(text)': \(name) must be a number from 0 to 1e15")
    }
    return number
  }

  /// The canonical spelling, as rows' `penalty_model` carries it.
  public var description: String {
    switch self {
    case .trace: return "trace"
    case .constant(let miss, let hit): return "constant:miss=\(Self.number(miss)),hit=\(Self.number(hit))"
    case .size(let base, let perByte, let hit):
      return "size:base=\(Self.number(base)),per-byte=\(Self.number(perByte)),hit=\(Self.number(hit))"
    }
  }

  static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }

  /// What `record` costs on a hit and on a miss, `traced` being what its
  /// trace says it costs (``PenaltySchedule``; read only by `trace`).
  @inlinable
  public func penalties(of record: TraceRecord, traced: (hit: Float, miss: Float)) -> (hit: Double, miss: Double) {
    switch self {
    case .trace: return (Double(traced.hit), Double(traced.miss))
    case .constant(let miss, let hit): return (hit, miss)
    case .size(let base, let perByte, let hit): return (hit, base + perByte * Double(record.size))
    }
  }

  /// Refuses `trace` for a trace whose format carries no penalties.
  public func check(_ trace: TraceSource) throws(TraceError) {
    guard self == .trace, !trace.format.carriesPenalties else { return }
    let carrying = TraceFormat.all.filter(\.carriesPenalties).map(\.rawValue).joined(separator: ", ")
    throw .invalidOption(
      "penalty model trace reads each request's penalties from the trace, and \(trace.name) (\(trace.format)) "
        + "carries none (formats that do: \(carrying)); give constant:miss=M or size:base=B,per-byte=P instead")
  }
}

extension Array where Element == String {
  /// The first element and the second, if any (`name:rest`).
  fileprivate func splitFirst() -> (String, String?) { (first ?? "", count > 1 ? self[1] : nil) }
}

/// What each request of one replay costs: a model, and for `trace` the
/// trace's own penalties, read once before the replay by the format's
/// penalty reader (``EvictionTraces/TraceFormatDefinition/penaltyReader(_:)``),
/// 8 bytes a request of one copy, so that records themselves stay as small
/// as every other replay needs them.
public struct PenaltySchedule: Sendable {
  public let model: PenaltyModel
  /// The trace's penalties, packed (``EvictionTraces/TracePenalty``), one per
  /// request of one copy; empty unless the model is `trace`.
  @usableFromInline let traced: [UInt64]

  /// The schedule of `model` over `trace`; refuses `trace` for a format
  /// without penalties.
  public init(_ model: PenaltyModel, over trace: TraceSource) throws(TraceError) {
    try model.check(trace)
    self.model = model
    guard model == .trace,
      let reader = try openPenalties(
        trace.path, format: trace.format, csv: trace.csv, skipBadRecords: trace.skipBadRecords)
    else {
      traced = []
      return
    }
    traced = try reader.readAll().map(\.key)
  }

  /// What the request at `index` of its copy (0-based), `record`, costs.
  @inlinable
  public func penalties(of record: TraceRecord, at index: Int64) throws(TraceError) -> (hit: Double, miss: Double) {
    guard model == .trace else { return model.penalties(of: record, traced: (0, 0)) }
    guard index >= 0 && index < traced.count else {
      throw .invalidOption("the trace changed while it was read: request \(index + 1) has no penalty")
    }
    return model.penalties(of: record, traced: TracePenalty.unpacked(traced[Int(index)]))
  }
}

/// The penalties a replay's counted requests paid: hits at their hit
/// penalty, misses at their miss penalty (``PenaltyModel``).
public struct PenaltyTotals: Sendable, Equatable {
  public var model: PenaltyModel
  public var hit: Double = 0
  public var miss: Double = 0
  public init(model: PenaltyModel) { self.model = model }
  /// Every counted request's penalty.
  public var total: Double { hit + miss }

  /// Adds a request's penalty as a hit or a miss.
  @inlinable
  public mutating func add(_ cost: (hit: Double, miss: Double), hit: Bool) {
    if hit { self.hit += cost.hit } else { miss += cost.miss }
  }
}
