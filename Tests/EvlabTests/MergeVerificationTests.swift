import EvictionExperiments
import EvictionSim
import Foundation
import Testing

/// `merge` checks each result against the plan its configuration makes,
/// not only against the digests a file carries (which anyone can compute
/// again): labels, the causes of misses, and the shard numbers.
@Suite struct MergeVerificationTests {
  /// Two shards of an attributed sweep of lru and arc, loaded.
  func shards() throws -> [(path: String, partial: ComparePartial)] {
    let dir = try scratchDirectory()
    let sweep = [
      "compare", "--trace", AttributionCommandTests.zipf, "--policy", "lru,arc", "--size", "500,1000",
      "--attribution",
    ]
    for shard in 1...2 {
      let run = try evlab(sweep + ["--shard", "\(shard)/2", "-o", "s\(shard)"], in: dir)
      #expect(run.status == 0, "\(run.stderr)")
    }
    let parts = try ComparePartial.load([dir.appendingPathComponent("s1").path, dir.appendingPathComponent("s2").path])
    // As written, they merge.
    _ = try ComparePartial.merge(parts)
    return parts
  }

  /// `body` on the partials, then their digests made to match again, as
  /// someone editing the files by hand could.
  func forged(
    _ parts: [(path: String, partial: ComparePartial)], _ body: (inout ComparePartial) -> Void
  ) -> [(path: String, partial: ComparePartial)] {
    parts.map { part in
      var partial = part.partial
      body(&partial)
      partial.configDigest = ComparePartial.digest(ofConfiguration: partial.config)
      partial.countsDigest = ComparePartial.countsDigest(
        runs: partial.runs, results: partial.results, intervals: partial.intervals, traces: partial.traces,
        stress: partial.stress, disk: partial.disk)
      return (part.path, partial)
    }
  }

  func refusal(_ parts: [(path: String, partial: ComparePartial)]) -> String {
    do {
      _ = try ComparePartial.merge(parts)
      return "merged"
    } catch {
      return error.description
    }
  }

  /// The configuration edited to swap the policies, its digest computed
  /// again: arc's counts would have been published as lru's.
  @Test func aRelabelledResultIsRefused() throws {
    let parts = try shards()
    let swapped = forged(parts) {
      $0.config = $0.config.replacingOccurrences(of: "lru,arc", with: "arc,lru")
    }
    #expect(swapped[0].partial.config.contains("arc,lru"))
    let message = refusal(swapped)
    #expect(message.contains("in the configuration, but its result is labelled"), "\(message)")
    // A result's own label edited, its digest computed again.
    let relabelled = forged(parts) { partial in
      if partial.shard == 1 { partial.results[0].key.cacheSize += 1 }
    }
    #expect(refusal(relabelled).contains("is labelled"), "\(refusal(relabelled))")
  }

  /// The causes of misses are digested, and must be non-negative and add up.
  @Test func editedCausesOfMissesAreRefused() throws {
    let parts = try shards()
    // Moved between causes, the sum kept, digests as written: the digest catches it.
    var moved = parts
    moved[0].partial.results[0].attribution!.capacityMisses += 5
    moved[0].partial.results[0].attribution!.policyMisses -= 5
    #expect(refusal(moved).contains("counts do not match their digest"), "\(refusal(moved))")
    // Digests computed again: a negative cause, the sum kept.
    let negative = forged(parts) { partial in
      let policy = partial.results[0].attribution!.policyMisses
      partial.results[0].attribution!.policyMisses = -1
      partial.results[0].attribution!.capacityMisses += policy + 1
    }
    #expect(refusal(negative).contains("negative or do not add up"), "\(refusal(negative))")
    let short = forged(parts) { $0.results[0].attribution!.compulsoryBytesMissed -= 1 }
    #expect(refusal(short).contains("negative or do not add up"), "\(refusal(short))")
    let dropped = forged(parts) { $0.results[0].attribution = nil }
    #expect(refusal(dropped).contains("lacks the causes of its misses"), "\(refusal(dropped))")
  }

  /// Shard numbers out of range trapped (`1...0`); now they are named.
  @Test(arguments: [(0, 0), (1, 0), (-1, -1), (3, 2), (0, 2)])
  func shardNumbersOutOfRangeAreRefused(shard: Int, of count: Int) throws {
    let parts = try shards()
    let edited = forged(parts) { partial in
      if partial.shard == 1 { (partial.shard, partial.shards) = (shard, count) }
    }
    #expect(refusal(edited).contains("is no shard of a sweep"), "\(refusal(edited))")
  }
}
