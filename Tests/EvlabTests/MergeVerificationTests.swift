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
    // Causes relabelled as split against another reference.
    let relabelled = forged(parts) { $0.results[0].attribution!.reference = "foo" }
    #expect(refusal(relabelled).contains("attributes its misses against foo"), "\(refusal(relabelled))")
  }

  /// Counts no replay can produce, digests computed again so that only
  /// the counts themselves give the edit away.
  @Test func impossibleCountsAreRefused() throws {
    let parts = try shards()
    let objects = Int64(parts[0].partial.traces[0].uniqueObjects)
    func refusedAsImpossible(_ edit: @escaping (inout ReplayResult) -> Void) -> String {
      let edited = forged(parts) { partial in
        if partial.shard == 1 { edit(&partial.results[0]) }
      }
      return refusal(edited)
    }
    // A compulsory miss more than the trace has objects, the sum kept.
    let shifted = refusedAsImpossible { result in
      result.attribution!.compulsoryMisses += 1
      if result.attribution!.policyMisses > 0 {
        result.attribution!.policyMisses -= 1
      } else {
        result.attribution!.capacityMisses -= 1
      }
    }
    #expect(shifted.contains("compulsory misses on a trace of \(objects) objects"), "\(shifted)")
    // Fewer misses than objects (each object's first request misses),
    // every sum kept: misses, hits and bytes, and the causes.
    let few = refusedAsImpossible { result in
      let misses = objects - 1
      result.counts.hits += result.counts.misses - misses
      result.counts.misses = misses
      result.attribution!.compulsoryMisses = misses
      (result.attribution!.capacityMisses, result.attribution!.policyMisses) = (0, 0)
      result.attribution!.admissionMisses = 0
      (result.attribution!.capacityBytesMissed, result.attribution!.policyBytesMissed) = (0, 0)
      result.attribution!.admissionBytesMissed = 0
      result.counts.bytesMissed = result.attribution!.compulsoryBytesMissed
    }
    #expect(few.contains("has \(objects - 1) misses on a trace of \(objects) objects"), "\(few)")
    // Held more than its capacity, and says it did not exceed it.
    let held = refusedAsImpossible { $0.fields.maxOccupancy = $0.key.cacheSize * 10 }
    #expect(held.contains("says it kept within its capacity"), "\(held)")
    let flagged = refusedAsImpossible { $0.fields.exceedsCapacity = true }
    #expect(flagged.contains("says it exceeded its capacity"), "\(flagged)")
  }

  /// What the fourth hostile pass forged past the checks above, each with a
  /// digest computed again: bytes no request could carry, a negative count
  /// of skipped requests, hits in a cache that held nothing, and a time no
  /// run takes.
  @Test func countsNoRequestCouldCarryAreRefused() throws {
    let parts = try shards()
    let traceBytes = parts[0].partial.traces[0].bytesRequested
    func refusal(_ edit: @escaping (inout ReplayResult) -> Void) -> String {
      self.refusal(forged(parts) { partial in if partial.shard == 1 { edit(&partial.results[0]) } })
    }
    let noBytes = refusal { result in
      result.counts.bytesMissed = 0
      if result.attribution != nil {
        result.attribution!.compulsoryBytesMissed = 0
        (result.attribution!.capacityBytesMissed, result.attribution!.policyBytesMissed) = (0, 0)
        result.attribution!.admissionBytesMissed = 0
      }
    }
    #expect(noBytes.contains("every counted request has a byte at least"), "\(noBytes)")
    let negative = refusal { $0.fields.skippedZeroSize = -100_000 }
    #expect(negative.contains("-100000 skipped"), "\(negative)")
    let empty = refusal { $0.fields.maxOccupancy = 0 }
    #expect(empty.contains("never held anything"), "\(empty)")
    let manyBytes = refusal { $0.counts.bytesRequested = traceBytes + 1 }
    #expect(manyBytes.contains("more than its trace's \(traceBytes)"), "\(manyBytes)")
    for seconds in [1e300, -1, .nan, .infinity] {
      let slow = refusal { $0.fields.seconds = seconds }
      #expect(slow.contains("took \(seconds) s"), "\(slow)")
    }
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
