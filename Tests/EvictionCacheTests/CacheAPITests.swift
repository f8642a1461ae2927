import EvictionCore
import Foundation
import Synchronization
import Testing

@testable import EvictionCache

/// A policy from "another package", to build a cache with by value.
enum CacheTestMRU: PolicyDefinition {
  static let descriptor = PolicyDescriptor(name: "cache-test-mru", summary: "MRU, registered by the cache's tests")

  static func build<Index: SlotIndex & ~Copyable, Visitor: PolicyVisitor & ~Copyable>(
    _ spec: PolicySpec, capacity: Int64, index: Index.Type, visitor: inout Visitor
  ) -> Visitor.Output where Index.Key == Visitor.Key {
    visitor.visit(MRUPolicy<Index>(capacity: capacity))
  }
}

@Suite struct CacheAPITests {
  /// Every policy the type names parses as the catalog spells it, and the
  /// cache runs the policy the value names.
  @Test func typedPoliciesAreTheCatalogsPolicies() throws {
    let named: [(CachePolicy, String)] = [
      (.lru, "lru"), (.fifo, "fifo"), (.mru, "mru"), (.clock(), "clock"), (.clock(bits: 2), "clock:bits=2"),
      (.sieve, "sieve"), (.s3fifo(), "s3fifo"), (.s3fifo(small: 0.2), "s3fifo:small=0.2"), (.slru(), "slru"),
      (.slru(segments: 2), "slru:segments=2"), (.twoQueue, "2q"), (.arc, "arc"), (.car, "car"), (.lirs, "lirs"),
      (.clockPro, "clock-pro"), (.lfu, "lfu"), (.wtinylfu(), "wtinylfu"),
      (.wtinylfu(window: 0.2, adaptive: true), "wtinylfu:window=0.2,adaptive=true"), (.caffeine(), "caffeine"),
      (.caffeine(seed: 7), "caffeine:seed=7"),
    ]
    for (policy, text) in named {
      #expect(try policy.spec() == PolicySpec(text), "\(policy)")
      let cache = try MemoryCache<Int, Int>(policy: policy, countLimit: 100)
      #expect(cache.policyName == (try PolicySpec(text)).description)
    }
    // The text form, as a configuration file gives it, is checked when the cache is built.
    #expect(throws: CacheError.self) { try MemoryCache<Int, Int>(policy: CachePolicy("lru:segments=2"), countLimit: 9) }
    #expect(throws: CacheError.self) { try MemoryCache<Int, Int>(policy: "no-such-policy", countLimit: 9) }
  }

  /// A package's own definition, given by value, registers itself and runs.
  @Test func aRegisteredDefinitionIsAPolicyValue() throws {
    let cache = try MemoryCache<Int, Int>(policy: .registered(CacheTestMRU.self), countLimit: 2)
    let again = try MemoryCache<Int, Int>(policy: .registered(CacheTestMRU.self), countLimit: 2)
    for key in 1...3 {
      cache[key] = key
      again[key] = key
    }
    // MRU: the third key evicts the second (the most recent).
    #expect(cache.value(forKey: 1) == 1 && cache.value(forKey: 2) == nil && cache.value(forKey: 3) == 3)
    #expect(cache.policyName == "cache-test-mru")
  }

  @Test func typedAdmissionsAreTheSimulatorsAdmissions() throws {
    let named: [(CacheAdmission, String)] = [
      (.none, "none"), (.bloomFilter, "bloom-filter"), (.probability(0.5), "prob:p=0.5"),
      (.probability(0.25, seed: 7), "prob:p=0.25,seed=7"), (.size(max: 4096), "size:max=4096"), (.tinyLFU, "tinylfu"),
    ]
    for (admission, text) in named {
      #expect(try admission.spec() == AdmissionSpec(text), "\(admission)")
    }
    let cache = try MemoryCache<Int, Int>(costLimit: 100, admission: .size(max: 10))
    cache.setValue(1, forKey: 1, cost: 11)
    cache.setValue(2, forKey: 2, cost: 10)
    #expect(cache.value(forKey: 1) == nil && cache.value(forKey: 2) == 2)
  }

