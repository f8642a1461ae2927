// `lru2-thumbnails FOLDER`: LRU-2 driving a real two-tier cache of
// thumbnails, decoded in memory over a store on disk (EvictionDisk's
// TieredCache). Renders 200 requests for 40 thumbnails through
// get-or-load, then opens the cache again on the same folder, as a
// restarted server would, and serves them from disk without rendering.
import EvictionCache
import EvictionDisk
import Foundation
import LRU2

struct Thumbnail: Codable, Sendable {
  var name: String
  var width: Int
  var pixels: [UInt8]
}

/// Stands in for the slow work a cache saves (decoding and scaling an image).
func render(_ name: String) async throws -> Thumbnail {
  try await Task.sleep(for: .milliseconds(1))
  let seed = name.utf8.reduce(0) { $0 &+ Int($1) }
  return Thumbnail(name: name, width: 64, pixels: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* seed) })
}

guard CommandLine.arguments.count == 2 else {
  FileHandle.standardError.write(Data("usage: lru2-thumbnails FOLDER (a new or empty folder)\n".utf8))
  exit(2)
}
let folder = CommandLine.arguments[1]
let policy = CachePolicy.registered(LRU2.self)
// A skewed stream: a few thumbnails are asked for again and again.
var generator = SystemRandomNumberGenerator()
let requests = (0..<200).map { _ in
  "photo-\(Int(Double.random(in: 0..<1, using: &generator) * Double.random(in: 0..<1, using: &generator) * 40)).jpg"
}

do {
  let thumbnails = try TieredCache<String, Thumbnail>(
    directory: folder, policy: policy, memoryCountLimit: 10, diskCostLimit: 32 << 20)
  for name in requests { _ = try await thumbnails.value(forKey: name) { try await render($0) } }
  let s = thumbnails.statistics
  print("first run: \(s.memoryHits) memory hits, \(s.diskHits) disk hits, \(s.loads) rendered")
}
let restarted = try TieredCache<String, Thumbnail>(
  directory: folder, policy: policy, memoryCountLimit: 10, diskCostLimit: 32 << 20)
for name in Set(requests) { _ = try await restarted.value(forKey: name) { try await render($0) } }
let s = restarted.statistics
print("after a restart: \(s.diskHits) disk hits, \(s.loads) rendered")
