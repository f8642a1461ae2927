import EvictionCore
import EvictionExperiments
import Foundation

/// Self-contained SVG charts for the HTML report and the figure files: no
/// scripts, no fonts or styles from elsewhere. Every chart has axes with
/// ticks and units, a title (unless the layout leaves titles out) and a
/// legend that is never cut off (a chart with many series grows taller to
/// hold it). Series are told apart by colour and marker (``Styles``), and
/// past the palette by dashes.
///
/// A ``Layout`` sets the chart's width and text size: the report's page
/// draws at 760 px with 12 px text; a figure for a paper's column draws at
/// 3.3 in with 8 pt text, its legend below the plot.
public enum SVGChart {
  /// How big a chart is, in CSS pixels (96 an inch), and what it shows
  /// besides the data.
  public struct Layout: Sendable, Equatable {
    /// The chart's width.
    public var width: Double
    /// The size of every text but the title (ticks, labels, legend).
    public var font: Double
    /// Whether the chart draws its title (a paper's caption usually replaces it).
    public var titles: Bool

    public init(width: Double, font: Double, titles: Bool = true) {
      self.width = width
      self.font = font
      self.titles = titles
    }

    /// A figure `inches` wide with `points`-point text (PDF points, 72 an inch).
    public init(inches: Double, points: Double, titles: Bool = true) {
      self.init(width: inches * 96, font: points * 96 / 72, titles: titles)
    }

    /// The HTML report's charts: 760 px, 12 px text, with titles.
    public static let screen = Layout(width: 760, font: 12)

    /// Lengths that scale with the text, drawn at 12 px.
    var scale: Double { font / 12 }
    /// A legend beside the plot would leave it too narrow: it goes below.
    var legendBelow: Bool { width < 45 * font }
    var titleFont: Double { font * 1.25 }
    /// Where the plot starts: below the title's one or two lines.
    func top(_ title: String) -> Double {
      titles ? (40 + 19 * Double(titleLines(title).count - 1)) * scale : 16 * scale
    }

    /// The title in one line, or two where one would not fit (broken after
    /// a colon, else at the space nearest the middle); shortened only if
    /// two lines are not enough.
    func titleLines(_ title: String) -> [String] {
      let available = width - 20 * scale
      let size = titleFont
      guard textWidth([title], size: size, bold: true) > available else { return [title] }
      let characters = Array(title)
      let breaks = characters.indices.filter { characters[$0] == " " }
      guard !breaks.isEmpty else { return [fit(title, available, size: size, bold: true)] }
      let colon = breaks.last { $0 > 0 && characters[$0 - 1] == ":" }
      let middle = breaks.min { abs($0 - characters.count / 2) < abs($1 - characters.count / 2) }!
      var cut = middle
      if let colon, textWidth([String(characters[..<colon])], size: size, bold: true) <= available,
        textWidth([String(characters[(colon + 1)...])], size: size, bold: true) <= available
      {
        cut = colon
      }
      return [String(characters[..<cut]), String(characters[(cut + 1)...])].map {
        fit($0, available, size: size, bold: true)
      }
    }
    var left: Double { 70 * scale }
    var bottom: Double { 56 * scale }
    var legendStep: Double { 18 * scale }
    var rowHeight: Double { 22 * scale }
    /// A line chart's height before its legend asks for more.
    var height: Double { max(width / 2, 260 * scale) }
    /// The most a label column or legend may take; longer names are shortened.
    var maxLabelWidth: Double { min(300 * scale, width * 0.4) }

    /// How wide the widest of `texts` is at `size` (the text size by
    /// default), measured with the charts' font (``TextMetrics``).
    func textWidth(_ texts: [String], size: Double? = nil, bold: Bool = false) -> Double {
      texts.map { TextMetrics.width($0, size: size ?? font, bold: bold) }.max() ?? 0
    }

    /// The height of one line of text at `size`, from its ascent to its descent.
    func lineHeight(_ size: Double? = nil) -> Double { (size ?? font) * (TextMetrics.ascent + TextMetrics.descent) }

    /// `text`, shortened with an ellipsis to fit `available` pixels.
    func fit(_ text: String, _ available: Double, size: Double? = nil, bold: Bool = false) -> String {
      let size = size ?? font
      guard TextMetrics.width(text, size: size, bold: bold) > available else { return text }
      // One pass: characters are kept while they and the ellipsis fit.
      let room = available - TextMetrics.width("…", size: size, bold: bold)
      var kept = ""
      var used = 0.0
      for character in text {
        used += TextMetrics.width(String(character), size: size, bold: bold)
        if used > room { break }
        kept.append(character)
      }
      while kept.last == " " { kept.removeLast() }
      return kept + "…"
    }

    /// `text` in at most `lines` lines of at most `available` pixels,
    /// broken at spaces (the last line shortened only if the lines are not
    /// enough).
    func wrap(_ text: String, _ available: Double, lines: Int = 2, size: Double? = nil) -> [String] {
      let size = size ?? font
      var result: [String] = []
      var current = ""
      for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
        let joined = current.isEmpty ? word : current + " " + word
        if current.isEmpty || TextMetrics.width(joined, size: size) <= available || result.count == lines - 1 {
          current = joined
        } else {
          result.append(current)
          current = word
        }
      }
      result.append(current)
      return result.map { fit($0, available, size: size) }
    }

