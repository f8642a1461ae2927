import EvictionCore
import EvictionExperiments
import EvictionTraces
import Foundation

/// What reports and figures call each policy and trace. The user's
/// `[labels]` first (``FigureSettings/labels``); else a policy's display
/// name from its descriptor, with its parameters and admission policy
/// (`SLRU (segments=4)`, `LRU + TinyLFU`), and a trace's given name or its
/// file name without format suffixes (`zipf-scan`, not
/// `zipf-scan.oracleGeneral.zst`). Rows, CSV and JSON keep the catalog's
/// labels and the traces' names: these are for readers.
public struct DisplayNames: Sendable {
  let policies: [String: String]
  let traces: [String: String]

  public init(config: CompareConfig) {
    var policies: [String: String] = [:]
    for label in config.labels { policies[label] = config.figures.labels[label] ?? Self.policy(label) }
    var traces: [String: String] = [:]
    for entry in config.traces {
      if let given = config.figures.labels[entry.name] {
        traces[entry.name] = given
      } else if case .file(let source) = entry.origin,
        !entry.named || entry.name == (source.path as NSString).lastPathComponent
      {
        // A name that is the file's own (as `evlab catalog` writes it) is no choice of the user's.
        traces[entry.name] = TraceFormat.stem(of: source.path)
      }
    }
    // Two traces whose stems agree (`a.csv`, `a.bin`) keep their names.
    let shown = config.traces.map { traces[$0.name] ?? $0.name }
    for entry in config.traces where config.figures.labels[entry.name] == nil {
      if shown.filter({ $0 == traces[entry.name] }).count > 1 { traces[entry.name] = nil }
    }
    self.policies = policies
    self.traces = traces
  }

  /// The names as the catalog gives them, no labels of the user's.
  public init() {
    policies = [:]
    traces = [:]
  }

  /// What figures call the policy of row label `label`.
  public func policy(_ label: String) -> String { policies[label] ?? Self.policy(label) }

  /// What figures call trace `name`.
  public func trace(_ name: String) -> String { traces[name] ?? name }

  /// Every policy label's display name, for ``SVGChart/Styles``.
  public var policyNames: [String: String] { policies }

  /// A row label's display name from the catalog: `lru` is LRU,
  /// `slru:segments=4` is SLRU (segments=4), `lru + tinylfu` is LRU + TinyLFU.
  public static func policy(_ label: String) -> String {
    let parts = label.components(separatedBy: " + ")
    var shown = [spec(parts[0]) { PolicyCatalog.entry(named: $0)?.displayName }]
    if parts.count > 1 {
      shown.append(spec(parts.dropFirst().joined(separator: " + ")) { admissionNames[$0] })
    }
    return shown.joined(separator: " + ")
  }

  /// `name:parameters` as `Display (parameters)`, the name looked up by `display`.
  static func spec(_ text: String, display: (String) -> String?) -> String {
    let name = text.prefix { $0 != ":" }
    let parameters = text.dropFirst(name.count + 1)
    let shown = display(String(name)) ?? String(name)
    return parameters.isEmpty ? shown : "\(shown) (\(parameters.replacingOccurrences(of: ",", with: ", ")))"
  }

  /// The admission policies as papers name them.
  static let admissionNames = [
    "bloom-filter": "Bloom filter", "prob": "Prob", "size": "Size", "adaptsize": "AdaptSize", "tinylfu": "TinyLFU",
  ]
}
