import EvictionCache
import EvictionCore
import EvictionRun
import EvictionSim
import EvictionStats
import EvictionTraces
import Foundation
import Synchronization

/// `evlab bench concurrent`: the GetPut benchmark of Caffeine's JMH suite
/// (`GetPutBenchmark`), for `MemoryCache` under each lock strategy beside
/// `Dictionary`+`Mutex` and NSCache, in one run.
///
/// As in Caffeine's: a cache of `2 × 32,768` entries filled with the keys
/// `0..<65,536` before timing, and a ring of 32,768 keys drawn from a
/// scrambled Zipf distribution (exponent 0.99) over a third of that, so every
/// read hits and every write replaces. Each thread walks the ring from its own
/// offset; a read/write mix decides per position whether it reads or writes
/// (the same positions for every contender). A measurement runs all threads
/// for a fixed time and counts their operations; rounds interleave every
/// contender, mix and thread count, and each row is the median round.
///
/// With ``ceiling``, each cell is also run as N workers that share nothing:
/// every thread walks its own cache, built and filled alike. That is the
/// most the machine gives N threads of this code (cores, caches, memory
/// bandwidth), and a row's ``Row/scalingEfficiency`` is its ops/s over it.
public struct ConcurrentBenchmark: Sendable {
  /// A read/write mix, `reads/writes` in percent (`75/25`).
  public struct Mix: Hashable, Sendable, CustomStringConvertible {
    public let readPercent: Int
    public var description: String { "\(readPercent)/\(100 - readPercent)" }

    public init(_ text: String) throws(BenchError) {
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let reads = Int(parts[0]), let writes = Int(parts[1]), reads >= 0, writes >= 0,
        reads + writes == 100
      else {
        throw BenchError("mix '\(text)': give reads/writes in percent adding up to 100, e.g. 75/25")
      }
      readPercent = reads
    }
  }

  /// The `lock` value of the two comparison points.
  public static let dictionaryName = "dictionary+mutex"
  public static let nscacheName = "nscache"
  /// Entries the cache holds (all filled), and the ring of keys read.
  public static let capacity = 2 << 15
  public static let ringSize = 2 << 14

  public var policy: PolicySpec
  public var locks: [LockStrategy]
  public var mixes: [Mix]
  public var threads: [Int]
  public var seconds: Double
  public var rounds: Int
  public var baselines: Bool
  /// Measure each cell's shared-nothing ceiling too (`--ceiling`).
  public var ceiling: Bool
  /// Each thread makes this many operations (rounded up to a block of
  /// 256) instead of running for `seconds`: a fixed amount of work, for
  /// instruction counts (`--operations`).
  public var operations: Int? = nil

  public init(
    policy: PolicySpec, locks: [LockStrategy], mixes: [Mix], threads: [Int], seconds: Double, rounds: Int,
    baselines: Bool = true, ceiling: Bool = false
  ) {
    self.policy = policy
    self.locks = locks
    self.mixes = mixes
    self.threads = threads
    self.seconds = seconds
    self.rounds = rounds
    self.baselines = baselines
    self.ceiling = ceiling
  }

  /// One row (CSV columns and JSON keys: the snake_case names; written by
  /// `ResultWriter`, so a missing dropped share is `null`).
  public struct Row: Codable, Sendable, Equatable {
    public var lock: String
    public var mix: String
    public var threads: Int
    public var opsPerSecond: Double
    public var opsPerSecondPerThread: Double
    /// The slowest and fastest rounds.
    public var opsPerSecondMin: Double
    public var opsPerSecondMax: Double
    /// `MemoryCache`'s policy (empty for the comparison points).
    public var policy: String
    /// Accesses the policy never heard of, as a share of those recorded
    /// without its lock (hits and writes in place), in the median round
    /// (`buffered` only; 0 for the other strategies, null for the
    /// comparison points).
    public var droppedShare: Double?
    /// Cores this process could run on: N threads on fewer cores take turns.
    public var cores: Int
    public var rounds: Int
    public var seconds: Double
    /// The median ops/s over the same contender's one-thread median (null
    /// when the run has no one-thread cell).
    public var speedupOverOneThread: Double?
    /// The median ops/s of N threads that share nothing, each walking a
    /// cache of its own (`--ceiling`; null without it).
    public var ceilingOpsPerSecond: Double?
    /// `opsPerSecond` over `ceilingOpsPerSecond`: 1 is perfect scaling.
    public var scalingEfficiency: Double?
  }

