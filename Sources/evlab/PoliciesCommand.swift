import ArgumentParser
import EvictionCore

struct Policies: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "List the policies evlab knows and their parameters.")

  func run() {
    for entry in PolicyCatalog.entries {
      print(entry.name.padding(8) + entry.summary)
      for p in entry.parameters {
        print("        " + "\(entry.name):\(p.name)=\(p.isFraction ? "F" : "N")".padding(22) + "\(p.help) (default \(p.defaultValue))")
      }
    }
  }
}

extension String {
  func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
