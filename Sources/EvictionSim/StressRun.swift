import EvictionCache
import EvictionCore
import EvictionRun
import EvictionTraces
import Foundation
import Histogram
import Synchronization

/// What a stress cell drives: a `MemoryCache` behind one lock strategy, or
/// one of the two comparison points measured in the same run.
public enum StressTarget: Hashable, Sendable, CustomStringConvertible {
  case cache(LockStrategy)
  /// Foundation's `NSCache` (as shipped on Linux), NSNumber keys and values.
  case nscache
  /// An unbounded `Dictionary` behind a `Mutex`: the floor no cache can beat.
  case dictionary

  /// Whether the target is a `MemoryCache` (not a comparison point).
  public var isCache: Bool {
    if case .cache = self { true } else { false }
  }

  public var description: String {
    switch self {
    case .cache(let lock): lock.description
    case .nscache: "nscache"
    case .dictionary: "dictionary"
    }
  }
}

/// One stress cell's figures (JSON/CSV keys are the snake_case names).
public struct StressResult: Codable, Sendable {
  public var trace: String
  public var policy: String
  public var cacheSize: Int64
  public var sizeMode: SizeMode
  public var threads: Int
  public var lock: String
  public var ops: Int
  public var gets: Int
  public var sets: Int
  public var seconds: Double
  public var opsPerSecond: Double
  public var hitRatio: Double
  public var getP50Ns: UInt64, getP90Ns: UInt64, getP99Ns: UInt64, getP999Ns: UInt64, getMaxNs: UInt64
  public var setP50Ns: UInt64, setP90Ns: UInt64, setP99Ns: UInt64, setP999Ns: UInt64, setMaxNs: UInt64
  public var acquisitions: UInt64
  public var contendedShare: Double
  public var waitP50Ns: UInt64, waitP99Ns: UInt64, waitMaxNs: UInt64
  /// Total time threads spent waiting for locks, as a share of threads × run time.
  public var waitShare: Double
  /// Throughput against NSCache and Dictionary+Mutex at the same thread count (nil if not measured).
  public var vsNscache: Double?
  public var vsDictionary: Double?
  /// The admission policy in front of the cache's (`none`; also for the comparison points).
  public var admission: String
  /// Hits the policy never heard of (the `buffered` strategy's lossy ring
  /// buffers; 0 for the other strategies, nil for the comparison points).
  public var droppedAccesses: Int?
  /// The hit ratio of the same requests replayed in order from one thread
  /// (nil for the comparison points), and `hit_ratio` minus it: what
  /// concurrency (reordering, and dropped accesses) cost in hits.
  public var singleThreadHitRatio: Double?
  public var hitRatioDrift: Double?
  /// The cores of the machine that ran it: 4 threads on 2 cores is not 4 on 8.
  public var cores = ProcessInfo.processInfo.activeProcessorCount

  public static let columns = [
    "trace", "policy", "cache_size", "size_mode", "threads", "lock", "ops", "gets", "sets", "seconds",
    "ops_per_second", "hit_ratio", "get_p50_ns", "get_p90_ns", "get_p99_ns", "get_p999_ns", "get_max_ns",
    "set_p50_ns", "set_p90_ns", "set_p99_ns", "set_p999_ns", "set_max_ns", "acquisitions", "contended_share",
    "wait_p50_ns", "wait_p99_ns", "wait_max_ns", "wait_share", "vs_nscache", "vs_dictionary", "admission",
    "dropped_accesses", "single_thread_hit_ratio", "hit_ratio_drift", "cores",
  ]
}

/// Concurrent replay: T threads replay a trace through one shared cache,
/// each claiming the next block of ``block`` requests from a shared counter,
/// so that the requests reach the cache close to the trace's order (within
/// `block × T` of it) however unevenly the threads run; a miss is followed
/// by a set, as a read-through cache does. Latencies go into one
/// HdrHistogram per thread, merged at the end.
public enum StressRun {
  /// Requests a thread claims at a time.
  public static let block = 64

  public struct Workload: Sendable {
    public let trace: String
    public let keys: [UInt64]
    public let sizes: [Int64]

    /// Loads `source` into memory (the clock must not time the reader),
    /// asking ``MemoryBudget`` before each large growth of the arrays.
    public init(_ source: TraceSource) throws(TraceError) {
      var keys: [UInt64] = []
      var sizes: [Int64] = []
      try source.forEachBatch { records, tile throws(TraceError) in
        if keys.count + records.count > keys.capacity {
          let grown = Swift.max(keys.capacity * 2, keys.count + records.count)
          let bytes = grown * Self.bytesPerRequest
          if bytes >= TraceRecord.checkedGrowth {
            try MemoryBudget.check(
              Int64(bytes),
              for: "holding \(source.path)'s requests in memory (room for \(grown), \(keys.count) read so far)",
              wayOut:
                "stress replays from memory (16 bytes a request): use a shorter trace, or run where more memory is free"
            )
          }
          keys.reserveCapacity(grown)
          sizes.reserveCapacity(grown)
        }
        for record in records {
          keys.append(record.key &+ tile.idOffset)
          sizes.append(record.size)
        }
      }
      guard !keys.isEmpty else { throw .emptyTrace(path: source.path) }
      trace = source.name
      self.keys = keys
      self.sizes = sizes
    }

