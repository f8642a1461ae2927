import EvictionCache
import EvictionDisk
import EvictionRun
import EvictionSim
import EvictionTraces
import Foundation
import Histogram

/// `evlab disk-bench`: the disk store's write, read-hit, read-miss and
/// delete cost per storage mode and value size, on a fresh store each.
public enum DiskBench {
  public enum Mode: String, Sendable, CaseIterable {
    /// ``DiskStore`` with every value in a file, every value in SQLite, or
    /// inline up to a threshold.
    case file, sqlite, mixed
    /// ``PropertyListStore``'s serial design: one file rewritten per change;
    /// a write is timed until its rewrite is done (``PropertyListStore/flush()``).
    case plist

    /// The store's inline threshold in this mode; `mixed` is the one given.
    public func inlineThreshold(mixed: Int = DiskStore.defaultInlineThreshold) -> Int {
      switch self {
      case .file: DiskStore.filesOnly
      case .sqlite, .plist: DiskStore.sqliteOnly
      case .mixed: mixed
      }
    }
  }

  public static let phases = ["write", "read-hit", "read-miss", "delete"]

  /// One (mode, value size, phase) cell; CSV/JSON keys are the snake_case
  /// names. Over several rounds, each figure is the median of the rounds'
  /// (`max_ns` the largest).
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
    /// How many runs the figures summarise.
    public var rounds: Int = 1

    public static let columns = [
      "mode", "value_size", "phase", "ops", "seconds", "ops_per_second", "megabytes_per_second", "p50_ns", "p99_ns",
      "p999_ns", "max_ns", "rounds",
    ]

