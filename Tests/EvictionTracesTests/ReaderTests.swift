import EvictionRun
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

func readAll(_ path: String, format: TraceFormat? = nil, csv: CSVOptions = CSVOptions(), batch: Int = 3) throws
  -> [TraceRecord]
{
  let reader = try openTrace(path, format: format, csv: csv)
  let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: batch)
  defer { buffer.deallocate() }
  var out: [TraceRecord] = []
  while true {
    let n = try reader.read(into: buffer)
    if n == 0 { break }
    out.append(contentsOf: buffer.prefix(n))
  }
  return out
}

func sharedTrace(_ relative: String) -> String { SharedData.trace(relative) }

/// Runs a command-line tool (for making compressed fixtures).
func runTool(_ tool: String, _ arguments: [String]) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [tool] + arguments
  try process.run()
  process.waitUntilExit()
  #expect(process.terminationStatus == 0, "\(tool) \(arguments) failed")
}

@Suite struct TextReaderTests {
  @Test func skipsCommentsAndBlankLinesAndHashesStringKeys() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("a.txt", "# header\n1\n\n*\n  42 \r\nuser:7\n18446744073709551615\n99")
    let records = try readAll(path)
    #expect(records.map(\.key).prefix(2) == [1, 42])
    #expect(records[2].key == TextKey.id("user:7"))
    #expect(records[2].key != 7)
    #expect(TextKey.id("123") == 123)
    #expect(records[3].key == UInt64.max)
    #expect(records[4].key == 99, "the last line has no newline")
    #expect(records.allSatisfy { $0.size == 1 })
  }

  @Test func aLineWithSeveralFieldsNamesFileAndLine() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("b.txt", "1\n2\n3 4\n")
    #expect(
      throws: TraceError.malformedLine(
        file: path, line: 3,
        reason: "expected one key per line, found several fields (for delimited traces use \(Setting.format) csv)")
    ) {
      try readAll(path)
    }
  }

  @Test func emptyAndMissingFiles() throws {
    let scratch = try ScratchFolder()
    let empty = try scratch.file("empty.txt", "")
    #expect(try readAll(empty).isEmpty)
    #expect(throws: TraceError.fileNotFound(path: "/nonexistent/x.txt")) { try readAll("/nonexistent/x.txt") }
    #expect(throws: TraceError.cannotInferFormat(path: empty.replacingOccurrences(of: ".txt", with: ".dat"))) {
      _ = try scratch.file("empty.dat", "")
      return try readAll(empty.replacingOccurrences(of: ".txt", with: ".dat"))
    }
    #expect(throws: TraceError.unknownFormat("parquet")) { try TraceFormat(name: "parquet") }
  }

  /// A FIFO (read forever when nothing writes to it) or a device is no
  /// trace: refused before it is opened.
  @Test func aFIFOOrADeviceIsRefused() throws {
    let scratch = try ScratchFolder()
    let fifo = scratch.url.appendingPathComponent("pipe.txt").path
    #expect(mkfifo(fifo, 0o600) == 0)
    for (path, kind) in [(fifo, "a FIFO"), ("/dev/zero", "a device")] {
      let error = #expect(throws: TraceError.self) { try readAll(path, format: .txt) }
      #expect(
        error.map { "\($0)" }?.contains("it is \(kind), not a trace file") == true, "\(String(describing: error))")
    }
  }
}

@Suite struct CSVReaderTests {
  @Test func mapsColumnsByHeaderNames() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("c.csv", "version,time,op,size,lbn\n1,10,2a,512,77\n1,11,28,0,78\n1,12,28,4096,79\n")
    let records = try readAll(path)
    #expect(records == [TraceRecord(key: 77, size: 512, time: 10), TraceRecord(key: 79, size: 4096, time: 12)])
    #expect(try openTrace(path).skippedZeroSize == 0)
  }

  @Test func explicitColumnsAndDelimiter() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("d.csv", "a;5;100\nb;6;200\n")
    let options = CSVOptions(delimiter: UInt8(ascii: ";"), header: .no, keyColumn: 1, sizeColumn: 3, timeColumn: 2)
    let records = try readAll(path, csv: options)
    #expect(records.map(\.size) == [100, 200])
    #expect(records.map(\.time) == [5, 6])
  }

  @Test func malformedLinesNameFileLineAndField() throws {
    let scratch = try ScratchFolder()
    let badSize = try scratch.file("e.csv", "time,id,size\n1,5,10\n2,6,ten\n")
    #expect(
      throws: TraceError.malformedLine(
        file: badSize, line: 3, reason: "size 'ten' in column 3 is not a non-negative integer")
    ) {
      try readAll(badSize)
    }
    let short = try scratch.file("f.csv", "time,id,size\n1,5\n")
    #expect(throws: TraceError.self) { try readAll(short) }
    do {
      _ = try readAll(short)
    } catch {
      #expect(String(describing: error).contains("f.csv:2: 2 fields, but column 3 is read"))
    }
  }
}

