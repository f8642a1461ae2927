import EvictionTestSupport
import Foundation
import Testing

/// `generate --ttl --ops`, `replay --use-ttl` and `replay --semantics kv` from the command line.
@Suite struct KVCommandTests {
  @Test func aKVTraceGeneratesAndReplaysWithItsColumns() throws {
    let scratch = try ScratchFolder()
    let trace = scratch.url.path + "/kv.lcs.zst"
    let made = try evlab([
      "generate", "zipf", "--objects", "500", "--requests", "20000", "--seed", "2", "--ttl", "uniform:2-9",
      "--ops", "get:0.8,set:0.15,delete:0.05", "-o", trace,
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let run = try evlab(["replay", trace, "--policy", "lru,sieve", "--size", "100", "--semantics", "kv", "--csv", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n")
    let header = lines[0].split(separator: ",").map(String.init)
    #expect(
      Array(header.suffix(10)) == [
        "semantics", "use_ttl", "expired_requests", "gets", "get_hits", "sets", "deletes", "expiration",
        "expired_objects", "mean_expired_bytes",
      ])
    for line in lines.dropFirst() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let row = Dictionary(uniqueKeysWithValues: zip(header, fields))
      #expect(row["semantics"] == "kv" && row["requests"] == row["gets"] && row["hits"] == row["get_hits"])
      #expect(Int(row["gets"]!)! + Int(row["sets"]!)! + Int(row["deletes"]!)! == 20_000)
    }
    // A trace without sets: a note says nothing fills the cache.
    let gets = scratch.url.path + "/gets.lcs"
    _ = try evlab(["generate", "zipf", "--objects", "50", "--requests", "500", "-o", gets])
    let empty = try evlab(["replay", gets, "--policy", "lru", "--size", "10", "--semantics", "kv"])
    #expect(empty.status == 0 && empty.stderr.contains("has no sets") && empty.stderr.contains("--fill-on-miss"))
  }

  @Test func whatCannotHoldIsRefusedUpFront() throws {
    let scratch = try ScratchFolder()
    let trace = scratch.url.path + "/t.lcs"
    _ = try evlab(["generate", "zipf", "--objects", "50", "--requests", "500", "--ttl", "fixed:3", "-o", trace])
    for flags in [["--use-ttl"], ["--semantics", "kv"]] {
      let run = try evlab(["replay", trace, "--policy", "lru,belady", "--size", "10"] + flags)
      #expect(run.status != 0 && run.stderr.contains("belady is no bound"), "\(flags): \(run.stderr)")
    }
    let gz = try evlab(["generate", "zipf", "--requests", "100", "-o", scratch.url.path + "/g.csv.gz"])
    #expect(gz.status != 0 && gz.stderr.contains("zstd only"))
    #expect(!FileManager.default.fileExists(atPath: scratch.url.path + "/g.csv.gz"))
    let noFolder = try evlab(["generate", "zipf", "--requests", "100", "-o", "/nonexistent-dir/x.lcs"])
    #expect(noFolder.status != 0 && noFolder.stderr.contains("cannot write the trace"))
    let huge = try evlab([
      "generate", "zipf", "--requests", "1000", "--ops", "get:9e307,set:9e307", "-o", scratch.url.path + "/h.lcs",
    ])
    #expect(huge.status == 0)
    let replay = try evlab([
      "replay", scratch.url.path + "/h.lcs", "--policy", "lru", "--size", "10", "--semantics", "kv", "--csv", "-",
    ])
    #expect(replay.stdout.hasSuffix(",0,lazy,0,0.0\n"), "no deletes drawn: \(replay.stdout)")
  }
}
