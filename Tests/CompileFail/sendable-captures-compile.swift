// expected: compiles
// The control for the files beside it: the same handler and loader with
// Sendable captures (an atomic counter) compile, so the others fail for the
// capture alone.
import EvictionCache
import Synchronization

final class Counter: Sendable { let value = Atomic<Int>(0) }

func countEvictions() throws -> Int {
  let evictions = Counter()
  let cache = try MemoryCache<Int, Int>(
    countLimit: 10, onEvict: { _, _, _ in evictions.value.add(1, ordering: .relaxed) })
  for key in 0..<100 { cache[key] = key }
  return evictions.value.load(ordering: .relaxed)
}

func load(_ cache: MemoryCache<Int, String>) async throws -> String {
  let loads = Counter()
  return try await cache.value(forKey: 1) {
    loads.value.add(1, ordering: .relaxed)
    return "one"
  }
}