@Suite struct BinaryReaderTests {
  func oracleRecord(time: UInt32, id: UInt64, size: UInt32, next: Int64) -> Data {
    var data = Data()
    withUnsafeBytes(of: time.littleEndian) { data.append(contentsOf: $0) }
    withUnsafeBytes(of: id.littleEndian) { data.append(contentsOf: $0) }
    withUnsafeBytes(of: size.littleEndian) { data.append(contentsOf: $0) }
    withUnsafeBytes(of: next.littleEndian) { data.append(contentsOf: $0) }
    return data
  }

  @Test func oracleGeneralDecodesAndSkipsZeroSizes() throws {
    let scratch = try ScratchFolder()
    var data = oracleRecord(time: 5, id: 1 << 40, size: 4096, next: 3)
    data += oracleRecord(time: 6, id: 2, size: 0, next: -1)
    data += oracleRecord(time: 7, id: 1 << 40, size: 4096, next: -1)
    let path = try scratch.file("t.oracleGeneral.bin", data)
    let records = try readAll(path, batch: 1)
    #expect(
      records == [
        TraceRecord(key: 1 << 40, size: 4096, time: 5, nextAccess: 3),
        TraceRecord(key: 1 << 40, size: 4096, time: 7, nextAccess: TraceRecord.never),
      ])
  }

  @Test func truncatedRecordGivesItsByteOffset() throws {
    let scratch = try ScratchFolder()
    let data =
      oracleRecord(time: 5, id: 1, size: 1, next: -1) + oracleRecord(time: 5, id: 2, size: 1, next: -1).prefix(10)
    let path = try scratch.file("u.oracleGeneral", data)
    #expect(throws: TraceError.truncatedRecord(file: path, offset: 24, recordSize: 24, remaining: 10)) {
      try readAll(path)
    }
  }

  @Test func vscsiNeedsItsVersionMarker() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("v.vscsi", Data(repeating: 0, count: 64))
    #expect(
      throws: TraceError.notOfFormat(
        file: path, format: "vscsi", reason: "the first record has no version 1 or 2 marker")
    ) {
      try readAll(path)
    }
  }

  /// All four encodings of cloudPhysicsIO hold the same 113,872 requests for the same keys.
  @Test func cloudPhysicsEncodingsAgree() throws {
    let names = [
      "cloudPhysicsIO.oracleGeneral.bin", "cloudPhysicsIO.vscsi", "cloudPhysicsIO.csv", "cloudPhysicsIO.txt",
    ]
    let traces = try names.map { try readAll(sharedTrace("libcachesim/" + $0), batch: 5000) }
    for records in traces { #expect(records.count == 113_872) }
    for records in traces.dropFirst() { #expect(records.map(\.key) == traces[0].map(\.key)) }
    #expect(traces[1].map(\.size) == traces[2].map(\.size), "vscsi and csv carry the same sizes")
    #expect(Set(traces[0].map(\.key)).count == 48_974)
    #expect(traces[0].reduce(0) { $0 + $1.size } == 4_368_040_448)
    #expect(traces[1].reduce(0) { $0 + $1.size } == 4_205_978_112)
  }
}

@Suite struct CompressionTests {
  @Test func gzipXzAndZstdAreReadTransparently() throws {
    let scratch = try ScratchFolder()
    let text = (0..<50_000).map { "\($0 % 977)" }.joined(separator: "\n") + "\n"
    let plain = try scratch.file("p.txt", text)
    let expected = try readAll(plain)
    for (tool, suffix) in [("gzip", ".gz"), ("xz", ".xz"), ("zstd", ".zst")] {
      try runTool(tool, ["-k", "-q", plain])
      let records = try readAll(plain + suffix, batch: 4096)
      #expect(records == expected, "\(tool)")
    }
    // The magic bytes decide, not the name.
    try FileManager.default.copyItem(atPath: plain + ".zst", toPath: scratch.url.path + "/renamed.txt")
    #expect(try readAll(scratch.url.path + "/renamed.txt", batch: 4096) == expected)
  }

  @Test func corruptOrCutStreamsAreReported() throws {
    let scratch = try ScratchFolder()
    let plain = try scratch.file("q.txt", (0..<20_000).map(String.init).joined(separator: "\n"))
    for (tool, suffix, codec) in [("gzip", ".gz", "gzip"), ("xz", ".xz", "xz"), ("zstd", ".zst", "zstd")] {
      try runTool(tool, ["-k", "-q", plain])
      let whole = try Data(contentsOf: URL(fileURLWithPath: plain + suffix))
      let cut = try scratch.file("cut.txt" + suffix, whole.prefix(whole.count / 2))
      #expect(throws: TraceError.corruptCompressedStream(file: cut, codec: codec, reason: "unexpected end of data")) {
        try readAll(cut, batch: 4096)
      }
      var damaged = whole
      for i in stride(from: 20, to: damaged.count - 20, by: 7) { damaged[i] ^= 0x5A }
      let bad = try scratch.file("bad.txt" + suffix, damaged)
      #expect(throws: TraceError.self, "\(codec) corruption") { try readAll(bad, batch: 4096) }
    }
  }

  @Test func arcTracesExpandToConsecutiveBlocks() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("t.lis", "10 3 0 0\n5 1 0 1\n")
    #expect(try readAll(path, batch: 2).map(\.key) == [10, 11, 12, 5])
    let records = try readAll(sharedTrace("arc/OLTP.lis.zst"), batch: 1 << 14)
    #expect(records.count == 914_145)
    #expect(Set(records.map(\.key)).count == 186_880)
  }
}

