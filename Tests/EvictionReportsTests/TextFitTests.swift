import EvictionCore
import Foundation
import Testing

@testable import EvictionReports

/// Every chart kind, at a paper's column and page widths and at the
/// report's, with twenty policies of long names and long axis labels:
/// no text leaves the picture and no two texts touch. Text is measured
/// with the font the charts name (``TextMetrics``), as the renderer lays it out.
@Suite struct TextFitTests {
  static let layouts: [(name: String, layout: SVGChart.Layout)] = [
    ("column", SVGChart.Layout(inches: 3.3, points: 8)),
    ("column, 10 pt", SVGChart.Layout(inches: 3.3, points: 10)),
    ("page", SVGChart.Layout(inches: 7, points: 9)),
    ("screen", .screen),
    ("column, no titles", SVGChart.Layout(inches: 3.3, points: 8, titles: false)),
  ]

  /// Twenty policies, most with names past twenty characters, as plug-ins
  /// and variants with parameters are named.
  static let names = (0..<20).map { i in
    i % 4 == 0 ? ["lru", "s3fifo", "wtinylfu", "belady", "arc"][i / 4] : "my-policy-with-a-long-name:window=0.0\(i)"
  }
  static let title = "Why each policy missed on a-trace-with-a-rather-long-file-name at 0.1% (1,436 objects)"

  static func charts(_ layout: SVGChart.Layout) -> [(kind: String, svg: String)] {
    let series = names.enumerated().map { i, name in
      SVGChart.Series(
        name: name, points: [(x: 1_024, y: 0.9 - Double(i) / 100), (x: 3_000_000, y: 0.05 + Double(i) / 90)],
        bound: name == "belady", styledByName: true)
    }
    let percent = { (x: Double) in String(format: "%.1f%%", x * 100) }
    let reduction = { (x: Double) in String(format: "%+.0f%%", x * 100) }
    let parts = [
      SVGChart.Part(name: "compulsory", color: "#999999", values: names.map { _ in 0.12 }),
      SVGChart.Part(name: "capacity", color: "#0072B2", values: names.indices.map { 0.05 + Double($0) / 400 }),
      SVGChart.Part(name: "policy", color: "#D55E00", values: names.indices.map { Double($0) / 200 }),
      SVGChart.Part(name: "admission", color: "#E69F00", values: names.map { _ in 0.01 }),
    ]
    let boxes = names.enumerated().map { i, name in
      SVGChart.Box(
        name: name, p5: i == 3 ? -4.0 : -0.35, p25: -0.1, median: 0.05 * Double(i % 5), p75: 0.3, p95: 0.62,
        mean: i == 3 ? -1.234 : 0.1, bound: name == "belady")
    }
    return [
      (
        "lines",
        SVGChart.lines(
          title: title, xLabel: "cache size (bytes, log scale), as a share of the trace's working set",
          yLabel: "miss ratio (share of requests that were not in the cache)", series: series, logX: true,
          yFormat: percent, xFormat: { SVGChart.compact($0, bytes: true) }, binaryTicks: true, zeroBaseline: false,
          layout: layout)
      ),
      (
        "lines, linear",
        SVGChart.lines(
          title: "Throughput", xLabel: "threads", yLabel: "requests per second", series: Array(series.prefix(5)),
          logX: false, yFormat: { SVGChart.compact($0, bytes: false) + "/s" }, xFormat: { String(Int($0)) },
          layout: layout)
      ),
      (
        "bars",
        SVGChart.bars(
          title: title, xLabel: "miss ratio at the largest size, with its 95% interval over twenty seeds",
          labels: names, values: names.indices.map { 0.2 + Double($0) / 50 },
          intervals: names.indices.map { 0.18 + Double($0) / 50...0.23 + Double($0) / 50 }, colors: [],
          format: { String(format: "%.4f", $0) }, styles: SVGChart.Styles(names), layout: layout)
      ),
      (
        "stacked bars",
        SVGChart.stackedBars(
          title: title, xLabel: "miss ratio, by cause (against Belady at the same size)", labels: names, parts: parts,
          format: { String(format: "%.3f", $0) }, styles: SVGChart.Styles(names), layout: layout)
      ),
      (
        "boxes",
        SVGChart.boxes(
          title: "Miss-ratio reduction from FIFO at 10%, 24 traces",
          xLabel: "(mr_FIFO − mr) / mr_FIFO; box P25–P75, whiskers P5–P95, ◇ mean", boxes: boxes,
          format: reduction, styles: SVGChart.Styles(names), layout: layout)
      ),
    ]
  }

