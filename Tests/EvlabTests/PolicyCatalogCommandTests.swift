import EvictionCore
import EvictionLearned
import Foundation
import Testing

/// The README's policy tables and `evlab policies` come from the descriptors.
@Suite struct PolicyCatalogCommandTests {
  @Test func theReadmeTablesAreWhatTheDescriptorsSay() throws {
    let run = try evlab(["policies", "--markdown"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("| `lru` |"))
    #expect(run.stdout.contains("Models of shipped caches"))
    let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(
      readme.contains(run.stdout),
      "README.md's policy tables differ from `evlab policies --markdown`: paste its output between the policies markers"
    )
  }

  @Test func theFormatTableIsWhatTheDefinitionsSay() throws {
    let run = try evlab(["formats", "--markdown"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("| `adapt-size` | `lrb` | `*.adapt-size` | yes |"))
    let page = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/traces.md"), encoding: .utf8)
    #expect(
      page.contains(run.stdout),
      "docs/traces.md's format table differs from `evlab formats --markdown`: paste its output over the table")
    let list = try evlab(["formats"])
    #expect(list.stdout.contains("arc ") && list.stdout.contains("files .arc, .lis"))
  }

  @Test func everyPolicyIsListedWithItsCitation() throws {
    let run = try evlab(["policies"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("sieve   SIEVE (Zhang et al., NSDI'24)"))
    #expect(run.stdout.contains("slru:segments=N"))
    // The built-in ones and the learned ones `evlab` registers: a test in
    // this process may have registered more.
    let listed = run.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }
    #expect(listed.count == BuiltinPolicies.definitions.count + EvictionLearned.policies.count)
    #expect(listed.contains { $0.hasPrefix("glcache ") })
  }

  @Test func theVersionIsTheChangelogsNewest() throws {
    let run = try evlab(["--version"])
    let changelog = try String(contentsOf: repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    // The newest release: an "Unreleased" section on top lists what the next one will hold.
    let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") && !$0.hasPrefix("## Unreleased") }.map {
      $0.dropFirst(3).split(separator: " ")[0]
    }
    #expect(
      newest.map { run.stdout.hasPrefix(String($0)) } == true,
      "evlab --version says \(run.stdout); CHANGELOG.md's newest is \(String(describing: newest))")
    let citation = try String(contentsOf: repositoryRoot.appendingPathComponent("CITATION.cff"), encoding: .utf8)
    #expect(newest.map { citation.contains("version: \($0)\n") } == true)
  }
}
