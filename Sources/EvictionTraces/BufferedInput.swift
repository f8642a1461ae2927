/// A byte window over a ``ByteSource`` for the readers: records or lines are
/// parsed in place, and a partial one at the end of the window is carried over.
final class BufferedInput {
  let source: ByteSource
  let storage: UnsafeMutableRawBufferPointer
  /// Valid bytes are `storage[start..<end]`.
  var start = 0
  var end = 0
  /// Bytes consumed before `storage[start]` (for byte offsets in errors).
  var consumed: Int64 = 0
  var exhausted = false

  init(_ source: ByteSource, capacity: Int = 1 << 16) {
    self.source = source
    storage = .allocate(byteCount: capacity, alignment: 16)
  }

  deinit { storage.deallocate() }

  var available: Int { end - start }

  /// Moves what is left to the front and reads more. Returns false at the end.
  func refill() throws(TraceError) -> Bool {
    if exhausted { return false }
    let left = end - start
    if left > 0 && start > 0 {
      storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: left)
    }
    start = 0
    end = left
    while end < storage.count {
      let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[end...]))
      if n == 0 {
        exhausted = true
        break
      }
      end += n
      if end - left >= storage.count / 2 { break }
    }
    return end > left
  }

  @inline(__always)
  func advance(_ n: Int) {
    start += n
    consumed += Int64(n)
  }
}
