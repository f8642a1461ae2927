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

    public init(name: String, points: [(x: Double, y: Double)], intervals: [ClosedRange<Double>?] = []) {
      self.name = name
      self.points = points
      self.intervals = intervals
    }
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

  /// Lines over a numeric x axis (logarithmic with `logX`), y from 0.
  public static func lines(
    title: String, xLabel: String, yLabel: String, series: [Series], logX: Bool, yFormat: (Double) -> String,
    xFormat: (Double) -> String, binaryTicks: Bool = false
  ) -> String {
    let xs = series.flatMap { $0.points.map(\.x) }.filter { !logX || $0 > 0 }
    let ys = series.flatMap { s in s.points.map(\.y) + s.intervals.compactMap { $0?.upperBound } }
    guard let xMin = xs.min(), let xMax = xs.max(), let yMaxData = ys.max() else { return "" }
    let yMax = niceCeiling(max(yMaxData, 1e-9))
    let plotW = width - left - right
    let chartHeight = max(height, top + Double(series.count) * legendStep + bottom)
    let plotH = chartHeight - top - bottom
    let (lo, hi) = logX ? (log10(xMin), log10(max(xMax, xMin * 1.0001))) : (xMin, max(xMax, xMin + 1))
    func px(_ x: Double) -> Double {
      let v = logX ? log10(x) : x
      return left + (hi == lo ? plotW / 2 : (v - lo) / (hi - lo) * plotW)
    }
    func py(_ y: Double) -> Double { top + plotH - y / yMax * plotH }

    var svg = open(title: title, height: chartHeight)
    // Grid and y ticks.
    for i in 0...5 {
      let y = yMax * Double(i) / 5
      svg += line(left, py(y), left + plotW, py(y), stroke: "#e3e3e3")
      svg += text(left - 8, py(y) + 4, yFormat(y), anchor: "end")
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
      let d = points.enumerated().map { j, p in "\(j == 0 ? "M" : "L")\(f(px(p.x))),\(f(py(p.y)))" }.joined(
        separator: " ")
      svg += "<g><title>\(escape(s.name))</title>"
      svg +=
        "<path class=\"series\" data-series=\"\(escape(s.name))\" d=\"\(d)\" fill=\"none\" stroke=\"\(color(i))\" stroke-width=\"2\"\(dash(i))/>"
      for (j, p) in points.enumerated() {
        svg += "<circle cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"2.5\" fill=\"\(color(i))\"/>"
        if j < s.intervals.count, let ci = s.intervals[j], ci.upperBound > ci.lowerBound {
          svg += line(px(p.x), py(ci.lowerBound), px(p.x), py(ci.upperBound), stroke: color(i))
        }
      }
      svg += "</g>"
    }
    svg += legend(series.map(\.name))
    return svg + "</svg>"
  }

  /// Horizontal bars, one per labelled value, with optional 95% whiskers.
  /// `colors[i]` picks bar i's palette entry (so a policy keeps its colour across charts).
  public static func bars(
    title: String, xLabel: String, labels: [String], values: [Double], intervals: [ClosedRange<Double>?],
    colors: [Int], format: (Double) -> String
  ) -> String {
    guard let maxValue = (values + intervals.compactMap { $0?.upperBound }).max() else { return "" }
    let xMax = niceCeiling(max(maxValue, 1e-9))
    let rowH = 22.0
    let h = top + Double(labels.count) * rowH + bottom
    let barLeft = 150.0
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
      svg += text(barLeft - 8, y + rowH * 0.65, label, anchor: "end")
      svg +=
        "<rect class=\"bar\" data-series=\"\(escape(label))\" x=\"\(f(barLeft))\" y=\"\(f(y + 3))\" width=\"\(f(max(0.5, px(values[i]) - barLeft)))\" height=\"\(f(rowH - 6))\" fill=\"\(color(i < colors.count ? colors[i] : i))\"><title>\(escape(label)): \(format(values[i]))</title></rect>"
      svg += text(px(values[i]) + 6, y + rowH * 0.65, format(values[i]), anchor: "start")
      if i < intervals.count, let ci = intervals[i], ci.upperBound > ci.lowerBound {
        svg += line(px(ci.lowerBound), y + rowH / 2, px(ci.upperBound), y + rowH / 2, stroke: "#222")
      }
    }
    svg += line(barLeft, h - bottom, barLeft + plotW, h - bottom, stroke: "#444")
    svg += text(barLeft + plotW / 2, h - 14, xLabel, anchor: "middle")
    return svg + "</svg>"
  }

  // MARK: Pieces

  static func open(title: String, height: Double = height) -> String {
    "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" font-family=\"sans-serif\" role=\"img\" aria-label=\"\(escape(title))\">"
      + "<text x=\"\(f(width / 2))\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">\(escape(title))</text>"
  }

  static func axes(plotW: Double, plotH: Double, height: Double, xLabel: String, yLabel: String) -> String {
    line(left, top, left, top + plotH, stroke: "#444")
      + line(left, top + plotH, left + plotW, top + plotH, stroke: "#444")
      + text(left + plotW / 2, height - 12, xLabel, anchor: "middle")
      + "<text x=\"16\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 16 \(f(top + plotH / 2)))\">\(escape(yLabel))</text>"
  }

  static func legend(_ names: [String]) -> String {
    var svg = "<g class=\"legend\">"
    let x = width - right + 16
    for (i, name) in names.enumerated() {
      let y = top + 4 + Double(i) * legendStep
      svg +=
        "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + 22))\" y2=\"\(f(y))\" stroke=\"\(color(i))\" stroke-width=\"3\"\(dash(i))/>"
      svg += text(x + 28, y + 4, name, anchor: "start")
    }
    return svg + "</g>"
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