  public struct Report: Codable, Sendable {
    public var results: [Row]
  }

  /// The contenders' names, in the order rows come out.
  var contenders: [String] {
    locks.map(\.description) + (baselines ? [Self.dictionaryName, Self.nscacheName] : [])
  }

  public func run(log: (String) -> Void = { _ in }) throws(BenchError) -> Report {
    let ring = Self.keyRing()
    let names = contenders
    // samples[contender][mix][threads]: ops/s per round; dropped shares likewise.
    var samples = [[[Double]]](
      repeating: [[Double]](repeating: [], count: mixes.count * threads.count), count: names.count)
    var dropped = samples
    var ceilings = samples
    for round in 1...rounds {
      for (m, mix) in mixes.enumerated() {
        let writes = Self.writePositions(readPercent: mix.readPercent)
        for (t, threadCount) in threads.enumerated() {
          for (c, name) in names.enumerated() {
            let target = try makeTarget(name)
            let (ops, share) = Self.measure(
              [any CacheTarget](repeating: target, count: threadCount), ring: ring, writes: writes, seconds: seconds,
              operations: operations)
            samples[c][m * threads.count + t].append(ops)
            dropped[c][m * threads.count + t].append(share ?? -1)
            var line =
              "concurrent: round \(round)/\(rounds), \(mix), \(threadCount) thread\(threadCount == 1 ? "" : "s"), \(name): \(millions(ops)) M ops/s"
            if ceiling {
              let own = try (0..<threadCount).map { _ throws(BenchError) in try makeTarget(name) }
              let (bound, _) = Self.measure(
                own, ring: ring, writes: writes, seconds: seconds, operations: operations)
              ceilings[c][m * threads.count + t].append(bound)
              line += ", \(millions(bound)) M sharing nothing"
            }
            log(line)
          }
        }
      }
    }
    var rows: [Row] = []
    for (c, name) in names.enumerated() {
      for (m, mix) in mixes.enumerated() {
        for (t, threadCount) in threads.enumerated() {
          let figures = samples[c][m * threads.count + t]
          let median = SampleSummary(figures).median
          // The dropped share of the round nearest the median.
          let nearest = figures.indices.min { abs(figures[$0] - median) < abs(figures[$1] - median) }!
          let share = dropped[c][m * threads.count + t][nearest]
          let one = threads.firstIndex(of: 1).map { SampleSummary(samples[c][m * threads.count + $0]).median }
          let bound = ceiling ? SampleSummary(ceilings[c][m * threads.count + t]).median : nil
          rows.append(
            Row(
              lock: name, mix: mix.description, threads: threadCount, opsPerSecond: median,
              opsPerSecondPerThread: median / Double(threadCount), opsPerSecondMin: figures.min()!,
              opsPerSecondMax: figures.max()!, policy: c < locks.count ? policy.description : "",
              droppedShare: share < 0 ? nil : share, cores: ProcessInfo.processInfo.activeProcessorCount,
              rounds: rounds, seconds: seconds, speedupOverOneThread: one.map { median / $0 },
              ceilingOpsPerSecond: bound, scalingEfficiency: bound.map { median / $0 }))
        }
      }
    }
    return Report(results: rows)
  }

  func makeTarget(_ name: String) throws(BenchError) -> any CacheTarget {
    let target: any CacheTarget
    switch name {
    case Self.dictionaryName: target = MutexDictionary()
    case Self.nscacheName: target = NSCacheTarget(limit: Int64(Self.capacity), bytes: false)
    default:
      do throws(CacheError) {
        target = try MemoryCache.ofIntegers(policy: policy, countLimit: Self.capacity, lock: LockStrategy(name))
      } catch { throw BenchError(error) }
    }
    for key in 0..<UInt64(Self.capacity) { target.set(key, cost: 1) }
    return target
  }

