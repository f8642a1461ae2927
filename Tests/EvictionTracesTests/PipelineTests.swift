import EvictionTestSupport
import EvictionTraces
import Testing

/// The request pipeline every replay, curve and statistics pass reads through.
@Suite struct PipelineTests {
  func records(_ source: TraceSource, withNextAccess: Bool = false, limit: Int64? = nil) throws -> [(
    TraceRecord, TraceTile
  )] {
    var out: [(TraceRecord, TraceTile)] = []
    try source.forEachBatch(withNextAccess: withNextAccess, limit: limit) { batch, tile in
      for record in batch { out.append((record, tile)) }
    }
    return out
  }

  @Test func copiesAreTiledWithDisjointIdsAndCountedRequests() throws {
    let path = try ScratchFolder().file("t.txt", "5\n7\n5\n")
    var source = TraceSource(path: path, format: .txt)
    source.copies = 3
    let seen = try records(source)
    #expect(seen.count == 9)
    // The stride is the largest id + 1, so copy k's ids are k·8 + id.
    #expect(seen.map { $0.0.key &+ $0.1.idOffset } == [5, 7, 5, 13, 15, 13, 21, 23, 21])
    #expect(seen.map(\.1.requestOffset) == [0, 0, 0, 3, 3, 3, 6, 6, 6])
  }

  @Test func aLimitStopsMidBatchAndMidCopy() throws {
    let path = try ScratchFolder().file("t.txt", (1...2500).map(String.init).joined(separator: "\n") + "\n")
    var source = TraceSource(path: path, format: .txt)
    #expect(try records(source, limit: 1500).count == 1500)
    source.copies = 2
    let limited = try records(source, limit: 3000)
    #expect(limited.count == 3000)
    #expect(limited.last!.1.requestOffset == 2500)
  }

  @Test func nextAccessIsFilledInForFormatsWithoutIt() throws {
    let path = try ScratchFolder().file("t.txt", "1\n2\n1\n3\n2\n")
    let seen = try records(TraceSource(path: path, format: .txt), withNextAccess: true).map(\.0.nextAccess)
    #expect(seen == [3, 5, TraceRecord.never, TraceRecord.never, TraceRecord.never])
  }

  @Test func theEstimateOfRequestsIsExactForPlainTraces() throws {
    let folder = try ScratchFolder()
    let text = TraceSource(path: try folder.file("t.txt", "1\n2\n3\n4\n"), format: .txt)
    #expect(try text.estimatedRequests() == 4)
    var tiled = text
    tiled.copies = 5
    #expect(try tiled.estimatedRequests() == 20)
    let shared = TraceSource(
      path: SharedData.trace("libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)
    var counted = 0
    try shared.forEachBatch { batch, _ in counted += batch.count }
    #expect(try shared.estimatedRequests() == Int64(counted))
  }

  // MARK: Reading ahead on a thread of its own

  /// Every record with its tile's offsets, and what the pass reported skipped.
  func pass(_ source: TraceSource, readAhead: Bool, limit: Int64? = nil) throws(TraceError) -> (
    records: [(key: UInt64, size: Int64, idOffset: UInt64, requestOffset: Int64)], skipped: SkippedRecords
  ) {
    var source = source
    source.readAhead = readAhead
    var out: [(key: UInt64, size: Int64, idOffset: UInt64, requestOffset: Int64)] = []
    let skipped = try source.forEachBatch(limit: limit) { batch, tile in
      for record in batch { out.append((record.key, record.size, tile.idOffset, tile.requestOffset)) }
    }
    return (out, skipped)
  }

  func expectSamePasses(_ source: TraceSource, limit: Int64? = nil) throws {
    let plain = try pass(source, readAhead: false, limit: limit)
    let ahead = try pass(source, readAhead: true, limit: limit)
    #expect(ahead.records.count == plain.records.count)
    #expect(ahead.skipped == plain.skipped)
    let firstDifference = zip(plain.records, ahead.records).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    #expect(firstDifference == nil, "request \(firstDifference ?? 0) differs")
  }

  @Test func readingAheadHandsOnTheSameRecordsTilesAndSkips() throws {
    // cloudPhysicsIO holds several read-ahead slots' worth of requests;
    // three copies cross slot and copy boundaries, limits stop mid-slot.
    var shared = TraceSource(
      path: SharedData.trace("libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)
    shared.copies = 3
    try expectSamePasses(shared)
    try expectSamePasses(shared, limit: 40_000)
    try expectSamePasses(shared, limit: 250_000)
    // Malformed lines passed over and zero-size requests are reported alike.
    let lines = (1...70_000).map { i in
      i % 9_000 == 0 ? "\(i),oops" : i % 7_000 == 0 ? "\(i),0" : "\(i % 5_000),\(i % 97 + 1)"
    }
    var csv = TraceSource(
      path: try ScratchFolder().file("t.csv", "id,size\n" + lines.joined(separator: "\n") + "\n"), format: .csv,
      skipBadRecords: true)
    csv.copies = 2
    let plain = try pass(csv, readAhead: false)
    #expect(plain.skipped.count == 7 && plain.skipped.zeroSize == 9)
    try expectSamePasses(csv)
  }

  @Test func aReadingErrorArrivesAfterEveryRecordReadBeforeIt() throws {
    // Past the first read-ahead slot: data line 45,001 (file line 45,002) has no number for a size.
    let lines = (1...50_000).map { $0 == 45_001 ? "\($0),oops" : "\($0),1" }
    let path = try ScratchFolder().file("t.csv", "id,size\n" + lines.joined(separator: "\n") + "\n")
    let source = TraceSource(path: path, format: .csv)
    var delivered: [Int] = []
    for readAhead in [false, true] {
      var seen = 0
      var reading = source
      reading.readAhead = readAhead
      do {
        try reading.forEachBatch { batch, _ in seen += batch.count }
        Issue.record("no error (read ahead: \(readAhead))")
      } catch {
        guard case .malformedLine(_, let line, _) = error else {
          Issue.record("unexpected \(error)")
          continue
        }
        #expect(line == 45_002)
      }
      delivered.append(seen)
    }
    // The batches before the one the reader was filling, either way.
    #expect(delivered == [44_032, 44_032])
  }

  @Test func aConsumerThatStopsStopsTheReader() throws {
    struct Enough: Error {}
    var shared = TraceSource(
      path: SharedData.trace("libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)
    shared.copies = 50
    shared.readAhead = true
    // The reader is blocked on a full set of slots when the consumer gives
    // up; forEachBatch must wake it, join it and pass the error on.
    var batches = 0
    #expect(throws: TraceError.invalidOption("enough")) {
      try shared.forEachBatch { _, _ throws(TraceError) in
        batches += 1
        if batches == 3 { throw .invalidOption("enough") }
      }
    }
    #expect(batches == 3)
  }
}
