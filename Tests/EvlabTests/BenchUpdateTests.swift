import EvictionExperiments
import EvictionRun
import EvictionTestSupport
import Foundation
import Testing

@testable import EvictionLab

/// `evlab bench update` says what it changed, and refuses to name a commit
/// that did not make the baseline.
@Suite struct BenchUpdateTests {
  /// The committed baseline, with its first cell one hit fewer and one miss more.
  static func changed() throws -> (earlier: Baseline, current: [Baseline.Cell]) {
    let earlier = try Baseline.load(repositoryRoot.appendingPathComponent("results/baseline.json").path)
    var current = earlier.cells
    current[0].counts.hits -= 1
    current[0].counts.misses += 1
    return (earlier, current)
  }

  @Test func theSummaryNamesEachChangedCellOldToNew() throws {
    let (earlier, current) = try Self.changed()
    let cell = earlier.cells[0]
    let text = BenchUpdate.summary(of: current, against: earlier, path: "b.json")
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(lines[0] == "bench update: wrote \(current.count) cells to b.json; 1 changed (review, then commit):")
    #expect(lines[1].hasPrefix("  \(cell.id): "))
    #expect(lines[1].contains("hits \(cell.counts.hits) → \(cell.counts.hits - 1)"))
    #expect(lines[1].contains("misses \(cell.counts.misses) → \(cell.counts.misses + 1)"))
    #expect(
      BenchUpdate.summary(of: earlier.cells, against: earlier, path: "b.json")
        == "bench update: wrote \(current.count) cells to b.json; none changed\n")
    #expect(BenchUpdate.summary(of: current, against: nil, path: "b.json").hasSuffix("(a new baseline)\n"))
  }

  /// A git work tree with one committed source file.
  static func checkout() throws -> URL {
    let root = try ScratchFolder("checkout").url
    let sources = root.appendingPathComponent("Sources")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    try Data("let a = 1\n".utf8).write(to: sources.appendingPathComponent("a.swift"))
    try Data("# read me\n".utf8).write(to: root.appendingPathComponent("README.md"))
    let script =
      "cd \"$0\" && git init -q && git add -A && git -c user.name=t -c user.email=t@localhost commit -qm one 1>&2"
    let exit = try ChildProcess.run("/bin/sh", ["-c", script, root.path])
    try #require(exit.status == 0, "git: \(exit.errors)")
    return root
  }

  @Test func uncommittedSourcesAreThoseUnderSourcesAndThePackage() throws {
    let root = try Self.checkout()
    #expect(EvlabVersion.uncommittedSources(in: root) == [])
    // A change outside the sources does not make a build dirty.
    try Data("# read me again\n".utf8).write(to: root.appendingPathComponent("README.md"))
    #expect(EvlabVersion.uncommittedSources(in: root) == [])
    try Data("let a = 2\n".utf8).write(to: root.appendingPathComponent("Sources/a.swift"))
    try Data("let b = 1\n".utf8).write(to: root.appendingPathComponent("Sources/b.swift"))
    #expect(EvlabVersion.uncommittedSources(in: root) == [" M Sources/a.swift", "?? Sources/b.swift"])
    // Outside a checkout it cannot be told.
    #expect(EvlabVersion.uncommittedSources(in: try ScratchFolder("plain").url) == nil)
  }
}
