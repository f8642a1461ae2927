// The disk tests' second process (not part of evlab):
//   disk-helper write-stream DIR   sets key-0, key-1, … printing `ack N` after each set returns (killed at random)
//   disk-helper hold DIR MS        holds the manifest's write lock for MS milliseconds, printing `held`
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
