import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// libCacheSim's lcs format, every version it defines, and the operations and TTLs it carries.
@Suite struct LCSFormatTests {
  /// An lcs header of `version` (magic, version, statistics left 0, magic).
  func header(version: UInt64, magic: UInt64 = 0x1234_5678_9abc_def0) -> Data {
    var data = Data(count: 8192)
    data.replaceSubrange(0..<8, with: withUnsafeBytes(of: magic.littleEndian) { Data($0) })
    data.replaceSubrange(8..<16, with: withUnsafeBytes(of: version.littleEndian) { Data($0) })
    data.replaceSubrange(8184..<8192, with: withUnsafeBytes(of: magic.littleEndian) { Data($0) })
    return data
  }

  func bytes<T: FixedWidthInteger>(_ value: T) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }

  /// Version 3's fields (36 bytes), then `features` u32 features.
  func version3(time: UInt32, id: UInt64, size: Int64, op: UInt8, ttl: UInt32, next: Int64, features: Int) -> Data {
    bytes(time) + bytes(id) + bytes(size) + Data([op, 7, 0, 0]) + bytes(ttl) + bytes(next)
      + Data(count: 4 * features)
  }

  @Test func writtenRecordsReadBackWithTheirOperationsAndTTLs() throws {
    let scratch = try ScratchFolder()
    let path = scratch.url.path + "/w.lcs.zst"
    let records = [
      TraceRecord(key: 1, size: 100, time: 3, nextAccess: 3, ttl: 60, op: .set),
      TraceRecord(key: 1 << 60, size: 1 << 39, time: 4, op: .get),
      TraceRecord(key: 1, size: 100, time: 5, op: .delete),
    ]
    let writer = try TraceWriter(path: path, format: .lcs)
    try writer.write(records)
    try writer.finish()
    #expect(TraceFormat.infer(fromPath: path) == .lcs)
    #expect(try readAll(path) == records)
  }

  @Test func everyVersionIsRead() throws {
    let scratch = try ScratchFolder()
    let v1 = bytes(UInt32(9)) + bytes(UInt64(42)) + bytes(UInt32(512)) + bytes(Int64(-1))
    let v2 = bytes(UInt32(9)) + bytes(UInt64(42)) + bytes(UInt32(512)) + Data([9, 1, 0, 0]) + bytes(Int64(2))
    #expect(
      try readAll(scratch.file("a.lcs", header(version: 1) + v1))
        == [TraceRecord(key: 42, size: 512, time: 9)])
    #expect(
      try readAll(scratch.file("b.lcs", header(version: 2) + v2))
        == [TraceRecord(key: 42, size: 512, time: 9, nextAccess: 2, op: .delete)])
    for (version, features) in [(3, 0), (4, 1), (5, 2), (6, 4), (7, 8), (8, 16)] {
      let record = version3(time: 1, id: 5, size: 70, op: 3, ttl: 30, next: Int64.max, features: features)
      let path = try scratch.file("v\(version).lcs", header(version: UInt64(version)) + record + record)
      #expect(
        try readAll(path) == Array(repeating: TraceRecord(key: 5, size: 70, time: 1, ttl: 30, op: .set), count: 2),
        "version \(version)")
    }
  }

  @Test func aBadHeaderOrRecordIsAClearError() throws {
    let scratch = try ScratchFolder()
    let short = try scratch.file("s.lcs", Data(count: 100))
    #expect { _ = try readAll(short) } throws: { "\($0)".contains("shorter than the 8 KiB header") }
    let magic = try scratch.file("m.lcs", header(version: 1, magic: 7))
    #expect { _ = try readAll(magic) } throws: { "\($0)".contains("magic numbers are wrong") }
    let version = try scratch.file("v.lcs", header(version: 9))
    #expect { _ = try readAll(version) } throws: { "\($0)".contains("version 9; lcs defines versions 1 to 8") }
    // A 64-bit size outside 0 … 1 TiB names the record; skipping passes over it.
    let good = version3(time: 1, id: 5, size: 70, op: 1, ttl: 0, next: -1, features: 0)
    let negative = version3(time: 1, id: 6, size: -3, op: 1, ttl: 0, next: -1, features: 0)
    let path = try scratch.file("n.lcs", header(version: 3) + good + negative + good)
    #expect { _ = try readAll(path) } throws: {
      ($0 as? TraceError) == .malformedRecord(file: path, record: 2, reason: "size -3 is outside 0 … 1 TiB")
    }
    let reader = try openTrace(path, skipBadRecords: true)
    #expect(try reader.readAll().map(\.key) == [5, 5])
    #expect(reader.skipped.count == 1)
    // A cut-off record after the header counts its offset from the file's start.
    let cut = try scratch.file("c.lcs", header(version: 3) + good + good.prefix(10))
    #expect { _ = try readAll(cut) } throws: {
      ($0 as? TraceError) == .truncatedRecord(file: cut, offset: 8192 + 36, recordSize: 36, remaining: 10)
    }
  }

  /// An op code libCacheSim does not define (15, its OP_INVALID, and up) is
  /// a malformed record in every version that has one: read as a get, a
  /// write or delete would count as a request without a word.
  @Test func anUnknownOperationCodeIsRefusedAndNamed() throws {
    let scratch = try ScratchFolder()
    let v2 = { (op: UInt8) in
      self.bytes(UInt32(9)) + self.bytes(UInt64(42)) + self.bytes(UInt32(512)) + Data([op, 1, 0, 0])
        + self.bytes(Int64(-1))
    }
    let two = try scratch.file("two.lcs", header(version: 2) + v2(9) + v2(15) + v2(1))
    #expect { _ = try readAll(two) } throws: {
      ($0 as? TraceError)
        == .malformedRecord(
          file: two, record: 2,
          reason: "operation code 15 is not one of libCacheSim's (0 to 14: get, set, delete and their kin)")
    }
    let good = version3(time: 1, id: 5, size: 70, op: 14, ttl: 0, next: -1, features: 2)
    let bad = version3(time: 1, id: 6, size: 70, op: 200, ttl: 0, next: -1, features: 2)
    let five = try scratch.file("five.lcs", header(version: 5) + good + bad)
    #expect { _ = try readAll(five) } throws: { "\($0)".contains("record 2: operation code 200") }
    // Skipping passes over it and counts it, as any bad record.
    let reader = try openTrace(two, skipBadRecords: true)
    #expect(try reader.readAll().map(\.op) == [.delete, .get])
    #expect(reader.skipped.count == 1)
  }

  @Test func csvReadsOperationAndTTLColumnsItsHeaderNames() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("kv.csv", "time,key,size,Operation,TTL\n1,a,10,GET,0\n2,a,10,add,30\n3,a,10,delete,0\n")
    let records = try readAll(path)
    #expect(records.map(\.op) == [.get, .set, .delete] && records.map(\.ttl) == [0, 30, 0])
    let mapping = try #require(try TraceSource(path: path, format: .csv).csvMapping())
    #expect(mapping.opColumn == 4 && mapping.ttlColumn == 5 && mapping.description.contains("op column 4 (Operation)"))
    let bad = try scratch.file("bad.csv", "key,op\na,get\nb,flush\n")
    #expect { _ = try readAll(bad) } throws: { "\($0)".contains("bad.csv:3: operation 'flush' in column 2") }
    // A column named op whose first value is no operation is not one (a block trace's SCSI opcodes).
    let block = try scratch.file("block.csv", "time,op,size,lbn\n1,2a,512,7\n")
    #expect(try readAll(block).map(\.op) == [.get])
    let plain = try scratch.file("plain.csv", "time,key,size\n1,a,10\n")
    // Columns given by number: read whatever the header says, or without one.
    let numbered = try scratch.file("n.csv", "1,a,10,GET,0\n2,a,10,set,30\n3,a,10,Delete,0\n")
    let options = CSVOptions(header: .no, keyColumn: 2, sizeColumn: 3, timeColumn: 1, opColumn: 4, ttlColumn: 5)
    let read = try readAll(numbered, format: .csv, csv: options)
    #expect(read.map(\.op) == [.get, .set, .delete] && read.map(\.ttl) == [0, 30, 0])
    #expect(read.map(\.time) == [1, 2, 3])
    // A column given as operations must hold them, even the first value.
    #expect { _ = try readAll(block, format: .csv, csv: CSVOptions(opColumn: 2)) } throws: {
      "\($0)".contains("operation '2a' in column 2")
    }
    #expect { _ = try readAll(plain, format: .csv, csv: CSVOptions(ttlColumn: 0)) } throws: {
      "\($0)".contains("columns are numbered from 1")
    }
    // Without such columns every record is a get without TTL, as before.
    #expect(try readAll(plain) == [TraceRecord(key: TextKey.id("a"), size: 10, time: 1)])
  }

  @Test func formatsWithoutOperationsOrTTLsRefuseThem() throws {
    let scratch = try ScratchFolder()
    for format in [TraceFormat.oracleGeneral, .csv, .txt] {
      let writer = try TraceWriter(path: scratch.url.path + "/x.\(format.rawValue)", format: format)
      #expect { try writer.write([TraceRecord(key: 1, ttl: 5)]) } throws: { "\($0)".contains("write lcs") }
    }
    #expect(TraceRecord.Operation(name: "CAS") == .set && TraceRecord.Operation(name: "gets") == .get)
    #expect(TraceRecord.Operation(name: "flush") == nil)
    #expect((0...14).compactMap { TraceRecord.Operation(libCacheSimCode: UInt8($0)) }.count == 15)
    #expect(TraceRecord.Operation(libCacheSimCode: 9) == .delete && TraceRecord.Operation(libCacheSimCode: 15) == nil)
  }
}
