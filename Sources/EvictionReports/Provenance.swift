import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What made an output: the tool's version (and commit), the command line
/// or configuration, the date, the host (cores, operating system) and the
/// seeds. Every JSON output carries it as a `provenance` key beside its
/// `results`, Markdown and HTML reports as a closing section, and CSV files
/// through a `provenance.json` beside them (so pandas reads the CSV plainly).
public struct Provenance: Sendable, Equatable {
  public var tool = "evlab"
  public var version: String
  public var commit: String?
  /// The command line, arguments shell-quoted.
  public var command: String
  /// The configuration text, where a run was configured by one.
  public var configuration: String?
  /// UTC, ISO 8601.
  public var date: String
  public var cores: Int
  public var os: String
  public var seeds: [UInt64]
  /// A plug-in binary's own package (``EvictionLab/main(extraPolicies:extraFormats:caller:)``
  /// called from another package): its name and commit, beside evlab's.
  public var plugin: Plugin? = nil

  /// A package that built its own `evlab` with extra policies or formats.
  public struct Plugin: Sendable, Equatable {
    public var package: String
    public var commit: String?
    public init(package: String, commit: String?) { (self.package, self.commit) = (package, commit) }
  }

  /// The provenance of a run of `arguments`; `seeds` are added to those the
  /// arguments name.
  public init(version: String, commit: String?, arguments: [String], configuration: String? = nil, seeds: [UInt64] = [])
  {
    self.version = version
    self.commit = commit
    command = arguments.map(Self.shellQuoted).joined(separator: " ")
    self.configuration = configuration
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    date = formatter.string(from: Date())
    cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    var names = utsname()
    uname(&names)
    func text<T>(_ field: T) -> String {
      withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    os = "\(text(names.sysname)) \(text(names.release)) \(text(names.machine))"
    // The seeds of randomised policies the command line names (`random:seed=2`).
    var all = Set(seeds)
    for argument in arguments {
      for piece in argument.split(separator: ",")
      where piece.lowercased().hasPrefix("seed=") || piece.contains(":seed=") {
        if let value = UInt64(piece.split(separator: "=").last ?? "") { all.insert(value) }
      }
    }
    self.seeds = all.sorted()
  }

  static func shellQuoted(_ argument: String) -> String {
    let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=,%+@".contains($0) }
    return plain && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// The JSON object (one line).
  public var json: String {
    var fields = [
      "\"tool\": \(ReplayTables.jsonString(tool))", "\"version\": \(ReplayTables.jsonString(version))",
      "\"commit\": \(commit.map(ReplayTables.jsonString) ?? "null")",
      "\"command\": \(ReplayTables.jsonString(command))",
    ]
    if let configuration { fields.append("\"configuration\": \(ReplayTables.jsonString(configuration))") }
    fields += [
      "\"date\": \(ReplayTables.jsonString(date))", "\"cores\": \(cores)", "\"os\": \(ReplayTables.jsonString(os))",
      "\"seeds\": [\(seeds.map(String.init).joined(separator: ", "))]",
    ]
    if let plugin {
      fields.append(
        "\"plugin\": {\"package\": \(ReplayTables.jsonString(plugin.package)), \"commit\": \(plugin.commit.map(ReplayTables.jsonString) ?? "null")}"
      )
    }
    return "{" + fields.joined(separator: ", ") + "}"
  }

  /// `json` with the provenance as its first key, if it is a JSON object.
  public func stamped(_ json: String) -> String {
    guard let brace = json.firstIndex(of: "{") else { return json }
    let rest = json[json.index(after: brace)...]
    let empty = rest.drop { $0.isWhitespace }.first == "}"
    return String(json[...brace]) + "\n  \"provenance\": \(self.json)" + (empty ? "" : ",") + rest
  }

  /// `provenance.json`'s content.
  public var file: String { "{\"provenance\": \(json)}\n" }

  /// The closing section of a Markdown report.
  public var markdown: String {
    var md = "\n## Provenance\n\n"
    md += "- made by \(tool) \(version)\(commit.map { " (commit \($0))" } ?? "") on \(date)\n"
    if let plugin {
      md += "- plug-in package: \(plugin.package)\(plugin.commit.map { " (commit \($0))" } ?? "")\n"
    }
    md += "- host: \(cores) cores, \(os)\n"
    md += "- command: `\(command)`\n"
    if !seeds.isEmpty { md += "- seeds: \(seeds.map(String.init).joined(separator: ", "))\n" }
    if let configuration { md += "\n```toml\n\(configuration.trimmingCharacters(in: .newlines))\n```\n" }
    return md
  }

  /// The closing footer of an HTML report.
  public var html: String {
    var out =
      "<footer class=\"provenance\" id=\"provenance\"><h2>Provenance</h2><p>Made by \(SVGChart.escape(tool)) \(SVGChart.escape(version))"
    if let commit { out += " (commit \(SVGChart.escape(commit)))" }
    if let plugin {
      out += " with the plug-in package \(SVGChart.escape(plugin.package))"
      if let commit = plugin.commit { out += " (commit \(SVGChart.escape(commit)))" }
    }
    out += " on \(SVGChart.escape(date)); host: \(cores) cores, \(SVGChart.escape(os))"
    if !seeds.isEmpty { out += "; seeds \(seeds.map(String.init).joined(separator: ", "))" }
    out += ".</p><p><code style=\"overflow-wrap:anywhere\">\(SVGChart.escape(command))</code></p>"
    if let configuration {
      out += "<pre style=\"white-space:pre-wrap;overflow-wrap:anywhere\">\(SVGChart.escape(configuration))</pre>"
    }
    return out + "</footer>\n"
  }
}
