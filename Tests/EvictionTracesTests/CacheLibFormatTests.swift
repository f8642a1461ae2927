import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// CacheLib's key-value replay traces (CacheBench's `KVReplayGenerator`).
@Suite struct CacheLibFormatTests {
  @Test func aHeaderNamesTheColumnsAndOpCountRepeats() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file(
      "kv.csv",
      "op_time,key,op,size,cache_hits,op_count,key_size,ttl\n"
        + "1500,user:1,GET,100,0,3,10,0\n"
        + "2999,user:1,SET_LEASE,120,1,1,10,60\n"
        + "3000,user:2,delete,0,0,1,6,0\n"
        + "4000,user:2,GET_LEASE,50,0,1,,\n")
    let records = try readAll(path, format: .cachelib, batch: 2)
    let one = TextKey.id("user:1")
    let get = TraceRecord(key: one, size: 110, time: 1)
    #expect(
      records == [
        get, get, get, TraceRecord(key: one, size: 130, time: 2, ttl: 60, op: .set),
        TraceRecord(key: TextKey.id("user:2"), size: 6, time: 3, op: .delete),
        // No key_size: the key's own length.
        TraceRecord(key: TextKey.id("user:2"), size: 56, time: 4),
      ])
    #expect(try TraceFormat(name: "kvreplay") == .cachelib)
    #expect(TraceFormat.infer(fromPath: path) == .csv, "a .csv file is csv unless --format says cachelib")
  }

  @Test func withoutAHeaderTheColumnsAreCacheBenchsDefaultOrder() throws {
    let scratch = try ScratchFolder()
    let path = try scratch.file("kv.txt", "7,GET,100\n8,SET,200,2,8,30\n7,DELETE,100,1\n")
    let records = try readAll(path, format: .cachelib)
    #expect(records.map(\.key) == [7, 8, 8, 7] && records.map(\.op) == [.get, .set, .set, .delete])
    #expect(records.map(\.size) == [101, 208, 208, 101] && records.map(\.ttl) == [0, 30, 30, 0])
  }

  @Test func whatCacheBenchRefusesIsAnError() throws {
    let scratch = try ScratchFolder()
    let cases = [
      ("key,op,size\na,GET,1\na,FLUSH,1\n", "kv.csv:3: unknown operation 'FLUSH'"),
      ("key,op,size,op_count\na,GET,1,0\n", "op_count 0 is not from 1"),
      ("key,op,ttl\na,GET,5\n", "kv.csv:1: the header names no 'size' column"),
      ("key,op,size\na,GET,big\n", "size 'big' is not a whole number"),
      ("a,GET\n", "expected at least 3 comma-separated fields"),
      ("key,op,size,ttl\na,GET,1,99999999999\n", "ttl 99999999999 is not a whole number of seconds below 2³²"),
      ("key,op,size\n,GET,1\n", "the key is empty"),
      ("key,size\na,1\n", "kv.csv:1: the header names no 'op' column"),
      ("op_time,op_count,ttl\n1,1,1\n", "kv.csv:1: the header names no 'key' column"),
      ("key ,op,size, key\na,GET,1,b\n", "the header names 'key' twice"),
      ("key,op,size,size\na,GET,1,1\n", "the header names 'size' twice"),
      ("key,op,size,key_size\na,GET,1099511627776,1\n", "size 1099511627776 + key size 1 is above 1 TiB"),
    ]
    for (text, message) in cases {
      let path = try scratch.file("kv.csv", text)
      #expect { _ = try readAll(path, format: .cachelib) } throws: { "\($0)".contains(message) }
    }
    // A zero-sized record is skipped and counted, each repetition.
    let zero = try scratch.file("zero.csv", "key,op,size,op_count,key_size\na,GET,0,4,0\na,GET,1,1,0\n")
    let reader = try openTrace(zero, format: .cachelib)
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 8)
    defer { buffer.deallocate() }
    #expect(try reader.read(into: buffer) == 1 && reader.skipped.zeroSize == 4)
  }
}
