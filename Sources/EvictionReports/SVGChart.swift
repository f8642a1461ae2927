import EvictionCore
import Foundation

/// Self-contained SVG charts for the HTML report: no scripts, no fonts or
/// styles from elsewhere. Every chart has axes with ticks and units, a title
/// and a legend that is never cut off (a chart with many series grows taller
/// to hold it); series are told apart by colour and, past each round of the
/// palette, by dashes, then dots, then dash-dots.
public enum SVGChart {
  public struct Series {
    public var name: String
    public var points: [(x: Double, y: Double)]
    /// Optional 95% interval per point (drawn as whiskers).
    public var intervals: [ClosedRange<Double>?]
    /// An offline bound (Belady): dashed, and labelled as a bound.
    public var bound: Bool
    /// Colour and marker from the series' name (``style(_:)``), as policies
    /// are; otherwise by position, as lock strategies and storage modes are.
    public var styledByName: Bool
    /// Colour and marker chosen by the caller (a report's ``Styles``),
    /// before either rule.
    public var style: (color: String, marker: String)?

    public init(
      name: String, points: [(x: Double, y: Double)], intervals: [ClosedRange<Double>?] = [], bound: Bool = false,
      styledByName: Bool = false
    ) {
      self.name = name
      self.points = points
      self.intervals = intervals
      self.bound = bound
      self.styledByName = styledByName
    }

    /// Colour, marker and dash pattern of series `i`.
    func look(_ i: Int) -> (color: String, marker: String, dash: String) {
      if let style {
        return (style.color, style.marker, bound ? " stroke-dasharray=\"6 3\"" : "")
      }
      if styledByName {
        let style = SVGChart.style(name)
        return (style.color, style.marker, bound ? " stroke-dasharray=\"6 3\"" : "")
      }
      return (SVGChart.color(i), "circle", bound ? " stroke-dasharray=\"6 3\"" : SVGChart.dash(i))
    }

    var legendName: String { bound ? "\(name) (bound)" : name }
  }

