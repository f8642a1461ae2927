import Foundation
import Testing

/// `evlab bench throughput --baseline`: the opt-in speed gate. Machine noise
/// cannot make these flap: the baselines are made far faster or slower than
/// anything this machine measures.
@Suite struct ThroughputBenchTests {
  let trace = repositoryRoot.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path
  var common: [String] { ["bench", "throughput", trace, "--policy", "lru,fifo", "--size", "500", "--repeat", "2"] }

  /// A baseline whose samples sit within 1% of `factor` times the recorded median.
  func scaled(_ samples: [String: Any], by factor: Double) throws -> Data {
    var copy = samples
    let values = samples["samples"] as! [String: [Double]]
    copy["samples"] = values.mapValues { v in
      let median = v.sorted()[v.count / 2]
      return [0.99, 1.0, 1.01, 0.995, 1.005].map { $0 * median * factor }
    }
    return try JSONSerialization.data(withJSONObject: copy)
  }

  @Test func recordedBaselinesCatchRegressionsAndPassImprovements() throws {
    let dir = try scratchDirectory()
    let record = try evlab(common + ["--runs", "5", "--json", "base.json"], in: dir)
    #expect(record.status == 0, "\(record.stderr)")
    let data = try Data(contentsOf: dir.appendingPathComponent("base.json"))
    let samples = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let values = try #require(samples["samples"] as? [String: [Double]])
    #expect(
      values.keys.sorted() == ["fifo", "lru"] && values.values.allSatisfy { $0.count == 5 && $0.allSatisfy { $0 > 0 } })

    // A baseline ten times faster than this build: both policies regressed.
    try scaled(samples, by: 10).write(to: dir.appendingPathComponent("fast.json"))
    let slower = try evlab(common + ["--runs", "5", "--baseline", "fast.json"], in: dir)
    #expect(slower.status == 1)
    #expect(slower.stderr.contains("lru, fifo slower than the baseline"), "\(slower.stderr)")
    #expect(slower.stdout.contains("regression"))

    // A baseline a hundred times slower: improvements, exit 0. Seven runs and
    // alpha 0.05, so a machine busy enough to make this build's samples vary
    // by 100% still calls a hundredfold gain significant (Welch, t ≈ 2.6).
    try scaled(samples, by: 0.01).write(to: dir.appendingPathComponent("slow.json"))
    let faster = try evlab(common + ["--runs", "7", "--alpha", "0.05", "--baseline", "slow.json"], in: dir)
    #expect(faster.status == 0, "\(faster.stderr)")
    #expect(faster.stdout.components(separatedBy: "improvement").count - 1 == 2)

    // A baseline of another workload is refused.
    let other = try evlab(
      [
        "bench", "throughput", trace, "--policy", "lru,fifo", "--size", "600", "--repeat", "1", "--runs", "2",
        "--baseline", "base.json",
      ],
      in: dir)
    #expect(other.status == 1 && other.stderr.contains("measure the same workload"))
  }

  @Test func anotherBuildRunsInterleavedWithThisOne() throws {
    let dir = try scratchDirectory()
    // A stand-in "baseline build": absurdly fast, and it logs each call.
    let script = dir.appendingPathComponent("evlab-before").path
    try """
    #!/bin/sh
    echo "$@" >> "\(dir.path)/calls.log"
    while [ $# -gt 0 ]; do [ "$1" = "--json" ] && out="$2"; shift; done
    r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    printf '{"trace":"zipf-0.9.oracleGeneral.zst","cache_size":500,"size_mode":"count","copies":2,"policies":["lru","fifo"],"samples":{"lru":[10000%05d],"fifo":[10000%05d]}}' "$r" "$r" > "$out"
    """.write(toFile: script, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
    let run = try evlab(common + ["--runs", "4", "--baseline", script], in: dir)
    let calls = try String(contentsOf: dir.appendingPathComponent("calls.log"), encoding: .utf8).split(separator: "\n")
    #expect(calls.count == 4 && calls.allSatisfy { $0.contains("--runs 1") && $0.contains("--policy lru,fifo") })
    #expect(run.status == 1 && run.stderr.contains("slower than the baseline"), "\(run.stderr)")
  }
}
