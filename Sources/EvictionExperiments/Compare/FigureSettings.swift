import EvictionCore
import Foundation

/// How a sweep's figures look in a paper: their width and text size,
/// whether they carry titles, and what they call and how they colour each
/// policy and trace. A configuration's `[figures]`, `[labels]` and
/// `[colors]` tables (carried with it to `evlab merge`), or the matching
/// settings of the front end, which may override them.
public struct FigureSettings: Sendable, Equatable {
  /// A figure's width: a column of a two-column paper (3.3 in), a page's
  /// text width (7 in), or inches.
  public enum Width: Sendable, Equatable, CustomStringConvertible {
    case column
    case page
    case inches(Double)

    public var inches: Double {
      switch self {
      case .column: 3.3
      case .page: 7
      case .inches(let x): x
      }
    }

    /// The widths a figure may take, in inches.
    public static let range = 1.5...20.0

    /// `column`, `page`, or a number of inches (`3.5`, `3.5in`).
    public init?(parsing text: String) {
      let word = text.trimmingCharacters(in: .whitespaces).lowercased()
      switch word {
      case "column": self = .column
      case "page": self = .page
      default:
        let number = word.hasSuffix("in") ? String(word.dropLast(2)) : word
        guard let inches = Double(number), Self.range.contains(inches) else { return nil }
        self = .inches(inches)
      }
    }

    public var description: String {
      switch self {
      case .column: "column"
      case .page: "page"
      case .inches(let x): String(format: "%gin", x)
      }
    }
  }

  public var width: Width = .page
  /// The text size in points; nil is 8 pt below 5 in, 9 pt from there.
  public var fontSize: Double? = nil
  /// Whether figures draw their titles (a caption usually replaces them).
  public var titles = true
  /// Display names, by policy label (`s3fifo`, `lru + tinylfu`) or trace name.
  public var labels: [String: String] = [:]
  /// Colours (`#RRGGBB`), by policy label.
  public var colors: [String: String] = [:]
  /// Marker shapes (one of ``markerShapes``), by policy label.
  public var markers: [String: String] = [:]
  /// The styles file of an earlier run (its `styles.json`): the colours and
  /// markers it gives this sweep's policies are kept, under those chosen here.
  public var stylesFile: String? = nil

  /// The marker shapes figures draw, in the order policies take them.
  public static let markerShapes = [
    "circle", "square", "triangle", "diamond", "triangle-down", "pentagon", "star", "hexagon", "triangle-left",
    "triangle-right", "cross", "plus",
  ]

  public init() {}

  /// The sizes text may take, in points: 6 pt is the least a journal prints.
  public static let fontRange = 6.0...24.0

  /// The text size the figures are drawn at, in points.
  public var points: Double { fontSize ?? (width.inches < 5 ? 8 : 9) }

  /// `#RGB` or `#RRGGBB` as `#RRGGBB` in capitals; nil for anything else.
  public static func color(parsing text: String) -> String? {
    let hex = text.trimmingCharacters(in: .whitespaces)
    guard hex.hasPrefix("#"), hex.dropFirst().allSatisfy(\.isHexDigit) else { return nil }
    let digits = hex.dropFirst().uppercased()
    switch digits.count {
    case 6: return "#" + digits
    case 3: return "#" + digits.map { "\($0)\($0)" }.joined()
    default: return nil
    }
  }

  /// Refuses a label or colour for something the sweep does not have (a
  /// misspelt policy would otherwise keep its id without a word), a colour
  /// that is not one, and two entries given one display name.
  public func check(policies: [String], traces: [String], file: String) throws(ConfigError) {
    let known = Set(policies + traces)
    for key in labels.keys.sorted() where !known.contains(key) {
      throw ConfigError(
        file: file,
        "labels: '\(key)' is neither a policy nor a trace of this sweep; policies: \(policies.joined(separator: ", ")); traces: \(traces.joined(separator: ", "))"
      )
    }
    for (key, value) in labels.sorted(by: { $0.key < $1.key }) where value.trimmingCharacters(in: .whitespaces).isEmpty
    {
      throw ConfigError(file: file, "labels: '\(key)' is given an empty name")
    }
    let policyNames = Set(policies)
    for (table, keys) in [("colors", colors.keys), ("markers", markers.keys)] {
      for key in keys.sorted() where !policyNames.contains(key) {
        throw ConfigError(
          file: file,
          "\(table): '\(key)' is not a policy of this sweep; policies: \(policies.joined(separator: ", "))")
      }
    }
    for (key, shape) in markers.sorted(by: { $0.key < $1.key }) where !Self.markerShapes.contains(shape) {
      throw ConfigError(
        file: file,
        "markers: '\(key)' = '\(shape)' is not a marker; use one of \(Self.markerShapes.joined(separator: ", "))")
    }
    for group in [policies, traces] {
      var seen: [String: String] = [:]
      for key in group {
        guard let shown = labels[key] else { continue }
        if let other = seen.updateValue(key, forKey: shown) {
          throw ConfigError(file: file, "labels: '\(other)' and '\(key)' are both named '\(shown)'; name each apart")
        }
      }
    }
  }

