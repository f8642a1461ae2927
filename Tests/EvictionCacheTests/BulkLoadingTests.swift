import EvictionCache
import Synchronization
import Testing

/// `values(forKeys:orLoad:)`: one loader call for the missing keys, shared
/// with the single-key loader, failures per key.
@Suite struct BulkLoadingTests {
  /// Records each call of a bulk loader.
  final class Calls: Sendable {
    let asked = Mutex<[[Int]]>([])
    func record(_ keys: [Int]) { asked.withLock { $0.append(keys.sorted()) } }
    var all: [[Int]] { asked.withLock { $0 } }
  }

  @Test func theMissingKeysLoadInOneCall() async throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 100)
    cache[1] = 10
    let calls = Calls()
    let results = await cache.values(forKeys: [1, 2, 3, 2]) { keys in
      calls.record(keys)
      return Dictionary(uniqueKeysWithValues: keys.map { ($0, $0 * 10) })
    }
    #expect(calls.all == [[2, 3]])
    #expect(results.count == 3)
    #expect(try results.mapValues { try $0.get() } == [1: 10, 2: 20, 3: 30])
    #expect(cache.value(forKey: 3) == 30)
    let statistics = cache.statistics
    #expect(statistics.loads == 1 && statistics.misses == 2 && statistics.hits == 2)
  }

  /// A loader that learns the cost as it loads (the bytes it downloaded):
  /// the value is stored at that cost, once for all the waiters.
  @Test func aLoaderCanSayWhatItsValueCosts() async throws {
    let cache = try MemoryCache<Int, [UInt8]>(policy: "lru", costLimit: 1000)
    let calls = Calls()
    try await withThrowingTaskGroup(of: [UInt8].self) { group in
      for _ in 0..<8 {
        group.addTask {
          try await cache.value(forKey: 1) {
            calls.record([1])
            try await Task.sleep(for: .milliseconds(10))
            return ([1, 2, 3], 600)
          }
        }
      }
      for try await value in group { #expect(value == [1, 2, 3]) }
    }
    #expect(calls.all == [[1]] && cache.totalCost == 600)
    _ = try await cache.value(forKey: 2) { ([4], 500) }
    #expect(cache.totalCost == 500 && !cache.contains(1), "the costs bind the limit")
  }

  /// Failures are per key: a key left out of the answer, a loader that
  /// throws, a key asked for by its own loader.
  @Test func failuresArePerKey() async throws {
    struct Failure: Error {}
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 100)
    let partial = await cache.values(forKeys: [1, 2]) { _ in [1: 1] }
    #expect(try partial[1]?.get() == 1)
    #expect(throws: CacheError.notLoaded("2")) { try partial[2]!.get() }
    #expect(!cache.contains(2))
    let failed = await cache.values(forKeys: [4, 5]) { _ in throw Failure() }
    #expect(throws: Failure.self) { try failed[4]!.get() }
    #expect(throws: Failure.self) { try failed[5]!.get() }
    let recursive = await cache.values(forKeys: [6]) { keys in
      let inner = await cache.values(forKeys: [6, 7]) { Dictionary(uniqueKeysWithValues: $0.map { ($0, $0) }) }
      #expect(throws: CacheError.recursiveLoad("6")) { try inner[6]!.get() }
      #expect((try? inner[7]?.get()) == 7)
      return [6: 6]
    }
    #expect(try recursive[6]?.get() == 6)
    #expect(cache.statistics.loadFailures == 1 && cache.loadsInFlight == 0)
  }

  /// A key being loaded by a single-key load is waited for, not loaded
  /// again; and a single-key request waits for a bulk load's key.
  @Test func bulkAndSingleLoadsShareTheirKeys() async throws {
    let cache = try MemoryCache<Int, Int>(policy: "lru", countLimit: 100)
    let calls = Calls()
    let gate = AsyncStream<Void>.makeStream()
    let single = Task {
      try await cache.value(forKey: 1) {
        calls.record([1])
        for await _ in gate.stream { break }
        return 100
      }
    }
    while cache.loadsInFlight == 0 { await Task.yield() }
    let bulk = Task {
      await cache.values(forKeys: [1, 2]) { keys in
        calls.record(keys)
        return Dictionary(uniqueKeysWithValues: keys.map { ($0, $0) })
      }
    }
    while cache.value(forKey: 2) == nil { await Task.yield() }
    let waiting = Task { try await cache.value(forKey: 1) { 999 } }
    gate.continuation.yield()
    #expect(try await single.value == 100)
    let results = await bulk.value
    #expect(try results[1]?.get() == 100 && results[2]?.get() == 2)
    #expect(try await waiting.value == 100)
    #expect(calls.all.sorted { $0.count < $1.count } == [[1], [2]])
  }
}