  @Test(arguments: layouts.indices)
  func noTextLeavesItsChartOrTouchesAnother(_ index: Int) throws {
    let (layoutName, layout) = Self.layouts[index]
    for (kind, svg) in Self.charts(layout) {
      let chart = try #require(ChartText(svg), "\(kind) at \(layoutName): not a chart")
      #expect(chart.boxes.count >= 10, "\(kind) at \(layoutName)")
      for box in chart.boxes {
        #expect(
          box.minX >= -0.5 && box.maxX <= chart.width + 0.5 && box.minY >= -0.5 && box.maxY <= chart.height + 0.5,
          "\(kind) at \(layoutName): \"\(box.text)\" \(box) leaves the \(chart.width)×\(chart.height) picture")
      }
      for (a, b) in chart.overlaps() {
        Issue.record("\(kind) at \(layoutName): \"\(a.text)\" \(a) and \"\(b.text)\" \(b) overlap")
      }
    }
  }

  /// What a shortened text leaves out stays in the chart, as its title.
  @Test func aShortenedTextKeepsItsWholeInATitle() throws {
    let layout = SVGChart.Layout(inches: 3.3, points: 8)
    let svg = try #require(Self.charts(layout).first { $0.kind == "stacked bars" }?.svg)
    #expect(svg.contains("<title>my-policy-with-a-long-name:window=0.01</title>"))
    #expect(svg.contains("<title>miss ratio, by cause (against Belady at the same size)</title>"))
    // The parts' legend is whole: every part's name is drawn.
    for part in ["compulsory", "capacity", "policy", "admission"] { #expect(svg.contains(">\(part)</text>")) }
  }

  /// The measure agrees with the font: DejaVu Sans's own advances.
  @Test func textIsMeasuredWithTheFontsAdvances() {
    // "i" is 569/2048 em, "m" 1995/2048 em, "W" 2025/2048 em.
    #expect(abs(TextMetrics.width("iii", size: 2048) - 3 * 569) < 1e-9)
    #expect(TextMetrics.width("mmm", size: 12) > 3 * TextMetrics.width("i", size: 12) * 3)
    #expect(TextMetrics.width("W", size: 2048, bold: true) == 2259)
    // An unknown character counts as a full em.
    #expect(TextMetrics.width("漢", size: 10) == 10)
  }
}

/// The text of one SVG chart, each as the box it takes: the checker the
/// text-fit test uses, reading what the charts write.
struct ChartText {
  struct Box: CustomStringConvertible {
    var text: String
    var minX, maxX, minY, maxY: Double
    var description: String {
      String(format: "[%.1f–%.1f × %.1f–%.1f]", minX, maxX, minY, maxY)
    }
  }

  let width: Double
  let height: Double
  let boxes: [Box]

  init?(_ svg: String) {
    guard let open = svg.range(of: "<svg [^>]*>", options: .regularExpression) else { return nil }
    let head = Self.attributes(String(svg[open]))
    guard let width = head["width"].flatMap(Double.init), let height = head["height"].flatMap(Double.init) else {
      return nil
    }
    (self.width, self.height) = (width, height)
    let pattern = try! NSRegularExpression(pattern: "<text ([^>]*)>([^<]*)</text>")
    let ns = svg as NSString
    boxes = pattern.matches(in: svg, range: NSRange(location: 0, length: ns.length)).compactMap { match in
      let attributes = Self.attributes(ns.substring(with: match.range(at: 1)))
      let text = Self.unescape(ns.substring(with: match.range(at: 2)))
      guard let x = attributes["x"].flatMap(Double.init), let y = attributes["y"].flatMap(Double.init),
        let size = attributes["font-size"].flatMap(Double.init), !text.isEmpty
      else { return nil }
      let length = TextMetrics.width(text, size: size, bold: attributes["font-weight"] == "bold")
      let start: Double =
        switch attributes["text-anchor"] {
        case "middle": -length / 2
        case "end": -length
        default: 0
        }
      if let transform = attributes["transform"], transform.hasPrefix("rotate(-90") {
        // Turned a quarter anticlockwise about (x, y): the text runs upwards.
        return Box(
          text: text, minX: x - TextMetrics.ascent * size, maxX: x + TextMetrics.descent * size,
          minY: y - start - length, maxY: y - start)
      }
      return Box(
        text: text, minX: x + start, maxX: x + start + length, minY: y - TextMetrics.ascent * size,
        maxY: y + TextMetrics.descent * size)
    }
  }

  /// Pairs of texts whose boxes share more than a hair.
  func overlaps() -> [(Box, Box)] {
    var found: [(Box, Box)] = []
    for i in boxes.indices {
      for j in boxes.indices where j > i {
        let (a, b) = (boxes[i], boxes[j])
        let dx = min(a.maxX, b.maxX) - max(a.minX, b.minX)
        let dy = min(a.maxY, b.maxY) - max(a.minY, b.minY)
        if dx > 0.5 && dy > 0.5 { found.append((a, b)) }
      }
    }
    return found
  }

  static func attributes(_ text: String) -> [String: String] {
    let pattern = try! NSRegularExpression(pattern: #"([a-z-]+)="([^"]*)""#)
    let ns = text as NSString
    var result: [String: String] = [:]
    for match in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
      result[ns.substring(with: match.range(at: 1))] = ns.substring(with: match.range(at: 2))
    }
    return result
  }

  static func unescape(_ text: String) -> String {
    text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
  }
}