  /// Keys drawn from a Zipf distribution (exponent 0.99) over a third of the
  /// ring's size, ranks scrambled over the cache's keys (Caffeine's
  /// `ScrambledZipfianGenerator`), from a fixed seed.
  static func keyRing() -> [UInt64] {
    let items = ringSize / 3
    var cumulative = [Double](repeating: 0, count: items)
    var total = 0.0
    for rank in 0..<items {
      total += 1 / pow(Double(rank + 1), 0.99)
      cumulative[rank] = total
    }
    var generator = SeededGenerator(seed: 20_091_004)
    return (0..<ringSize).map { _ in
      let u = Double.random(in: 0..<total, using: &generator)
      var (low, high) = (0, items - 1)
      while low < high {
        let middle = (low + high) / 2
        if cumulative[middle] <= u { low = middle + 1 } else { high = middle }
      }
      // Scramble: hot ranks land anywhere among the cached keys.
      return (UInt64(low) &* 0x9E37_79B9_7F4A_7C15 >> 17) % UInt64(capacity)
    }
  }

  /// Writes the key ring and each mix's write positions into `directory`
  /// for a harness in another language, so that it walks the very stream
  /// this benchmark walks: `getput-keys.u64` (the ring's keys, 64-bit
  /// little-endian) and `getput-writes-R-W.u8` per mix (a byte per ring
  /// position, 1 where it writes). Returns the files' paths.
  public func writeWorkload(into directory: String) throws(BenchError) -> [String] {
    let fileManager = FileManager.default
    do {
      try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw BenchError("cannot make \(directory): \(error.localizedDescription)")
    }
    var files: [(String, Data)] = []
    let keys = Self.keyRing().map(\.littleEndian)
    files.append(("getput-keys.u64", keys.withUnsafeBytes { Data($0) }))
    for mix in mixes {
      let name = "getput-writes-" + mix.description.replacingOccurrences(of: "/", with: "-") + ".u8"
      files.append((name, Data(Self.writePositions(readPercent: mix.readPercent).map { $0 ? 1 : 0 })))
    }
    var written: [String] = []
    for (name, data) in files {
      let path = (directory as NSString).appendingPathComponent(name)
      do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
        throw BenchError("cannot write \(path): \(error.localizedDescription)")
      }
      written.append(path)
    }
    return written
  }

  /// Which ring positions write, for a mix: the same for every contender.
  static func writePositions(readPercent: Int) -> [Bool] {
    var generator = SeededGenerator(seed: 1_234 + UInt64(readPercent))
    return (0..<ringSize).map { _ in generator.below(100) >= readPercent }
  }

  /// Total operations per second of one thread per target walking the
  /// ring for `seconds` (the same target N times, or N targets that share
  /// nothing), and the share of reads the policies never heard of
  /// (`MemoryCache` only).
  static func measure(
    _ targets: [any CacheTarget], ring: [UInt64], writes: [Bool], seconds: Double, operations: Int? = nil
  ) -> (Double, Double?) {
    let distinct = targets.indices.filter { i in !targets[..<i].contains { $0 === targets[i] } }.map { targets[$0] }
    let before = distinct.map(\.counters)
    let control = RunControl(threads: targets.count)
    let workers = WorkerThread.all(targets.count) { t in
      let target = targets[t]
      control.arrive()
      control.finish(
        walk(target, ring: ring, writes: writes, thread: t) { done in
          operations.map { done < $0 } ?? !control.stopped
        })
    }
    control.waitForArrivals()
    let start = monotonicNanoseconds()
    control.go()
    if operations == nil {
      usleep(useconds_t(seconds * 1e6))
      control.stop()
    }
    for worker in workers { worker.join() }
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    var (recorded, lost) = (0, 0)
    for (target, before) in zip(distinct, before) {
      guard let before, let after = target.counters else { return (Double(control.total) / elapsed, nil) }
      recorded += after.hits + after.writesInPlace - before.hits - before.writesInPlace
      lost += after.dropped - before.dropped
    }
    return (Double(control.total) / elapsed, recorded == 0 ? 0 : Double(lost) / Double(recorded))
  }

  /// One thread's walk over the ring, from a starting point of its own, in
  /// blocks of 256 operations while `proceed(operations so far)`; returns
  /// how many it made.
  @inline(__always)
  static func walk<Target: CacheTarget>(
    _ target: Target, ring: [UInt64], writes: [Bool], thread t: Int, while proceed: (Int) -> Bool
  ) -> Int {
    let mask = ring.count - 1
    // Spread the threads' starting points over the ring.
    var position = (t &* 7_919 &* 64) & mask
    var ops = 0
    ring.withUnsafeBufferPointer { keys in
      writes.withUnsafeBufferPointer { writes in
        while proceed(ops) {
          for _ in 0..<256 {
            let key = keys[position]
            if writes[position] { target.set(key, cost: 1) } else { _ = target.get(key) }
            position = (position &+ 1) & mask
          }
          ops &+= 256
        }
      }
    }
    return ops
  }

  /// One GetPut cell without a clock, for harnesses that time it themselves
  /// (the Benchmarks package): the contender built and filled as `run`
  /// builds it, and the same ring and mix.
  public final class Cell: Sendable {
    let target: any CacheTarget
    let ring: [UInt64]
    let writes: [Bool]

    /// `contender` is a lock strategy (`mutex`, `striped:8`, `buffered`, …)
    /// or a comparison point (`dictionary+mutex`, `nscache`).
    public init(contender: String, mix: Mix, policy: PolicySpec) throws(BenchError) {
      var locks: [LockStrategy] = []
      if contender != ConcurrentBenchmark.dictionaryName && contender != ConcurrentBenchmark.nscacheName {
        do throws(CacheError) { locks = [try LockStrategy(contender)] } catch { throw BenchError(error) }
      }
      let benchmark = ConcurrentBenchmark(
        policy: policy, locks: locks, mixes: [mix], threads: [1], seconds: 0, rounds: 1)
      target = try benchmark.makeTarget(contender)
      ring = ConcurrentBenchmark.keyRing()
      writes = ConcurrentBenchmark.writePositions(readPercent: mix.readPercent)
    }

    /// `threads` threads make `operationsPerThread` operations each (rounded
    /// up to a block of 256), all started before any begins; returns once
    /// every one has finished.
    public func run(threads: Int, operationsPerThread: Int) {
      let control = RunControl(threads: threads)
      let (target, ring, writes) = (self.target, self.ring, self.writes)
      let workers = WorkerThread.all(threads) { t in
        control.arrive()
        control.finish(
          ConcurrentBenchmark.walk(target, ring: ring, writes: writes, thread: t) { $0 < operationsPerThread })
      }
      control.waitForArrivals()
      control.go()
      for worker in workers { worker.join() }
    }

    /// Reads that hit so far, fill included (`MemoryCache` contenders; nil
    /// for the comparison points).
    public var hits: Int? { target.counters?.hits }

    /// Sets that replaced a value without the policy lock so far (`buffered`).
    public var writesInPlace: Int? { target.counters?.writesInPlace }
  }
}

/// Starts a measurement's threads together and stops them together.
final class RunControl: Sendable {
  let arrived = Atomic<Int>(0)
  let started = Atomic<Bool>(false)
  let stopFlag = Atomic<Bool>(false)
  let ops = Atomic<Int>(0)
  let threads: Int

  init(threads: Int) { self.threads = threads }

  /// A worker is ready; it waits for `go`.
  func arrive() {
    arrived.add(1, ordering: .releasing)
    while !started.load(ordering: .acquiring) { sched_yield() }
  }
  func waitForArrivals() { while arrived.load(ordering: .acquiring) < threads { sched_yield() } }
  func go() { started.store(true, ordering: .releasing) }
  func stop() { stopFlag.store(true, ordering: .relaxed) }
  var stopped: Bool { stopFlag.load(ordering: .relaxed) }
  func finish(_ count: Int) { ops.add(count, ordering: .relaxed) }
  var total: Int { ops.load(ordering: .relaxed) }
}
