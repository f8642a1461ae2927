import EvictionRun
import EvictionTraces
import Foundation
import Synchronization

/// A report's charts as figure files for a paper: each as SVG, PDF and PNG
/// (300 dpi) under `figures/` of the output folder.
///
/// The PDF and PNG come from `rsvg-convert` (librsvg, Debian's
/// `librsvg2-bin`, which `scripts/ensure-deps.sh` installs). librsvg renders
/// the SVG the HTML page shows, text as real PDF text in the fonts
/// fontconfig finds, so the three files are one picture; writing PDF by hand
/// would mean a second renderer for the same charts, with its own text
/// metrics. Without the tool the SVGs are still written and the caller hears
/// why the rest are not.
public final class Figures {
  /// Charts in the order they were drawn: a file name (no extension), the
  /// SVG, and whether it is one of a chart per trace.
  public private(set) var charts: [(name: String, svg: String, perTrace: Bool)] = []

  /// The most charts-per-trace rendered as PDF and PNG. A collection of
  /// 1,500 traces draws thousands (a 300 dpi PNG takes rsvg-convert about
  /// 0.4 s): past this they stay SVG (the HTML report holds them inline, and
  /// `rsvg-convert` makes either format from one), and the warning says so.
  public static let renderedPerTraceLimit = 200

  /// How the figure files are drawn (their width, text size and titles);
  /// the page's charts are drawn at ``SVGChart/Layout/screen``.
  public let layout: SVGChart.Layout

  public init(layout: SVGChart.Layout = .screen) { self.layout = layout }

  /// Draws a chart twice, for the page (returned) and as figure `name` in
  /// ``layout`` (kept); `perTrace` marks one of a chart per trace
  /// (``renderedPerTraceLimit``).
  @discardableResult
  public func add(_ name: String, perTrace: Bool = false, draw: (SVGChart.Layout) -> String) -> String {
    let page = draw(.screen)
    guard !page.isEmpty else { return page }
    add(name, layout == .screen ? page : draw(layout), perTrace: perTrace)
    return page
  }

  /// Keeps `svg` as figure `name` (made a safe, unique file name) and returns
  /// it; `perTrace` marks one of a chart per trace (``renderedPerTraceLimit``).
  @discardableResult
  public func add(_ name: String, _ svg: String, perTrace: Bool = false) -> String {
    guard !svg.isEmpty else { return svg }
    var base = String(
      name.lowercased().replacingOccurrences(of: "%", with: "pct").map {
        $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "-"
      })
    while base.contains("--") { base = base.replacingOccurrences(of: "--", with: "-") }
    base = String(base.drop(while: { $0 == "-" }).reversed().drop(while: { $0 == "-" }).reversed())
    var unique = base
    var n = 2
    while charts.contains(where: { $0.name == unique }) {
      unique = "\(base)-\(n)"
      n += 1
    }
    charts.append((unique, svg, perTrace))
    return svg
  }

  /// The environment variable naming an `rsvg-convert` outside the usual
  /// places (a Nix profile, a build of one's own).
  public static let converterVariable = "EVLAB_RSVG_CONVERT"

