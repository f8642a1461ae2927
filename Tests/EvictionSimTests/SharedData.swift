import Foundation

/// Paths into `../shared` (beside the repository), where the public traces
/// and the reference results live.
enum SharedData {
  static let root: URL = {
    // Tests/EvictionSimTests/SharedData.swift → repository → ../shared
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared")
  }()

  static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

  /// Rows of a tab- or comma-separated file with a header, as dictionaries.
  static func table(_ relative: String, separator: Character) throws -> [[String: String]] {
    let text = try String(contentsOfFile: path(relative), encoding: .utf8)
    var lines = text.split(separator: "\n").map {
      $0.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
    let header = lines.removeFirst()
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
  }
}
