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
      Array(header.suffix(11)) == [
        "semantics", "use_ttl", "expired_requests", "gets", "get_hits", "sets", "deletes", "expiration",
        "expired_objects", "mean_expired_bytes", "idle_ttl",
      ])
    for line in lines.dropFirst() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let row = Dictionary(uniqueKeysWithValues: zip(header, fields))
      #expect(row["semantics"] == "kv" && row["requests"] == row["gets"] && row["hits"] == row["get_hits"])
      #expect(Int(row["gets"]!)! + Int(row["sets"]!)! + Int(row["deletes"]!)! == 20_000)
    }
    // An idle time extends nothing past a TTL and is named in each row; 0 is refused.
    let idle = try evlab([
      "replay", trace, "--policy", "lru", "--size", "100", "--semantics", "kv", "--idle-ttl", "3", "--csv", "-",
    ])
    #expect(idle.status == 0, "\(idle.stderr)")
    #expect(idle.stdout.split(separator: "\n")[1].hasSuffix(",3"))
    let zero = try evlab(["replay", trace, "--policy", "lru", "--size", "100", "--semantics", "kv", "--idle-ttl", "0"])
    #expect(zero.status != 0 && zero.stderr.contains("--idle-ttl 0: the idle time is whole seconds from 1"))
    // In separate processes, a random policy scanned gives the same counts.
    let random = [
      "replay", trace, "--policy", "random:seed=3", "--size", "100", "--semantics", "kv", "--expiration", "scan",
      "--csv", "-",
    ]
    func counts(_ run: Run) -> [String] {
      // Every column but the timings (seconds, requests_per_second).
      let fields = run.stdout.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)
      return fields.enumerated().filter { ![12, 13].contains($0.offset) }.map { String($0.element) }
    }
    let (first, second) = (try evlab(random), try evlab(random))
    #expect(first.status == 0 && counts(first) == counts(second))
    // A trace without sets: a note says nothing fills the cache.
    let gets = scratch.url.path + "/gets.lcs"
    _ = try evlab(["generate", "zipf", "--objects", "50", "--requests", "500", "-o", gets])
    let empty = try evlab(["replay", gets, "--policy", "lru", "--size", "10", "--semantics", "kv"])
    #expect(empty.status == 0 && empty.stderr.contains("has no sets") && empty.stderr.contains("--fill-on-miss"))
  }

  /// A CacheBench replay trace, replayed as operations with a scan.
  @Test func aCacheLibTraceReplaysWithItsOperationsAndAScan() throws {
    let scratch = try ScratchFolder()
    let trace = try scratch.file(
      "cl.csv",
      "op_time,key,op,size,op_count,key_size,ttl\n1000,a,SET,100,1,5,2\n1500,a,GET,100,3,5,0\n"
        + "5000,a,GET,100,1,5,0\n6000,b,GET,10,1,1,0\n")
    func row(_ flags: [String]) throws -> [String: String] {
      let run = try evlab(
        ["replay", trace, "--format", "cachelib", "--policy", "lru", "--size", "10", "--csv", "-"] + flags)
      #expect(run.status == 0, "\(run.stderr)")
      let lines = run.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
      return Dictionary(uniqueKeysWithValues: zip(lines[0].map(String.init), lines[1].map(String.init)))
    }
    // The set at 1 s expires after 3 s; three gets at 1.5 s hit; the get at 5 s finds it expired.
    let lazy = try row(["--semantics", "kv"])
    #expect(lazy["gets"] == "5" && lazy["get_hits"] == "3" && lazy["sets"] == "1" && lazy["expired_requests"] == "1")
    // 105 bytes expired for 2 of the trace's 5 seconds.
    #expect(lazy["expiration"] == "lazy" && lazy["expired_objects"] == "1" && lazy["mean_expired_bytes"] == "42.0")
    let scan = try row(["--semantics", "kv", "--expiration", "scan:interval=0"])
    #expect(scan["expired_requests"] == "0" && scan["expired_objects"] == "1" && scan["mean_expired_bytes"] == "42.0")
    #expect(scan["expiration"] == "scan:interval=0")
    let bad = try evlab(["replay", trace, "--format", "cachelib", "--semantics", "kv", "--expiration", "eager"])
    #expect(bad.status != 0 && bad.stderr.contains("unknown expiration 'eager'"))
    let repeated = try evlab(["replay", trace, "--format", "cachelib", "--use-ttl", "--repeat", "2"])
    #expect(repeated.status != 0 && repeated.stderr.contains("expire backwards"))
    // `all` is every policy a replay with TTLs can run: Belady's are left out.
    let all = try evlab(["replay", trace, "--format", "cachelib", "--use-ttl", "--policy", "all", "--size", "100"])
    #expect(all.status == 0 && !all.stdout.contains("belady") && all.stdout.contains("s3fifo"), "\(all.stderr)")
    // A trace whose requests carry no TTL: a note says nothing expired, and why that may be.
    let plain = try scratch.file("plain.txt", "1\n2\n1\n")
    let untimed = try evlab(["replay", plain, "--policy", "lru", "--size", "1", "--use-ttl"])
    #expect(untimed.status == 0 && untimed.stderr.contains("note: no object expired"))
    #expect(!(try evlab(["replay", trace, "--format", "cachelib", "--use-ttl"])).stderr.contains("no object expired"))
    let alone = try evlab(["replay", trace, "--format", "cachelib", "--expiration", "lazy"])
    #expect(alone.status != 0 && alone.stderr.contains("--expiration is for --use-ttl or --semantics kv"))
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
    #expect(replay.stdout.hasSuffix(",0,lazy,0,0.0,\n"), "no deletes drawn (and no idle TTL): \(replay.stdout)")
  }
}
