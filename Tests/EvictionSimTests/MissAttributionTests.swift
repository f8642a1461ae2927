import EvictionCore
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionSim

/// Miss attribution against Belady: each category counted as by hand, the
/// categories adding up for every policy, and the plain replay untouched.
@Suite struct MissAttributionTests {
  /// A CSV trace of `keys`, each key `k` of size 10·k.
  static func trace(_ keys: [UInt64]) throws -> TraceSource {
    let path = Scratch.path("attribution", suffix: ".csv")
    let writer = try TraceWriter(path: path, format: .csv)
    try writer.write(
      keys.enumerated().map { TraceRecord(key: $0.element, size: 10 * Int64($0.element), time: Int64($0.offset)) })
    try writer.finish()
    return TraceSource(path: path, format: .csv)
  }

  static func attributed(
    _ trace: TraceSource, _ policy: String, size: Int64, sizeMode: SizeMode = .count,
    admission: AdmissionSpec = .none, window: ReplayWindow = ReplayWindow()
  ) throws -> ReplayResult {
    let reference = try AttributionReference.make(trace, cacheSize: size, sizeMode: sizeMode, window: window)
    return try TraceReplay.run(
      trace, policy: PolicySpec(policy), cacheSize: size, sizeMode: sizeMode, admission: admission, window: window,
      attributingAgainst: reference)
  }

  // 1 2 3 1 2 3 at two objects. LRU misses all six. Belady keeps 1 and 3
  // at request 3 (2 comes back last), then 3 and 2 at request 5: it hits
  // requests 4 and 6. So LRU's misses at 4 and 6 are its own; at 5, Belady's too.
  @Test func aHandCountedTraceSplitsAsCountedByHand() throws {
    let trace = try Self.trace([1, 2, 3, 1, 2, 3])
    let lru = try Self.attributed(trace, "lru", size: 2)
    let a = try #require(lru.attribution)
    #expect(lru.misses == 6)
    #expect(a.reference == "belady")
    #expect((a.compulsoryMisses, a.capacityMisses, a.policyMisses, a.admissionMisses) == (3, 1, 2, 0))
    #expect((a.compulsoryBytesMissed, a.capacityBytesMissed, a.policyBytesMissed) == (60, 20, 40))
    #expect(a.bytesMissed == lru.bytesMissed)

    // Each avoidable miss is charged to the eviction that removed its
    // object: 3 was evicted at request 5 (for 2), 1 at request 3 (for 3).
    let regret = try #require(lru.regret)
    #expect(regret.costliest.map(\.key) == [3, 1])
    #expect(regret.costliest.map(\.evictedAt) == [5, 3])
    #expect(regret.costliest.map(\.evictedFor) == [2, 3])
    #expect(regret.costliest.map(\.misses) == [1, 1])
    #expect(regret.costliest.map(\.bytesMissed) == [30, 10])
    // What LRU held of each at the start of the evicting request: both resident.
    let described = try regret.withStates(trace, policy: PolicySpec("lru"), cacheSize: 2, sizeMode: .count)
    #expect(described.costliest.map(\.state) == ["resident", "resident"])
    #expect(regret.costliest.allSatisfy { $0.state == nil })
    // Reuse distance 3 for each repeat: the class from 2 holds all three.
    let byReuse = regret.byReuseDistance.filter { $0.requests > 0 }
    #expect(byReuse.map(\.from) == [2])
    #expect(byReuse.map(\.policy) == [2])
    #expect(byReuse.map(\.capacity) == [1])

    let belady = try Self.attributed(trace, "belady", size: 2)
    let b = try #require(belady.attribution)
    #expect((b.compulsoryMisses, b.capacityMisses, b.policyMisses) == (3, 1, 0))
  }

  @Test func warmUpMissesAreNotAttributed() throws {
    let trace = try Self.trace([1, 2, 3, 1, 2, 3])
    let lru = try Self.attributed(trace, "lru", size: 2, window: ReplayWindow(warmup: .requests(3)))
    let a = try #require(lru.attribution)
    #expect(lru.requests == 3)
    #expect((a.compulsoryMisses, a.capacityMisses, a.policyMisses) == (0, 1, 2))
  }

