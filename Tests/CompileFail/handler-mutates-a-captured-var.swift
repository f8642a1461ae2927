// expected-error: mutation of captured var 'evictions' in concurrently-executing code
// An eviction handler runs on whichever thread made the entry leave: one
// that mutates a captured local is a data race, and must not compile.
import EvictionCache

func countEvictions() throws -> Int {
  var evictions = 0
  let cache = try MemoryCache<Int, Int>(
    countLimit: 10, onEvict: { _, _, _ in evictions += 1 })
  for key in 0..<100 { cache[key] = key }
  return evictions
}
