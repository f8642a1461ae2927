import EvictionCache
import EvictionDisk
import Foundation
import Histogram

/// `evlab disk-bench`: the disk store's write, read-hit, read-miss and
/// delete cost per storage mode and value size, on a fresh store each.
public enum DiskBench {
  public enum Mode: String, Sendable, CaseIterable {
    case file, sqlite, mixed

    public var inlineThreshold: Int {
      switch self {
      case .file: DiskStore.filesOnly
      case .sqlite: DiskStore.sqliteOnly
      case .mixed: DiskStore.defaultInlineThreshold
      }
    }
  }

  public static let phases = ["write", "read-hit", "read-miss", "delete"]

  /// One (mode, value size, phase) cell; CSV/JSON keys are the snake_case names.
  public struct Result: Sendable, Codable, Equatable {
    public var mode: String
    public var valueSize: Int
    public var phase: String
    public var ops: Int
    public var seconds: Double
    public var opsPerSecond: Double
    public var megabytesPerSecond: Double
    public var p50Ns: UInt64
    public var p99Ns: UInt64
    public var p999Ns: UInt64
    public var maxNs: UInt64

    public static let columns = [
      "mode", "value_size", "phase", "ops", "seconds", "ops_per_second", "megabytes_per_second", "p50_ns", "p99_ns",
      "p999_ns", "max_ns",
    ]
  }

  /// Runs every phase for `mode` and `valueSize` with `ops` operations each,
  /// in a new store under `directory` (removed afterwards).
  public static func run(mode: Mode, valueSize: Int, ops: Int, directory: String) throws(DiskError) -> [Result] {
    let path = directory + "/\(mode.rawValue)-\(valueSize)-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let store = try DiskStore(directory: path, inlineThreshold: mode.inlineThreshold)
    defer { store.close() }
    let value = (0..<valueSize).map { UInt8(truncatingIfNeeded: $0 &* 131) }
    var order = Array(0..<ops)
    var generator = SplitMix(seed: UInt64(valueSize))
    order.shuffle(using: &generator)
    var results: [Result] = []
    func measure(_ phase: String, bytesPerOp: Int, _ body: (Int) throws(DiskError) -> Void) throws(DiskError) {
      var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
      let start = monotonicNanoseconds()
      for i in 0..<ops {
        let before = monotonicNanoseconds()
        try body(i)
        histogram.record(monotonicNanoseconds() &- before)
      }
      let seconds = Double(monotonicNanoseconds() &- start) / 1e9
      results.append(
        Result(
          mode: mode.rawValue, valueSize: valueSize, phase: phase, ops: ops, seconds: seconds,
          opsPerSecond: Double(ops) / seconds, megabytesPerSecond: Double(ops * bytesPerOp) / seconds / 1e6,
          p50Ns: histogram.valueAtPercentile(50), p99Ns: histogram.valueAtPercentile(99),
          p999Ns: histogram.valueAtPercentile(99.9), maxNs: histogram.max))
    }
    try measure("write", bytesPerOp: valueSize) { (i) throws(DiskError) in try store.set(value, forKey: "key-\(i)") }
    try measure("read-hit", bytesPerOp: valueSize) { (i) throws(DiskError) in
      guard try store.value(forKey: "key-\(order[i])")?.count == valueSize else {
        throw .corruptFile(path: path, reason: "key-\(order[i]) read back wrong during the benchmark")
      }
    }
    try measure("read-miss", bytesPerOp: 0) { (i) throws(DiskError) in _ = try store.value(forKey: "absent-\(i)") }
    try measure("delete", bytesPerOp: 0) { (i) throws(DiskError) in try store.removeValue(forKey: "key-\(order[i])") }
    return results
  }

  /// The smallest value size from which file-only beats SQLite-only in
  /// `phase` at that size and every larger one measured, or nil.
  public static func crossover(_ results: [Result], phase: String) -> Int? {
    let sizes = Array(Set(results.map(\.valueSize))).sorted()
    func rate(_ mode: Mode, _ size: Int) -> Double? {
      results.first { $0.mode == mode.rawValue && $0.valueSize == size && $0.phase == phase }?.opsPerSecond
    }
    var answer: Int? = nil
    for size in sizes.reversed() {
      guard let file = rate(.file, size), let sqlite = rate(.sqlite, size), file >= sqlite else { break }
      answer = size
    }
    return answer
  }

  /// Mixed mode's throughput over the better of file-only and SQLite-only, per size and phase.
  public static func mixedRatios(_ results: [Result]) -> [(size: Int, phase: String, ratio: Double)] {
    var out: [(Int, String, Double)] = []
    for size in Array(Set(results.map(\.valueSize))).sorted() {
      for phase in phases {
        func rate(_ mode: Mode) -> Double? {
          results.first { $0.mode == mode.rawValue && $0.valueSize == size && $0.phase == phase }?.opsPerSecond
        }
        guard let mixed = rate(.mixed), let file = rate(.file), let sqlite = rate(.sqlite) else { continue }
        out.append((size, phase, mixed / max(file, sqlite)))
      }
    }
    return out
  }
}

/// A small seeded generator for shuffles (SplitMix64).
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
