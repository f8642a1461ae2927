import EvictionCache
import EvictionCore
import EvictionSim
import EvictionStats
import Foundation
import Synchronization

/// `evlab bench cache`: single-thread get and set cost of
/// `MemoryCache<UInt64, UInt64>` (with a `Dictionary` index and with the integer
/// slot index) against NSCache and an unbounded `Dictionary` behind a
/// `Mutex`, measured in the same run. Each round fills an empty cache with
/// `keys` distinct keys (sets), then reads a fixed random sequence of `gets`
/// keys; rounds interleave the contenders and medians are reported.
public struct CacheBenchmark: Sendable {
  public var policies: [PolicySpec]
  public var capacity: Int
  public var keys: Int
  public var gets: Int
  public var rounds: Int
  public var lock: LockStrategy

  public init(policies: [PolicySpec], capacity: Int, keys: Int, gets: Int, rounds: Int, lock: LockStrategy) {
    self.policies = policies
    self.capacity = capacity
    self.keys = keys
    self.gets = gets
    self.rounds = rounds
    self.lock = lock
  }

  /// One contender's medians (JSON keys: the snake_case names).
  public struct Row: Codable, Sendable, Equatable {
    public var target: String
    public var getNs: Double
    public var setNs: Double
    public var hitRatio: Double
    /// Set + get time against `Dictionary`+`Mutex`'s (above 1: slower).
    public var costVsDictionary: Double
    /// NSCache's set + get time against this contender's (above 1: faster).
    public var speedupVsNscache: Double
  }

  public struct Report: Codable, Sendable {
    public var capacity: Int
    public var keys: Int
    public var gets: Int
    public var runs: Int
    public var lock: String
    public var results: [Row]
  }

  public func run(log: (String) -> Void = { _ in }) throws(BenchError) -> Report {
    var generator = SeededGenerator(seed: 7)
    let order = (0..<keys).shuffled(using: &generator).map(UInt64.init)
    let reads = (0..<gets).map { _ in UInt64(generator.below(keys)) }
    var contenders: [(name: String, make: () throws(CacheError) -> any CacheTarget)] = []
    for spec in policies {
      let (capacity, lock) = (capacity, lock)
      contenders.append(
        (
          "MemoryCache \(spec), Dictionary index",
          { () throws(CacheError) in
            try MemoryCache<UInt64, UInt64>(policy: CachePolicy(spec), countLimit: capacity, lock: lock)
          }
        ))
      contenders.append(
        (
          "MemoryCache \(spec), integer index",
          { () throws(CacheError) in
            try MemoryCache.ofIntegers(policy: spec, countLimit: capacity, lock: lock)
          }
        ))
    }
    contenders.append(("NSCache", { [capacity] in NSCacheTarget(limit: Int64(capacity), bytes: false) }))
    contenders.append(("Dictionary+Mutex", { MutexDictionary() }))
    var setNanos = Array(repeating: [Double](), count: contenders.count)
    var getNanos = Array(repeating: [Double](), count: contenders.count)
    var hits = Array(repeating: 0, count: contenders.count)
    for round in 1...rounds {
      for (i, contender) in contenders.enumerated() {
        let target: any CacheTarget
        do throws(CacheError) { target = try contender.make() } catch { throw BenchError(error) }
        let (set, get, found) = Self.time(target, order: order, reads: reads)
        setNanos[i].append(set)
        getNanos[i].append(get)
        hits[i] = found
      }
      log("round \(round)/\(rounds) done")
    }
    let medianSet = setNanos.map { SampleSummary($0).median }
    let medianGet = getNanos.map { SampleSummary($0).median }
    let dictionary = medianSet[contenders.count - 1] + medianGet[contenders.count - 1]
    let nscache = medianSet[contenders.count - 2] + medianGet[contenders.count - 2]
    let rows = contenders.indices.map { i in
      Row(
        target: contenders[i].name, getNs: medianGet[i], setNs: medianSet[i],
        hitRatio: Double(hits[i]) / Double(reads.count), costVsDictionary: (medianSet[i] + medianGet[i]) / dictionary,
        speedupVsNscache: nscache / (medianSet[i] + medianGet[i]))
    }
    return Report(capacity: capacity, keys: keys, gets: gets, runs: rounds, lock: "\(lock)", results: rows)
  }

  /// Nanoseconds per set and per get, and the gets that found their key;
  /// specialised per target type, so no contender pays for dynamic dispatch.
  static func time<Target: CacheTarget>(_ target: Target, order: [UInt64], reads: [UInt64]) -> (Double, Double, Int) {
    let t0 = monotonicNanoseconds()
    for key in order { target.set(key, cost: 1) }
    let t1 = monotonicNanoseconds()
    var found = 0
    for key in reads where target.get(key) { found += 1 }
    let t2 = monotonicNanoseconds()
    return (Double(t1 - t0) / Double(order.count), Double(t2 - t1) / Double(reads.count), found)
  }
}
