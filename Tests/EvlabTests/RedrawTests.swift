import Foundation
import Testing

/// `evlab report DIR` draws a finished comparison again from the runs it
/// kept, without replaying: new widths, labels and styles, the same rows.
@Suite struct RedrawTests {
  func read(_ dir: URL, _ name: String) throws -> String {
    try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
  }

  @Test func aFinishedComparisonIsDrawnAgainWithoutReplaying() throws {
    let dir = try scratchDirectory()
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-scan.oracleGeneral.zst").path
    let first = try evlab(
      ["compare", "--trace", trace, "--policy", "lru,s3fifo,belady", "--size", "1%,5%", "--output", "sweep"], in: dir)
    #expect(first.status == 0, "\(first.stderr)")
    let rows = try read(dir, "sweep/results.csv")
    #expect(try read(dir, "sweep/figures/mrc-zipf-scan.svg").contains("width=\"672.0\""))
    // The runs are kept; the report is drawn again at a column's width, with a label and a marker.
    let again = try evlab(
      ["report", "sweep", "--figure-width", "column", "--label", "s3fifo=S3-FIFO (ours)", "--marker", "lru=star"],
      in: dir)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try read(dir, "sweep/results.csv") == rows)
    let svg = try read(dir, "sweep/figures/mrc-zipf-scan.svg")
    #expect(svg.contains("width=\"316.8\"") && svg.contains("S3-FIFO (ours)") && svg.contains("data-marker=\"star\""))
    // Into another folder, which can itself be drawn again.
    let elsewhere = try evlab(["report", "sweep", "-o", "page", "--figure-width", "page"], in: dir)
    #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
    #expect(try read(dir, "page/results.csv") == rows)
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("page/partial-1-of-1.json").path))
    // evlab merge takes a finished folder as well.
    let merged = try evlab(["merge", "sweep", "-o", "merged"], in: dir)
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(try read(dir, "merged/results.csv") == rows)
  }

  @Test func whatCannotBeDrawnAgainIsRefused() throws {
    let dir = try scratchDirectory()
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-scan.oracleGeneral.zst").path
    let empty = dir.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let none = try evlab(["report", "empty"], in: dir)
    #expect(none.status == 1 && none.stderr.contains("holds no partial-1-of-1.json"), "\(none.stderr)")
    let first = try evlab(
      ["compare", "--trace", trace, "--policy", "lru,fifo", "--size", "1%", "--output", "sweep"], in: dir)
    #expect(first.status == 0, "\(first.stderr)")
    // An edited count is refused, as merge refuses it.
    let kept = dir.appendingPathComponent("sweep/partial-1-of-1.json")
    let text = try String(contentsOf: kept, encoding: .utf8)
    let edited = try #require(text.range(of: #""hits":[0-9]+"#, options: .regularExpression))
    try text.replacingCharacters(in: edited, with: "\"hits\":1").write(to: kept, atomically: true, encoding: .utf8)
    let forged = try evlab(["report", "sweep"], in: dir)
    #expect(forged.status == 1 && forged.stderr.contains("edited"), "\(forged.stderr)")
    // A merge into a folder that kept another comparison's runs removes them.
    let other = try evlab(
      ["compare", "--trace", trace, "--policy", "lru,fifo", "--size", "2%", "--output", "target"], in: dir)
    #expect(other.status == 0)
    for i in 1...2 {
      let shard = try evlab(
        [
          "compare", "--trace", trace, "--policy", "lru,sieve", "--size", "1%", "--shard", "\(i)/2", "--output",
          "part\(i)",
        ],
        in: dir)
      #expect(shard.status == 0, "\(shard.stderr)")
    }
    let merged = try evlab(["merge", "part1", "part2", "-o", "target"], in: dir)
    #expect(merged.status == 0 && merged.stderr.contains("removed"), "\(merged.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("target/partial-1-of-1.json").path))
    #expect(try evlab(["report", "target"], in: dir).status == 1)
  }

  /// What pandas reads as it is: results.jsonl, one record per line with the
  /// CSV's keys, and a numeric size_share that sorts as the sizes do.
  @Test func recordsForPandasAndASizeThatSorts() throws {
    let dir = try scratchDirectory()
    let trace = repositoryRoot.appendingPathComponent("traces/zipf-scan.oracleGeneral.zst").path
    let run = try evlab(
      ["compare", "--trace", trace, "--policy", "lru,fifo", "--size", "0.1%,1%,10%,3%", "--output", "sweep"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let csv = try read(dir, "sweep/results.csv").split(separator: "\n")
    let header = csv[0].split(separator: ",").map(String.init)
    let lines = try read(dir, "sweep/results.jsonl").split(separator: "\n")
    #expect(lines.count == csv.count - 1)
    var shares: [String: Double] = [:]
    for line in lines {
      let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(Set(record.keys) == Set(header))
      let cacheSize = try #require(record["cache_size"] as? Int)
      let share = try #require(record["size_share"] as? Double)
      #expect(share > 0 && share <= 1)
      shares[record["size_label"] as! String] = share
      _ = cacheSize
    }
    // 0.1% < 1% < 3% < 10% as numbers, whatever the labels sort as.
    let order = shares.sorted { $0.value < $1.value }.map(\.key)
    #expect(order == ["0.1%", "1%", "3%", "10%"], "\(shares)")
  }

  /// Several traces without FIFO: the across-trace view (reductions from
  /// FIFO) cannot be drawn, and the report and the terminal say why.
  @Test func aSweepWithoutFifoSaysWhyItHasNoAcrossTraceView() throws {
    let dir = try scratchDirectory()
    let traces = ["zipf-scan", "loop-3000"].flatMap {
      ["--trace", repositoryRoot.appendingPathComponent("traces/\($0).oracleGeneral.zst").path]
    }
    let run = try evlab(["compare"] + traces + ["--policy", "lru,arc", "--size", "1%", "--output", "sweep"], in: dir)
    #expect(run.status == 0 && run.stderr.contains("this comparison has no fifo"), "\(run.stderr)")
    for report in ["sweep/report.html", "sweep/report.md"] {
      #expect(try read(dir, report).contains("this comparison has no fifo: add it to the policies"), "\(report)")
    }
    let with = try evlab(
      ["compare"] + traces + ["--policy", "lru,arc,fifo", "--size", "1%", "--output", "with"], in: dir)
    #expect(with.status == 0 && !with.stderr.contains("has no fifo"))
    #expect(try read(dir, "with/report.html").contains("Miss-ratio reduction from FIFO"))
  }
}
