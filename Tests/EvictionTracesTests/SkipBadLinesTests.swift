import EvictionRun
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// `--skip-bad-lines`: the same bad input that stops a strict read is counted
/// and passed over, and the good records around it are all read.
@Suite struct SkipBadLinesTests {
  /// Reads `path` skipping bad records: the records and what was skipped.
  func readSkipping(_ path: String, format: TraceFormat) throws -> ([TraceRecord], SkippedRecords) {
    let reader = try openTrace(path, format: format, skipBadRecords: true)
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 2)
    defer { buffer.deallocate() }
    var records: [TraceRecord] = []
    while true {
      let n = try reader.read(into: buffer)
      if n == 0 { break }
      records.append(contentsOf: buffer.prefix(n))
    }
    return (records, reader.skipped)
  }

  /// For each format: a trace with good lines (whose keys are given) around
  /// bad ones (their count given).
  static let cases: [(format: TraceFormat, text: String, keys: [UInt64], bad: Int)] = [
    (.txt, "1\n2 3\n4\n", [1, 4], 1),
    (.lirs, "5\n*\n6 6\n7\n", [5, 7], 1),
    (.csv, "time,id,size\n1,5,10\n2,6,ten\n3,7\n4,8,1\n", [5, 8], 2),
    (.address, "l 0x10 1\nx 0x20 1\nl zz 1\ns 0x30 1\n", [0x10, 0x30], 2),
    (.arc, "10 2 0 1\nten 2 0 2\n20 1 0 3\n", [10, 11, 20], 1),
    (.twitter, "0,a,1,1,1,get,0\n1,b,1,1,1,fetch,0\n2,c,1\n", [], 2),
    (.msr, "1,h,0,Read,0,4096,1\n1,h,0,Trim,0,4096,1\nnot,a,line\n", [0], 2),
  ]

  @Test(arguments: cases.indices)
  func badLinesAreCountedAndTheRestIsRead(index: Int) throws {
    let c = Self.cases[index]
    let scratch = try ScratchFolder()
    let path = try scratch.file("t-\(c.format.rawValue)", c.text)
    var strictError: TraceError? = nil
    do { _ = try readAll(path, format: c.format) } catch { strictError = error as? TraceError }
    #expect(strictError != nil, "a strict read of \(c.format) stops at the first bad line")

    let (records, skipped) = try readSkipping(path, format: c.format)
    #expect(skipped.count == c.bad, "\(c.format)")
    #expect(skipped.first == strictError, "the first skipped line is the one a strict read names")
    if c.format == .twitter {
      #expect(records.count == 1 && records[0].size == 2)  // key hashed from the string
    } else {
      #expect(records.map(\.key) == c.keys, "\(c.format)")
    }
    let warning = try #require(skipped.warning(path: path))
    #expect(warning.contains(path) && warning.contains("skipped \(c.bad)"))
  }

  @Test func aCutOffBinaryRecordIsSkippedAfterTheWholeOnes() throws {
    let scratch = try ScratchFolder()
    var data = Data()
    for key: UInt32 in [7, 8, 9] { withUnsafeBytes(of: key.bigEndian) { data.append(contentsOf: $0) } }
    let path = try scratch.file("c.trace", data + Data([1, 2]))
    #expect(throws: TraceError.truncatedRecord(file: path, offset: 12, recordSize: 4, remaining: 2)) {
      try readAll(path, format: .cache2k)
    }
    let (records, skipped) = try readSkipping(path, format: .cache2k)
    #expect(records.map(\.key) == [7, 8, 9])
    #expect(
      skipped.count == 1 && skipped.first == .truncatedRecord(file: path, offset: 12, recordSize: 4, remaining: 2))
  }

  @Test func aCorruptCompressedStreamIsNeverSkipped() throws {
    let scratch = try ScratchFolder()
    let plain = try scratch.file("q.txt", (0..<20_000).map(String.init).joined(separator: "\n"))
    try runTool("zstd", ["-k", "-q", plain])
    let whole = try Data(contentsOf: URL(fileURLWithPath: plain + ".zst"))
    let cut = try scratch.file("cut.txt.zst", whole.prefix(whole.count / 2))
    #expect(throws: TraceError.corruptCompressedStream(file: cut, codec: "zstd", reason: "unexpected end of data")) {
      _ = try readSkipping(cut, format: .txt)
    }
  }

  @Test func aCleanTraceSkipsNothing() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("ok.txt", "1\n2\n3\n")
    let (records, skipped) = try readSkipping(path, format: .txt)
    #expect(records.count == 3 && skipped.count == 0 && skipped.warning(path: path) == nil)
  }
}

@Suite struct InMemoryTraceTests {
  @Test func bytesInMemoryReadAsTheFileDoesCompressedOrNot() throws {
    let scratch = try ScratchFolder()
    let plain = try scratch.file("m.txt", (0..<5_000).map { String($0 % 977) }.joined(separator: "\n"))
    try runTool("zstd", ["-k", "-q", plain])
    for path in [plain, plain + ".zst"] {
      let fromFile = try readAll(path, format: .txt)
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let fromMemory = try openTrace(contents: bytes, name: path, format: .txt).readAll()
      #expect(fromMemory == fromFile && fromFile.count == 5_000, "\(path)")
    }
    #expect(
      throws: TraceError.malformedLine(
        file: "inline", line: 2,
        reason: "expected one key per line, found several fields (for delimited traces use \(Setting.format) csv)")
    ) {
      _ = try openTrace(contents: Array("1\n2 3\n".utf8), name: "inline", format: .txt).readAll()
    }
  }
}