  /// NSCache's trap: a cost limit and sets without a cost. Here they weigh 1 each.
  @Test func aCostLimitBindsSetsWithoutACost() throws {
    let cache = try MemoryCache<Int, Int>(countLimit: 1_000_000, costLimit: 1_000)
    for key in 0..<100_000 { cache[key] = key }
    #expect(cache.count == 1_000 && cache.totalCost == 1_000)
    cache.checkInvariants()
  }

  @Test func theCostClosureWeighsEverySetWithoutACost() throws {
    let cache = try MemoryCache<Int, String>(costLimit: 1_000, cost: { $0.utf8.count })
    for key in 0..<10_000 { cache[key] = String(repeating: "x", count: 1 + key % 50) }
    #expect(cache.totalCost <= 1_000 && cache.totalCost > 900)
    let total = (0..<10_000).compactMap { cache.value(forKey: $0)?.utf8.count }.reduce(0, +)
    #expect(total == cache.totalCost, "every cached entry weighs its length")
    cache.setValue("abc", forKey: -1, cost: 500)
    #expect(cache.value(forKey: -1) != nil && cache.totalCost <= 1_000, "an explicit cost wins")
    // Without a cost limit the closure still weighs entries, for `totalCost`.
    let unlimited = try MemoryCache<Int, String>(countLimit: 10, cost: { $0.utf8.count })
    unlimited[1] = "four"
    #expect(unlimited.totalCost == 4)
  }

  /// A count-limited cache keeps no costs, until it is given a cost limit.
  @Test func aCostLimitSetLaterBindsLaterSets() throws {
    let cache = try MemoryCache<Int, Int>(countLimit: 100)
    for key in 0..<10 { cache[key] = key }
    #expect(cache.totalCost == 0)
    try cache.setCostLimit(20)
    for key in 10..<40 { cache[key] = key }
    #expect(cache.totalCost <= 20 && cache.count <= 30)
    cache.checkInvariants()
  }

  /// `barrier`: `setValue` returns before its write runs, yet every read
  /// after it sees it, and `waitForWrites` waits for the departures too.
  @Test func barrierWritesAreSeenByTheNextRead() throws {
    let log = DepartureLog()
    let cache = try MemoryCache<Int, Int>(
      countLimit: 100, lock: .barrier, instrumentLocks: true, onEvict: { log.record($0, $1, $2) })
    for key in 0..<1_000 {
      cache.setValue(key, forKey: key)
      #expect(cache.contains(key))
    }
    cache.waitForWrites()
    #expect(cache.count == 100 && log.count(.capacity) == 900)
    #expect(Set(log.entries.map(\.key)) == Set(0..<900), "LRU: the oldest left, in order")
    #expect(log.entries.map(\.key) == Array(0..<900))
    #expect(cache.lockStatistics.acquisitions >= 2_000)
    cache.checkInvariants()
  }

  /// More writes than may wait: the writers wait instead, and nothing is lost.
  @Test func barrierWritesBeyondThePendingBoundWait() throws {
    let cache = try MemoryCache<Int, Int>(countLimit: 100_000, lock: .barrier)
    DispatchQueue.concurrentPerform(iterations: 4) { t in
      for i in 0..<20_000 { cache.setValue(i, forKey: t * 20_000 + i) }
    }
    cache.waitForWrites()
    #expect(cache.count == 80_000)
    #expect(cache.shards[0].lock.pendingWrites.load(ordering: .relaxed) == 0)
  }

