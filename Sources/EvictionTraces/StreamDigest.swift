/// A fingerprint of a request stream as evlab reads it: every request's key,
/// size and time, in order. Two traces with the same digest hold the same
/// requests whatever their formats; one that differs in a single size or
/// time has another. Written `stream:` and 16 hex digits. It tells files
/// apart; it is no defence against someone who wants to fool it.
public struct StreamDigest: Sendable, Equatable {
  @usableFromInline var bits: UInt64 = 0x6A09_E667_F3BC_C908
  /// The digest as a number.
  public var state: UInt64 { bits }

  public init() {}

  @inlinable @inline(__always)
  public mutating func add(key: UInt64, size: Int64, time: Int64) {
    bits = Self.mix(bits &+ key)
    bits = Self.mix(bits &+ UInt64(bitPattern: size))
    bits = Self.mix(bits &+ UInt64(bitPattern: time))
  }

  /// Adds one 64-bit value (counts and other fields a digest covers).
  @inlinable @inline(__always)
  public mutating func add(_ value: Int64) { bits = Self.mix(bits &+ UInt64(bitPattern: value)) }

  /// Adds a string's UTF-8 bytes and its length.
  public mutating func add(_ text: String) {
    for byte in text.utf8 { bits = Self.mix(bits &+ UInt64(byte)) }
    add(Int64(text.utf8.count))
  }

  /// SplitMix64's finaliser: every input bit moves every output bit.
  @inlinable @inline(__always)
  static func mix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// The state as 16 hex digits.
  public var hex: String {
    let digits = String(state, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// `stream:` and ``hex``.
  public var description: String { "stream:" + hex }
}
