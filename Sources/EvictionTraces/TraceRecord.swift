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
  /// Seconds the object lives once written (0: no limit), where the format
  /// carries time-to-live (`lcs` from version 3, `twitter`, `csv` with a
  /// `ttl` column).
  public var ttl: UInt32
  /// What the request does; `get` where the format carries no operations.
  public var op: Operation

  public static var never: Int64 { Int64.max }

  @inlinable
  public init(
    key: UInt64, size: Int64 = 1, time: Int64 = 0, nextAccess: Int64 = Int64.max, ttl: UInt32 = 0,
    op: Operation = .get
  ) {
    self.key = key
    self.size = size
    self.time = time
    self.nextAccess = nextAccess
    self.ttl = ttl
    self.op = op
  }

  /// Whether a reader skips this record as a zero-size request: any record
  /// of size 0 (as libCacheSim skips them), but with `keepingWrites` (key-value
  /// semantics) only a get, since a set or delete applies whatever its size.
  @inlinable @inline(__always)
  public func isSkippedAsZeroSize(keepingWrites: Bool) -> Bool {
    size == 0 && !(keepingWrites && op != .get)
  }

  /// A request's operation. Traces name many (memcached's, libCacheSim's
  /// `req_op_e`); each reads as one of three, by what it does to the cache:
  ///
  /// | trace operation | reads as |
  /// | --- | --- |
  /// | get, gets, read, nop | `get` |
  /// | set, add, replace, cas, append, prepend, incr, decr, write, update | `set` |
  /// | delete | `delete` |
  ///
  /// Under libCacheSim's semantics every record is a request whatever its
  /// operation, as libCacheSim replays it.
  @frozen
  public enum Operation: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case get, set, delete

    /// The operation a trace's name for it reads as (case-insensitive); nil for an unknown name.
    public init?(name: some StringProtocol) {
      switch name.lowercased() {
      case "get", "gets", "read", "nop", "get_lease": self = .get
      case "set", "add", "replace", "cas", "append", "prepend", "incr", "decr", "write", "update", "set_lease":
        self = .set
      case "delete": self = .delete
      default: return nil
      }
    }

    /// The operation of libCacheSim's code (`req_op_e`: 0 nop, 1 get, 2 gets,
    /// 3 set, … 9 delete, … 14 update); nil for a code it does not define.
    public init?(libCacheSimCode code: UInt8) {
      switch code {
      case 0, 1, 2, 12: self = .get
      case 3, 4, 5, 6, 7, 8, 10, 11, 13, 14: self = .set
      case 9: self = .delete
      default: return nil
      }
    }

    public var description: String {
      switch self {
      case .get: "get"
      case .set: "set"
      case .delete: "delete"
      }
    }
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