    /// The median of each figure over `runs` of one cell (the largest `maxNs`).
    static func median(of runs: [Result]) -> Result {
      func middle<T: Comparable>(_ values: [T]) -> T { values.sorted()[values.count / 2] }
      func middle(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let half = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2
      }
      var out = runs[0]
      out.seconds = middle(runs.map(\.seconds))
      out.opsPerSecond = middle(runs.map(\.opsPerSecond)).rounded()
      out.megabytesPerSecond = middle(runs.map(\.megabytesPerSecond))
      out.p50Ns = middle(runs.map(\.p50Ns))
      out.p99Ns = middle(runs.map(\.p99Ns))
      out.p999Ns = middle(runs.map(\.p999Ns))
      out.maxNs = runs.map(\.maxNs).max() ?? 0
      out.rounds = runs.count
      return out
    }
  }

  /// Operations per phase for `valueSize`: `ops`, capped at 256 MiB of
  /// values; in `plist` mode, where the n-th write rewrites n values, at
  /// 256 MiB of rewrites (√(2 · 256 MiB / size) writes).
  public static func operations(_ ops: Int, valueSize: Int, mode: Mode = .file) -> Int {
    let size = max(1, valueSize)
    let cap = mode == .plist ? Int((2 * Double(256 << 20) / Double(size)).squareRoot()) : (256 << 20) / size
    return max(10, min(ops, cap))
  }

  /// Every mode at every value size, `rounds` times; each round runs the
  /// modes of a size back to back in an order rotated from round to round,
  /// so slow spells of the machine fall on every mode alike. Returns the
  /// per-cell medians, by size, then mode (as given), then phase.
  /// `progress` hears about each cell before it runs.
  public static func sweep(
    modes: [Mode], valueSizes: [Int], ops: Int, rounds: Int, directory: String,
    mixedThreshold: Int = DiskStore.defaultInlineThreshold,
    progress: (_ round: Int, _ mode: Mode, _ valueSize: Int, _ ops: Int) -> Void = { _, _, _, _ in }
  ) throws(DiskError) -> [Result] {
    var runs: [Int: [Mode: [[Result]]]] = [:]
    for round in 0..<max(1, rounds) {
      for size in valueSizes {
        for k in 0..<modes.count {
          let mode = modes[(k + round) % modes.count]
          let count = operations(ops, valueSize: size, mode: mode)
          progress(round, mode, size, count)
          runs[size, default: [:]][mode, default: []].append(
            try run(mode: mode, valueSize: size, ops: count, directory: directory, mixedThreshold: mixedThreshold))
        }
      }
    }
    var results: [Result] = []
    for size in valueSizes {
      for mode in modes {
        let perRound = runs[size]?[mode] ?? []
        for (p, _) in phases.enumerated() {
          results.append(Result.median(of: perRound.map { $0[p] }))
        }
      }
    }
    return results
  }

  /// Runs every phase for `mode` and `valueSize` with `ops` operations each,
  /// in a new store under `directory` (removed afterwards); the mixed mode
  /// keeps values up to `mixedThreshold` bytes inline.
  public static func run(
    mode: Mode, valueSize: Int, ops: Int, directory: String, mixedThreshold: Int = DiskStore.defaultInlineThreshold
  ) throws(DiskError) -> [Result] {
    let path = directory + "/\(mode.rawValue)-\(valueSize)-\(UUID().uuidString)"
    // Start from clean page cache state: without this, a cell pays for the
    // writeback (and freed-block discards) of the cells before it, which
    // slowed file creation here up to 40-fold.
    sync()
    let token = ScratchPaths.shared.register(path)
    defer {
      try? FileManager.default.removeItem(atPath: path)
      ScratchPaths.shared.unregister(token)
    }
    let store: any BenchedStore =
      mode == .plist
      ? try PlistBenched(directory: path)
      : try DiskStore(directory: path, inlineThreshold: mode.inlineThreshold(mixed: mixedThreshold))
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
          opsPerSecond: (Double(ops) / seconds).rounded(), megabytesPerSecond: Double(ops * bytesPerOp) / seconds / 1e6,
          p50Ns: histogram.valueAtPercentile(50), p99Ns: histogram.valueAtPercentile(99),
          p999Ns: histogram.valueAtPercentile(99.9), maxNs: histogram.max))
    }
    try measure("write", bytesPerOp: valueSize) { (i) throws(DiskError) in try store.write(value, forKey: "key-\(i)") }
    try measure("read-hit", bytesPerOp: valueSize) { (i) throws(DiskError) in
      guard try store.read("key-\(order[i])")?.count == valueSize else {
        throw .corruptFile(path: path, reason: "key-\(order[i]) read back wrong during the benchmark")
      }
    }
    try measure("read-miss", bytesPerOp: 0) { (i) throws(DiskError) in _ = try store.read("absent-\(i)") }
    try measure("delete", bytesPerOp: 0) { (i) throws(DiskError) in try store.delete("key-\(order[i])") }
    return results
  }

  /// The four operations the sweep times, on any store.
  protocol BenchedStore {
    func write(_ value: [UInt8], forKey key: String) throws(DiskError)
    func read(_ key: String) throws(DiskError) -> [UInt8]?
    func delete(_ key: String) throws(DiskError)
    func close()
  }

  /// A plist store in a folder of its own, a write done when its rewrite is.
  struct PlistBenched: BenchedStore {
    let store: PropertyListStore
    init(directory: String) throws(DiskError) {
      try makeFolder(directory)
      store = try PropertyListStore(path: directory + "/cache.plist", design: .serial)
    }
    func write(_ value: [UInt8], forKey key: String) throws(DiskError) {
      try store.setValue(value, forKey: key)
      try store.flush()
    }
    func read(_ key: String) throws(DiskError) -> [UInt8]? { store.value(forKey: key) }
    func delete(_ key: String) throws(DiskError) {
      try store.removeValue(forKey: key)
      try store.flush()
    }
    func close() {}
  }

  /// The smallest value size from which file-only beats SQLite-only in
  /// `phase` at that size and every larger one measured, or nil.
  public static func crossover(_ results: [Result], phase: String) -> Int? {
    var answer: Int? = nil
    for size in valueSizes(results).reversed() {
      guard let file = rate(results, .file, size, phase), let sqlite = rate(results, .sqlite, size, phase),
        file >= sqlite
      else { break }
      answer = size
    }
    return answer
  }

  /// The inline threshold that would have served these results best: of
  /// "everything in files", "inline up to each measured size" and
  /// "everything inline", the one whose worst ratio to the better of
  /// file-only and SQLite-only, over every size and phase, is highest (the
  /// smallest such threshold on a tie). Computed from the file and SQLite
  /// cells alone: a threshold only chooses which of the two paths a value
  /// takes. Nil without both modes.
  public static func recommendedThreshold(_ results: [Result]) -> (
    threshold: Int, worst: Double, size: Int, phase: String
  )? {
    let sizes = valueSizes(results)
    var best: (threshold: Int, worst: Double, size: Int, phase: String)? = nil
    for threshold in [DiskStore.filesOnly] + sizes + [DiskStore.sqliteOnly] {
      var worst: (ratio: Double, size: Int, phase: String) = (.infinity, 0, "")
      for size in sizes {
        for phase in phases {
          guard let file = rate(results, .file, size, phase), let sqlite = rate(results, .sqlite, size, phase),
            max(file, sqlite) > 0
          else {
            return nil
          }
          let ratio = (size > threshold ? file : sqlite) / max(file, sqlite)
          if ratio < worst.ratio { worst = (ratio, size, phase) }
        }
      }
      if worst.ratio > best?.worst ?? -1 {
        best = (threshold, worst.ratio, worst.size, worst.phase)
      }
    }
    return best
  }

  /// A threshold in words: "every value in a file", "inline up to N bytes", "every value inline".
  public static func describe(threshold: Int) -> String {
    switch threshold {
    case DiskStore.filesOnly: "every value in a file"
    case DiskStore.sqliteOnly: "every value inline"
    default: "inline up to \(threshold) bytes"
    }
  }

  /// Mixed mode's throughput over the better of file-only and SQLite-only, per size and phase.
  public static func mixedRatios(_ results: [Result]) -> [(size: Int, phase: String, ratio: Double)] {
    var out: [(Int, String, Double)] = []
    for size in valueSizes(results) {
      for phase in phases {
        guard let mixed = rate(results, .mixed, size, phase), let file = rate(results, .file, size, phase),
          let sqlite = rate(results, .sqlite, size, phase)
        else { continue }
        out.append((size, phase, mixed / max(file, sqlite)))
      }
    }
    return out
  }

  /// The value sizes measured, smallest first.
  static func valueSizes(_ results: [Result]) -> [Int] { Array(Set(results.map(\.valueSize))).sorted() }

  /// The ops/s of one cell, or nil when it was not measured.
  static func rate(_ results: [Result], _ mode: Mode, _ size: Int, _ phase: String) -> Double? {
    results.first { $0.mode == mode.rawValue && $0.valueSize == size && $0.phase == phase }?.opsPerSecond
  }
}

extension DiskStore: DiskBench.BenchedStore {
  func write(_ value: [UInt8], forKey key: String) throws(DiskError) { try setValue(value, forKey: key) }
  func read(_ key: String) throws(DiskError) -> [UInt8]? { try value(forKey: key) }
  func delete(_ key: String) throws(DiskError) { try removeValue(forKey: key) }
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
