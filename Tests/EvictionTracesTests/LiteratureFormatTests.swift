import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// The formats of the literature's traces: counts as each folder's
/// README.txt states them, and a clear error for each kind of bad line.
@Suite struct LiteratureFormatTests {
  /// (file under ../shared/traces/caffeine, format, requests, unique objects), from README.txt.
  static let traces: [(String, TraceFormat, Int, Int)] = [
    ("lirs/2_pools.trace.gz", .lirs, 100_000, 9_939), ("lirs/cs.trace.gz", .lirs, 6_781, 1_409),
    ("lirs/multi2.trace.gz", .lirs, 26_311, 5_684), ("lirs/loop.trace.gz", .lirs, 505_500, 1_011),
    ("address/gcc.trace.gz", .address, 515_683, 35_070), ("address/gzip.trace.gz", .address, 481_044, 160_167),
    ("address/mcf.trace.gz", .address, 727_230, 719_685), ("address/swim.trace.gz", .address, 303_193, 22_605),
    ("address/twolf.trace.gz", .address, 482_824, 7_354),
    ("adapt_size/request.trace.xz", .adaptSize, 66_987, 40_240),
    ("cache2k/orm-busy.trace.xz", .cache2k, 5_000_000, 76_349),
    ("cache2k/orm-night.trace.xz", .cache2k, 5_000_000, 86_466),
    ("cache2k/web07.trace.xz", .cache2k, 76_118, 20_484), ("cache2k/web12.trace.xz", .cache2k, 95_607, 13_756),
    ("cloud_physics/w106.trace.xz", .cloudPhysics, 5_292_456, 275_171),
    ("corda/trace_vaultservice.gz", .corda, 135_702, 90_468),
    ("scarab/scarab-recs.trace.xz", .scarab, 1_245_184, 258_368),
  ]

