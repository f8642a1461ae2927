import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// libCacheSim's newest release, 0.3.5 (`../shared/reference/libcachesim_035.tsv`):
/// its revised S3-FIFO, W-TinyLFU, GDSF and FIFO-Merge, the policies it added
/// (CAR, CLOCK-Pro, Clock2Q+, MQ, LRU-K, RandomLRU, flashProb) and the classic
/// ones, on cloudPhysicsIO and Twitter's cluster 52, in both size modes. The
/// older files stay true for the snapshot they name
/// (``ReferenceTests``, ``MoreTracesReferenceTests``).
@Suite struct Release035ReferenceTests {
  /// libCacheSim's algorithm name → our spec: the catalog finds its
  /// spellings itself (case, `-` and `_` ignored); nil for what we do not
  /// have yet (GL-Cache, a learned policy).
  static func spec(_ row: [String: String]) -> String? {
    let algorithm = row["algorithm"]!
    if algorithm == "GLCache" { return nil }
    guard let found = PolicyCatalog.entry(named: algorithm) else { return nil }
    return found.name
  }

  static func rows() throws -> [[String: String]] {
    try SharedData.table("reference/libcachesim_035.tsv", separator: "\t").map { row in
      var row = row
      row["spec"] = spec(row)
      row["renumber_ids"] = "false"
      return row
    }
  }

  /// Every row of a policy we have: deterministic rows miss for miss (and
  /// byte for byte), randomised rows within 1% of libCacheSim's miss ratio
  /// over eight seeds (the rule of ``MoreTracesReferenceTests/disagreements(_:seeds:)``).
  @Test func everyRowOfTheNewestReleaseAgrees() throws {
    let all = try Self.rows()
    let rows = all.filter { $0["spec"] != nil }
    let missing = Set(all.filter { $0["spec"] == nil }.map { $0["algorithm"]! })
    #expect(missing == ["GLCache"], "no catalog policy for \(missing.sorted())")
    #expect(rows.count >= 213, "the reference lost rows (\(rows.count))")
    #expect(Set(rows.map { $0["size_mode"]! }) == ["count", "bytes"])
    #expect(Set(rows.map { $0["libcachesim"]! }) == ["0.3.5"])
    let wrong = try MoreTracesReferenceTests.disagreements(rows)
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }

  /// Rows of 0.3.5 made here, for what its `cachesim` does not offer
  /// (`results/reference/`, with the commands that made them).
  static func ownRows(_ file: String) throws -> [[String: String]] {
    let text = try String(
      contentsOf: SharedData.repository.appendingPathComponent("results/reference/" + file), encoding: .utf8)
    var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    let header = lines.removeFirst().map(String.init)
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0.map(String.init))) }
  }

  /// SR-LRU as 0.3.5 defines it, `sr-lru:grow-sr=true`, on both traces and
  /// in both size modes; it may hold a few objects more than its capacity,
  /// as 0.3.5 does, so it is not the default.
  @Test func srLRUOfTheNewestReleaseAgrees() throws {
    let rows = try Self.ownRows("libcachesim_035_sr_lru.tsv").map { row in
      var row = row
      row["spec"] = "sr-lru:grow-sr=true"
      row["renumber_ids"] = "false"
      return row
    }
    #expect(rows.count == 22 && Set(rows.map { $0["algorithm"]! }) == ["sr_lru"])
    let wrong = try MoreTracesReferenceTests.disagreements(rows)
    #expect(wrong.isEmpty, "\(wrong.count) rows differ:\n\(wrong.joined(separator: "\n"))")
  }

  /// Each policy the file checks says so in its descriptor, which the
  /// README's policy table prints.
  @Test func policiesCheckedHereNameTheRelease() throws {
    let names = Set(try Self.rows().compactMap { $0["spec"] })
    for name in names {
      #expect(PolicyCatalog.entry(named: name)!.libCacheSim == "0.3.5", "\(name) does not say it follows 0.3.5")
    }
  }
}
