// Lists the public symbols of symbol-graph files that are declared under a
// source folder and carry no documentation comment; exits 1 if any.
//   swift scripts/doc-coverage.swift SOURCES_DIR FILE.symbols.json...
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let sources = arguments.first, arguments.count > 1 else {
  FileHandle.standardError.write(Data("usage: doc-coverage.swift SOURCES_DIR FILE.symbols.json...\n".utf8))
  exit(2)
}
var missing: [String] = []
var counted = 0
for file in arguments.dropFirst() {
  let data = try Data(contentsOf: URL(fileURLWithPath: file))
  guard let graph = try JSONSerialization.jsonObject(with: data) as? [String: Any],
    let symbols = graph["symbols"] as? [[String: Any]]
  else { fatalError("\(file) is not a symbol graph") }
  for symbol in symbols {
    guard let location = symbol["location"] as? [String: Any], let uri = location["uri"] as? String,
      let path = URL(string: uri)?.path, path.hasPrefix(sources)
    else { continue }
    counted += 1
    if symbol["docComment"] == nil {
      let name = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
      let line = ((location["position"] as? [String: Any])?["line"] as? Int).map { $0 + 1 } ?? 0
      missing.append("\(path.dropFirst(sources.count)):\(line): \(name)")
    }
  }
}
if missing.isEmpty {
  print("documentation coverage: all \(counted) public symbols documented")
} else {
  print(missing.sorted().joined(separator: "\n"))
  print("error: \(missing.count) of \(counted) public symbols have no documentation comment (above); document them")
  exit(1)
}
