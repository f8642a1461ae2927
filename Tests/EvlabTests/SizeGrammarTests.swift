import EvictionTestSupport
import Foundation
import Testing

/// Every command that takes cache sizes takes the same grammar: absolute,
/// percent, libCacheSim's fractions, ranges and `auto` (libCacheSim's set).
@Suite struct SizeGrammarTests {
  /// 3,000 distinct objects, each requested many times.
  static let loop = repositoryRoot.appendingPathComponent("traces/loop-3000.oracleGeneral.zst").path
  /// libCacheSim's auto set over a 3,000-object footprint.
  static let autoSizes: Set<Int64> = [3, 9, 30, 90, 300, 600, 1200, 2400]

  /// The integer column `column` of a CSV's data rows.
  func column(_ csv: String, _ name: String) -> [Int64] {
    let lines = csv.split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    guard let header = lines.first, let index = header.firstIndex(of: name) else { return [] }
    return lines.dropFirst().compactMap { Int64($0[index]) }
  }

  @Test func replayMrcStressAndCompareResolveTheSameSizes() throws {
    let replay = try evlab(["replay", Self.loop, "--policy", "lru", "--size", "auto", "--csv", "-"])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(Set(column(replay.stdout, "cache_size")) == Self.autoSizes)

    let mrc = try evlab(["mrc", Self.loop, "--sizes", "auto", "--csv", "-"])
    #expect(mrc.status == 0, "\(mrc.stderr)")
    #expect(Set(column(mrc.stdout, "cache_size")) == Self.autoSizes)

    let dir = try Scratch.directory("sizes")
    let compare = try evlab([
      "compare", "--trace", Self.loop, "--policy", "lru", "--size", "auto", "--output", dir.path, "--name", "sizes",
    ])
    #expect(compare.status == 0, "\(compare.stderr)")
    let rows = try String(contentsOf: dir.appendingPathComponent("results.csv"), encoding: .utf8)
    #expect(Set(column(rows, "cache_size")) == Self.autoSizes)

    // The same share, three ways: one cache size.
    for size in ["1%", "0.01", "1%..2%:log2"] {
      let run = try evlab(["replay", Self.loop, "--policy", "lru", "--size", size, "--csv", "-"])
      #expect(run.status == 0, "\(size): \(run.stderr)")
      #expect(column(run.stdout, "cache_size").first == 30, "\(size)")
    }
    // Sizes run in the order given; two that come to one cache size are refused.
    let ordered = try evlab(["replay", Self.loop, "--policy", "lru", "--size", "300,30,2%", "--csv", "-"])
    #expect(ordered.status == 0, "\(ordered.stderr)")
    #expect(column(ordered.stdout, "cache_size") == [300, 30, 60])
    let same = try evlab(["replay", Self.loop, "--policy", "lru", "--size", "300,30,1%,0.1", "--csv", "-"])
    #expect(same.status == 1 && same.stderr.contains("sizes 300 and 10% both come to 300"), "\(same.stderr)")
    let stress = try evlab([
      "stress", Self.loop, "--policy", "lru", "--size", "0.01", "--threads", "1", "--lock", "mutex", "--ops", "2000",
      "--csv", "-",
    ])
    #expect(stress.status == 0, "\(stress.stderr)")
    #expect(Set(column(stress.stdout, "cache_size")) == [30])
  }

  @Test(arguments: [["replay", "--size"], ["mrc", "--sizes"], ["stress", "--size"]])
  func aMalformedSizeIsOneErrorNamingTheGrammar(command: [String]) throws {
    var arguments = [command[0], Self.loop, command[1], "1.5"]
    if command[0] == "replay" { arguments += ["--policy", "lru"] }
    let run = try evlab(arguments)
    #expect(run.status != 0)
    #expect(run.stderr.contains("1.5") && run.stderr.contains("fraction"), "\(run.stderr)")
    #expect(run.stdout.isEmpty)
  }
}
