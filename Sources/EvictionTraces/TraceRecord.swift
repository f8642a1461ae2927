/// One request read from a trace.
@frozen
public struct TraceRecord: Equatable, Sendable {
  /// The object's id (string ids are hashed to 64 bits, see ``TextKey``).
  public var key: UInt64
  /// The request's size in bytes (1 where the format carries no sizes).
  public var size: Int64
  /// The trace's timestamp in seconds (0 where the format carries none).
  public var time: Int64
  /// The 1-based index of the key's next request, or `TraceRecord.never`.
  public var nextAccess: Int64

  public static var never: Int64 { Int64.max }

  @inlinable
  public init(key: UInt64, size: Int64 = 1, time: Int64 = 0, nextAccess: Int64 = Int64.max) {
    self.key = key
    self.size = size
    self.time = time
    self.nextAccess = nextAccess
  }
}

/// Turns a text key into a 64-bit id: decimal integers that fit in 64 bits
/// keep their value (so `123` in a text trace is object 123, as in
/// libCacheSim with `obj-id-is-num=true`); any other string is hashed with
/// 64-bit FNV-1a. Two distinct strings collide with probability about
/// n²/2⁶⁵ for n distinct keys: negligible for any trace that fits on a disk.
public enum TextKey {
  @inlinable
  public static func id(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    if let number = decimal(bytes) { return number }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
  }

  /// The id of `text`, as a text trace line holding it would get.
  public static func id(_ text: String) -> UInt64 {
    var copy = text
    return copy.withUTF8 { id(UnsafeRawBufferPointer($0)) }
  }

  /// The value of an unsigned decimal integer, or nil if `bytes` is not one or overflows.
  @inlinable @inline(__always)
  public static func decimal(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
    guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
    var value: UInt64 = 0
    for byte in bytes {
      let digit = byte &- 48
      guard digit < 10 else { return nil }
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
      if o1 || o2 { return nil }
      value = sum
    }
    return value
  }
}
