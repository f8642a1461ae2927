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
    for key in colors.keys.sorted() where !policyNames.contains(key) {
      throw ConfigError(
        file: file,
        "colors: '\(key)' is not a policy of this sweep; policies: \(policies.joined(separator: ", "))")
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
    return settings
  }
}