  /// A strategy is a primitive times a layout; every name reads back as itself.
  @Test func lockStrategiesArePrimitivesTimesLayouts() throws {
    let named: [(String, LockStrategy.Primitive, LockStrategy.Layout)] = [
      ("mutex", .mutex, .single), ("pthread", .pthread, .single), ("rwlock", .rwlock, .single),
      ("queue", .queue, .single), ("barrier", .barrier, .single), ("buffered", .pthread, .buffered),
      ("striped:4", .mutex, .striped(shards: 4)), ("rwlock+striped:16", .rwlock, .striped(shards: 16)),
      ("barrier+striped:2", .barrier, .striped(shards: 2)), ("pthread+striped:8", .pthread, .striped(shards: 8)),
    ]
    for (name, primitive, layout) in named {
      let strategy = try LockStrategy(name)
      #expect(strategy.primitive == primitive && strategy.layout == layout, "\(name)")
      #expect(strategy.description == name)
      #expect(try LockStrategy(strategy.description) == strategy)
    }
    #expect(try LockStrategy("striped") == .striped(shards: 8))
    #expect(try LockStrategy("pthread+buffered") == .buffered)
    #expect(try LockStrategy("mutex+striped:8") == .striped(shards: 8))
    for bad in ["spin", "mutex+buffered", "spin+striped:2", "striped:0", "striped:5000", "rwlock+striped:x", "+"] {
      #expect(throws: CacheError.self, "\(bad)") { try LockStrategy(bad) }
    }
    #expect(throws: CacheError.invalidShardCount(5000)) {
      try MemoryCache<Int, Int>(countLimit: 100_000, lock: .striped(shards: 5000))
    }
    // Any primitive striped: each shard holds its share and the whole its limits.
    for primitive in LockStrategy.Primitive.allCases {
      let cache = try MemoryCache<Int, Int>(countLimit: 400, lock: LockStrategy(primitive, .striped(shards: 4)))
      for key in 0..<2_000 { cache[key] = key }
      cache.waitForWrites()
      #expect(cache.count <= 400 && cache.count > 300, "\(primitive)")
      cache.checkInvariants()
    }
  }

  @Test func lockStatisticsShowWaitsWithoutAThirdPartyType() throws {
    var waits = WaitTimes()
    for nanoseconds in [0, 100, 200, 300, 400] { waits.record(UInt64(nanoseconds)) }
    #expect(waits.count == 5 && waits.max >= 400 && waits.max < 401)
    #expect(waits.percentile(50) >= 199 && waits.percentile(50) <= 201)
    var other = WaitTimes()
    other.record(1_000_000)
    waits.merge(other)
    #expect(waits.count == 6 && waits.max == 1_000_000 && waits.mean == 1_001_000 / 6)
  }

  /// Three significant digits: every percentile of a wide random sample
  /// is the true one to within 1/1,024 (never below it, never above the maximum).
  @Test func waitTimesKeepThreeSignificantDigits() {
    var generator = SeededGenerator(seed: 5)
    var values: [UInt64] = []
    var waits = WaitTimes()
    for _ in 0..<20_000 {
      let value = generator.next() >> UInt64(28 + generator.below(36))  // 0 to 2^36, every magnitude
      values.append(value)
      waits.record(value)
    }
    values = values.map { min($0, WaitTimes.longest) }.sorted()
    for percent in [0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 100] {
      let exact = values[max(0, Int((percent / 100 * Double(values.count)).rounded(.up)) - 1)]
      let estimate = waits.percentile(percent)
      #expect(
        estimate >= exact && Double(estimate - exact) <= Double(exact) / 1024, "p\(percent): \(estimate) for \(exact)")
    }
    #expect(waits.max == values.last! && waits.percentile(100) == values.last!)
    #expect(WaitTimes().percentile(50) == 0 && WaitTimes().mean == 0)
    var capped = WaitTimes()
    capped.record(.max)
    #expect(capped.max == WaitTimes.longest)
  }
}

/// A switch a test flips to let a loader finish.
final class Gate: Sendable {
  let open = Atomic<Bool>(false)
  func wait() async throws {
    while !open.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
  }
}

/// Counts a loader's calls.
final class Calls: Sendable {
  let count = Atomic<Int>(0)
  func add() -> Int { count.add(1, ordering: .relaxed).newValue }
  var value: Int { count.load(ordering: .relaxed) }
}

struct LoadFailed: Error, Equatable { let attempt: Int }