    /// A key and a size held for each request.
    static let bytesPerRequest = MemoryLayout<UInt64>.stride + MemoryLayout<Int64>.stride

    /// What the largest target takes at most, by the entries it can hold:
    /// NSCache about 256 bytes an entry (218 measured at 10,000 entries,
    /// results/memory), up to the count limit in count mode and every
    /// object in byte mode (its cost limit counts bytes, not entries); the
    /// unbounded dictionary about 48 bytes an object. The policies' own
    /// tables announce their growth (``GrowthWatch``). Distinct objects are
    /// counted only when the bound by requests does not fit already.
    public func memoryNeeded(cacheSize: Int64, sizeMode: SizeMode) -> (bytes: Int64, entries: Int) {
      func need(_ objects: Int) -> (bytes: Int64, entries: Int) {
        let entries = sizeMode == .count ? Int(Swift.min(Int64(objects), cacheSize)) : objects
        return (Swift.max(Int64(entries) * 256, Int64(objects) * 48), entries)
      }
      let bound = need(keys.count)
      if MemoryBudget.shortage(bound.bytes, for: "", wayOut: "") == nil { return bound }
      return need(Set(keys).count)
    }
  }

  /// Runs one cell. `ops` requests are replayed (the trace wraps around if
  /// it is shorter); a cache target has `admission` in front of its policy.
  public static func run(
    _ workload: Workload, target: StressTarget, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode,
    threads: Int, ops: Int, admission: AdmissionSpec = .none
  ) throws(CacheError) -> StressResult {
    let bytes = sizeMode == .bytes
    let driver: any CacheTarget
    switch target {
    case .cache(let lock):
      driver = try MemoryCache.ofIntegers(
        policy: policy, countLimit: bytes ? nil : Int(cacheSize), costLimit: bytes ? cacheSize : nil, lock: lock,
        instrumentLocks: true, admission: admission)
    case .nscache: driver = NSCacheTarget(limit: cacheSize, bytes: bytes)
    case .dictionary: driver = MutexDictionary()
    }
    let perThread = (0..<threads).map { _ in ThreadFigures() }
    let ready = Atomic<Int>(0)
    let next = Atomic<Int>(0)
    let go = Atomic<Bool>(false)
    let keys = workload.keys
    let sizes = workload.sizes
    let workers = WorkerThread.all(threads) { t in
      let figures = perThread[t]
      ready.add(1, ordering: .releasing)
      while !go.load(ordering: .acquiring) {}
      while true {
        let first = next.wrappingAdd(Self.block, ordering: .relaxed).oldValue
        if first >= ops { break }
        for i in first..<min(first + Self.block, ops) {
          let index = i % keys.count
          let key = keys[index]
          let start = monotonicNanoseconds()
          let hit = driver.get(key)
          let afterGet = monotonicNanoseconds()
          figures.gets.record(afterGet &- start)
          if hit {
            figures.hits += 1
          } else {
            driver.set(key, cost: sizes[index])
            figures.sets.record(monotonicNanoseconds() &- afterGet)
          }
        }
      }
    }
    while ready.load(ordering: .acquiring) < threads {}
    let start = monotonicNanoseconds()
    go.store(true, ordering: .releasing)
    for worker in workers { worker.join() }
    let elapsed = max(1, monotonicNanoseconds() &- start)

    var gets = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    var sets = gets
    var hits = 0
    for figures in perThread {
      gets.add(figures.gets)
      sets.add(figures.sets)
      hits += figures.hits
    }
    let locks = driver.lockFigures
    let seconds = Double(elapsed) / 1e9
    let operations = Int(gets.totalCount + sets.totalCount)
    return StressResult(
      trace: workload.trace,
      policy: target == .dictionary ? "unbounded" : (target == .nscache ? "nscache" : policy.description),
      cacheSize: cacheSize, sizeMode: sizeMode, threads: threads, lock: target.description, ops: operations,
      gets: Int(gets.totalCount), sets: Int(sets.totalCount), seconds: seconds,
      opsPerSecond: Double(operations) / seconds,
      hitRatio: gets.totalCount == 0 ? 0 : Double(hits) / Double(gets.totalCount),
      getP50Ns: gets.valueAtPercentile(50), getP90Ns: gets.valueAtPercentile(90), getP99Ns: gets.valueAtPercentile(99),
      getP999Ns: gets.valueAtPercentile(99.9), getMaxNs: gets.max,
      setP50Ns: sets.valueAtPercentile(50), setP90Ns: sets.valueAtPercentile(90), setP99Ns: sets.valueAtPercentile(99),
      setP999Ns: sets.valueAtPercentile(99.9), setMaxNs: sets.max,
      acquisitions: locks?.acquisitions ?? 0, contendedShare: locks?.contendedShare ?? 0,
      waitP50Ns: locks?.waits.percentile(50) ?? 0, waitP99Ns: locks?.waits.percentile(99) ?? 0,
      waitMaxNs: locks?.waits.max ?? 0,
      waitShare: Double(locks?.totalWaitNanoseconds ?? 0) / (Double(elapsed) * Double(threads)),
      vsNscache: nil, vsDictionary: nil, admission: target.isCache ? admission.description : "none",
      droppedAccesses: driver.counters?.dropped, singleThreadHitRatio: nil, hitRatioDrift: nil)
  }

