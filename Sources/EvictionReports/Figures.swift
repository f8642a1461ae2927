import Foundation

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
  /// Charts in the order they were drawn: a file name (no extension) and the SVG.
  public private(set) var charts: [(name: String, svg: String)] = []

  public init() {}

  /// Keeps `svg` as figure `name` (made a safe, unique file name) and returns it.
  @discardableResult
  public func add(_ name: String, _ svg: String) -> String {
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
    charts.append((unique, svg))
    return svg
  }

  /// The converter's path, if installed.
  public static var converter: String? {
    ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert", "/opt/homebrew/bin/rsvg-convert"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  /// Pixels per inch of the PNGs; SVG user units are CSS pixels (96 per inch).
  public static let dpi = 300.0

  /// Writes every chart into `directory/figures/`, or with `ownFolder` false
  /// into `directory` itself; returns the files written and, when PDF and
  /// PNG could not be made, a warning saying why and what to do. Files of
  /// the same names are replaced; nothing else in the folder is touched (it
  /// may hold the user's own figures), so a rerun with fewer charts leaves
  /// the earlier extra ones where they were.
  public func write(into directory: String, ownFolder: Bool = true) throws -> (files: [String], warning: String?) {
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
      return (
        files,
        "figures/ holds SVG only: rsvg-convert is not installed (apt install librsvg2-bin, or run scripts/ensure-deps.sh) for PDF and PNG"
      )
    }
    for chart in charts {
      let svg = (folder as NSString).appendingPathComponent(chart.name + ".svg")
      for (format, extra) in [("pdf", [String]()), ("png", ["--zoom", String(Self.dpi / 96)])] {
        let out = (folder as NSString).appendingPathComponent("\(chart.name).\(format)")
        // rsvg-convert writes through a link; a link left here is replaced.
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: out)) != nil { unlink(out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        // No creation date in the PDF (cairo honours SOURCE_DATE_EPOCH): the
        // same chart makes the same bytes, so a rerun changes only what changed.
        var environment = ProcessInfo.processInfo.environment
        if environment["SOURCE_DATE_EPOCH"] == nil { environment["SOURCE_DATE_EPOCH"] = "0" }
        process.environment = environment
        process.arguments = ["--format", format, "--background-color", "white"] + extra + ["--output", out, svg]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // A figure that could not be rendered (a full disk) is an error, never
        // a truncated file reported as written.
        guard process.terminationStatus == 0 else {
          unlink(out)
          throw FigureError(
            "rsvg-convert could not render \(chart.name).svg as \(format) "
              + "(\(message.trimmingCharacters(in: .whitespacesAndNewlines))); check the free space in \(folder)")
        }
        files.append(out)
      }
    }
    return (files, nil)
  }

  static let xmlHeader = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
}

/// Why figures could not be written.
public struct FigureError: Error, CustomStringConvertible, LocalizedError {
  public let description: String
  init(_ description: String) { self.description = description }
  public var errorDescription: String? { description }
}
