// An app that uses the memory cache alone, for the link test
// (`LinkageTests`): it must link no GSL and no compression library.
// Prints the value it cached back.
import EvictionCache

let cache = try MemoryCache<String, Int>(policy: .s3fifo(), countLimit: 100)
cache.setValue(42, forKey: "answer")
print(cache.value(forKey: "answer") ?? -1)