  @Test(arguments: traces.map { $0.0 })
  func requestAndObjectCountsMatchTheReadme(file: String) throws {
    let (_, format, requests, unique) = Self.traces.first { $0.0 == file }!
    let reader = try openTrace(sharedTrace("caffeine/" + file), format: format)
    #expect(reader.format == format)
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 1 << 14)
    defer { buffer.deallocate() }
    var count = 0
    var keys = Set<UInt64>()
    while true {
      let n = try reader.read(into: buffer)
      if n == 0 { break }
      count += n
      for record in buffer[..<n] { keys.insert(record.key) }
    }
    #expect(count == requests && keys.count == unique, "\(file): \(count) requests, \(keys.count) objects")
  }

  @Test func binaryFormatsDecodeTheirByteOrder() throws {
    let scratch = try ScratchFolder()
    let cache2k = try scratch.file("a.trace", Data([0, 0, 1, 2, 0xFF, 0xFF, 0xFF, 0xFF]))
    #expect(try readAll(cache2k, format: .cache2k).map(\.key) == [258, 4_294_967_295])
    let corda = try scratch.file("b.trace", Data([0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0]))
    #expect(try readAll(corda, format: .corda).map(\.key) == [256, 1 << 56])
    let cloud = try scratch.file("c.trace", Data([2, 1, 0, 0]))
    #expect(try readAll(cloud, format: .cloudPhysics).map(\.key) == [258])
    let cut = try scratch.file("d.trace", Data([0, 0, 0, 0, 0, 0, 0, 1, 9, 9]))
    #expect {
      _ = try readAll(cut, format: .scarab)
    } throws: { "\($0)".contains("d.trace") && "\($0)".contains("byte offset 8") }
  }

  @Test func textFormatsParseAndRejectWhatTheyShould() throws {
    let scratch = try ScratchFolder()
    let address = try scratch.file("gcc.trace", "l 0x1fffff50 1\ns 0X1FFFFF50 0\n")
    #expect(try readAll(address, format: .address).map(\.key) == [0x1fff_ff50, 0x1fff_ff50])
    let badOp = try scratch.file("bad.trace", "l 0x10 1\nx 0x20 1\n")
    #expect { _ = try readAll(badOp, format: .address) } throws: {
      "\($0)".contains("bad.trace:2:") && "\($0)".contains("unknown operation 'x'")
    }
    let adapt = try scratch.file("req.trace", "1 7 100\n2 7 200\n3 7 100\n")
    let records = try readAll(adapt, format: .adaptSize)
    #expect(records.map(\.size) == [100, 200, 100] && records.map(\.time) == [1, 2, 3])
    #expect(records[0].key == records[2].key && records[0].key != records[1].key, "the key is the (id, size) pair")
    // lirs holds block numbers: a CSV or a word trace read as lirs is refused, not hashed into keys.
    let blocks = try scratch.file("blocks.trace", "5\r\n*\n18446744073709551615\n")
    #expect(try readAll(blocks, format: .lirs).map(\.key) == [5, .max])
    for (name, text, reason) in [
      ("csv.trace", "time,id,size\n1,5,10\n", "decimal block number"),
      ("word.trace", "7\nkeyA\n", "decimal block number"),
      ("big.trace", "18446744073709551616\n", "does not fit in 64 bits"),
    ] {
      let trace = try scratch.file(name, text)
      #expect { _ = try readAll(trace, format: .lirs) } throws: { "\($0)".contains(name) && "\($0)".contains(reason) }
    }
    let badSize = try scratch.file("req2.trace", "1 7 big\n")
    #expect { _ = try readAll(badSize, format: try TraceFormat(name: "lrb")) } throws: {
      "\($0)".contains("req2.trace:1:") && "\($0)".contains("size 'big'")
    }
  }

  @Test func twitterKeepsEveryOperationAndTTLWeighingKeyPlusValue() throws {
    let scratch = try ScratchFolder()
    let trace = try scratch.file(
      "cluster.csv",
      "0,keyA,10,90,1,get,0\n1,keyA,10,90,1,set,3600\n2,keyB,5,20,2,gets,0\n3,keyA,10,90,1,delete,0\n"
        + "4,keyB,5,20,2,cas,60\n")
    let records = try readAll(trace, format: .twitter)
    #expect(records.map(\.size) == [100, 100, 25, 100, 25] && records.map(\.time) == [0, 1, 2, 3, 4])
    #expect(records.map(\.op) == [.get, .set, .get, .delete, .set] && records.map(\.ttl) == [0, 3600, 0, 0, 60])
    let badTTL = try scratch.file("ttl.csv", "0,k,1,1,1,set,4294967296\n")
    #expect { _ = try readAll(badTTL, format: .twitter) } throws: { "\($0)".contains("ttl '4294967296'") }
    let unknown = try scratch.file("bad.csv", "0,k,1,1,1,fetch,0\n")
    #expect { _ = try readAll(unknown, format: .twitter) } throws: {
      "\($0)".contains("bad.csv:1:") && "\($0)".contains("unknown operation 'fetch'")
    }
    let short = try scratch.file("short.csv", "0,k,1,1,get\n")
    #expect { _ = try readAll(short, format: .twitter) } throws: { "\($0)".contains("7 comma-separated fields") }
  }

  @Test func msrReadsExpandIntoFourKiBBlocks() throws {
    let scratch = try ScratchFolder()
    let trace = try scratch.file(
      "wdev_0.csv",
      "128166372003061629,wdev,0,Read,8192,8192,100\n128166372013061629,wdev,0,Write,0,4096,100\n128166372023061629,wdev,1,Read,4095,2,100\n"
    )
    let records = try readAll(trace, format: .msr, batch: 2)
    // 8192+8192 covers blocks 2 and 3; the write is skipped; 4095..4096 straddles blocks 0 and 1 of disk 1.
    #expect(records.map(\.key) == [2, 3, 1 << 48, 1 << 48 | 1])
    #expect(records.allSatisfy { $0.size == 4096 })
    #expect(records[0].time == 12_816_637_200 && records[2].time == 12_816_637_202)
    let unknown = try scratch.file("bad.csv", "1,h,0,Trim,0,4096,1\n")
    #expect { _ = try readAll(unknown, format: .msr) } throws: { "\($0)".contains("unknown operation 'Trim'") }
  }

  /// Numbers a field can hold but a record cannot (found by the fuzzer: a
  /// time above 2⁶³ trapped) are line errors, never traps.
  @Test func numbersBeyondWhatARecordHoldsAreLineErrors() throws {
    let scratch = try ScratchFolder()
    let cases: [(String, TraceFormat, String)] = [
      ("1 7 100\n10442144815179337273 7 1\n", .adaptSize, "time '10442144815179337273' is not a number below 2⁶³"),
      ("1 7 1099511627777\n", .adaptSize, "above 1 TiB"),
      ("18446744073709551615,k,1,1,1,get,0\n", .twitter, "timestamp '18446744073709551615'"),
      ("0,k,18446744073709551615,1,1,get,0\n", .twitter, "above 1 TiB"),
      ("1,h,0,Read,18446744073709551615,4096,1\n", .msr, "past 2⁶⁰ bytes"),
      ("1,h,0,Read,1152921504606846976,1,1\n", .msr, "past 2⁶⁰ bytes"),
    ]
    for (index, (text, format, message)) in cases.enumerated() {
      let trace = try scratch.file("overflow-\(index).trace", text)
      #expect { _ = try readAll(trace, format: format) } throws: {
        "\($0)".contains("overflow-\(index).trace:") && "\($0)".contains(message)
      }
    }
    let largest = try scratch.file("largest.csv", "1,h,0,Read,1152921504606846975,1,1\n")
    #expect(try readAll(largest, format: .msr).map(\.key) == [(1 << 48) - 1], "the last block of a 2⁶⁰-byte disk")
  }

  @Test func formatNamesIncludeTheLiteraturesAndLrb() throws {
    for name in ["lirs", "cache2k", "corda", "scarab", "cloud-physics", "address", "adapt-size", "twitter", "msr"] {
      #expect(try TraceFormat(name: name).rawValue == name)
    }
    #expect(try TraceFormat(name: "LRB") == .adaptSize)
  }
}