  /// Colour-blind-friendly (Okabe–Ito, then Tableau) colours.
  static let palette = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000", "#8C564B", "#7F7F7F",
    "#17BECF", "#BCBD22",
  ]
  static func color(_ i: Int) -> String { palette[i % palette.count] }
  static let dashes = ["", "6 3", "2 3", "8 3 2 3"]
  static func dash(_ i: Int) -> String {
    let pattern = dashes[i / palette.count % dashes.count]
    return pattern.isEmpty ? "" : " stroke-dasharray=\"\(pattern)\""
  }

  static let width = 760.0
  static let height = 380.0
  static let left = 70.0
  static let right = 190.0  // room for the legend
  static let top = 40.0
  static let bottom = 56.0
  /// The vertical step between legend entries.
  static let legendStep = 18.0

  /// Lines over a numeric x axis (logarithmic with `logX`). The y axis
  /// starts at 0 where that means something (`zeroBaseline`: throughput,
  /// latency); otherwise it spans the data, so close curves stay apart.
  public static func lines(
    title: String, xLabel: String, yLabel: String, series: [Series], logX: Bool, yFormat: (Double) -> String,
    xFormat: (Double) -> String, binaryTicks: Bool = false, zeroBaseline: Bool = true, logY: Bool = false
  ) -> String {
    let xs = series.flatMap { $0.points.map(\.x) }.filter { !logX || $0 > 0 }
    let ys = series.flatMap { s in
      s.points.map(\.y) + s.intervals.compactMap { $0?.upperBound } + s.intervals.compactMap { $0?.lowerBound }
    }
    guard let xMin = xs.min(), let xMax = xs.max(), let yMaxData = ys.max(), let yMinData = ys.min() else {
      return ""
    }
    // A log axis (values spanning decades, such as latencies) runs from the
    // power of ten below the least value to the one above the greatest.
    let positive = ys.filter { $0 > 0 }
    let (yMin, yMax, yStep) =
      logY && !positive.isEmpty
      ? (
        pow(10, log10(positive.min()!).rounded(.down)),
        max(pow(10, log10(positive.max()!).rounded(.up)), pow(10, log10(positive.min()!).rounded(.down)) * 10), 0
      )
      : yRange(yMinData, yMaxData, zeroBaseline: zeroBaseline)
    let useLogY = logY && !positive.isEmpty
    // The legend takes what its longest name needs (up to a limit past which names are shortened).
    let legendW = min(maxLabelWidth, max(right, 44 + 12 + textWidth(series.map(\.legendName))))
    let plotW = width - left - legendW
    let chartHeight = max(height, top + Double(series.count) * legendStep + bottom)
    let plotH = chartHeight - top - bottom
    let (lo, hi) = logX ? (log10(xMin), log10(max(xMax, xMin * 1.0001))) : (xMin, max(xMax, xMin + 1))
    func px(_ x: Double) -> Double {
      let v = logX ? log10(x) : x
      return left + (hi == lo ? plotW / 2 : (v - lo) / (hi - lo) * plotW)
    }
    func py(_ y: Double) -> Double {
      guard useLogY else { return top + plotH - (y - yMin) / (yMax - yMin) * plotH }
      let v = log10(max(y, yMin))
      return top + plotH - (v - log10(yMin)) / (log10(yMax) - log10(yMin)) * plotH
    }

    var svg = open(title: title, height: chartHeight)
    // Grid and y ticks.
    let yTicks =
      useLogY ? xTicks(yMin, yMax, logX: true) : Array(stride(from: yMin, through: yMax + yStep / 2, by: yStep))
    for y in yTicks {
      svg += line(left, py(y), left + plotW, py(y), stroke: "#e3e3e3")
      svg += text(left - 8, py(y) + 4, yFormat(!useLogY && abs(y) < yStep / 1e6 ? 0 : y), anchor: "end")
    }
    // x ticks: powers of ten (and 2, 5 between when the range is short), or the data's values.
    for x in (binaryTicks && logX ? binaryXTicks(xMin, xMax) : xTicks(xMin, xMax, logX: logX)) {
      svg += line(px(x), top + plotH, px(x), top + plotH + 5, stroke: "#444")
      svg += text(px(x), top + plotH + 19, xFormat(x), anchor: "middle")
    }
    svg += axes(plotW: plotW, plotH: plotH, height: chartHeight, xLabel: xLabel, yLabel: yLabel)
    for (i, s) in series.enumerated() {
      let points = s.points.filter { !logX || $0.x > 0 }
      guard !points.isEmpty else { continue }
      let look = s.look(i)
      let d = points.enumerated().map { j, p in "\(j == 0 ? "M" : "L")\(f(px(p.x))),\(f(py(p.y)))" }.joined(
        separator: " ")
      svg += "<g><title>\(escape(s.legendName))</title>"
      svg +=
        "<path class=\"series\" data-series=\"\(escape(s.name))\" d=\"\(d)\" fill=\"none\" stroke=\"\(look.color)\" stroke-width=\"2\"\(look.dash)/>"
      for (j, p) in points.enumerated() {
        svg += markerShape(look.marker, px(p.x), py(p.y), 3, fill: look.color, stroke: look.color)
        if j < s.intervals.count, let ci = s.intervals[j], ci.upperBound > ci.lowerBound {
          // A whisker with caps.
          svg += line(px(p.x), py(ci.lowerBound), px(p.x), py(ci.upperBound), stroke: look.color)
          for y in [ci.lowerBound, ci.upperBound] {
            svg += line(px(p.x) - 3, py(y), px(p.x) + 3, py(y), stroke: look.color)
          }
        }
      }
      svg += "</g>"
    }
    svg += legend(series.enumerated().map { i, s in (s.legendName, s.look(i)) }, x: width - legendW + 16)
    return svg + "</svg>"
  }

  /// The y axis: from 0 (`zeroBaseline`) or from just below the data, to just
  /// above it, in about five steps of 1, 2, 2.5 or 5 × 10^k.
  static func yRange(_ lo: Double, _ hi: Double, zeroBaseline: Bool) -> (Double, Double, Double) {
    if zeroBaseline || lo <= 0 {
      let top = niceCeiling(max(hi, 1e-9))
      return (0, top, top / 5)
    }
    let span = max(hi - lo, abs(hi) * 0.02, 1e-9)
    let step = niceCeiling(span / 5)
    let bottom = max(0, (lo / step).rounded(.down) * step)
    var top = (hi / step).rounded(.up) * step
    if top <= bottom { top = bottom + step }
    return (bottom, top, step)
  }

  /// Horizontal bars, one per labelled value, with optional 95% whiskers.
  /// `colors[i]` picks bar i's palette entry (so a policy keeps its colour across charts).
  /// With `styles`, each bar takes its label's colour and carries its
  /// marker at its base, so bars that share a colour still differ.
  public static func bars(
    title: String, xLabel: String, labels: [String], values: [Double], intervals: [ClosedRange<Double>?],
    colors: [Int], format: (Double) -> String, colorOf: ((String) -> String)? = nil, styles: Styles? = nil
  ) -> String {
    guard let maxValue = (values + intervals.compactMap { $0?.upperBound }).max() else { return "" }
    let xMax = niceCeiling(max(maxValue, 1e-9))
    let rowH = 22.0
    let h = top + Double(labels.count) * rowH + bottom
    let barLeft = min(maxLabelWidth, max(150, 16 + textWidth(labels)))
    let plotW = width - barLeft - 90
    func px(_ x: Double) -> Double { barLeft + x / xMax * plotW }
    var svg = open(title: title, height: h)
    for i in 0...5 {
      let x = xMax * Double(i) / 5
      svg += line(px(x), top, px(x), h - bottom, stroke: "#e3e3e3")
      svg += text(px(x), h - bottom + 16, format(x), anchor: "middle")
    }
    for (i, label) in labels.enumerated() {
      let y = top + Double(i) * rowH
      // With markers, the label stands clear of the marker before the bar.
      let gap = styles == nil ? 8.0 : 16.0
      svg += text(barLeft - gap, y + rowH * 0.65, fit(label, barLeft - gap - 4), anchor: "end")
      svg +=
        "<rect class=\"bar\" data-series=\"\(escape(label))\" x=\"\(f(barLeft))\" y=\"\(f(y + 3))\" width=\"\(f(max(0.5, px(values[i]) - barLeft)))\" height=\"\(f(rowH - 6))\" fill=\"\(styles?.style(label).color ?? colorOf?(label) ?? color(i < colors.count ? colors[i] : i))\"><title>\(escape(label)): \(format(values[i]))</title></rect>"
      if let styles {
        let style = styles.style(label)
        svg += markerShape(style.marker, barLeft - 7, y + rowH / 2, 3.5, fill: style.color, stroke: style.color)
      }
      // The value sits past the bar and past its whisker, never under it.
      var labelX = px(values[i]) + 6
      if i < intervals.count, let ci = intervals[i], ci.upperBound > ci.lowerBound {
        let mid = y + rowH / 2
        svg += line(px(ci.lowerBound), mid, px(ci.upperBound), mid, stroke: "#222")
        for x in [ci.lowerBound, ci.upperBound] { svg += line(px(x), mid - 4, px(x), mid + 4, stroke: "#222") }
        labelX = max(labelX, px(ci.upperBound) + 6)
      }
      svg += text(labelX, y + rowH * 0.65, format(values[i]), anchor: "start")
    }
    svg += line(barLeft, h - bottom, barLeft + plotW, h - bottom, stroke: "#444")
    svg += text(barLeft + plotW / 2, h - 14, xLabel, anchor: "middle")
    return svg + "</svg>"
  }

  /// One policy's distribution over traces, for ``boxes(title:xLabel:boxes:format:)``.
  public struct Box {
    public var name: String
    public var p5, p25, median, p75, p95, mean: Double
    /// An offline bound: drawn dashed and labelled as a bound.
    public var bound: Bool

    public init(
      name: String, p5: Double, p25: Double, median: Double, p75: Double, p95: Double, mean: Double, bound: Bool
    ) {
      (self.name, self.p5, self.p25, self.median, self.p75, self.p95, self.mean, self.bound) = (
        name, p5, p25, median, p75, p95, mean, bound
      )
    }
  }

  /// Horizontal box plots as the S3-FIFO and SIEVE papers draw them: box
  /// from P25 to P75, median line, whiskers with caps at P5 and P95, a
  /// diamond at the mean; the axis spans the data (and 0, the reference,
  /// drawn darker), and each row's mean is printed in a column of its own,
  /// clear of the whiskers. Each policy keeps its colour (``style(_:)``).
  public static func boxes(
    title: String, xLabel: String, boxes: [Box], format: (Double) -> String, styles: Styles? = nil
  ) -> String {
    guard !boxes.isEmpty else { return "" }
    // A reduction is at most 100% but can fall without bound (MRU on a
    // recency trace misses ten times as often as FIFO): the axis stops at
    // twice the best P95 below zero (at least -50%), so one outlier does not
    // flatten every other box; what lies beyond ends in an arrow at the edge,
    // and the mean column keeps the true value.
    let hi = max(0, boxes.map(\.p95).max()!, boxes.map(\.mean).max()!)
    let floor = -max(0.5, 2 * hi)
    let lo = max(floor, min(0, boxes.map(\.p5).min()!, boxes.map(\.mean).min()!))
    let cut = boxes.contains { $0.p5 < lo || $0.mean < lo }
    let step = niceCeiling(max(hi - lo, 1e-9) / 6)
    let xMin = (lo / step).rounded(.down) * step
    let xMax = max((hi / step).rounded(.up) * step, xMin + step)
    let rowH = 22.0
    let names = boxes.map { $0.bound ? "\($0.name) (bound)" : $0.name }
    let labelW = min(maxLabelWidth, max(160, 16 + textWidth(names)))
    let meanW = 96.0
    let h = top + Double(boxes.count) * rowH + bottom
    let plotW = width - labelW - meanW - 16
    func px(_ x: Double) -> Double { labelW + (max(x, xMin) - xMin) / (xMax - xMin) * plotW }
    var svg = open(title: title, height: h)
    for x in stride(from: xMin, through: xMax + step / 2, by: step) {
      svg += line(px(x), top, px(x), h - bottom, stroke: abs(x) < step / 1e6 ? "#555" : "#e3e3e3")
      svg += text(px(x), h - bottom + 16, format(abs(x) < step / 1e6 ? 0 : x), anchor: "middle")
    }
    svg += text(width - meanW / 2, top - 6, "mean", anchor: "middle")
    for (i, box) in boxes.enumerated() {
      let y = top + Double(i) * rowH
      let mid = y + rowH / 2
      let (colour, marker) = styles?.style(box.name) ?? style(box.name)
      let dash = box.bound ? " stroke-dasharray=\"4 2\"" : ""
      svg += text(labelW - 8, y + rowH * 0.65, fit(names[i], labelW - 12), anchor: "end")
      svg +=
        "<g class=\"box\" data-series=\"\(escape(box.name))\" data-color=\"\(colour)\" data-marker=\"\(marker)\" data-dash=\"\(box.bound ? "dashed" : "")\"><title>\(escape(box.name)): P5 \(format(box.p5)), P25 \(format(box.p25)), median \(format(box.median)), P75 \(format(box.p75)), P95 \(format(box.p95)), mean \(format(box.mean))</title>"
      svg += line(px(box.p5), mid, px(box.p25), mid, stroke: colour)
      svg += line(px(box.p75), mid, px(box.p95), mid, stroke: colour)
      for x in [box.p5, box.p95] { svg += line(px(x), mid - 5, px(x), mid + 5, stroke: colour) }
      svg +=
        "<rect x=\"\(f(px(box.p25)))\" y=\"\(f(y + 4))\" width=\"\(f(max(1, px(box.p75) - px(box.p25))))\" height=\"\(f(rowH - 8))\" fill=\"\(colour)\" fill-opacity=\"0.3\" stroke=\"\(colour)\" stroke-width=\"1.5\"\(dash)/>"
      svg +=
        "<line x1=\"\(f(px(box.median)))\" y1=\"\(f(y + 4))\" x2=\"\(f(px(box.median)))\" y2=\"\(f(y + rowH - 4))\" stroke=\"\(colour)\" stroke-width=\"3\"/>"
      if box.p5 < xMin {
        svg +=
          "<path class=\"beyond\" d=\"M\(f(px(xMin) - 2)),\(f(mid)) l8,-5 l0,10 Z\" fill=\"\(colour)\"><title>P5 \(format(box.p5)), beyond the axis</title></path>"
      }
      if box.mean >= xMin { svg += markerShape("diamond", px(box.mean), mid, 4.5, fill: "#fff", stroke: "#222") }
      svg += markerShape(marker, width - meanW + 6, mid, 4, fill: colour, stroke: colour)
      svg += text(width - 8, y + rowH * 0.65, format(box.mean), anchor: "end") + "</g>"
    }
    svg += line(labelW, h - bottom, labelW + plotW, h - bottom, stroke: "#444")
    svg += text(
      labelW + plotW / 2, h - 14, cut ? "\(xLabel); ◀ beyond \(format(xMin))" : xLabel, anchor: "middle")
    return svg + "</svg>"
  }

  /// The colours and markers of one report's labels: the labels in the
  /// catalog's order (built-in policies first, then the rest by name) take
  /// the palette's twelve colours in turn, then the next marker, so within
  /// a report no two labels share a colour until there are more than
  /// twelve, and none share both. A label the report does not list falls
  /// back to ``style(_:)``.
  public struct Styles: Sendable {
    let index: [String: Int]

    public init(_ labels: [String]) {
      func rank(_ label: String) -> (Int, String) {
        (PolicyCatalog.builtinNames.firstIndex(of: label) ?? Int.max, label)
      }
      let ordered = Array(Set(labels)).sorted { rank($0) < rank($1) }
      index = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1, $0) })
    }

    public func style(_ label: String) -> (color: String, marker: String) {
      guard let i = index[label] else { return SVGChart.style(label) }
      let slot = i % (palette.count * markers.count)
      return (palette[slot % palette.count], markers[slot / palette.count])
    }
  }

  /// Marker shapes, in the order ``style(_:)`` hands them out.
  static let markers = ["circle", "square", "triangle", "diamond"]

  /// A policy's colour and marker, from its name alone: the same in every
  /// chart and report (and in the notebooks, which use the same rule). The
  /// built-in policies take the catalog's order, twelve colours to a marker,
  /// so no two share both; any other label (a variant with parameters, an
  /// admission in front) is placed by a hash of its name.
  public static func style(_ name: String) -> (color: String, marker: String) {
    let combinations = palette.count * markers.count
    var index: Int
    if let position = PolicyCatalog.builtinNames.firstIndex(of: name) {
      index = position
    } else {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
      index = Int(hash % UInt64(combinations))
    }
    index %= combinations
    return (palette[index % palette.count], markers[index / palette.count])
  }

  static func markerShape(_ shape: String, _ x: Double, _ y: Double, _ r: Double, fill: String, stroke: String)
    -> String
  {
    let paint = "class=\"marker\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"1.2\""
    switch shape {
    case "square":
      return "<rect x=\"\(f(x - r))\" y=\"\(f(y - r))\" width=\"\(f(2 * r))\" height=\"\(f(2 * r))\" \(paint)/>"
    case "triangle":
      return
        "<path d=\"M\(f(x)),\(f(y - r * 1.15)) L\(f(x + r)),\(f(y + r * 0.85)) L\(f(x - r)),\(f(y + r * 0.85)) Z\" \(paint)/>"
    case "diamond":
      return
        "<path d=\"M\(f(x)),\(f(y - r * 1.2)) L\(f(x + r)),\(f(y)) L\(f(x)),\(f(y + r * 1.2)) L\(f(x - r)),\(f(y)) Z\" \(paint)/>"
    default:
      return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(r))\" \(paint)/>"
    }
  }

  // MARK: Pieces

  static func open(title: String, height: Double = height) -> String {
    "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" font-family=\"sans-serif\" role=\"img\" aria-label=\"\(escape(title))\">"
      + "<text x=\"\(f(width / 2))\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">\(escape(fit(title, width - 20, size: 15 * 1.1)))</text>"
  }

  static func axes(plotW: Double, plotH: Double, height: Double, xLabel: String, yLabel: String) -> String {
    line(left, top, left, top + plotH, stroke: "#444")
      + line(left, top + plotH, left + plotW, top + plotH, stroke: "#444")
      + text(left + plotW / 2, height - 12, xLabel, anchor: "middle")
      + "<text x=\"16\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 16 \(f(top + plotH / 2)))\">\(escape(yLabel))</text>"
  }

  static func legend(_ entries: [(name: String, look: (color: String, marker: String, dash: String))], x: Double)
    -> String
  {
    var svg = "<g class=\"legend\">"
    for (i, entry) in entries.enumerated() {
      let y = top + 4 + Double(i) * legendStep
      // What a reader tells entries apart by, for the browser check (scripts/browser-check.sh).
      svg +=
        "<g class=\"entry\" data-series=\"\(escape(entry.name))\" data-color=\"\(entry.look.color)\" data-marker=\"\(entry.look.marker)\" data-dash=\"\(entry.look.dash.isEmpty ? "" : "dashed")\">"
      svg +=
        "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + 22))\" y2=\"\(f(y))\" stroke=\"\(entry.look.color)\" stroke-width=\"3\"\(entry.look.dash)/>"
      svg += markerShape(entry.look.marker, x + 11, y, 3.5, fill: entry.look.color, stroke: entry.look.color)
      svg += text(x + 28, y + 4, fit(entry.name, width - x - 36), anchor: "start") + "</g>"
    }
    return svg + "</g>"
  }

  /// The most a label column or legend may take; longer names are shortened.
  static let maxLabelWidth = 300.0

  /// About how wide the widest of `texts` is at `size` pixels (DejaVu Sans,
  /// librsvg's and browsers' usual sans-serif, averages 0.6 em a character).
  static func textWidth(_ texts: [String], size: Double = 12) -> Double {
    Double(texts.map(\.count).max() ?? 0) * size * 0.6
  }

  /// `text`, shortened with an ellipsis to fit `available` pixels.
  static func fit(_ text: String, _ available: Double, size: Double = 12) -> String {
    let most = max(4, Int(available / (size * 0.6)))
    return text.count <= most ? text : String(text.prefix(most - 1)) + "…"
  }

  static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) -> String {
    "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\" stroke-width=\"1\"/>"
  }

  static func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
    "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" font-size=\"12\">\(escape(content))</text>"
  }

  static func xTicks(_ lo: Double, _ hi: Double, logX: Bool) -> [Double] {
    guard logX else {
      let step = niceCeiling((hi - lo) / 5)
      guard step > 0 else { return [lo] }
      return stride(from: (lo / step).rounded(.down) * step, through: hi, by: step).filter { $0 >= lo }
    }
    let decades = log10(hi) - log10(lo)
    let multiples: [Double] = decades < 3 ? [1, 2, 5] : [1]
    var ticks: [Double] = []
    var power = pow(10, (log10(lo)).rounded(.down))
    while power <= hi {
      for m in multiples where power * m >= lo * 0.999 && power * m <= hi * 1.001 { ticks.append(power * m) }
      power *= 10
    }
    return ticks.isEmpty ? [lo, hi] : ticks
  }

  /// Powers of two between `lo` and `hi`, at most eight (every second or
  /// fourth power when the range is wide): byte axes read 1 KiB, 4 KiB, ….
  static func binaryXTicks(_ lo: Double, _ hi: Double) -> [Double] {
    let first = Int(log2(max(lo, 1)).rounded(.up))
    let last = Int(log2(max(hi, 1)).rounded(.down))
    guard last >= first else { return [lo, hi] }
    let step = max(1, Int((Double(last - first) / 7).rounded(.up)))
    return stride(from: first, through: last, by: step).map { pow(2, Double($0)) }
  }

  /// The smallest of 1, 2, 2.5, 5 × 10^k at or above `x`.
  static func niceCeiling(_ x: Double) -> Double {
    let power = pow(10, log10(x).rounded(.down))
    for m in [1.0, 2, 2.5, 5, 10] where m * power >= x * 0.9999 { return m * power }
    return 10 * power
  }

  static func f(_ x: Double) -> String { String(format: "%.1f", x) }

  /// Text safe in XML content and attributes.
  public static func escape(_ s: String) -> String {
    var out = ""
    for c in s {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }

  /// Nanoseconds as a reader says them: 850 ns, 12 µs, 3.5 ms, 2 s.
  public static func duration(nanoseconds x: Double) -> String {
    let (value, unit): (Double, String) =
      x < 1e3 ? (x, "ns") : x < 1e6 ? (x / 1e3, "µs") : x < 1e9 ? (x / 1e6, "ms") : (x / 1e9, "s")
    return (value < 10 && value != value.rounded() ? String(format: "%.1f", value) : String(Int(value.rounded())))
      + " " + unit
  }

  /// 1234 → 1.2k, 5e6 → 5M (binary prefixes for bytes).
  public static func compact(_ x: Double, bytes: Bool) -> String {
    let base = bytes ? 1024.0 : 1000.0
    let units = bytes ? ["B", "KiB", "MiB", "GiB", "TiB"] : ["", "k", "M", "G", "T"]
    var v = x
    var i = 0
    while abs(v) >= base && i < units.count - 1 {
      v /= base
      i += 1
    }
    let text = v == v.rounded() ? String(Int(v)) : String(format: v < 10 ? "%.1f" : "%.0f", v)
    return text + (bytes && i == 0 ? " B" : bytes ? " " + units[i] : units[i])
  }
}
