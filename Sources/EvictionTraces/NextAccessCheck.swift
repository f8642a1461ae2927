/// Checks a trace's own next-access fields against the requests it holds,
/// before an offline policy trusts them.
///
/// oracleGeneral and lcs records name the 1-based position of their key's
/// next request. Belady ranks the cache by these fields alone, so a file
/// whose fields lie (edited, cut from a longer trace and not renumbered,
/// or written by a buggy tool) would yield a "bound" that is not the
/// optimum. The check holds each object's latest claim and compares it
/// with where the object comes next: each claim is settled when its key
/// is next requested, and the claims still open when the trace ends must
/// point past its end. Claims past the end are allowed (never, as the
/// replay reads them).
///
/// The table is open addressing on (key, claim) pairs, 16 bytes a slot at
/// most half full; its growth is asked of ``MemoryBudget`` first.
@usableFromInline struct NextAccessCheck {
  private let path: String
  private var keys: [UInt64]
  private var claims: [Int64]
  private var shift: UInt64
  private var count = 0
  /// Key 0 lives outside the table (0 marks a free slot).
  private var zeroClaim: Int64? = nil
  /// Requests checked so far (the position of the last one, drops left
  /// out), and the records the reader dropped so far.
  private(set) var position: Int64 = 0
  private var dropped: Int64 = 0

  @usableFromInline init(path: String) {
    self.path = path
    keys = Array(repeating: 0, count: 1 << 12)
    claims = Array(repeating: 0, count: 1 << 12)
    shift = 64 - 12
  }

  /// Checks `records`, the requests after those already checked. The
  /// reader had dropped `droppedBefore` records (zero-size, or bad ones it
  /// was told to skip) before the batch and `droppedAfter` by its end:
  /// fields name positions in the file, drops included, so a record's
  /// position is known to within the drops of its batch.
  @usableFromInline mutating func check(
    _ records: Slice<UnsafeMutableBufferPointer<TraceRecord>>, droppedBefore: Int64 = 0, droppedAfter: Int64 = 0
  ) throws(TraceError) {
    for record in records {
      position &+= 1
      let (earliest, latest) = (position &+ droppedBefore, position &+ droppedAfter)
      let claim = record.nextAccess
      guard claim > earliest else {
        throw .malformedRecord(
          file: path, record: earliest,
          reason:
            "its next-access field says object \(record.key) comes again at request \(claim), not after this one")
      }
      let previous = try exchange(record.key, claim)
      // A claim before this record may name a dropped record of the same
      // object (a zero-size request libCacheSim counts): judged only where
      // nothing was dropped.
      guard let previous, (previous < earliest && droppedAfter == 0) || previous > latest else { continue }
      let said =
        previous == TraceRecord.never
        ? "never again"
        : previous < earliest ? "request \(previous), which is for another object" : "request \(previous)"
      throw .malformedRecord(
        file: path, record: earliest,
        reason: "object \(record.key) comes here, but the next-access field of its previous request says \(said)")
    }
    dropped = droppedAfter
  }

  /// Checks the claims still open once the whole trace was read: each must
  /// point past its last request (unless the reader dropped records, one
  /// of which it may name).
  @usableFromInline func finish() throws(TraceError) {
    guard dropped == 0 else { return }
    let length = position &+ dropped
    var open: (key: UInt64, claim: Int64)? = nil
    if let zeroClaim, zeroClaim <= length { open = (0, zeroClaim) }
    for (key, claim) in zip(keys, claims) where key != 0 && claim <= length && claim < open?.claim ?? .max {
      open = (key, claim)
    }
    guard let (key, claim) = open else { return }
    throw .malformedRecord(
      file: path, record: claim,
      reason:
        "object \(key)'s last request says it comes again here, but this request is for another object")
  }

  /// Records `claim` as `key`'s and returns the claim it replaces (nil for a
  /// key not seen before).
  @inline(__always)
  private mutating func exchange(_ key: UInt64, _ claim: Int64) throws(TraceError) -> Int64? {
    guard key != 0 else {
      defer { zeroClaim = claim }
      return zeroClaim
    }
    let mask = keys.count &- 1
    var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    while true {
      let held = keys[i]
      if held == key {
        defer { claims[i] = claim }
        return claims[i]
      }
      if held == 0 { break }
      i = (i &+ 1) & mask
    }
    keys[i] = key
    claims[i] = claim
    count &+= 1
    if count &* 2 > keys.count { try grow() }
    return nil
  }

  private mutating func grow() throws(TraceError) {
    let slots = keys.count &* 2
    let bytes = Int64(slots) * 16
    if bytes >= TraceRecord.checkedGrowth {
      try MemoryBudget.check(
        bytes, for: "checking the next-access fields of \(path) (16 bytes a slot per object)",
        wayOut:
          "offline policies (belady) check each object's next request against the trace first: use a shorter trace, or run where more memory is free"
      )
    }
    let (oldKeys, oldClaims) = (keys, claims)
    keys = Array(repeating: 0, count: slots)
    claims = Array(repeating: 0, count: slots)
    shift -= 1
    count = 0
    for (key, claim) in zip(oldKeys, oldClaims) where key != 0 { _ = try exchange(key, claim) }
  }
}