  /// The hit ratio of the first `ops` requests replayed in order through a
  /// `MemoryCache` on this thread: the reference a concurrent run drifts from.
  public static func singleThreadHitRatio(
    _ workload: Workload, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode, ops: Int,
    admission: AdmissionSpec = .none
  ) throws(CacheError) -> Double {
    let bytes = sizeMode == .bytes
    let cache = try MemoryCache.ofIntegers(
      policy: policy, countLimit: bytes ? nil : Int(cacheSize), costLimit: bytes ? cacheSize : nil,
      admission: admission)
    var hits = 0
    for i in 0..<ops {
      let index = i % workload.keys.count
      if cache.get(workload.keys[index]) {
        hits += 1
      } else {
        cache.set(workload.keys[index], cost: workload.sizes[index])
      }
    }
    return ops == 0 ? 0 : Double(hits) / Double(ops)
  }

  /// A sweep: every policy × admission × thread count × lock, and the two
  /// comparison points (NSCache, `Dictionary`+`Mutex`) once per thread count.
  public struct Sweep: Sendable {
    public var policies: [PolicySpec]
    public var admissions: [AdmissionSpec]
    public var locks: [LockStrategy]
    public var threads: [Int]
    public var cacheSize: Int64
    public var sizeMode: SizeMode
    public var ops: Int

    public init(
      policies: [PolicySpec], admissions: [AdmissionSpec] = [.none], locks: [LockStrategy], threads: [Int],
      cacheSize: Int64, sizeMode: SizeMode, ops: Int
    ) {
      self.policies = policies
      self.admissions = admissions
      self.locks = locks
      self.threads = threads
      self.cacheSize = cacheSize
      self.sizeMode = sizeMode
      self.ops = ops
    }

    /// The cells in the order they run; the comparison points have no
    /// policy, so they run beside the first policy and admission only.
    public var cells: [(policy: PolicySpec, admission: AdmissionSpec, threads: Int, target: StressTarget)] {
      var cells: [(PolicySpec, AdmissionSpec, Int, StressTarget)] = []
      for (p, policy) in policies.enumerated() {
        for (a, admission) in admissions.enumerated() {
          for n in threads {
            for lock in locks { cells.append((policy, admission, n, .cache(lock))) }
            if p == 0 && a == 0 { cells += [(policy, .none, n, .nscache), (policy, .none, n, .dictionary)] }
          }
        }
      }
      return cells
    }

    /// Runs every cell, counting each one's requests into `progress`, and
    /// adds the ratios and each cache cell's drift from the single-thread replay.
    public func run(_ workload: Workload, progress: ReplayProgress? = nil) throws(CacheError) -> [StressResult] {
      var results: [StressResult] = []
      var references: [String: Double] = [:]
      for cell in cells {
        var result = try StressRun.run(
          workload, target: cell.target, policy: cell.policy, cacheSize: cacheSize, sizeMode: sizeMode,
          threads: cell.threads, ops: ops, admission: cell.admission)
        if cell.target.isCache {
          let name = "\(cell.policy) + \(cell.admission)"
          let reference: Double
          if let known = references[name] {
            reference = known
          } else {
            reference = try StressRun.singleThreadHitRatio(
              workload, policy: cell.policy, cacheSize: cacheSize, sizeMode: sizeMode, ops: ops,
              admission: cell.admission)
            references[name] = reference
          }
          result.singleThreadHitRatio = reference
          result.hitRatioDrift = result.hitRatio - reference
        }
        results.append(result)
        progress?.requests.add(ops, ordering: .relaxed)
        progress?.cellsDone.add(1, ordering: .relaxed)
      }
      StressRun.addRatios(&results)
      return results
    }
  }

  /// Fills in each cache cell's throughput ratios against the NSCache and
  /// Dictionary cells of the same thread count.
  public static func addRatios(_ results: inout [StressResult]) {
    for i in results.indices where results[i].lock != "nscache" && results[i].lock != "dictionary" {
      let threads = results[i].threads
      if let ns = results.first(where: { $0.lock == "nscache" && $0.threads == threads }) {
        results[i].vsNscache = results[i].opsPerSecond / ns.opsPerSecond
      }
      if let dict = results.first(where: { $0.lock == "dictionary" && $0.threads == threads }) {
        results[i].vsDictionary = results[i].opsPerSecond / dict.opsPerSecond
      }
    }
  }
}

/// One thread's latencies and hits (written by that thread only).
final class ThreadFigures: @unchecked Sendable {
  var gets = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
  var sets = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
  var hits = 0
}