@Suite struct WriterAndGeneratorTests {
  @Test func writtenOracleGeneralReadsBackWithNextAccess() throws {
    let scratch = try ScratchFolder()
    var records = [1, 2, 1, 3, 2, 1].map { TraceRecord(key: UInt64($0), size: 100, time: 1) }
    try fillNextAccess(&records)
    #expect(records.map(\.nextAccess) == [3, 5, 6, TraceRecord.never, TraceRecord.never, TraceRecord.never])
    for name in ["w.oracleGeneral", "w.oracleGeneral.zst", "w.csv", "w.txt.zst"] {
      let path = scratch.url.path + "/" + name
      if name.hasPrefix("w.txt") {
        // txt holds keys only: sizes and times are not dropped unless asked.
        let refusing = try TraceWriter(path: path, format: .txt)
        let refused = #expect(throws: TraceError.self) { try refusing.write(records) }
        #expect(refused?.description.contains("request 1 has size 100, which txt cannot hold") == true)
        #expect(refused?.description.contains("pass \(Setting.keysOnly) to keep the keys") == true)
      }
      let writer = try TraceWriter(path: path, format: TraceFormat.infer(fromPath: path)!)
      writer.keysOnly = name.hasPrefix("w.txt")
      try writer.write(records)
      try writer.finish()
      let back = try readAll(path)
      #expect(back.map(\.key) == records.map(\.key), "\(name)")
      if name.hasPrefix("w.oracleGeneral") { #expect(back == records) }
    }
  }

  /// The next-access field computed here equals the one libCacheSim's traceConv wrote.
  @Test func nextAccessMatchesLibCacheSim() throws {
    let original = try readAll(sharedTrace("libcachesim/cloudPhysicsIO.oracleGeneral.bin"), batch: 8192)
    var recomputed = original
    try fillNextAccess(&recomputed)
    #expect(recomputed.map(\.nextAccess) == original.map(\.nextAccess))
  }

}

@Suite struct PathNameTests {
  /// As NSString's deletingLastPathComponent, which traps on one character.
  @Test func theParentPathOfAnyPath() {
    let cases: [(String, String)] = [
      ("a", ""), ("ab", ""), ("a/b", "a"), ("/a", "/"), ("/", "/"), ("a/b/", "a"), ("x//y", "x"), ("", ""),
      ("../out", ".."), ("/tmp/x/results.csv", "/tmp/x"),
    ]
    for (path, parent) in cases { #expect(path.parentPath == parent, "\(path)") }
  }
}
