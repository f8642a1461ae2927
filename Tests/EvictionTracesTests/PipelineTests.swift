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
}
