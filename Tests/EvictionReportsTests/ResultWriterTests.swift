import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// Every results table goes through one writer: what each row type encodes
/// must be exactly its contract's columns, or a key was renamed or lost.
@Suite struct ResultWriterTests {
  @Test func everyRowTypeWritesExactlyItsContractColumns() throws {
    let folder = try ScratchFolder()
    let source = TraceSource(path: try folder.file("t.txt", "1\n2\n1\n3\n1\n"), format: .txt)
    let replay = try TraceReplay.run(source, policy: PolicySpec("lru"), cacheSize: 2, sizeMode: .count)
    // A row writes its learning and tuning fields, empty, whatever its
    // policy; a table lists them only when a learned (or tuning) policy's
    // row is in it.
    let own = ReplayResult.columns + ReplayResult.learningColumns
    let written = own + ReplayResult.tunedColumns
    let optional = ReplayResult.learningColumns + ReplayResult.tunedColumns + ReplayResult.penaltyColumns
    #expect(ResultWriter.columns(of: replay).sorted() == (ReplayResult.columns + optional).sorted())
    #expect(ReplayResult.columns(ReplayResult.columns, of: [replay]) == ReplayResult.columns)
    var learned = replay
    learned.fields.trainings = 3
    learned.fields.trainingSeconds = 0.5
    #expect(ReplayResult.columns(ReplayResult.columns, of: [replay, learned]) == own)
    var tuned = learned
    tuned.fields.tuned = "kept"
    #expect(ReplayResult.columns(ReplayResult.columns, of: [replay, tuned]) == written)
    // A weighed row (`--penalty`) adds the penalty columns after those.
    var weighed = tuned
    weighed.fields.penaltyModel = "trace"
    #expect(
      ReplayResult.columns(ReplayResult.columns, of: [replay, weighed]) == written + ReplayResult.penaltyColumns)
    // A row replayed with TTLs adds exactly their columns, after the contract's.
    var expiring = replay
    expiring.semantics = SemanticsCounts(semantics: "libcachesim", useTtl: true, expiredRequests: 3)
    let extended = ReplayResult.columns + SemanticsCounts.columns
    #expect(
      ResultWriter.columns(of: expiring).sorted()
        == (extended + optional).sorted())
    #expect(ReplayResult.columns(ReplayResult.columns, of: [replay, expiring]) == extended)
    let stress = try StressRun.Sweep(
      policies: [PolicySpec("lru")], locks: [.mutex], threads: [1], cacheSize: 2, sizeMode: .count, ops: 5
    ).run(StressRun.Workload(source))
    #expect(stress.count == 3)
    for row in stress { #expect(ResultWriter.columns(of: row).sorted() == StressResult.columns.sorted()) }
    let disk = try DiskBench.run(mode: .sqlite, valueSize: 16, ops: 10, directory: folder.url.path)
    for row in disk { #expect(ResultWriter.columns(of: row).sorted() == DiskBench.Result.columns.sorted()) }
  }

  /// A row's key, counts and own fields sit side by side in one JSON
  /// object under a snake_case key strategy, and decode back to the row.
  @Test func rowsAreFlatUnderTheSnakeCaseStrategyAndRoundTrip() throws {
    let folder = try ScratchFolder()
    let source = TraceSource(path: try folder.file("t.txt", "1\n2\n1\n3\n1\n"), format: .txt)
    var replay = try TraceReplay.run(source, policy: PolicySpec("arc"), cacheSize: 2, sizeMode: .count)
    replay.skipped = SkippedRecords()  // not a column
    #expect(replay.hits == replay.counts.hits && replay.policy == "arc" && replay.cacheSize == 2)
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let data = try encoder.encode(replay)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    // Codable leaves out what is nil: a policy of one tier writes no flash columns
    // (ResultWriter writes them empty, under their names).
    // A row run outside a sweep has no size label or share either.
    #expect(
      Set(object.keys)
        == Set(ReplayResult.columns).subtracting(["flash_writes", "flash_write_bytes", "size_label", "size_share"]))
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    #expect(try decoder.decode(ReplayResult.self, from: data) == replay)

    // A baseline cell is the same key and counts, nothing else.
    let cell = Baseline.Cell(key: replay.key, counts: replay.counts)
    let baseline = try Baseline.decode(Data(Baseline(cells: [cell]).encoded().utf8))
    #expect(baseline.cells == [cell])
    let cellObject = try #require(
      try JSONSerialization.jsonObject(with: Data(Baseline(cells: [cell]).encoded().utf8)) as? [String: Any])
    let cellKeys = (cellObject["cells"] as? [[String: Any]])?.first.map { Set($0.keys) }
    #expect(
      cellKeys == [
        "trace", "format", "policy", "cache_size", "size_mode", "admission", "requests", "hits", "misses",
        "bytes_requested", "bytes_missed",
      ])
    // A baseline written before admission existed reads as `none`.
    let old =
      #"{"version": 1, "cells": [{"trace": "t", "format": "txt", "policy": "lru", "cache_size": 5, "size_mode": "count", "requests": 3, "hits": 1, "misses": 2, "bytes_requested": 3, "bytes_missed": 2}]}"#
    #expect(try Baseline.decode(Data(old.utf8)).cells.first?.admission == "none")
  }

  @Test func csvAndJSONCarryTheSameFieldsAndNilIsNull() throws {
    let folder = try ScratchFolder()
    let source = TraceSource(path: try folder.file("t.txt", "1\n2\n1\n3\n1\n"), format: .txt)
    let stress = try StressRun.Sweep(
      policies: [PolicySpec("lru")], locks: [.mutex], threads: [1], cacheSize: 2, sizeMode: .count, ops: 5
    ).run(StressRun.Workload(source))
    let csv = StressTables.csv(stress).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(csv[0] == Substring(StressResult.columns.joined(separator: ",")))
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(StressTables.json(stress).utf8)) as? [String: Any])
    let rows = try #require(json["results"] as? [[String: Any]])
    #expect(rows.count == 3 && rows.allSatisfy { Set($0.keys) == Set(StressResult.columns) })
    // The comparison points have no ratio to themselves: null in JSON, empty in CSV.
    let nscache = try #require(rows.first { $0["lock"] as? String == "nscache" })
    #expect(nscache["vs_nscache"] is NSNull)
    let cores = ProcessInfo.processInfo.activeProcessorCount
    #expect(csv.contains { $0.contains(",nscache,") && $0.hasSuffix(",,,none,,,,\(cores)") })
    #expect(nscache["dropped_accesses"] is NSNull && nscache["hit_ratio_drift"] is NSNull)
    #expect(rows[0]["dropped_accesses"] as? Int == 0 && rows[0]["hit_ratio_drift"] as? Double == 0)
    #expect(rows[0]["gets"] as? Int == 5 && rows[0]["trace"] as? String == "t.txt")
  }

  @Test func keysBecomeSnakeCaseOnce() {
    struct Row: Encodable {
      var cacheSize = 5
      var label = "x"
      var getP999Ns: UInt64 = 7
      var ratio: Double? = nil
      enum CodingKeys: String, CodingKey {
        case cacheSize
        case label = "size_label"
        case getP999Ns, ratio
      }
    }
    #expect(ResultWriter.columns(of: Row()) == ["cache_size", "size_label", "get_p999_ns", "ratio"])
    #expect(ResultWriter.csv([Row()]) == "cache_size,size_label,get_p999_ns,ratio\n5,x,7,\n")
    #expect(
      ResultWriter.json([Row()]).contains(
        "{\"cache_size\": 5, \"size_label\": \"x\", \"get_p999_ns\": 7, \"ratio\": null}"))
  }

  @Test func traceInfoJSONEscapesNamesAndParses() throws {
    let path = try ScratchFolder().file("odd \"name\".txt", "1\n2\n1\n")
    let info = try TraceInfo.measure(TraceSource(path: path, format: .txt))
    let object = try JSONSerialization.jsonObject(with: Data(TraceInfoTables.json([info]).utf8)) as? [String: Any]
    let traces = try #require(object?["traces"] as? [[String: Any]])
    #expect(traces[0]["trace"] as? String == "odd \"name\".txt")
    #expect(traces[0]["requests"] as? Int == 3 && traces[0]["unique_objects"] as? Int == 2)
    #expect(traces[0]["gets"] as? Int == 3 && traces[0]["requests_with_ttl"] as? Int == 0)
    #expect(!TraceInfoTables.text([info]).contains("deletes"), "a trace of gets says nothing of operations")
  }

  @Test func traceInfoCountsOperationsAndTTLs() throws {
    let path = try ScratchFolder().file(
      "kv.csv", "key,op,size,ttl\na,GET,10,0\na,SET,10,30\nb,SET,20,10\na,DELETE,10,0\nb,GET,20,0\n")
    let info = try TraceInfo.measure(TraceSource(path: path, format: .cachelib))
    #expect((info.gets, info.sets, info.deletes) == (2, 2, 1))
    #expect(info.requestsWithTtl == 2 && info.ttlMin == 10 && info.ttlMax == 30 && info.ttlMean == 20)
    #expect(
      TraceInfoTables.text([info]).contains(
        "gets 2, sets 2, deletes 1; TTLs on 2 requests: min 10 s, mean 20.0 s, max 30 s"))
    let object = try JSONSerialization.jsonObject(with: Data(TraceInfoTables.json([info]).utf8)) as? [String: Any]
    let trace = try #require((object?["traces"] as? [[String: Any]])?.first)
    #expect(trace["deletes"] as? Int == 1 && trace["ttl_mean"] as? Double == 20 && trace["ttl_max"] as? Int == 30)
    #expect(trace["digest"] as? String == info.digest && !info.digest.isEmpty)
  }
}
