import Foundation
import Testing

/// `evlab bench memory` in a process of its own: the allocator's statistics
/// count every thread's allocations, and this test process runs suites in
/// parallel, so the figures are only the cache's in a quiet process.
@Suite struct MemoryBenchCommandTests {
  struct Row: Decodable {
    var policy: String
    var entries: Int
    var bytesPerEntry: Double
    var bytesPerGhost: Double?
    var ghosts: Int?
  }

  struct Report: Decodable { var results: [Row] }

  func measure(_ extra: [String]) throws -> (run: Run, rows: [Row]) {
    let run = try evlab(["bench", "memory", "--policy", "lru,arc", "--json", "-"] + extra)
    guard run.status == 0 else { return (run, []) }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return (run, try decoder.decode(Report.self, from: Data(run.stdout.utf8)).results)
  }

  /// An entry costs at least its key and value and far less than a page; a
  /// policy without history has no ghost figure, one with history has one;
  /// the baselines are measured beside them. `--entries` given twice runs both.
  @Test func rowsAreAllocatorMeasurements() throws {
    let (run, rows) = try measure(["--entries", "20000", "--entries", "5000"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(rows.map(\.entries) == [20_000, 20_000, 20_000, 20_000, 5_000, 5_000, 5_000, 5_000])
    #expect(rows.prefix(4).map(\.policy) == ["lru", "arc", "dictionary", "nscache"])
    for row in rows {
      #expect(row.bytesPerEntry >= 16 && row.bytesPerEntry < 1_000, "\(row.policy): \(row.bytesPerEntry) bytes")
    }
    let (lru, arc, dictionary) = (rows[0], rows[1], rows[2])
    #expect(lru.bytesPerGhost == nil && lru.ghosts == nil)
    let ghosts = try #require(arc.ghosts)
    #expect(ghosts >= 10_000 && ghosts <= 20_000, "ARC keeps at most c ghosts, and evicts 20,000 here: \(ghosts)")
    #expect(try #require(arc.bytesPerGhost) > 4)
    // A cache holds more per entry than a bare dictionary of the same pairs.
    #expect(lru.bytesPerEntry > dictionary.bytesPerEntry)
  }

  @Test func badEntryCountsAreRefused() throws {
    for bad in [["--entries", "0"], ["--entries", "10,,20"], ["--entries", "100", "--entries", "100"]] {
      let (run, _) = try measure(bad)
      #expect(run.status != 0 && run.stderr.contains("--entries"), "\(bad): \(run.stderr)")
    }
  }
}