  /// The converter's path, if installed: the program `EVLAB_RSVG_CONVERT`
  /// names when set (nil when that is not an executable file), else the
  /// first of the usual places.
  public static var converter: String? {
    if let chosen = ProcessInfo.processInfo.environment[converterVariable], !chosen.isEmpty {
      return FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
    }
    return ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert", "/opt/homebrew/bin/rsvg-convert"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  /// Pixels per inch of the PNGs; SVG user units are CSS pixels (96 per inch).
  public static let dpi = 300.0

  /// Writes every chart into `directory/figures/`, or with `ownFolder` false
  /// into `directory` itself; returns the files written and, when PDF and
  /// PNG could not be made (or were left out), a warning saying why and what
  /// to do. Files of the same names are replaced; nothing else in the folder
  /// is touched (it may hold the user's own figures), so a rerun with fewer
  /// charts leaves the earlier extra ones where they were. `rsvg-convert`
  /// runs `parallelism` at a time; `progress` hears (rendered, total) after
  /// each file.
  public func write(
    into directory: String, ownFolder: Bool = true,
    parallelism: Int = ProcessInfo.processInfo.activeProcessorCount, progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws -> (files: [String], warning: String?) {
    guard !charts.isEmpty else { return ([], nil) }
    let folder = ownFolder ? (directory as NSString).appendingPathComponent("figures") : directory
    // Nothing is written through a link inside the output folder: it could
    // lead anywhere.
    if ownFolder, (try? FileManager.default.destinationOfSymbolicLink(atPath: folder)) != nil {
      throw FigureError("\(folder) is a symbolic link; figures are written only into a real folder: remove the link")
    }
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var files: [String] = []
    for chart in charts {
      let path = (folder as NSString).appendingPathComponent(chart.name + ".svg")
      try (Self.xmlHeader + chart.svg + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      files.append(path)
    }
    guard let converter = Self.converter else {
      if let chosen = ProcessInfo.processInfo.environment[Self.converterVariable], !chosen.isEmpty {
        return (
          files,
          "figures/ holds SVG only: \(Self.converterVariable)=\(chosen) is not an executable file; "
            + "name rsvg-convert's path there, or unset it to use /usr/bin/rsvg-convert"
        )
      }
      return (
        files,
        "figures/ holds SVG only: rsvg-convert is not installed (apt install librsvg2-bin, or run scripts/ensure-deps.sh) for PDF and PNG"
      )
    }
    let perTrace = charts.filter(\.perTrace).count
    let rendered = perTrace > Self.renderedPerTraceLimit ? charts.filter { !$0.perTrace } : charts
    let jobs = rendered.flatMap { chart in
      [("pdf", [String]()), ("png", ["--zoom", String(Self.dpi / 96)])].map { (chart.name, $0.0, $0.1) }
    }
    let outcomes = Mutex<[Int: Result<String, FigureError>]>([:])
    let next = Atomic<Int>(0)
    // The first failure stops the rest (a full disk fails every one after it).
    let failed = Atomic<Bool>(false)
    WorkerThread.pool(min(parallelism, jobs.count)) {
      while !failed.load(ordering: .relaxed) {
        let i = next.add(1, ordering: .relaxed).oldValue
        guard i < jobs.count else { return }
        let (name, format, extra) = jobs[i]
        let outcome = Self.render(name, format: format, extra: extra, in: folder, converter: converter)
        if case .failure = outcome { failed.store(true, ordering: .relaxed) }
        let done = outcomes.withLock {
          $0[i] = outcome
          return $0.count
        }
        progress?(done, jobs.count)
      }
    }
    for (_, outcome) in outcomes.withLock({ $0 }).sorted(by: { $0.key < $1.key }) { files.append(try outcome.get()) }
    let warning =
      rendered.count < charts.count
      ? "figures/: the \(perTrace) per-trace charts are SVG only (PDF and PNG are made for up to "
        + "\(Self.renderedPerTraceLimit) of them; the across-trace charts have all three). "
        + "rsvg-convert --format pdf CHART.svg makes either from one" : nil
    return (files, warning)
  }

  /// Renders `name.svg` in `folder` as `format`; the file made, or why not.
  static func render(
    _ name: String, format: String, extra: [String], in folder: String, converter: String
  ) -> Result<String, FigureError> {
    let svg = (folder as NSString).appendingPathComponent(name + ".svg")
    let out = (folder as NSString).appendingPathComponent("\(name).\(format)")
    // rsvg-convert writes through a link; a link left here is replaced.
    if (try? FileManager.default.destinationOfSymbolicLink(atPath: out)) != nil { unlink(out) }
    // No creation date in the PDF (cairo honours SOURCE_DATE_EPOCH): the
    // same chart makes the same bytes, so a rerun changes only what changed.
    let environment = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"] == nil ? ["SOURCE_DATE_EPOCH": "0"] : [:]
    // A folder named like an option (-x) is passed as ./-x: a path, never an option.
    let (svgPath, outPath) = (svg.hasPrefix("-") ? "./" + svg : svg, out.hasPrefix("-") ? "./" + out : out)
    let exit: ChildProcess.Exit
    do throws(ChildProcess.Failure) {
      exit = try ChildProcess.run(
        converter,
        ["--format", format, "--background-color", "white"] + extra + ["--output", outPath, svgPath],
        environment: environment)
    } catch {
      return .failure(FigureError(error.description))
    }
    // A figure that could not be rendered (a full disk) is an error, never
    // a truncated file reported as written.
    guard exit.status == 0 else {
      unlink(out)
      return .failure(
        FigureError(
          "rsvg-convert could not render \(name).svg as \(format) "
            + "(\(exit.errors.trimmingCharacters(in: .whitespacesAndNewlines))); check the free space in \(folder)"))
    }
    return .success(out)
  }

  static let xmlHeader = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
}

/// Why figures could not be written.
public struct FigureError: Error, CustomStringConvertible, LocalizedError {
  public let description: String
  init(_ description: String) { self.description = description }
  public var errorDescription: String? { description }
}
