import EvictionCore
import EvictionTraces
import Foundation
import Synchronization
import Testing

@testable import EvictionReports

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
    let strokes = capture(#"stroke="(#[0-9A-Fa-f]+)" stroke-width="3.0"( stroke-dasharray="[0-9 ]+")?"#, in: entries)
    #expect(Set(strokes).count == 40, "two series share a colour and a stroke")
  }

  /// Eight policies within 0.35–0.45 stay apart: the axis spans the data,
  /// not 0–1; throughput keeps its 0 baseline.
  @Test func aMissRatioAxisIsZoomedToTheData() throws {
    let series = (0..<8).map { i in
      SVGChart.Series(
        name: ["lru", "fifo", "arc", "s3fifo", "sieve", "lirs", "2q", "belady"][i],
        points: [(x: 100, y: 0.45 - Double(i) / 100), (x: 1000, y: 0.35 + Double(i) / 200)], bound: i == 7,
        styledByName: true)
    }
    let zoomed = SVGChart.lines(
      title: "t", xLabel: "x", yLabel: "y", series: series, logX: true, yFormat: { String(format: "%.2f", $0) },
      xFormat: { "\($0)" }, zeroBaseline: false)
    let ticks = capture(#"text-anchor="end" font-size="12">([0-9.]+)<"#, in: zoomed).compactMap(Double.init)
    #expect(ticks.min()! >= 0.3 && ticks.max()! <= 0.5 && ticks.count >= 4, "\(ticks)")
    let fromZero = SVGChart.lines(
      title: "t", xLabel: "x", yLabel: "y", series: series, logX: true, yFormat: { String(format: "%.2f", $0) },
      xFormat: { "\($0)" })
    #expect(capture(#"text-anchor="end" font-size="12">([0-9.]+)<"#, in: fromZero).compactMap(Double.init).min() == 0)
    // The bound is dashed and says so; every policy keeps its own colour and marker.
    #expect(zoomed.contains(">belady (bound)<"))
    let looks = capture(#"data-color="(#[0-9A-Fa-f]+)" data-marker="([a-z-]+)""#, in: zoomed)
    #expect(Set(looks).count == 8)
    #expect(SVGChart.style("lru") != SVGChart.style("fifo"))
  }

  /// Within one report, labels take the palette in turn: twenty policies,
  /// the Quick start's and a user's own, take twenty colours, neighbours
  /// differ in marker, and bars carry the marker; colours the user chose
  /// are kept and taken by no other label.
  @Test func aReportsLabelsTakeDistinctColoursAndMarkers() throws {
    let labels = [
      "lru", "fifo", "clock", "sieve", "s3fifo", "arc", "lirs", "slru", "2q", "wtinylfu", "random", "mru",
      "belady", "midlru", "car", "lfu", "gdsf", "lhd", "mq", "clock-pro",
    ]
    let styles = SVGChart.Styles(labels)
    let looks = labels.map { styles.style($0) }
    #expect(Set(looks.map(\.color)).count == 20)
    #expect(Set(looks.map(\.marker)).count == SVGChart.markers.count)
    // Up to the palette's size, every label has a colour of its own.
    let many = (0..<SVGChart.palette.count).map { "policy-\($0)" }
    let manyStyles = SVGChart.Styles(many)
    #expect(Set(many.map { manyStyles.style($0).color }).count == SVGChart.palette.count)
    // A chosen colour stays with its label and leaves the turn.
    let chosen = SVGChart.Styles(labels, colors: ["midlru": "#0072B2"], names: ["s3fifo": "S3-FIFO"])
    #expect(chosen.style("midlru").color == "#0072B2")
    #expect(labels.filter { $0 != "midlru" }.allSatisfy { chosen.style($0).color != "#0072B2" })
    #expect(Set(labels.map { chosen.style($0).color }).count == 20)
    #expect(chosen.name("s3fifo") == "S3-FIFO" && chosen.name("lru") == "lru")
    let svg = SVGChart.bars(
      title: "t", xLabel: "x", labels: labels, values: labels.indices.map { 0.1 + Double($0) / 100 }, intervals: [],
      colors: [], format: { "\($0)" }, styles: styles)
    let fills = capture(
      #"class="bar" data-series="[^"]+" data-color="[^"]+" data-marker="[^"]+" data-dash="" x="[^"]+" y="[^"]+" width="[^"]+" height="[^"]+" fill="(#[0-9A-Fa-f]+)""#,
      in: svg)
    #expect(fills == looks.map(\.color))
    #expect(svg.components(separatedBy: "class=\"marker\"").count - 1 == labels.count)
  }

  /// A label's look does not depend on the other labels of its report:
  /// the featured policies never move, twelve labels take twelve markers,
  /// and a chosen marker is taken by no other label.
  @Test func looksStayWhateverTheOtherLabels() {
    let few = SVGChart.Styles(["lru", "s3fifo", "sieve"])
    let many = SVGChart.Styles(SVGChart.featured)
    for label in ["lru", "s3fifo", "sieve"] { #expect(few.style(label) == many.style(label)) }
    #expect(Set(SVGChart.featured.map { many.style($0).color }).count == SVGChart.featured.count)
    #expect(Set(SVGChart.featured.prefix(12).map { many.style($0).marker }).count == 12)
    // Every featured name is a policy's (the learned ones register with evlab).
    let learned: Set = ["lrb", "glcache", "3lcache"]
    #expect(SVGChart.featured.allSatisfy { PolicyCatalog.builtinNames.contains($0) || learned.contains($0) })
    // Any twelve labels, variants included, take twelve markers.
    let twelve = [
      "lru", "mq", "sfifo", "my-policy", "slru:segments=3", "lfuda", "fifo", "size", "lru-k",
      "hyperbolic", "arc + tinylfu", "random",
    ]
    let styles = SVGChart.Styles(twelve)
    #expect(Set(twelve.map { styles.style($0).marker }).count == 12)
    let chosen = SVGChart.Styles(twelve, markers: ["mq": SVGChart.style("lru").marker])
    #expect(chosen.style("mq").marker == SVGChart.style("lru").marker)
    #expect(chosen.style("lru").marker != chosen.style("mq").marker)
    // Every marker is drawn as a shape of its own.
    let shapes = SVGChart.markers.map { SVGChart.markerShape($0, 10, 10, 4, fill: "#000", stroke: "#000") }
    #expect(Set(shapes).count == SVGChart.markers.count)
  }

  /// A column-wide figure (3.3 in) keeps every text at 8 pt or more, its
  /// legend below the plot and inside the picture, and a long title on
  /// two lines rather than cut.
  @Test func aColumnFigureKeepsItsTextAtEightPoints() throws {
    let layout = SVGChart.Layout(inches: 3.3, points: 8, titles: true)
    let series = (0..<12).map { i in
      SVGChart.Series(name: "policy-\(i)", points: [(x: 100, y: 0.9 - Double(i) / 100), (x: 1000, y: 0.5)])
    }
    let title = "Miss ratio by cache size: a trace with a long name"
    let charts = [
      SVGChart.lines(
        title: title, xLabel: "cache size (objects, log scale)", yLabel: "miss ratio", series: series, logX: true,
        yFormat: { String(format: "%.2f", $0) }, xFormat: { SVGChart.compact($0, bytes: false) }, layout: layout),
      SVGChart.bars(
        title: title, xLabel: "miss ratio", labels: series.map(\.name), values: series.map { _ in 0.5 },
        intervals: [], colors: [], format: { String(format: "%.3f", $0) }, styles: SVGChart.Styles(series.map(\.name)),
        layout: layout),
      SVGChart.boxes(
        title: title, xLabel: "reduction",
        boxes: series.map {
          SVGChart.Box(name: $0.name, p5: -0.2, p25: 0, median: 0.1, p75: 0.2, p95: 0.3, mean: 0.1, bound: false)
        }, format: { String(format: "%+.0f%%", $0 * 100) }, layout: layout),
    ]
    for svg in charts {
      let widthText = try #require(capture(#"<svg [^>]*width="([0-9.]+)""#, in: svg).first)
      let heightText = try #require(capture(#"<svg [^>]*height="([0-9.]+)""#, in: svg).first)
      let (width, height) = (Double(widthText) ?? 0, Double(heightText) ?? 0)
      #expect(abs(width - 3.3 * 96) < 0.1)
      // Points at the figure's own size: CSS pixels are 96 an inch, points 72.
      let sizes = capture(#"font-size="([0-9.]+)""#, in: svg).compactMap(Double.init)
      #expect(!sizes.isEmpty && sizes.allSatisfy { $0 * 72 / 96 >= 8 - 0.05 }, "\(Set(sizes))")
      // No text starts outside the picture, and the title is whole.
      let xs = capture(#"<text x="([0-9.-]+)""#, in: svg).compactMap(Double.init)
      let ys = capture(#"<text x="[0-9.-]+" y="([0-9.-]+)""#, in: svg).compactMap(Double.init)
      #expect(xs.allSatisfy { $0 >= 0 && $0 <= width } && ys.allSatisfy { $0 > 0 && $0 <= height })
      #expect(svg.contains(">Miss ratio by cache size:<") && svg.contains(">a trace with a long name<"))
    }
    #expect(layout.legendBelow && !SVGChart.Layout.screen.legendBelow)
    // Without titles the plot starts near the top and no title is drawn.
    let bare = SVGChart.Layout(inches: 3.3, points: 8, titles: false)
    let untitled = SVGChart.lines(
      title: title, xLabel: "x", yLabel: "y", series: series, logX: true, yFormat: { "\($0)" },
      xFormat: { "\($0)" }, layout: bare)
    #expect(!untitled.contains("font-weight=\"bold\"") && untitled.contains("aria-label=\"\(title)\""))
  }

  /// Figures call policies by the names papers use, with their parameters
  /// and admission policy, and traces by their file names without format
  /// suffixes; a policy the catalog does not know keeps its label.
  @Test func displayNamesComeFromTheCatalogAndFileNames() {
    #expect(DisplayNames.policy("s3fifo") == "S3-FIFO" && DisplayNames.policy("wtinylfu") == "W-TinyLFU")
    #expect(DisplayNames.policy("slru:segments=4") == "SLRU (segments=4)")
    #expect(DisplayNames.policy("lru + tinylfu") == "LRU + TinyLFU")
    #expect(DisplayNames.policy("arc + prob:p=0.5,seed=2") == "ARC + Prob (p=0.5, seed=2)")
    #expect(DisplayNames.policy("midlru") == "midlru")
    for (path, stem) in [
      ("traces/zipf-scan.oracleGeneral.zst", "zipf-scan"), ("/x/P12.lis.zst", "P12"), ("web07.trace.xz", "web07"),
      ("cloudPhysicsIO.oracleGeneral.bin", "cloudPhysicsIO"), ("w.csv", "w"), (".zst", ".zst"), ("a.b.c", "a.b.c"),
    ] {
      #expect(TraceFormat.stem(of: path) == stem, "\(path)")
    }
  }

  /// Latencies spanning decades go on a log axis with readable units.
  @Test func latenciesTakeALogAxisInReadableUnits() throws {
    let series = [SVGChart.Series(name: "mutex", points: [(x: 1, y: 180), (x: 2, y: 2_400), (x: 8, y: 210_000)])]
    let svg = SVGChart.lines(
      title: "t", xLabel: "threads (2 cores)", yLabel: "latency", series: series, logX: false,
      yFormat: { SVGChart.duration(nanoseconds: $0) }, xFormat: { "\(Int($0))" }, logY: true)
    let ticks = capture(#"text-anchor="end" font-size="12">([^<]+)<"#, in: svg)
    #expect(ticks.first == "100 ns" && ticks.last == "1 ms" && ticks.contains("10 µs"), "\(ticks)")
    #expect(SVGChart.duration(nanoseconds: 3_500_000) == "3.5 ms" && SVGChart.duration(nanoseconds: 850) == "850 ns")
  }

  /// A name too long for its column is shortened, never drawn past the edge.
  @Test func longNamesAreShortenedToFitTheirColumn() throws {
    let long = String(repeating: "slru:segments=4", count: 5) + " + bloom-filter"
    let svg = SVGChart.bars(
      title: "t", xLabel: "x", labels: ["lru", long], values: [0.4, 0.5], intervals: [nil, 0.45...0.55], colors: [],
      format: { String(format: "%.2f", $0) })
    #expect(!svg.contains(">\(long)</text>"))
    #expect(svg.contains("…</text>"))
    // The whole name stays in the chart, as the shortened text's title.
    #expect(svg.contains("<title>\(long)</title><text"))
    let starts = capture(
      #"<rect class="bar" data-series="[^"]*" data-color="[^"]+" data-marker="[^"]+" data-dash="" x="([0-9.]+)""#,
      in: svg
    ).compactMap(Double.init)
    #expect(starts.allSatisfy { $0 <= 300 })
    // The value label sits past the whisker's end.
    #expect(svg.contains("stroke-width=\"1\"/><text"))
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

/// Figures of a large collection stay proportionate: past
/// ``Figures/renderedPerTraceLimit`` per-trace charts stay SVG, the
/// across-trace ones are rendered, and progress counts every file rendered.
@Suite struct FigureRenderingTests {
  @Test func perTraceChartsPastTheLimitStaySVGAndProgressCountsTheRest() throws {
    try #require(Figures.converter != nil, "rsvg-convert is installed by scripts/ensure-deps.sh")
    let svg = SVGChart.bars(
      title: "t", xLabel: "miss ratio", labels: ["a", "b"], values: [0.5, 0.25], intervals: [nil, nil], colors: [],
      format: { String(format: "%.2f", $0) })
    let figures = Figures()
    figures.add("across", svg)
    for i in 0...Figures.renderedPerTraceLimit { figures.add("trace-\(i)", svg, perTrace: true) }
    let dir = NSTemporaryDirectory() + "figures-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let seen = Mutex<[(Int, Int)]>([])
    let (files, warning) = try figures.write(into: dir) { done, total in seen.withLock { $0.append((done, total)) } }
    let names = Set(files.map { ($0 as NSString).lastPathComponent })
    #expect(names.contains("across.pdf") && names.contains("across.png") && names.contains("trace-0.svg"))
    #expect(!names.contains("trace-0.pdf") && !names.contains("trace-0.png"))
    #expect(names.count == Figures.renderedPerTraceLimit + 2 + 2)
    #expect(warning?.contains("per-trace charts are SVG only") == true)
    #expect(seen.withLock { $0.map(\.0).sorted() == [1, 2] && $0.allSatisfy { $0.1 == 2 } })
    // At the limit, every chart is rendered.
    let small = Figures()
    small.add("one", svg, perTrace: true)
    let (few, none) = try small.write(into: dir + "/small")
    #expect(few.count == 3 && none == nil)
  }
}