  // 1 2 1 2 1 2 behind a Bloom filter: each object is turned away at its
  // first miss and admitted at its second; Belady holds both throughout.
  @Test func aMissTurnedAwayByAdmissionIsItsOwnCause() throws {
    let trace = try Self.trace([1, 2, 1, 2, 1, 2])
    let lru = try Self.attributed(trace, "lru", size: 2, admission: try AdmissionSpec("bloom-filter"))
    let a = try #require(lru.attribution)
    #expect(lru.misses == 4)
    #expect((a.compulsoryMisses, a.capacityMisses, a.policyMisses, a.admissionMisses) == (2, 0, 0, 2))
  }

  static let zipf = TraceSource(
    path: SharedData.repository.appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path,
    format: .oracleGeneral)

  static let cloudPhysicsIO = TraceSource(
    path: SharedData.path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin"), format: .oracleGeneral)

  /// Every catalog policy that runs at 500 objects, on the zipf trace and cloudPhysicsIO: the attributed replay
  /// counts exactly what the plain one does, its causes add up to its
  /// misses, compulsory misses are the distinct objects, and Belady's own
  /// misses are all compulsory or capacity.
  @Test(arguments: [zipf, cloudPhysicsIO])
  func causesAddUpForEveryPolicy(trace: TraceSource) throws {
    let reference = try AttributionReference.make(trace, cacheSize: 500, sizeMode: .count, window: ReplayWindow())
    let distinct = Int64(try TraceInfo.footprint(trace).objects)
    for entry in PolicyCatalog.entries {
      let spec = try PolicySpec(entry.name)
      guard spec.minimumCapacity <= 500 else { continue }
      let plain = try TraceReplay.run(trace, policy: spec, cacheSize: 500, sizeMode: .count)
      let attributed = try TraceReplay.run(
        trace, policy: spec, cacheSize: 500, sizeMode: .count, attributingAgainst: reference)
      let a = try #require(attributed.attribution)
      #expect(attributed.counts == plain.counts, "\(entry.name): the attributed replay counts differently")
      #expect(a.misses == plain.misses, "\(entry.name): causes add up to \(a.misses), not \(plain.misses)")
      #expect(a.bytesMissed == plain.bytesMissed, "\(entry.name)")
      #expect(a.compulsoryMisses == distinct, "\(entry.name)")
      // Whenever LRU hits, Belady hits too: an object reused within C
      // distinct objects always has C others requested later than it, so
      // it is never the farthest. LRU's capacity misses are Belady's.
      if entry.name == "lru" { #expect(a.capacityMisses == reference.misses - distinct) }
      if entry.name == "belady" {
        #expect(a.policyMisses == 0)
        #expect(a.capacityMisses == plain.misses - distinct)
        #expect(reference.misses == plain.misses)
      }
    }
  }

  /// Byte mode, behind admission policies: the same counts as the plain
  /// replay, and causes that add up in misses and in bytes.
  @Test(arguments: ["none", "size:max=64k", "bloom-filter", "tinylfu"])
  func causesAddUpInByteModeBehindAdmission(admission: String) throws {
    let size: Int64 = 4 << 20
    let reference = try AttributionReference.make(
      Self.cloudPhysicsIO, cacheSize: size, sizeMode: .bytes, window: ReplayWindow())
    let gate = try AdmissionSpec(admission)
    for name in ["lru", "s3fifo", "gdsf", "belady"] {
      let spec = try PolicySpec(name)
      // TinyLFU rates a miss against each victim: it cannot sit in front of
      // a policy that does not name them, and replay says so.
      guard admission != "tinylfu" || spec.descriptor.approvesVictims else {
        #expect(throws: TraceError.self) {
          try TraceReplay.run(Self.cloudPhysicsIO, policy: spec, cacheSize: size, sizeMode: .bytes, admission: gate)
        }
        continue
      }
      let plain = try TraceReplay.run(
        Self.cloudPhysicsIO, policy: spec, cacheSize: size, sizeMode: .bytes, admission: gate)
      let attributed = try TraceReplay.run(
        Self.cloudPhysicsIO, policy: spec, cacheSize: size, sizeMode: .bytes, admission: gate,
        attributingAgainst: reference)
      let a = try #require(attributed.attribution)
      #expect(attributed.counts == plain.counts, "\(name) behind \(admission)")
      #expect(a.misses == plain.misses && a.bytesMissed == plain.bytesMissed, "\(name) behind \(admission)")
      // Without a gate nothing is turned away; a Bloom filter turns away every first miss.
      if admission == "none" { #expect(a.admissionMisses == 0, "\(name)") }
      if admission == "bloom-filter" { #expect(a.admissionMisses > 0, "\(name)") }
    }
  }

  /// The costliest evictions kept on the way are those of a run that keeps
  /// every eviction and sorts them at the end (byte mode, where costs differ).
  @Test func theCostliestEvictionsAreTheTopOfAllOfThem() throws {
    let size: Int64 = 4 << 20
    let reference = try AttributionReference.make(Self.zipf, cacheSize: size, sizeMode: .bytes, window: ReplayWindow())
    func regret(kept: Int) throws -> [Regret.Eviction] {
      var box = try PolicySpec("lru").integerBox(capacity: size)
      var run = AttributedReplay(reference: reference, admission: false, kept: kept)
      _ = try run.replay(
        Self.zipf, through: &box, sizeMode: .bytes, window: ReplayWindow(), needsNextAccess: false, progress: nil)
      return run.regret.costliest
    }
    let top = try regret(kept: Regret.kept)
    let all = try regret(kept: Int.max / 4)
    #expect(all.count > 10_000)
    #expect(top == Array(all.prefix(Regret.kept)))
    #expect(zip(all, all.dropFirst()).allSatisfy { !Regret.ranks($1, before: $0) })
  }

  @Test func attributionWithIntervalsIsRefused() throws {
    let trace = try Self.trace([1, 2, 3, 1, 2, 3])
    #expect(throws: TraceError.self) {
      try Self.attributed(trace, "lru", size: 2, window: ReplayWindow(interval: .requests(2)))
    }
  }

  /// A sweep computes each size's reference once, however many policies share it.
  @Test func aSweepAttributesEveryCell() throws {
    var cells = try ReplayCell.grid(
      [Self.zipf], policies: PolicySpec.list("lru,arc"), sizes: [.absolute(500), .absolute(1000)], sizeMode: .count)
    for i in cells.indices { cells[i].attribution = true }
    let results = try TraceReplay.runAll(cells, parallelism: 2)
    for r in results {
      let a = try #require(r.attribution)
      #expect(a.misses == r.misses)
    }
    // A larger cache of the same policy leaves fewer capacity misses.
    #expect(results[1].attribution!.capacityMisses < results[0].attribution!.capacityMisses)
  }

  @Test func theLifeOfAKeyFollowsItsRequests() throws {
    let trace = try Self.trace([1, 2, 3, 1, 2, 3])
    let lru = try KeyHistory.record(trace, policy: PolicySpec("lru"), cacheSize: 2, sizeMode: .count, key: 1)
    // Requested at 1 and 4, evicted at 3 (for 3) and at 6 (for 3 again).
    #expect(lru.events.map(\.position) == [1, 3, 4, 6])
    #expect(lru.events.map(\.hit) == [false, nil, false, nil])
    #expect(lru.events.map(\.evicted) == [false, true, false, true])
    #expect(lru.events.map(\.requested) == [1, 3, 1, 3])
    let belady = try KeyHistory.record(trace, policy: PolicySpec("belady"), cacheSize: 2, sizeMode: .count, key: 1)
    #expect(belady.events.first?.after == "next request 4")
    #expect(belady.events.map(\.hit).compactMap { $0 } == [false, true])

    let around = try KeyHistory.record(
      trace, policy: PolicySpec("lru"), cacheSize: 2, sizeMode: .count, key: 0, around: 4)
    #expect(around.requestedAround == 1)
    #expect(around.lists?.first?.count == 2)
    #expect(Set((around.lists?.first?.front ?? [])) == [2, 3])
  }
}