    func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
      "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" font-size=\"\(size(font))\">\(escape(content))</text>"
    }

    /// `content` shortened to `available` pixels where it is longer; a
    /// shortened text keeps the whole in a `<title>` (a tooltip, and what a
    /// screen reader says).
    func text(_ x: Double, _ y: Double, _ content: String, anchor: String, available: Double) -> String {
      let shown = fit(content, available)
      let svg = text(x, y, shown, anchor: anchor)
      return shown == content ? svg : "<g><title>\(escape(content))</title>\(svg)</g>"
    }

    /// An axis label centred on `x`, in up to two lines below `y` (the
    /// first line's baseline), the whole in a `<title>` when wrapped or shortened.
    func axisLabel(_ x: Double, _ y: Double, _ content: String, available: Double) -> String {
      let lines = wrap(content, available)
      var svg = lines.count > 1 || lines.first != content ? "<g><title>\(escape(content))</title>" : "<g>"
      for (i, line) in lines.enumerated() {
        svg += text(x, y + Double(i) * labelStep, line, anchor: "middle")
      }
      return svg + "</g>"
    }

    /// How many lines ``axisLabel(_:_:_:available:)`` takes for `content`.
    func axisLabelLines(_ content: String, available: Double) -> Int { wrap(content, available).count }
    /// From one line of an axis label to the next.
    var labelStep: Double { font * 1.2 }

    /// The chart's opening tag and its title.
    func open(title: String, height: Double) -> String {
      var svg =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" font-family=\"\(TextMetrics.fontFamily)\" role=\"img\" aria-label=\"\(escape(title))\">"
      guard titles else { return svg }
      for (i, line) in titleLines(title).enumerated() {
        svg +=
          "<text x=\"\(f(width / 2))\" y=\"\(f((22 + 19 * Double(i)) * scale))\" text-anchor=\"middle\" font-size=\"\(size(titleFont))\" font-weight=\"bold\">\(escape(line))</text>"
      }
      return svg
    }
  }

  public struct Series {
    /// What the series is (a policy's label): `data-series` in the SVG.
    public var name: String
    /// What the legend says, when not the name (a policy's display name).
    public var displayName: String?
    public var points: [(x: Double, y: Double)]
    /// Optional 95% interval per point (drawn as whiskers).
    public var intervals: [ClosedRange<Double>?]
    /// An offline policy (Belady): dashed, and labelled with ``offlineLabel``.
    public var bound: Bool
    /// What the legend adds to an offline series: `bound`, or `heuristic`
    /// where the policy is no bound (Belady with sizes, Belady-Size).
    public var offlineLabel = "bound"
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
      let dash = bound ? " stroke-dasharray=\"6 3\"" : ""
      if let style { return (style.color, style.marker, dash) }
      if styledByName {
        let style = SVGChart.style(name)
        return (style.color, style.marker, dash)
      }
      let style = SVGChart.positionStyle(i)
      return (style.color, style.marker, bound ? dash : SVGChart.dash(i))
    }

    var legendName: String {
      let shown = displayName ?? name
      return bound ? "\(shown) (\(offlineLabel))" : shown
    }
  }

  /// Twenty-four colours, distinct side by side and from white: Okabe and
  /// Ito's (colour-blind safe; their yellow, faint on white, comes last),
  /// then Tableau's and Paul Tol's. With six markers taken in turn beside
  /// them, neighbours differ in shape too, so a chart reads in greyscale.
  static let palette = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#332288", "#000000", "#8C564B", "#7F7F7F",
    "#17BECF", "#BCBD22", "#882255", "#117733", "#9467BD", "#AA4499", "#44AA99", "#DDCC77", "#E41A1C", "#FB9A99",
    "#B2DF8A", "#A6761D", "#CAB2D6", "#F0E442",
  ]
  /// Marker shapes, in the order entries take them (twelve: none repeats among twelve entries).
  static let markers = FigureSettings.markerShapes
  static let dashes = ["", "6 3", "2 3", "8 3 2 3"]

  /// The colour and marker of entry `i` of a chart: a colour of its own up
  /// to the palette's size, the markers in turn.
  static func positionStyle(_ i: Int) -> (color: String, marker: String) {
    (palette[i % palette.count], markers[i % markers.count])
  }

  /// Past the palette, series also differ by dashes.
  static func dash(_ i: Int) -> String {
    let pattern = dashes[i / palette.count % dashes.count]
    return pattern.isEmpty ? "" : " stroke-dasharray=\"\(pattern)\""
  }

  /// Lines over a numeric x axis (logarithmic with `logX`). The y axis
  /// starts at 0 where that means something (`zeroBaseline`: throughput,
  /// latency); otherwise it spans the data (or `yDomain`, one range for a
  /// family of figures), so close curves stay apart.
  public static func lines(
    title: String, xLabel: String, yLabel: String, series: [Series], logX: Bool, yFormat: (Double) -> String,
    xFormat: (Double) -> String, binaryTicks: Bool = false, zeroBaseline: Bool = true, logY: Bool = false,
    yDomain: ClosedRange<Double>? = nil, layout: Layout = .screen
  ) -> String {
    let xs = series.flatMap { $0.points.map(\.x) }.filter { !logX || $0 > 0 }
    var ys = series.flatMap { s in
      s.points.map(\.y) + s.intervals.compactMap { $0?.upperBound } + s.intervals.compactMap { $0?.lowerBound }
    }
    if let yDomain { ys += [yDomain.lowerBound, yDomain.upperBound] }
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
    let yTicks =
      useLogY ? xTicks(yMin, yMax, logX: true) : Array(stride(from: yMin, through: yMax + yStep / 2, by: yStep))
    let yTickTexts = yTicks.map { yFormat(!useLogY && abs($0) < yStep / 1e6 ? 0 : $0) }
    var xTickValues = binaryTicks && logX ? binaryXTicks(xMin, xMax) : xTicks(xMin, xMax, logX: logX)
    let s = layout.scale
    let top = layout.top(title)
    let entries = series.enumerated().map { i, s in (name: s.legendName, series: s.name, look: s.look(i)) }
    // The y axis's label (turned upright) at the left edge, then the widest
    // tick label, then the axis.
    let yLabelX = 6 * s + TextMetrics.ascent * layout.font
    let left = max(layout.left, yLabelX + TextMetrics.descent * layout.font + 12 * s + layout.textWidth(yTickTexts))
    // Beside the plot, the legend takes what its longest name needs (up to
    // a limit past which names are shortened); below it, as many columns as
    // fit, and the plot leaves room for half its last tick label.
    let legendW =
      layout.legendBelow
      ? max(12 * s, layout.textWidth(xTickValues.suffix(1).map(xFormat)) / 2 + 4 * s)
      : min(layout.maxLabelWidth, max(190 * s, (56 * s) + layout.textWidth(entries.map(\.name))))
    let plotW = layout.width - left - legendW
    let xLabelCentre = left + plotW / 2
    let xLabelRoom = 2 * min(xLabelCentre, layout.width - xLabelCentre) - 8 * s
    let bottom =
      layout.bottom + Double(layout.axisLabelLines(xLabel, available: xLabelRoom) - 1) * layout.labelStep
    let below = layout.legendBelow ? legendGrid(entries.count, names: entries.map(\.name), layout: layout) : nil
    let plotH: Double
    let chartHeight: Double
    if let below {
      plotH = layout.height - top - layout.bottom
      chartHeight = top + plotH + bottom + Double(below.rows) * layout.legendStep + 6 * s
    } else {
      chartHeight = max(layout.height + bottom - layout.bottom, top + Double(series.count) * layout.legendStep + bottom)
      plotH = chartHeight - top - bottom
    }
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

    var svg = layout.open(title: title, height: chartHeight)
    // Grid and y ticks, every other one (or fewer) where their labels would touch.
    let yKeep = thinning(yTicks.count, room: plotH, needs: layout.lineHeight() + 2 * s)
    for (i, y) in yTicks.enumerated() {
      svg += line(left, py(y), left + plotW, py(y), stroke: "#e3e3e3")
      guard i % yKeep == 0 else { continue }
      svg += layout.text(left - 8 * s, py(y) + 4 * s, yTickTexts[i], anchor: "end")
    }
    // x ticks: powers of ten (and 2, 5 between when the range is short), or
    // the data's values; labels that would run into each other are thinned.
    let xKeep = thinning(
      xTickValues.count, room: plotW, needs: layout.textWidth(xTickValues.map(xFormat)) + 6 * s)
    xTickValues = xTickValues.enumerated().filter { $0.offset % xKeep == 0 }.map(\.element)
    for x in xTickValues {
      svg += line(px(x), top + plotH, px(x), top + plotH + 5 * s, stroke: "#444")
      svg += layout.text(px(x), top + plotH + 19 * s, xFormat(x), anchor: "middle")
    }
    svg +=
      line(left, top, left, top + plotH, stroke: "#444")
      + line(left, top + plotH, left + plotW, top + plotH, stroke: "#444")
    svg += layout.axisLabel(xLabelCentre, top + plotH + 44 * s, xLabel, available: xLabelRoom)
    let yShown = layout.fit(yLabel, plotH)
    svg +=
      (yShown == yLabel ? "<g>" : "<g><title>\(escape(yLabel))</title>")
      + "<text x=\"\(f(yLabelX))\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" font-size=\"\(size(layout.font))\" transform=\"rotate(-90 \(f(yLabelX)) \(f(top + plotH / 2)))\">\(escape(yShown))</text></g>"
    for (i, s) in series.enumerated() {
      let points = s.points.filter { !logX || $0.x > 0 }
      guard !points.isEmpty else { continue }
      let look = s.look(i)
      let d = points.enumerated().map { j, p in "\(j == 0 ? "M" : "L")\(f(px(p.x))),\(f(py(p.y)))" }.joined(
        separator: " ")
      svg += "<g><title>\(escape(s.legendName))</title>"
      svg +=
        "<path class=\"series\" data-series=\"\(escape(s.name))\" d=\"\(d)\" fill=\"none\" stroke=\"\(look.color)\" stroke-width=\"\(f(2 * layout.scale))\"\(look.dash)/>"
      for (j, p) in points.enumerated() {
        svg += markerShape(look.marker, px(p.x), py(p.y), 3 * layout.scale, fill: look.color, stroke: look.color)
        if j < s.intervals.count, let ci = s.intervals[j], ci.upperBound > ci.lowerBound {
          // A whisker with caps.
          svg += line(px(p.x), py(ci.lowerBound), px(p.x), py(ci.upperBound), stroke: look.color)
          for y in [ci.lowerBound, ci.upperBound] {
            svg += line(px(p.x) - 3 * layout.scale, py(y), px(p.x) + 3 * layout.scale, py(y), stroke: look.color)
          }
        }
      }
      svg += "</g>"
    }
    if let below {
      let legendTop = top + plotH + bottom
      svg += legend(entries, layout: layout) { i in
        (
          12 * s + Double(i % below.columns) * below.columnWidth,
          legendTop + 4 * s + Double(i / below.columns) * layout.legendStep
        )
      }
    } else {
      let x = layout.width - legendW + 16 * s
      svg += legend(entries, layout: layout) { i in (x, top + 4 * s + Double(i) * layout.legendStep) }
    }
    return svg + "</svg>"
  }

  /// Every how many ticks to label so that `count` labels, each needing
  /// `needs` pixels, share `room` pixels without touching: 1, 2, 5, 10, ….
  static func thinning(_ count: Int, room: Double, needs: Double) -> Int {
    guard count > 1 else { return 1 }
    let spacing = room / Double(count - 1)
    var keep = 1
    while spacing * Double(keep) < needs && keep < count {
      keep = [1: 2, 2: 5][keep] ?? keep * 2
    }
    return keep
  }

  /// Columns for a legend below the plot: as many as the widest name allows.
  static func legendGrid(_ count: Int, names: [String], layout: Layout) -> (
    columns: Int, rows: Int, columnWidth: Double
  ) {
    let available = layout.width - 24 * layout.scale
    let wanted = 36 * layout.scale + layout.textWidth(names)
    let columns = max(1, min(count, Int(available / wanted)))
    return (columns, (count + columns - 1) / max(columns, 1), available / Double(columns))
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
  /// With `styles`, each bar takes its label's colour and display name and
  /// carries its marker at its base, so bars that share a colour still differ.
  public static func bars(
    title: String, xLabel: String, labels: [String], values: [Double], intervals: [ClosedRange<Double>?],
    colors: [Int], format: (Double) -> String, colorOf: ((String) -> String)? = nil, styles: Styles? = nil,
    layout: Layout = .screen
  ) -> String {
    guard let maxValue = (values + intervals.compactMap { $0?.upperBound }).max() else { return "" }
    let xMax = niceCeiling(max(maxValue, 1e-9))
    let s = layout.scale
    let rowH = layout.rowHeight
    let top = layout.top(title)
    let shown = labels.map { styles?.name($0) ?? $0 }
    // Each value sits past its bar and past its whisker, never under it.
    let ends = values.indices.map { i in
      max(
        values[i], i < intervals.count ? intervals[i].map { $0.upperBound > $0.lowerBound ? $0.upperBound : 0 } ?? 0 : 0
      )
    }
    let frame = BarFrame(
      layout: layout, title: title, shown: shown, rows: labels.count, xMax: xMax, format: format,
      ends: zip(ends, values).map { ($0, format($1)) }, xLabel: xLabel, below: 0)
    let px = frame.px
    var svg = layout.open(title: title, height: frame.height)
    svg += barGrid(xMax: xMax, top: top, axis: frame.axis, plotW: frame.plotW, px: px, format: format, layout: layout)
    for (i, label) in labels.enumerated() {
      let y = top + Double(i) * rowH
      let name = barLabel(label, shown: shown[i], y: y, barLeft: frame.barLeft, styles: styles, layout: layout)
      let colour = styles?.style(label).color ?? colorOf?(label) ?? color(i < colors.count ? colors[i] : i)
      let marker = styles?.style(label).marker ?? "none"
      svg += name.text
      svg +=
        "<rect class=\"bar\" data-series=\"\(escape(label))\" data-color=\"\(colour)\" data-marker=\"\(marker)\" data-dash=\"\" x=\"\(f(frame.barLeft))\" y=\"\(f(y + 3 * s))\" width=\"\(f(max(0.5, px(values[i]) - frame.barLeft)))\" height=\"\(f(rowH - 6 * s))\" fill=\"\(colour)\"><title>\(escape(shown[i])): \(format(values[i]))</title></rect>"
      svg += name.marker
      if i < intervals.count, let ci = intervals[i], ci.upperBound > ci.lowerBound {
        let mid = y + rowH / 2
        svg += line(px(ci.lowerBound), mid, px(ci.upperBound), mid, stroke: "#222")
        for x in [ci.lowerBound, ci.upperBound] {
          svg += line(px(x), mid - 4 * s, px(x), mid + 4 * s, stroke: "#222")
        }
      }
      svg += layout.text(px(ends[i]) + 6 * s, y + rowH * 0.65, format(values[i]), anchor: "start")
    }
    svg += line(frame.barLeft, frame.axis, frame.barLeft + frame.plotW, frame.axis, stroke: "#444")
    svg += layout.axisLabel(frame.labelCentre, frame.axis + 42 * s, xLabel, available: frame.labelRoom)
    return svg + "</svg>"
  }

  /// Where a bar chart's parts go: the names' column, the plot (as wide as
  /// leaves room for the value past the longest bar), the axis and its
  /// label in one or two lines, and `below` pixels under them (a legend).
  struct BarFrame {
    let barLeft: Double
    let plotW: Double
    let xMax: Double
    let axis: Double
    let labelCentre: Double
    let labelRoom: Double
    /// The last axis label line's baseline.
    let labelEnd: Double
    let height: Double

    init(
      layout: Layout, title: String, shown: [String], rows: Int, xMax: Double, format: (Double) -> String,
      ends: [(end: Double, text: String)], xLabel: String, below: Double
    ) {
      let s = layout.scale
      barLeft = min(layout.maxLabelWidth, max(150 * s, 16 * s + layout.textWidth(shown)))
      // The plot may reach no further than lets each value's text, past its
      // bar's end, and the last grid label, centred on the plot's edge, end
      // inside the picture.
      var plotW = layout.width - barLeft - 4 * s - layout.textWidth([format(xMax)]) / 2
      for (end, text) in ends where end > 0 {
        let room = layout.width - barLeft - 10 * s - layout.textWidth([text])
        plotW = min(plotW, room / min(1, end / xMax))
      }
      self.plotW = max(plotW, 20 * s)
      self.xMax = xMax
      axis = layout.top(title) + Double(rows) * layout.rowHeight
      labelCentre = barLeft + self.plotW / 2
      labelRoom = 2 * min(labelCentre, layout.width - labelCentre) - 8 * s
      labelEnd =
        axis + 42 * s + Double(layout.axisLabelLines(xLabel, available: labelRoom) - 1) * layout.labelStep
      height = labelEnd + 14 * s + below
    }

    func px(_ x: Double) -> Double { barLeft + x / xMax * plotW }
  }

  /// A bar chart's vertical grid lines and their values under the axis
  /// (every other one, or fewer, where they would touch).
  static func barGrid(
    xMax: Double, top: Double, axis: Double, plotW: Double, px: (Double) -> Double, format: (Double) -> String,
    layout: Layout
  ) -> String {
    var svg = ""
    let values = (0...5).map { xMax * Double($0) / 5 }
    let keep = thinning(values.count, room: plotW, needs: layout.textWidth(values.map(format)) + 6 * layout.scale)
    for (i, x) in values.enumerated() {
      svg += line(px(x), top, px(x), axis, stroke: "#e3e3e3")
      if i % keep != 0 { continue }
      svg += layout.text(px(x), axis + 16 * layout.scale, format(x), anchor: "middle")
    }
    return svg
  }

  /// A bar's name before it, and with `styles` its label's marker at its
  /// base (the name standing clear of the marker; empty without styles).
  static func barLabel(
    _ label: String, shown: String, y: Double, barLeft: Double, styles: Styles?, layout: Layout
  ) -> (text: String, marker: String) {
    let rowH = layout.rowHeight
    let gap = (styles == nil ? 8.0 : 16.0) * layout.scale
    let text = layout.text(
      barLeft - gap, y + rowH * 0.65, shown, anchor: "end", available: barLeft - gap - 4 * layout.scale)
    guard let styles else { return (text, "") }
    let style = styles.style(label)
    let marker = markerShape(
      style.marker, barLeft - 7 * layout.scale, y + rowH / 2, 3.5 * layout.scale, fill: style.color,
      stroke: style.color)
    return (text, marker)
  }

  /// One part of every bar of ``stackedBars(title:xLabel:labels:parts:format:styles:layout:)``.
  public struct Part {
    public var name: String
    public var color: String
    /// The part's length in each bar, in the order of the labels.
    public var values: [Double]
    public init(name: String, color: String, values: [Double]) {
      (self.name, self.color, self.values) = (name, color, values)
    }
  }

  /// Horizontal bars, one per label, each cut into `parts` laid end to
  /// end (a miss ratio split by cause), the total past the bar and a legend
  /// of the parts below the axis, in as many rows as it needs. With
  /// `styles`, labels take their display names and a bar its label's
  /// marker at its base.
  public static func stackedBars(
    title: String, xLabel: String, labels: [String], parts: [Part], format: (Double) -> String,
    styles: Styles? = nil, layout: Layout = .screen
  ) -> String {
    let totals = labels.indices.map { i in parts.reduce(0) { $0 + max(0, $1.values[i]) } }
    guard let maxValue = totals.max() else { return "" }
    let xMax = niceCeiling(max(maxValue, 1e-9))
    let s = layout.scale
    let rowH = layout.rowHeight
    let top = layout.top(title)
    // The legend: a swatch and a name per part, in rows that fit the width.
    let swatch = 12 * s
    let widths = parts.map { swatch + 6 * s + layout.textWidth([$0.name]) + 18 * s }
    var legendRows: [[Int]] = [[]]
    var used = 0.0
    for (i, width) in widths.enumerated() {
      if !legendRows[legendRows.count - 1].isEmpty && used + width - 18 * s > layout.width - 8 * s {
        legendRows.append([])
        used = 0
      }
      legendRows[legendRows.count - 1].append(i)
      used += width
    }
    let shown = labels.map { styles?.name($0) ?? $0 }
    let frame = BarFrame(
      layout: layout, title: title, shown: shown, rows: labels.count, xMax: xMax, format: format,
      ends: totals.map { ($0, format($0)) }, xLabel: xLabel,
      below: Double(legendRows.count) * layout.legendStep)
    let px = frame.px
    var svg = layout.open(title: title, height: frame.height)
    svg += barGrid(xMax: xMax, top: top, axis: frame.axis, plotW: frame.plotW, px: px, format: format, layout: layout)
    for (i, label) in labels.enumerated() {
      let y = top + Double(i) * rowH
      let name = barLabel(label, shown: shown[i], y: y, barLeft: frame.barLeft, styles: styles, layout: layout)
      svg += name.text + name.marker
      var start = 0.0
      for part in parts where part.values[i] > 0 {
        let end = start + part.values[i]
        svg +=
          "<rect class=\"part\" data-series=\"\(escape(label))\" data-part=\"\(escape(part.name))\" x=\"\(f(px(start)))\" y=\"\(f(y + 3 * s))\" width=\"\(f(max(0.5, px(end) - px(start))))\" height=\"\(f(rowH - 6 * s))\" fill=\"\(part.color)\"><title>\(escape(shown[i])), \(escape(part.name)): \(format(part.values[i]))</title></rect>"
        start = end
      }
      svg += layout.text(px(totals[i]) + 6 * s, y + rowH * 0.65, format(totals[i]), anchor: "start")
    }
    svg += line(frame.barLeft, frame.axis, frame.barLeft + frame.plotW, frame.axis, stroke: "#444")
    svg += layout.axisLabel(frame.labelCentre, frame.axis + 42 * s, xLabel, available: frame.labelRoom)
    for (row, members) in legendRows.enumerated() {
      let rowWidth = members.map { widths[$0] }.reduce(0, +) - 18 * s
      var x = max(4 * s, (layout.width - rowWidth) / 2)
      let legendY = frame.labelEnd + 10 * s + Double(row) * layout.legendStep
      for i in members {
        svg +=
          "<rect x=\"\(f(x))\" y=\"\(f(legendY))\" width=\"\(f(swatch))\" height=\"\(f(swatch))\" fill=\"\(parts[i].color)\"/>"
        svg += layout.text(
          x + swatch + 6 * s, legendY + swatch * 0.85, parts[i].name, anchor: "start",
          available: layout.width - x - swatch - 10 * s)
        x += widths[i]
      }
    }
    return svg + "</svg>"
  }

  /// The colour of palette entry `i`.
  static func color(_ i: Int) -> String { palette[i % palette.count] }

  /// One policy's distribution over traces, for ``boxes(title:xLabel:boxes:format:styles:domain:layout:)``.
  public struct Box {
    public var name: String
    public var p5, p25, median, p75, p95, mean: Double
    /// An offline policy: drawn dashed and labelled with ``offlineLabel``.
    public var bound: Bool
    /// `bound`, or `heuristic` (see ``Series/offlineLabel``).
    public var offlineLabel = "bound"

    public init(
      name: String, p5: Double, p25: Double, median: Double, p75: Double, p95: Double, mean: Double, bound: Bool
    ) {
      (self.name, self.p5, self.p25, self.median, self.p75, self.p95, self.mean, self.bound) = (
        name, p5, p25, median, p75, p95, mean, bound
      )
    }
  }

  /// The range a box plot's axis spans for `boxes`: the data and 0 (the
  /// reference), but below zero no further than twice the best P95 (at
  /// least -50%). Figures of one family pass the union of theirs as the
  /// `domain`, so every size reads on one scale.
  public static func boxDomain(_ boxes: [Box]) -> ClosedRange<Double>? {
    guard !boxes.isEmpty else { return nil }
    let hi = max(0, boxes.map(\.p95).max()!, boxes.map(\.mean).max()!)
    let floor = -max(0.5, 2 * hi)
    let lo = max(floor, min(0, boxes.map(\.p5).min()!, boxes.map(\.mean).min()!))
    return lo...hi
  }

  /// Horizontal box plots as the S3-FIFO and SIEVE papers draw them: box
  /// from P25 to P75, median line, whiskers with caps at P5 and P95, a
  /// diamond at the mean; the axis spans `domain` (by default
  /// ``boxDomain(_:)`` of these boxes), 0 (the reference) drawn darker, and
  /// each row's mean is printed in a column of its own, clear of the
  /// whiskers. Each policy keeps its colour (``style(_:)``, or `styles`).
  public static func boxes(
    title: String, xLabel: String, boxes: [Box], format: (Double) -> String, styles: Styles? = nil,
    domain: ClosedRange<Double>? = nil, layout: Layout = .screen
  ) -> String {
    // A reduction is at most 100% but can fall without bound (MRU on a
    // recency trace misses ten times as often as FIFO): the axis stops at
    // the domain's floor, so one outlier does not flatten every other box;
    // what lies beyond ends in an arrow at the edge, and the mean column
    // keeps the true value.
    guard let range = domain ?? boxDomain(boxes) else { return "" }
    let (lo, hi) = (range.lowerBound, range.upperBound)
    let cut = boxes.contains { $0.p5 < lo || $0.mean < lo }
    let s = layout.scale
    let rowH = layout.rowHeight
    let top = layout.top(title)
    let names = boxes.map { box in
      let shown = styles?.name(box.name) ?? box.name
      return box.bound ? "\(shown) (\(box.offlineLabel))" : shown
    }
    let labelW = min(layout.maxLabelWidth, max(160 * s, 16 * s + layout.textWidth(names)))
    let meanW = layout.textWidth(boxes.map { format($0.mean) } + [format(-0.999), "mean"]) + 28 * s
    let plotW = layout.width - labelW - meanW - 16 * s
    // Ticks of a round step, wider where their labels would touch.
    var step = niceCeiling(max(hi - lo, 1e-9) / (layout.legendBelow ? 4 : 6))
    func ticks(_ step: Double) -> [Double] {
      let first = (lo / step).rounded(.down) * step
      let last = max((hi / step).rounded(.up) * step, first + step)
      return Array(stride(from: first, through: last + step / 2, by: step))
    }
    while ticks(step).count > 2,
      plotW / Double(ticks(step).count - 1) < layout.textWidth(ticks(step).map(format)) + 6 * s
    {
      step = niceCeiling(step * 1.01)
    }
    let tickValues = ticks(step)
    let (xMin, xMax) = (tickValues.first!, tickValues.last!)
    let axisLabel = cut ? "\(xLabel); ◀ beyond \(format(xMin))" : xLabel
    let labelRoom = layout.width - 8 * s
    let axis = top + Double(boxes.count) * rowH
    let h = axis + layout.bottom + Double(layout.axisLabelLines(axisLabel, available: labelRoom) - 1) * layout.labelStep
    func px(_ x: Double) -> Double { labelW + (max(x, xMin) - xMin) / (xMax - xMin) * plotW }
    var svg = layout.open(title: title, height: h)
    for x in tickValues {
      svg += line(px(x), top, px(x), axis, stroke: abs(x) < step / 1e6 ? "#555" : "#e3e3e3")
      svg += layout.text(px(x), axis + 16 * s, format(abs(x) < step / 1e6 ? 0 : x), anchor: "middle")
    }
    svg += layout.text(layout.width - meanW / 2, top - 4 * s, "mean", anchor: "middle")
    for (i, box) in boxes.enumerated() {
      let y = top + Double(i) * rowH
      let mid = y + rowH / 2
      let (colour, marker) = styles?.style(box.name) ?? style(box.name)
      let dash = box.bound ? " stroke-dasharray=\"4 2\"" : ""
      let inset = 4 * s
      svg += layout.text(labelW - 8 * s, y + rowH * 0.65, names[i], anchor: "end", available: labelW - 12 * s)
      svg +=
        "<g class=\"box\" data-series=\"\(escape(box.name))\" data-color=\"\(colour)\" data-marker=\"\(marker)\" data-dash=\"\(box.bound ? "dashed" : "")\"><title>\(escape(names[i])): P5 \(format(box.p5)), P25 \(format(box.p25)), median \(format(box.median)), P75 \(format(box.p75)), P95 \(format(box.p95)), mean \(format(box.mean))</title>"
      svg += line(px(box.p5), mid, px(box.p25), mid, stroke: colour)
      svg += line(px(box.p75), mid, px(box.p95), mid, stroke: colour)
      for x in [box.p5, box.p95] {
        svg += line(px(x), mid - 5 * s, px(x), mid + 5 * s, stroke: colour)
      }
      svg +=
        "<rect x=\"\(f(px(box.p25)))\" y=\"\(f(y + inset))\" width=\"\(f(max(1, px(box.p75) - px(box.p25))))\" height=\"\(f(rowH - 2 * inset))\" fill=\"\(colour)\" fill-opacity=\"0.3\" stroke=\"\(colour)\" stroke-width=\"1.5\"\(dash)/>"
      svg +=
        "<line x1=\"\(f(px(box.median)))\" y1=\"\(f(y + inset))\" x2=\"\(f(px(box.median)))\" y2=\"\(f(y + rowH - inset))\" stroke=\"\(colour)\" stroke-width=\"3\"/>"
      if box.p5 < xMin {
        svg +=
          "<path class=\"beyond\" d=\"M\(f(px(xMin) - 2)),\(f(mid)) l\(f(8 * s)),\(f(-5 * s)) l0,\(f(10 * s)) Z\" fill=\"\(colour)\"><title>P5 \(format(box.p5)), beyond the axis</title></path>"
      }
      if box.mean >= xMin {
        svg += markerShape("diamond", px(box.mean), mid, 4.5 * s, fill: "#fff", stroke: "#222")
      }
      svg += markerShape(marker, layout.width - meanW + 6 * s, mid, 4 * s, fill: colour, stroke: colour)
      svg += layout.text(layout.width - 8 * s, y + rowH * 0.65, format(box.mean), anchor: "end") + "</g>"
    }
    svg += line(labelW, axis, labelW + plotW, axis, stroke: "#444")
    svg += layout.axisLabel(layout.width / 2, axis + 42 * s, axisLabel, available: labelRoom)
    return svg + "</svg>"
  }

  /// The colours, markers and display names of one report's labels. Each
  /// label takes its own look (``style(_:)``), the same in every run
  /// whatever the other labels are, unless the user chose one (`colors`,
  /// `markers`: `--color`, `--marker`, a styles file) or a label ranked
  /// before it in this report already holds it: then it takes the next
  /// colour free in the palette (and, in a report of up to twelve labels,
  /// the next free marker), so no two labels share a colour up to the
  /// palette's twenty-four and none a marker up to twelve. The policies
  /// papers plot most (``featured``) hold looks no other built-in policy
  /// shares, so they never move. A label the report does not list falls back
  /// to ``style(_:)``.
  public struct Styles: Sendable {
    let looks: [String: (color: String, marker: String)]
    let names: [String: String]

    /// `colors` and `markers` are the user's choices by label; `names` the
    /// labels' display names (a label without one shows as itself).
    public init(
      _ labels: [String], colors: [String: String] = [:], markers: [String: String] = [:],
      names: [String: String] = [:]
    ) {
      let ordered = Array(Set(labels)).sorted { SVGChart.rank($0) < SVGChart.rank($1) }
      // What the user chose is held first, so no other label takes it.
      var takenColours = Set(colors.values.map { $0.uppercased() })
      var takenMarkers = Set(markers.values)
      let uniqueMarkers = ordered.count <= SVGChart.markers.count
      var looks: [String: (color: String, marker: String)] = [:]
      for label in ordered {
        let own = SVGChart.identity(label)
        var color = colors[label]
        if color == nil {
          var i = own.color
          for _ in SVGChart.palette.indices where takenColours.contains(SVGChart.palette[i].uppercased()) {
            i = (i + 1) % SVGChart.palette.count
          }
          color = SVGChart.palette[i]
          takenColours.insert(SVGChart.palette[i].uppercased())
        }
        var marker = markers[label]
        if marker == nil {
          var m = own.marker
          if uniqueMarkers {
            for _ in SVGChart.markers.indices where takenMarkers.contains(SVGChart.markers[m]) {
              m = (m + 1) % SVGChart.markers.count
            }
          }
          marker = SVGChart.markers[m]
          takenMarkers.insert(SVGChart.markers[m])
        }
        looks[label] = (color!, marker!)
      }
      self.looks = looks
      self.names = names
    }

    public func style(_ label: String) -> (color: String, marker: String) {
      looks[label] ?? SVGChart.style(label)
    }

    /// What charts write for `label`.
    public func name(_ label: String) -> String { names[label] ?? label }
  }

  /// The policies papers plot most, in the order they take the palette's
  /// colours and the markers: the first twelve each have a colour and a
  /// marker of their own, the first twenty-four a colour of their own.
  /// The other built-in policies follow in the catalog's order. (Appending
  /// here, or to the catalog, moves no earlier policy's look.)
  static let featured = [
    "fifo", "lru", "arc", "s3fifo", "sieve", "wtinylfu", "lirs", "2q", "clock", "slru", "lfu", "belady", "car",
    "lhd", "clock-pro", "gdsf", "lecar", "cacheus", "lrb", "glcache", "mru", "random", "qdlp", "3lcache",
  ]

  /// Where a label stands in the order looks are given out: the featured
  /// policies, then the other built-in ones, then any other label by name.
  static func rank(_ label: String) -> (Int, String) {
    if let i = featured.firstIndex(of: label) { return (i, label) }
    if let i = PolicyCatalog.builtinNames.firstIndex(of: label) { return (featured.count + i, label) }
    return (Int.max, label)
  }

  /// A label's own colour and marker, as indices: a built-in policy's from
  /// its rank, any other label's (a variant with parameters, an admission
  /// in front, a policy of your own) from a hash of its name.
  static func identity(_ label: String) -> (color: Int, marker: Int) {
    let (rank, _) = rank(label)
    // Past the palette, the markers turn one step further each round, so
    // no two built-in policies share both (24 × 12 looks).
    if rank != Int.max { return (rank % palette.count, (rank + rank / palette.count) % markers.count) }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in label.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return (Int(hash % UInt64(palette.count)), Int(hash / UInt64(palette.count) % UInt64(markers.count)))
  }

  /// A policy's colour and marker from its name alone (``identity(_:)``):
  /// the same in every chart and report, and in the notebooks, which read
  /// them from `styles.json`.
  public static func style(_ name: String) -> (color: String, marker: String) {
    let own = identity(name)
    return (palette[own.color], markers[own.marker])
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
    case "triangle-down":
      return
        "<path d=\"M\(f(x)),\(f(y + r * 1.15)) L\(f(x + r)),\(f(y - r * 0.85)) L\(f(x - r)),\(f(y - r * 0.85)) Z\" \(paint)/>"
    case "pentagon":
      let corners = (0..<5).map { k -> String in
        let angle = Double.pi * (-0.5 + 0.4 * Double(k))
        return "\(f(x + r * 1.1 * cos(angle))),\(f(y + r * 1.1 * sin(angle)))"
      }
      return "<path d=\"M\(corners.joined(separator: " L")) Z\" \(paint)/>"
    case "triangle-left", "triangle-right":
      let d = shape == "triangle-left" ? -1.0 : 1.0
      return
        "<path d=\"M\(f(x + d * r * 1.15)),\(f(y)) L\(f(x - d * r * 0.85)),\(f(y - r)) L\(f(x - d * r * 0.85)),\(f(y + r)) Z\" \(paint)/>"
    case "star", "hexagon":
      // Five points (ten corners, alternately far and near), or six corners.
      let corners = shape == "star" ? 10 : 6
      let points = (0..<corners).map { k -> String in
        let angle = Double.pi * (-0.5 + 2 * Double(k) / Double(corners))
        let radius = shape == "star" ? (k % 2 == 0 ? r * 1.35 : r * 0.6) : r * 1.1
        return "\(f(x + radius * cos(angle))),\(f(y + radius * sin(angle)))"
      }
      return "<path d=\"M\(points.joined(separator: " L")) Z\" \(paint)/>"
    case "cross", "plus":
      // A thick × or +: twelve corners, the arms a third of the size wide.
      let (a, b) = (r * 1.1, r * 0.38)
      let arms: [(Double, Double)] = [
        (-b, -a), (b, -a), (b, -b), (a, -b), (a, b), (b, b), (b, a), (-b, a), (-b, b), (-a, b), (-a, -b), (-b, -b),
      ]
      let turn = shape == "cross" ? Double.pi / 4 : 0
      let points = arms.map { dx, dy in
        "\(f(x + dx * cos(turn) - dy * sin(turn))),\(f(y + dx * sin(turn) + dy * cos(turn)))"
      }
      return "<path d=\"M\(points.joined(separator: " L")) Z\" \(paint)/>"
    case "diamond":
      return
        "<path d=\"M\(f(x)),\(f(y - r * 1.2)) L\(f(x + r)),\(f(y)) L\(f(x)),\(f(y + r * 1.2)) L\(f(x - r)),\(f(y)) Z\" \(paint)/>"
    default:
      return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(r))\" \(paint)/>"
    }
  }

  // MARK: Pieces

  static func legend(
    _ entries: [(name: String, series: String, look: (color: String, marker: String, dash: String))], layout: Layout,
    at position: (Int) -> (x: Double, y: Double)
  ) -> String {
    var svg = "<g class=\"legend\">"
    let room =
      layout.legendBelow
      ? legendGrid(entries.count, names: entries.map(\.name), layout: layout).columnWidth : layout.maxLabelWidth
    for (i, entry) in entries.enumerated() {
      let (x, y) = position(i)
      // What a reader tells entries apart by, for the browser check (scripts/browser-check.sh).
      svg +=
        "<g class=\"entry\" data-series=\"\(escape(entry.series))\" data-color=\"\(entry.look.color)\" data-marker=\"\(entry.look.marker)\" data-dash=\"\(entry.look.dash.isEmpty ? "" : "dashed")\">"
      svg +=
        "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + 22 * layout.scale))\" y2=\"\(f(y))\" stroke=\"\(entry.look.color)\" stroke-width=\"\(f(3 * layout.scale))\"\(entry.look.dash)/>"
      svg += markerShape(
        entry.look.marker, x + 11 * layout.scale, y, 3.5 * layout.scale, fill: entry.look.color,
        stroke: entry.look.color)
      let available = min(room - 36 * layout.scale, layout.width - x - 36 * layout.scale)
      svg +=
        layout.text(x + 28 * layout.scale, y + 4 * layout.scale, entry.name, anchor: "start", available: available)
        + "</g>"
    }
    return svg + "</g>"
  }

  static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) -> String {
    "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\" stroke-width=\"1\"/>"
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

  /// A font size: whole pixels without a decimal point (`12`), else one decimal.
  static func size(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : f(x) }

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