  /// Reads the `[figures]`, `[labels]` and `[colors]` (or `[colours]`)
  /// tables of a configuration; absent tables keep the defaults.
  static func read(_ table: [String: ConfigValue], file: String) throws(ConfigError) -> FigureSettings {
    var settings = FigureSettings()
    if let value = table["figures"] {
      guard case .table(let t) = value else { throw ConfigError(file: file, "figures must be a table: [figures]") }
      let reader = TableReader(table: t, file: file, context: "[figures]", known: ["width", "font_size", "titles"])
      try reader.rejectUnknown()
      switch t["width"] {
      case nil: break
      case .string(let text)?:
        guard let width = Width(parsing: text) else {
          throw ConfigError(file: file, "[figures]: width '\(text)': use \"column\", \"page\" or inches (1.5 to 20)")
        }
        settings.width = width
      case let value?:
        guard let inches = try reader.number("width"), Width.range.contains(inches) else {
          throw reader.fail("width", "\"column\", \"page\" or inches from 1.5 to 20", value)
        }
        settings.width = .inches(inches)
      }
      if let size = try reader.number("font_size") {
        guard fontRange.contains(size) else {
          throw ConfigError(file: file, "[figures]: font_size \(size) is outside 6 to 24 points")
        }
        settings.fontSize = size
      }
      settings.titles = try reader.bool("titles") ?? true
    }
    if let value = table["labels"] {
      guard case .table(let t) = value else { throw ConfigError(file: file, "labels must be a table: [labels]") }
      for key in t.keys.sorted() {
        guard case .string(let name) = t[key]! else {
          throw ConfigError(file: file, "labels: '\(key)' must be a string, the name figures show")
        }
        settings.labels[key] = name
      }
    }
    if table["colors"] != nil && table["colours"] != nil {
      throw ConfigError(file: file, "give [colors] or [colours], not both")
    }
    if let value = table["colors"] ?? table["colours"] {
      guard case .table(let t) = value else { throw ConfigError(file: file, "colors must be a table: [colors]") }
      for key in t.keys.sorted() {
        guard case .string(let text) = t[key]!, let color = color(parsing: text) else {
          throw ConfigError(file: file, "colors: '\(key)' must be a colour such as \"#0072B2\"")
        }
        settings.colors[key] = color
      }
    }
    if let value = table["markers"] {
      guard case .table(let t) = value else { throw ConfigError(file: file, "markers must be a table: [markers]") }
      for key in t.keys.sorted() {
        guard case .string(let shape) = t[key]! else {
          throw ConfigError(file: file, "markers: '\(key)' must be a marker's name such as \"diamond\"")
        }
        settings.markers[key] = shape
      }
    }
    if let value = table["styles"] {
      guard case .table(let t) = value else {
        throw ConfigError(file: file, "styles must be a table: [styles] with file = \"results/earlier/styles.json\"")
      }
      let reader = TableReader(table: t, file: file, context: "[styles]", known: ["file"])
      try reader.rejectUnknown()
      guard case .string(let path)? = t["file"], !path.isEmpty else {
        throw ConfigError(file: file, "[styles]: give file = \"PATH\", the styles.json of an earlier run")
      }
      // As traces are found: from the current folder, else beside the configuration.
      let beside = (file.parentPath as NSString).appendingPathComponent(path)
      settings.stylesFile =
        FileManager.default.fileExists(atPath: path) || path.hasPrefix("/")
          || !FileManager.default.fileExists(atPath: beside)
        ? path : beside
    }
    return settings
  }

  /// Takes the colours and markers the styles file gives `policies`, for
  /// those not given one here; the file's other entries (policies of the
  /// earlier run that this one lacks) are passed over.
  public mutating func applyStylesFile(policies: [String]) throws(ConfigError) {
    guard let path = stylesFile else { return }
    let looks = try Self.styles(fromFile: path)
    for policy in policies {
      guard let look = looks[policy] else { continue }
      if colors[policy] == nil { colors[policy] = look.color }
      if markers[policy] == nil { markers[policy] = look.marker }
    }
  }

  /// The colour and marker of each policy a styles file names: the
  /// `styles.json` a comparison writes (`{"results": [{"policy", "color",
  /// "marker", …}]}`), or a bare list of such entries.
  public static func styles(fromFile path: String) throws(ConfigError) -> [String: (color: String, marker: String)] {
    // A FIFO would block the read and a device never end it; a styles file is small.
    var info = stat()
    if stat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFREG else {
        throw ConfigError(
          file: path, "not a regular file (a FIFO, a device or a folder); give an earlier run's styles.json")
      }
      guard info.st_size <= 16 << 20 else {
        throw ConfigError(
          file: path, "\(info.st_size) bytes is no styles file (they hold a few KB); give an earlier run's styles.json")
      }
    }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ConfigError(
        file: path,
        "cannot read the styles file (\(error.localizedDescription)); give the styles.json of an earlier run")
    }
    let entries: [Any]
    switch try? JSONSerialization.jsonObject(with: data) {
    case let object as [String: Any]:
      guard let results = object["results"] as? [Any] else {
        throw ConfigError(
          file: path, "not a styles file: it has no \"results\" list (give an earlier run's styles.json)")
      }
      entries = results
    case let list as [Any]: entries = list
    default: throw ConfigError(file: path, "not a styles file: not JSON (give an earlier run's styles.json)")
    }
    var looks: [String: (color: String, marker: String)] = [:]
    for (i, entry) in entries.enumerated() {
      guard let entry = entry as? [String: Any], let policy = entry["policy"] as? String,
        let colorText = entry["color"] as? String, let marker = entry["marker"] as? String
      else {
        throw ConfigError(file: path, "entry \(i + 1) lacks a policy, color or marker")
      }
      guard let color = color(parsing: colorText) else {
        throw ConfigError(file: path, "entry \(i + 1) (\(policy)): '\(colorText)' is not a colour such as \"#0072B2\"")
      }
      guard markerShapes.contains(marker) else {
        throw ConfigError(
          file: path,
          "entry \(i + 1) (\(policy)): '\(marker)' is not a marker; use one of \(markerShapes.joined(separator: ", "))")
      }
      if looks.updateValue((color, marker), forKey: policy) != nil {
        throw ConfigError(file: path, "\(policy) appears twice; give each policy once")
      }
    }
    return looks
  }
}
