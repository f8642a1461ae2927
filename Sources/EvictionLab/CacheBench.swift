import ArgumentParser
import EvictionCache
import EvictionCore
import EvictionReports
import EvictionStats
import Foundation
import Synchronization

/// Single-thread get and set cost of `MemoryCache<Int, Int>` against NSCache
/// and an unbounded `Dictionary` behind a `Mutex`, measured in the same run.
struct CacheBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cache",
    abstract: "Single-thread nanoseconds per get and per set: MemoryCache vs NSCache vs Dictionary+Mutex.",
    discussion: """
      Each round: fill an empty cache with --keys distinct Int keys (sets), then read a fixed random \
      sequence of keys (gets; the cache holds --capacity of them). Rounds interleave the contenders; \
      medians are reported. Example:
        evlab bench cache --policy lru,arc --runs 7
      """)

  @Option(name: .customLong("policy"), help: "MemoryCache policies (default lru,arc).")
  var policies: [String] = ["lru", "arc"]

  @Option(help: "The count limit of every cache.")
  var capacity: Int = 10_000

  @Option(help: "Distinct keys set and read (half the reads miss with LRU).")
  var keys: Int = 20_000

  @Option(help: "Gets per round.")
  var gets: Int = 1_000_000

  @Option(help: "Rounds; medians are reported.")
  var runs: Int = 5

  @Option(help: "Lock strategy of the MemoryCache.")
  var lock: String = "mutex"

  @Option(help: "Write the medians as JSON to PATH.")
  var json: String?

  func run() throws {
    var specs: [PolicySpec] = []
    var strategy = LockStrategy.mutex
    try oneLineErrors {
      specs = try parsePolicies(policies)
      guard capacity >= 1, keys >= 1, gets >= 1, runs >= 1 else {
        throw ValidationError("--capacity, --keys, --gets and --runs must be at least 1")
      }
      do throws(CacheError) { strategy = try LockStrategy(lock) } catch { throw ValidationError(error.description) }
    }
    var generator = SeededGenerator(seed: 7)
    let order = (0..<keys).shuffled(using: &generator)
    let reads = (0..<gets).map { _ in generator.below(keys) }
    var contenders: [(name: String, make: () throws -> BenchTarget)] = []
    for spec in specs {
      contenders.append(
        (
          "MemoryCache \(spec), Dictionary index",
          {
            do throws(CacheError) {
              return CacheTarget(
                try MemoryCache<Int, Int>(policy: spec.description, countLimit: capacity, lock: strategy))
            } catch { throw fail(error) }
          }
        ))
      contenders.append(
        (
          "MemoryCache \(spec), integer index",
          {
            do throws(CacheError) {
              return CacheTarget(
                try MemoryCache<Int, Int>(
                  policy: spec.description, index: IntegerSlotIndex<Int>.self, countLimit: capacity, lock: strategy))
            } catch { throw fail(error) }
          }
        ))
    }
    contenders.append(("NSCache", { NSCacheTarget(countLimit: capacity) }))
    contenders.append(("Dictionary+Mutex", { DictionaryTarget() }))
    var setNanos = Array(repeating: [Double](), count: contenders.count)
    var getNanos = Array(repeating: [Double](), count: contenders.count)
    var hits = Array(repeating: 0, count: contenders.count)
    for round in 1...runs {
      for (i, contender) in contenders.enumerated() {
        let target = try contender.make()
        let t0 = monotonicNanoseconds()
        for key in order { target.set(key) }
        let t1 = monotonicNanoseconds()
        var found = 0
        for key in reads where target.get(key) { found += 1 }
        let t2 = monotonicNanoseconds()
        setNanos[i].append(Double(t1 - t0) / Double(order.count))
        getNanos[i].append(Double(t2 - t1) / Double(reads.count))
        hits[i] = found
      }
      printError("round \(round)/\(runs) done")
    }
    let dictionary = contenders.count - 1
    let nscache = contenders.count - 2
    let medianSet = setNanos.map { SampleSummary($0).median }
    let medianGet = getNanos.map { SampleSummary($0).median }
    var rows: [[String]] = []
    var objects: [String] = []
    for (i, contender) in contenders.enumerated() {
      let pair = medianSet[i] + medianGet[i]
      let vsDictionary = pair / (medianSet[dictionary] + medianGet[dictionary])
      let vsNSCache = (medianSet[nscache] + medianGet[nscache]) / pair
      rows.append([
        contender.name, ReplayTables.fixed(medianGet[i], 1), ReplayTables.fixed(medianSet[i], 1),
        ReplayTables.fixed(Double(hits[i]) / Double(reads.count), 3), ReplayTables.fixed(vsDictionary, 2) + "×",
        ReplayTables.fixed(vsNSCache, 1) + "×",
      ])
      objects.append(
        "{\"target\": \"\(contender.name)\", \"get_ns\": \(medianGet[i]), \"set_ns\": \(medianSet[i]), "
          + "\"hit_ratio\": \(Double(hits[i]) / Double(reads.count)), \"cost_vs_dictionary\": \(vsDictionary), "
          + "\"speedup_vs_nscache\": \(vsNSCache)}")
    }
    print(
      ReplayTables.render(
        header: ["target", "get ns", "set ns", "hit ratio", "set+get vs Dictionary", "faster than NSCache"],
        rows: rows, leftColumns: 1), terminator: "")
    try write(
      "{\"capacity\": \(capacity), \"keys\": \(keys), \"gets\": \(gets), \"runs\": \(runs), \"lock\": \"\(strategy)\", \"results\": [\n  "
        + objects.joined(separator: ",\n  ") + "\n]}\n", to: json)
  }
}

class BenchTarget {
  func set(_ key: Int) { fatalError("abstract") }
  func get(_ key: Int) -> Bool { fatalError("abstract") }
}

final class CacheTarget: BenchTarget {
  let cache: MemoryCache<Int, Int>
  init(_ cache: MemoryCache<Int, Int>) { self.cache = cache }
  override func set(_ key: Int) { try? cache.setValue(key, forKey: key) }
  override func get(_ key: Int) -> Bool { cache.value(forKey: key) != nil }
}

final class NSCacheTarget: BenchTarget {
  let cache = NSCache<NSNumber, NSNumber>()
  init(countLimit: Int) { cache.countLimit = countLimit }
  override func set(_ key: Int) { cache.setObject(NSNumber(value: key), forKey: NSNumber(value: key)) }
  override func get(_ key: Int) -> Bool { cache.object(forKey: NSNumber(value: key)) != nil }
}

final class DictionaryTarget: BenchTarget {
  let box = MutexDictionary()
  override func set(_ key: Int) { box.mutex.withLock { $0[key] = key } }
  override func get(_ key: Int) -> Bool { box.mutex.withLock { $0[key] != nil } }
}

final class MutexDictionary: Sendable {
  let mutex = Mutex<[Int: Int]>([:])
}
