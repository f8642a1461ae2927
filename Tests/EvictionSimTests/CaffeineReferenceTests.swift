import EvictionCore
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// The `caffeine` model against the real Caffeine 2.6.2
/// (`results/reference/caffeine_262.tsv`, made by
/// `scripts/reference-caffeine.sh` with Debian's libcaffeine-java): the same
/// requests missed, not only as many.
@Suite struct CaffeineReferenceTests {
  struct Row {
    var trace: String
    var format: String
    var bytes: Bool
    var seed: Int64
    var size: Int64
    var requests: Int64
    var misses: Int64
    var bytesMissed: Int64
    var fingerprint: String
    var sketchSeed: Int32
  }

  static func rows() throws -> [Row] {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/caffeine_262.tsv"), encoding: .utf8)
    var lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
    let header = lines.removeFirst()
    return lines.map { fields in
      let row = Dictionary(uniqueKeysWithValues: zip(header, fields))
      return Row(
        trace: row["trace"]!, format: row["format"]!, bytes: row["size_mode"] == "bytes", seed: Int64(row["seed"]!)!,
        size: Int64(row["cache_size"]!)!, requests: Int64(row["n_req"]!)!, misses: Int64(row["n_miss"]!)!,
        bytesMissed: Int64(row["n_miss_byte"]!)!, fingerprint: row["missed_fingerprint"]!,
        sketchSeed: Int32(row["sketch_seed"]!)!)
    }
  }

  /// Replays `records` as the harness does: a lookup, and on a miss an
  /// admission. Returns the misses, the bytes missed and the FNV-1a
  /// fingerprint of the missed positions.
  static func replay(_ records: [TraceRecord], _ row: Row) -> (misses: Int64, bytes: Int64, fingerprint: String) {
    var policy = CaffeineModel<IntegerSlotIndex<UInt64>>(capacity: row.size, seed: row.seed)
    var misses: Int64 = 0
    var bytes: Int64 = 0
    var fingerprint: UInt64 = 0xcbf2_9ce4_8422_2325
    for (position, record) in records.enumerated() {
      let request = Request(key: record.key, weight: row.bytes ? record.size : 1)
      if policy.lookup(request, onEvict: { _, _ in }) == nil {
        misses += 1
        bytes += record.size
        fingerprint = (fingerprint ^ UInt64(position)) &* 0x100_0000_01b3
        _ = policy.admit(request) { _, _ in }
      }
    }
    policy.checkInvariants()
    let hex = String(fingerprint, radix: 16)
    return (misses, bytes, String(repeating: "0", count: 16 - hex.count) + hex)
  }

  /// Every row: at least 8 traces × 3 sizes in count mode, two byte-mode
  /// traces, two seeds; each agrees to the request.
  @Test func everyRowAgreesRequestForRequest() throws {
    let rows = try Self.rows()
    #expect(Set(rows.filter { !$0.bytes }.map(\.trace)).count >= 8)
    #expect(rows.filter(\.bytes).count >= 6 && Set(rows.map(\.seed)).count >= 2)
    var wrong: [String] = []
    for (trace, group) in Dictionary(grouping: rows, by: { "\($0.trace)|\($0.format)" }).sorted(by: { $0.key < $1.key })
    {
      let format = try TraceFormat(name: group[0].format)
      let records = try openTrace(SharedData.trace(group[0].trace), format: format).readAll()
      for row in group {
        let what = "\(trace) \(row.bytes ? "bytes" : "count") \(row.size) seed \(row.seed)"
        if Int64(records.count) != row.requests { wrong.append("\(what): \(records.count) requests") }
        let ours = Self.replay(records, row)
        if ours.misses != row.misses || ours.fingerprint != row.fingerprint
          || (row.bytes && ours.bytes != row.bytesMissed)
        {
          wrong.append(
            "\(what): \(ours.misses) misses, \(ours.bytes) bytes, \(ours.fingerprint); Caffeine \(row.misses), \(row.bytesMissed), \(row.fingerprint)"
          )
        }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }

  /// The sketch's spread seed is Java 17's first ThreadLocalRandom draw
  /// from the pinned seed, made odd, as the library drew it.
  @Test func theSketchSeedIsTheFirstDraw() throws {
    for row in try Self.rows() {
      var random = JavaThreadLocalRandom(seed: row.seed)
      let draw = random.nextInt()
      #expect((draw | 1) == row.sketchSeed, "seed \(row.seed)")
    }
  }
}
