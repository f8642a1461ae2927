import EvictionTestSupport
import Foundation
import Testing

/// `evlab bounds` as a user runs it: the band, its provenance, the limits it keeps.
@Suite struct BoundsCommandTests {
  /// Two 2-byte objects in turn, then a third never requested again: FOO-L
  /// caches 3 of the 4 bytes either needs (2.5 misses beyond the three
  /// objects' first requests), FOO-U only one whole object.
  static func handTrace() throws -> URL {
    let dir = try scratchDirectory()
    try "key,size\n1,2\n2,2\n1,2\n2,2\n3,5\n".write(
      to: dir.appendingPathComponent("two.csv"), atomically: true, encoding: .utf8)
    return dir
  }

  @Test func printsEveryBoundWithItsKindAndProvenance() throws {
    let dir = try Self.handTrace()
    let run = try evlab(
      ["bounds", "two.csv", "--size-mode", "bytes", "--size", "3", "--methods", "foo,pfoo-l,pfoo-u", "--json", "-"],
      in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let provenance = try #require(object["provenance"] as? [String: Any])
    #expect(provenance["version"] != nil && (provenance["command"] as? String)?.contains("bounds") == true)
    let results = try #require(object["results"] as? [[String: Any]])
    let misses = Dictionary(
      uniqueKeysWithValues: results.map { ($0["bound"] as! String, $0["misses"] as! Double) })
    #expect(misses == ["foo-l": 3.5, "foo-u": 4, "pfoo-l": 3, "pfoo-u": 4])
    #expect(
      results.allSatisfy { ($0["kind"] as? String) == (($0["bound"] as! String).hasSuffix("-l") ? "lower" : "upper") })
    #expect(results.allSatisfy { $0["requests"] as? Int == 5 && $0["objects"] as? Int == 3 })
  }

  @Test func csvHasTheDocumentedColumns() throws {
    let dir = try Self.handTrace()
    let run = try evlab(["bounds", "two.csv", "--size-mode", "bytes", "--size", "3", "--csv", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stdout.split(separator: "\n").first
        == "trace,size_mode,cache_size,bound,kind,requests,objects,misses,miss_ratio,seconds")
    // Up to --foo-limit requests the default is FOO and PFOO-L.
    #expect(rows(run.stdout).map { $0["bound"]! } == ["foo-l", "foo-u", "pfoo-l"])
  }

  @Test(arguments: [
    (["--methods", "foo", "--foo-limit", "4"], "past --foo-limit 4"),
    (["--methods", "opt"], "--methods 'opt'"),
    (["--requests", "0"], "--requests 0"),
    (["--step", "1"], "--step 1"),
    (["--foo-limit", "0"], "--foo-limit 0"),
    (["--csv", "two.csv"], "two.csv"),
  ])
  func refusesWhatItCannotDo(extra: [String], message: String) throws {
    let dir = try Self.handTrace()
    let run = try evlab(["bounds", "two.csv", "--size-mode", "bytes", "--size", "3"] + extra, in: dir)
    #expect(run.status != 0)
    #expect(run.stderr.contains(message), "\(run.stderr)")
    // The trace is never overwritten.
    #expect(try String(contentsOf: dir.appendingPathComponent("two.csv"), encoding: .utf8).hasPrefix("key,size"))
  }

  /// Past --foo-limit without --methods, the long-trace pair runs instead.
  @Test func pastTheLimitTheDefaultIsPFOO() throws {
    let dir = try Self.handTrace()
    let run = try evlab(
      ["bounds", "two.csv", "--size-mode", "bytes", "--size", "3", "--foo-limit", "4", "--csv", "-"], in: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(rows(run.stdout).map { $0["bound"]! } == ["pfoo-l", "pfoo-u"])
    // --requests bounds a prefix: the first four requests fit the limit.
    let prefix = try evlab(
      [
        "bounds", "two.csv", "--size-mode", "bytes", "--size", "3", "--foo-limit", "4", "--requests", "4", "--csv", "-",
      ],
      in: dir)
    #expect(prefix.status == 0, "\(prefix.stderr)")
    #expect(rows(prefix.stdout).first?["misses"] == "2.5" && rows(prefix.stdout).first?["requests"] == "4")
  }
}
