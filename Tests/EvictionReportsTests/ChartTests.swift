import EvictionReports
import Foundation
import Testing

@Suite struct ChartTests {
  /// A chart of 40 policies (the catalog's size) keeps every legend entry
  /// inside the picture and gives each series its own colour and stroke.
  @Test func aLegendOfFortySeriesIsNeitherClippedNorAmbiguous() throws {
    let series = (0..<40).map { i in
      SVGChart.Series(name: "policy-\(i)", points: [(x: 100, y: 0.9 - Double(i) / 100), (x: 1000, y: 0.5)])
    }
    let svg = SVGChart.lines(
      title: "t", xLabel: "x", yLabel: "y", series: series, logX: true, yFormat: { "\($0)" }, xFormat: { "\($0)" })
    let heightAttribute = try #require(capture(#"height="([0-9.]+)""#, in: svg).first)
    let height = try #require(Double(heightAttribute))
    let legend = try #require(svg.range(of: "<g class=\"legend\">")).upperBound
    let entries = String(svg[legend...])
    let names = capture(#">(policy-[0-9]+)<"#, in: entries)
    #expect(names.count == 40)
    let ys = capture(#"<text x="[0-9.]+" y="([0-9.]+)""#, in: entries).compactMap(Double.init)
    #expect(ys.count == 40 && ys.allSatisfy { $0 < height - 12 }, "legend beyond the chart's \(height)")
    let strokes = capture(#"stroke="(#[0-9A-Fa-f]+)" stroke-width="3"( stroke-dasharray="[0-9 ]+")?"#, in: entries)
    #expect(Set(strokes).count == 40, "two series share a colour and a stroke")
  }

  /// The first group of every match of `pattern` in `text`, in order (both
  /// groups joined when there are two).
  func capture(_ pattern: String, in text: String) -> [String] {
    let regex = try! NSRegularExpression(pattern: pattern)
    let string = text as NSString
    return regex.matches(in: text, range: NSRange(location: 0, length: string.length)).map { match in
      (1..<match.numberOfRanges).compactMap { i in
        match.range(at: i).location == NSNotFound ? nil : string.substring(with: match.range(at: i))
      }.joined()
    }
  }
}