@Suite(.timeLimit(.minutes(1))) struct LoadingTests {
  /// Waits (at most 20 s) until `key`'s load has `count` waiters.
  func waitForWaiters<V>(_ cache: MemoryCache<Int, V>, key: Int, count: Int) async throws {
    for _ in 0..<20_000 where cache.loads.waiters(of: key) < count { try await Task.sleep(for: .milliseconds(1)) }
    #expect(cache.loads.waiters(of: key) == count)
  }

  @Test func oneLoadServesEveryWaiter() async throws {
    let cache = try MemoryCache<Int, String>(countLimit: 10)
    let calls = Calls()
    let gate = Gate()
    let values = try await withThrowingTaskGroup(of: String.self) { group in
      for _ in 0..<100 {
        group.addTask {
          try await cache.value(forKey: 7) {
            _ = calls.add()
            try await gate.wait()
            return "seven"
          }
        }
      }
      try await waitForWaiters(cache, key: 7, count: 100)
      gate.open.store(true, ordering: .releasing)
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(values.count == 100 && Set(values) == ["seven"])
    #expect(calls.value == 1)
    #expect(cache.value(forKey: 7) == "seven" && cache.loadsInFlight == 0)
    // A hit does not call the loader.
    #expect(try await cache.value(forKey: 7) { "other" } == "seven")
  }

  @Test func aLoadersErrorReachesEveryWaiterAndNothingIsCached() async throws {
    let cache = try MemoryCache<Int, String>(countLimit: 10)
    let calls = Calls()
    let gate = Gate()
    let errors = await withTaskGroup(of: LoadFailed?.self) { group in
      for _ in 0..<100 {
        group.addTask {
          do {
            _ = try await cache.value(forKey: 3) {
              let attempt = calls.add()
              try await gate.wait()
              throw LoadFailed(attempt: attempt)
            }
            return nil
          } catch { return error as? LoadFailed }
        }
      }
      try? await waitForWaiters(cache, key: 3, count: 100)
      gate.open.store(true, ordering: .releasing)
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(errors.count == 100 && errors.allSatisfy { $0 == LoadFailed(attempt: 1) })
    #expect(cache.value(forKey: 3) == nil && cache.loadsInFlight == 0)
    // The next request loads again.
    #expect(try await cache.value(forKey: 3) { "three" } == "three")
    #expect(calls.value == 1)
  }

  @Test func cancellingOneWaiterLeavesTheLoadAndTheOthers() async throws {
    let cache = try MemoryCache<Int, String>(countLimit: 10)
    let calls = Calls()
    let gate = Gate()
    let load: @Sendable () async throws -> String = {
      _ = calls.add()
      try await gate.wait()
      return "five"
    }
    let first = Task { try await cache.value(forKey: 5, orLoad: load) }
    let second = Task { try await cache.value(forKey: 5, orLoad: load) }
    try await waitForWaiters(cache, key: 5, count: 2)
    first.cancel()
    await #expect(throws: CancellationError.self) { try await first.value }
    #expect(cache.loads.waiters(of: 5) == 1 && cache.loadsInFlight == 1, "the load goes on for the other")
    gate.open.store(true, ordering: .releasing)
    #expect(try await second.value == "five")
    #expect(calls.value == 1 && cache.value(forKey: 5) == "five")
  }

  /// A task cancelled before it asks waits for nothing and starts no load.
  @Test func aTaskCancelledBeforeItAsksStartsNoLoad() async throws {
    let cache = try MemoryCache<Int, String>(countLimit: 10)
    let calls = Calls()
    let task = Task {
      while !Task.isCancelled { await Task.yield() }
      return try await cache.value(forKey: 1) {
        _ = calls.add()
        return "one"
      }
    }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(calls.value == 0 && cache.loadsInFlight == 0)
  }

  @Test func aLoadedValueIsStoredAtItsCost() async throws {
    let cache = try MemoryCache<Int, [UInt8]>(costLimit: 100, cost: { $0.count })
    _ = try await cache.value(forKey: 1) { [UInt8](repeating: 0, count: 40) }
    _ = try await cache.value(forKey: 2, cost: 70) { [1] }
    #expect(cache.value(forKey: 1) == nil && cache.totalCost == 70, "the explicit cost pushed the first out")
  }
}
