import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// A trace's own next-access fields are checked against its requests before
/// an offline policy ranks the cache by them: a forged field would make
/// Belady's "optimum" a worse number than the optimum, with exit 0.
@Suite struct NextAccessCheckTests {
  /// Keys A B A C B A as oracleGeneral, with `next` as the next-access fields
  /// (1-based positions, -1 for never).
  static let keys: [UInt64] = [7, 8, 7, 0, 8, 7]
  static let truth: [Int64] = [3, 5, 6, -1, -1, -1]

  static func write(_ next: [Int64], format: TraceFormat = .oracleGeneral) throws -> String {
    let path = try ScratchFolder("next-access").url.path + "/t.\(format.rawValue)"
    let writer = try TraceWriter(path: path, format: format)
    try writer.write(
      zip(keys, next).enumerated().map { i, pair in
        TraceRecord(key: pair.0, size: 10, time: Int64(i), nextAccess: pair.1 < 0 ? TraceRecord.never : pair.1)
      })
    try writer.finish()
    return path
  }

  /// Reads `path` as an offline policy does; the records, or the error.
  static func read(_ path: String, copies: Int = 1, limit: Int64? = nil, readAhead: Bool = false) -> Result<
    [TraceRecord], TraceError
  > {
    var seen: [TraceRecord] = []
    do throws(TraceError) {
      var source = TraceSource(path: path, format: TraceFormat.infer(fromPath: path)!, copies: copies)
      source.readAhead = readAhead
      _ = try source.forEachBatch(withNextAccess: true, limit: limit) { batch, _ in seen += batch }
      return .success(seen)
    } catch {
      return .failure(error)
    }
  }

  static func refusal(_ path: String, limit: Int64? = nil) -> String? {
    guard case .failure(let error) = read(path, limit: limit) else { return nil }
    guard case .failure(let ahead) = read(path, limit: limit, readAhead: true), ahead.description == error.description
    else { return "read-ahead read it differently" }
    return error.description
  }

  @Test(arguments: [TraceFormat.oracleGeneral, .lcs])
  func trueFieldsAndFieldsPastTheEndAreRead(format: TraceFormat) throws {
    #expect(try Self.read(Self.write(Self.truth, format: format)).get().count == 6)
    // A trace cut from a longer one: last requests point past its end.
    #expect(try Self.read(Self.write([3, 5, 6, 40, 9, 7], format: format)).get().count == 6)
  }

  @Test func aFieldPointingTooLateIsRefusedWhereTheObjectComes() throws {
    let message = try #require(Self.refusal(Self.write([3, 5, 100, -1, -1, -1])))
    #expect(message.contains("record 6"), "\(message)")
    #expect(message.contains("object 7 comes here") && message.contains("says request 100"), "\(message)")
  }

  @Test func aFieldSayingNeverForAnObjectThatComesAgainIsRefused() throws {
    let message = try #require(Self.refusal(Self.write([-1, 5, 6, -1, -1, -1])))
    #expect(message.contains("record 3") && message.contains("never again"), "\(message)")
  }

  @Test func aFieldPointingAtAnotherObjectIsRefused() throws {
    // A claims request 4 (key 0's), and then comes at 3.
    let early = try #require(Self.refusal(Self.write([4, 5, 6, -1, -1, -1])))
    #expect(early.contains("record 3") && early.contains("says request 4"), "\(early)")
    // Object 0 claims request 5 (B's): left open when the trace ends.
    let open = try #require(Self.refusal(Self.write([3, 5, 6, 5, -1, -1])))
    #expect(open.contains("record 5") && open.contains("object 0's last request"), "\(open)")
  }

  @Test func aFieldPointingBackwardsIsRefused() throws {
    for forged: [Int64] in [[1, 5, 6, -1, -1, -1], [3, 5, 6, 2, -1, -1], [3, 0, 6, -1, -1, -1]] {
      let message = try #require(Self.refusal(Self.write(forged)), "\(forged)")
      #expect(message.contains("not after this one"), "\(message)")
    }
  }

  @Test func claimsLeftOpenByALimitAreNotJudged() throws {
    // Three requests read: A's claim of 6 and B's of 5 are still open.
    #expect(try Self.refusal(Self.write(Self.truth), limit: 3) == nil)
    #expect(try Self.refusal(Self.write([3, 5, 6, 5, -1, -1]), limit: 4) == nil)
  }

  /// Fields name positions in the file; a zero-size record the reader
  /// skips still holds its position (libCacheSim counts it).
  @Test func aSkippedZeroSizeRecordKeepsItsPosition() throws {
    let path = try ScratchFolder("next-access").url.path + "/z.oracleGeneral"
    let writer = try TraceWriter(path: path, format: .oracleGeneral)
    try writer.write([
      TraceRecord(key: 7, size: 10, nextAccess: 4), TraceRecord(key: 9, size: 0, nextAccess: TraceRecord.never),
      TraceRecord(key: 8, size: 10, nextAccess: TraceRecord.never),
      TraceRecord(key: 7, size: 10, nextAccess: TraceRecord.never),
    ])
    try writer.finish()
    #expect(try Self.read(path).get().map(\.key) == [7, 8, 7])
    // A claim may name the object's own zero-size request, which the reader drops.
    let own = try ScratchFolder("next-access").url.path + "/own.oracleGeneral"
    let ownWriter = try TraceWriter(path: own, format: .oracleGeneral)
    try ownWriter.write([
      TraceRecord(key: 7, size: 10, nextAccess: 2), TraceRecord(key: 7, size: 0, nextAccess: 4),
      TraceRecord(key: 8, size: 10, nextAccess: TraceRecord.never), TraceRecord(key: 7, size: 10, nextAccess: 6),
    ])
    try ownWriter.finish()
    #expect(try Self.read(own).get().map(\.key) == [7, 8, 7])
  }

  @Test func everyCopyOfARepeatedTraceIsReadAfterTheFirstIsChecked() throws {
    #expect(try Self.read(Self.write(Self.truth), copies: 3).get().count == 18)
  }

  @Test func aSharedTraceFromLibCacheSimPassesTheCheck() throws {
    let path = SharedData.trace("libcachesim/cloudPhysicsIO.oracleGeneral.bin")
    #expect(try Self.read(path).get().count > 100_000)
  }
}
