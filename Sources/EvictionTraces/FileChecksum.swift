import CCompression

/// A trace file's fingerprint as a catalog records it: `crc32:` and eight hex
/// digits of zlib's CRC-32 over the file's bytes as stored (compressed or
/// not). It tells a catalog that the file it lists is still the one it
/// measured; it is no defence against someone who wants to fool it.
public enum FileChecksum {
  public static func crc32(path: String) throws(TraceError) -> String {
    let file = try FileSource(path: path)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    var crc: UInt = 0
    while true {
      let n = try file.read(into: buffer)
      if n == 0 { break }
      crc = CCompression.crc32(crc, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(n))
    }
    let hex = String(crc, radix: 16)
    return "crc32:" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
  }
}
