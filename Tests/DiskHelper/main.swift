// The disk tests' second process (not part of evlab):
//   disk-helper write-stream DIR   sets key-0, key-1, … printing `ack N` after each set returns (killed at random)
//   disk-helper hold DIR MS        holds the manifest's write lock for MS milliseconds, printing `held`
//   disk-helper snapshot FILE POLICY   serves 8,000 requests, writes a snapshot to FILE, serves 8,000
//                                  more and prints `hits` and their outcomes (a warm restart's reference)
import EvictionCache
import EvictionDisk

#if canImport(Glibc)
  import Glibc
#endif

/// Writes to standard output at once: what is printed was acknowledged.
func say(_ text: String) {
  let bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let n = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n <= 0 { exit(3) }
    offset += n
  }
}

/// Key i's value: sizes cycle through inline and file sizes; bytes from i.
func value(_ i: Int) -> [UInt8] {
  let sizes = [0, 10, 700, 2048, 2049, 9000, 40_000]
  return (0..<sizes[i % sizes.count]).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
}

/// Request i of the snapshot stream: a skewed key and its cost, from a
/// fixed linear congruential sequence (the restoring test makes the same).
func snapshotRequest(_ i: Int) -> (key: String, cost: Int) {
  var x = UInt64(i) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
  x ^= x >> 33
  let u = Double(x % 1_000_000) / 1_000_000
  let key = Int(u * u * 1_500)
  return ("k\(key)", 5 + key % 60)
}

/// Serves requests `range` of the snapshot stream: a read, a write on a miss.
func serveSnapshotStream(_ cache: MemoryCache<String, [UInt8]>, _ range: Range<Int>) -> String {
  String(
    range.map { i -> Character in
      let (key, cost) = snapshotRequest(i)
      if cache.value(forKey: key) != nil { return "1" }
      cache.setValue(Array(key.utf8), forKey: key, cost: cost)
      return "0"
    })
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
  say("usage: disk-helper write-stream DIR | hold DIR MS\n")
  exit(2)
}
do {
  switch arguments[1] {
  case "write-stream":
    let store = try DiskStore(directory: arguments[2], inlineThreshold: 2048)
    for i in 0..<1_000_000 {
      try store.setValue(value(i), forKey: "key-\(i)")
      // Some keys are written again, so replacements are killed too.
      if i % 5 == 4 { try store.setValue(value(i - 2), forKey: "key-\(i - 2)") }
      say("ack \(i)\n")
    }
  case "snapshot":
    let cache = try MemoryCache<String, [UInt8]>(
      policy: CachePolicy(arguments.count > 3 ? arguments[3] : "lru"), costLimit: 6_000)
    _ = serveSnapshotStream(cache, 0..<8_000)
    try cache.writeSnapshot(to: arguments[2])
    say("hits \(serveSnapshotStream(cache, 8_000..<16_000))\n")
  case "hold":
    let milliseconds = arguments.count > 3 ? Int(arguments[3]) ?? 500 : 500
    try DiskStore.holdWriteLock(directory: arguments[2], milliseconds: milliseconds) { say("held\n") }
  default:
    say("unknown command \(arguments[1])\n")
    exit(2)
  }
} catch {
  say("error: \(error)\n")
  exit(1)
}
