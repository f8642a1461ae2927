import EvictionCore
import EvictionSim
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

/// The cost-aware policies against GreedyDual written plainly here, and the
/// penalty models, the `address-penalties` reader and the penalty totals of
/// a replay.
@Suite struct CostAwareTests {
  /// GreedyDual(-Size) as Cao and Irani state it, by linear search: an
  /// object's priority is L + cost (over its weight, `perWeight`), L the
  /// last victim's priority; the lowest leaves first, ties to the one
  /// touched longest ago; a miss evicts until it fits, then is ranked.
  struct GreedyDual {
    var entries: [UInt64: (priority: Double, touched: Int, weight: Int64, cost: Double)] = [:]
    var inflation = 0.0
    var used: Int64 = 0
    let capacity: Int64
    let perWeight: Bool

    mutating func access(_ request: Request<UInt64>, penalty: Float, at time: Int) -> String {
      if let entry = entries[request.key] {
        entries[request.key] = (inflation + entry.cost, time, entry.weight, entry.cost)
        return "hit \(request.key)"
      }
      guard request.weight <= capacity else { return "miss \(request.key) refused []" }
      var evicted: [UInt64] = []
      while used + request.weight > capacity {
        let victim = entries.min { a, b in
          a.value.priority != b.value.priority ? a.value.priority < b.value.priority : a.value.touched < b.value.touched
        }!
        inflation = victim.value.priority
        used -= victim.value.weight
        entries[victim.key] = nil
        evicted.append(victim.key)
      }
      let cost = perWeight ? Double(penalty) / Double(request.weight) : Double(penalty)
      entries[request.key] = (inflation + cost, time, request.weight, cost)
      used += request.weight
      return "miss \(request.key) admitted \(evicted)"
    }
  }

  /// A request and what a miss of it costs.
  typealias Priced = (request: Request<UInt64>, penalty: Float)

  /// A Zipf-like stream of `count` requests over `objects` keys, each key
  /// with a fixed penalty drawn from `penalties` and a fixed size from `sizes`.
  static func stream(
    count: Int, objects: UInt64, seed: UInt64, penalties: ClosedRange<Int>, sizes: ClosedRange<Int64> = 1...1
  ) -> [Priced] {
    var generator = SeededGenerator(seed: seed)
    var penalty: [UInt64: Double] = [:]
    var size: [UInt64: Int64] = [:]
    return (0..<count).map { _ in
      // Squaring a uniform draw favours small keys.
      let u = Double.random(in: 0..<1, using: &generator)
      let key = UInt64(u * u * Double(objects))
      let p = penalty[key] ?? Double(Int.random(in: penalties, using: &generator))
      let s = size[key] ?? Int64.random(in: sizes, using: &generator)
      (penalty[key], size[key]) = (p, s)
      return (Request(key: key, weight: s), Float(p))
    }
  }

  static func greedyDualLog(_ requests: [Priced], capacity: Int64, perWeight: Bool) -> [String] {
    var model = GreedyDual(capacity: capacity, perWeight: perWeight)
    return requests.enumerated().map { model.access($1.request, penalty: $1.penalty, at: $0) }
  }

  /// What `spec` does with each request, told each one's penalty first.
  static func replayLog(_ spec: String, _ requests: [Priced], capacity: Int64) throws -> [String] {
    try S4FIFOTests.replayLog(
      spec, requests.map(\.request), capacity: capacity, penalties: requests.map(\.penalty))
  }

  @Test(arguments: [(1, 1), (1, 7), (25, 40)] as [(Int64, Int64)])
  func campAtFullPrecisionIsGreedyDualSize(minimumSize: Int64, maximumSize: Int64) throws {
    let requests = Self.stream(
      count: 20_000, objects: 800, seed: 3, penalties: 0...1_000, sizes: minimumSize...maximumSize)
    for capacity: Int64 in [50, 400] {
      let bytes = capacity * (minimumSize + maximumSize) / 2
      #expect(
        try Self.replayLog("camp:precision=53", requests, capacity: bytes)
          == Self.greedyDualLog(requests, capacity: bytes, perWeight: true))
    }
  }

  /// Rounding to fewer bits changes decisions (the point of the parameter),
  /// and keeps every one of them GreedyDual's over the rounded ratios.
  @Test func campRoundsRatiosToItsPrecision() throws {
    #expect(CAMPPolicy<IntegerSlotIndex<UInt64>>.rounded(1_000, precision: 3) == 896)  // 0b1111101000 → 0b1110000000
    #expect(CAMPPolicy<IntegerSlotIndex<UInt64>>.rounded(7, precision: 3) == 7)
    #expect(CAMPPolicy<IntegerSlotIndex<UInt64>>.rounded(0.3, precision: 53) == 0.3)
    #expect(CAMPPolicy<IntegerSlotIndex<UInt64>>.rounded(.infinity, precision: 5) == .greatestFiniteMagnitude)
    let requests = Self.stream(count: 20_000, objects: 800, seed: 5, penalties: 1...100_000)
    let rounded = requests.map { priced in
      (priced.request, Float(CAMPPolicy<IntegerSlotIndex<UInt64>>.rounded(Double(priced.penalty), precision: 3)))
    }
    let camp = try Self.replayLog("camp:precision=3", requests, capacity: 100)
    #expect(camp == Self.greedyDualLog(rounded, capacity: 100, perWeight: true))
    #expect(camp != Self.greedyDualLog(requests, capacity: 100, perWeight: true))
  }

  /// Costs the lowest wheel holds (below half its queues) leave in
  /// GreedyDual's order exactly, in either size mode (sizes do not rank).
  @Test(arguments: [(1, 1), (10, 90)] as [(Int64, Int64)])
  func gdWheelIsGreedyDualForSmallCosts(minimumSize: Int64, maximumSize: Int64) throws {
    let requests = Self.stream(
      count: 20_000, objects: 800, seed: 11, penalties: 0...127, sizes: minimumSize...maximumSize)
    for capacity: Int64 in [40, 300] {
      let bytes = capacity * (minimumSize + maximumSize) / 2
      #expect(
        try Self.replayLog("gdwheel", requests, capacity: bytes)
          == Self.greedyDualLog(requests, capacity: bytes, perWeight: false))
    }
  }

  /// Without penalties every object costs 1, and both policies are LRU.
  @Test(arguments: ["camp", "camp:precision=53", "gdwheel", "gdwheel:wheels=1,queues=2"])
  func withoutPenaltiesTheyAreLRU(spec: String) throws {
    let requests = Self.stream(count: 20_000, objects: 2_000, seed: 7, penalties: 1...1).map(\.request)
    for capacity: Int64 in [10, 200] {
      #expect(
        try S4FIFOTests.replayLog(spec, requests, capacity: capacity)
          == S4FIFOTests.replayLog("lru", requests, capacity: capacity))
    }
  }

  /// Two wheels of four queues, worked by hand: a cost of 9 waits on the
  /// second wheel, a cost of 2 moves down to the first when the lowest hand
  /// turns, and leaves behind the cost-1 objects placed before it arrived.
  @Test func gdWheelMovesCostsDownAsTheHandTurns() throws {
    let costs: [(UInt64, Float)] = [(1, 1), (2, 9), (3, 2), (4, 1), (5, 1), (6, 1), (7, 1), (8, 1), (9, 1)]
    let requests = costs.map { (Request<UInt64>(key: $0.0), $0.1) }
    let log = try Self.replayLog("gdwheel:wheels=2,queues=4", requests, capacity: 3)
    #expect(
      log == [
        "miss 1 admitted []", "miss 2 admitted []", "miss 3 admitted []", "miss 4 admitted [1]",
        "miss 5 admitted [4]", "miss 6 admitted [5]", "miss 7 admitted [6]", "miss 8 admitted [7]",
        "miss 9 admitted [3]",
      ])
  }

  /// Costs spread over three small wheels: the structure holds at every
  /// step, and the costliest objects outlive the cheap ones.
  @Test func gdWheelKeepsItsStructureOverThreeWheels() throws {
    let requests = Self.stream(count: 30_000, objects: 3_000, seed: 13, penalties: 0...200)
    var visitor = BoxingVisitor<UInt64>()
    let policy = try PolicySpec("gdwheel:wheels=3,queues=4").withPolicy(
      capacity: 300, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor)
    var hits = (cheap: 0.0, dear: 0.0)
    var requested = (cheap: 0.0, dear: 0.0)
    for (n, (request, penalty)) in requests.enumerated() {
      if penalty < 20 { requested.cheap += 1 } else if penalty > 180 { requested.dear += 1 }
      policy.willServe(penalty)
      if policy.lookup(request, { _, _ in }) != nil {
        if penalty < 20 { hits.cheap += 1 } else if penalty > 180 { hits.dear += 1 }
      } else {
        _ = policy.admit(request) { _, _ in }
      }
      if n % 101 == 0 { policy.checkInvariants() }
    }
    #expect(policy.count() == 300)
    // Its wheels' queue heads count as the policy's own memory.
    #expect(policy.sketchBytes() == 3 * 4 * MemoryLayout<EntryList>.stride + 3 * MemoryLayout<Int>.stride)
    // About a tenth of the keys each way; dear ones are held longer.
    let (cheap, dear) = (hits.cheap / requested.cheap, hits.dear / requested.dear)
    #expect(dear > 1.5 * cheap, "hit ratio of the dear \(dear), of the cheap \(cheap)")
  }

  // MARK: - Penalty models and totals

  @Test func penaltyModelsReadAndSpellBack() throws {
    #expect(try PenaltyModel(parsing: "trace") == .trace)
    #expect(try PenaltyModel(parsing: "100") == .constant(miss: 100, hit: 0))
    #expect(try PenaltyModel(parsing: "constant:miss=2.5,hit=1") == .constant(miss: 2.5, hit: 1))
    #expect(
      try PenaltyModel(parsing: "size:base=1000,per-byte=0.01") == .size(base: 1_000, perByte: 0.01, hit: 0))
    #expect(PenaltyModel.size(base: 1_000, perByte: 0.01, hit: 0).description == "size:base=1000,per-byte=0.01,hit=0")
    for model in [PenaltyModel.trace, .constant(miss: 2.5, hit: 1), .size(base: 3, perByte: 0.5, hit: 2)] {
      #expect(try PenaltyModel(parsing: model.description) == model)
    }
    for (bad, says) in [
      ("-1", "0 to 1e15"), ("nan", "0 to 1e15"), ("1e16", "0 to 1e15"), ("constant", "needs miss"),
      ("constant:hit=1", "needs miss"), ("constant:miss=1,miss=2", "twice"), ("size:base=1", "needs per-byte"),
      ("size:per-byte=x", "not a number"), ("trace:miss=1", "not miss"), ("latency", "unknown"),
      ("constant:miss", "key=value"),
    ] {
      #expect(throws: TraceError.self, "\(bad)") { try PenaltyModel(parsing: bad) }
      do { _ = try PenaltyModel(parsing: bad) } catch {
        #expect(error.description.contains(says), "\(bad): \(error)")
      }
    }
    let record = TraceRecord(key: 1, size: 4_096)
    #expect(PenaltyModel.trace.penalties(of: record, traced: (2, 70)) == (2, 70))
    #expect(PenaltyModel.size(base: 100, perByte: 0.5, hit: 1).penalties(of: record, traced: (2, 70)) == (1, 2_148))
  }

  static let gcc = SharedData.trace("caffeine/address/penalties/gcc.trace.xz")

  @Test func addressPenaltiesAreRead() throws {
    let trace = TraceSource(path: Self.gcc, format: .addressPenalties)
    let records = try trace.open().readAll()
    #expect(records.prefix(3).map { $0.key } == [0x1fff_ff50, 0x1fff_ff58, 0x1fff_ff88])
    let penalties = try #require(try openPenalties(trace.path, format: trace.format)).readAll()
    #expect(penalties.count == records.count)
    #expect(penalties.prefix(3).map { TracePenalty.unpacked($0.key).hit } == [1, 1, 1])
    #expect(penalties.prefix(3).map { TracePenalty.unpacked($0.key).miss } == [100, 100, 10])
    #expect(TracePenalty.unpacked(TracePenalty.packed(hit: 2.5, miss: 1e20)) == (2.5, 1e20))
    // Other formats carry none.
    #expect(try openPenalties(SharedData.trace("caffeine/address/gcc.trace.gz"), format: .address) == nil)
    let scratch = try Scratch.directory("penalties")
    for (line, says) in [
      ("l 0x10 1 1", "found 4 fields"), ("l 0x10 1 1 -3", "miss penalty '-3'"), ("l 0x10 1 x 3", "hit penalty 'x'"),
      ("l 0x10 1 1 inf", "miss penalty 'inf'"), ("q 0x10 1 1 1", "unknown operation"),
    ] {
      let file = scratch.appendingPathComponent("bad.address-penalties")
      try "l 0x20 1 1 2.5\n\(line)\n".write(to: file, atomically: true, encoding: .utf8)
      let source = try TraceSource(checking: file.path, formatName: nil)
      #expect(source.format == .addressPenalties)
      #expect(throws: TraceError.self) { _ = try source.open().readAll() }
      do { _ = try source.open().readAll() } catch {
        #expect(error.description.contains(":2:") && error.description.contains(says), "\(error)")
      }
    }
  }

  /// A replay's totals are each counted request's hit or miss penalty,
  /// summed here from the same policy's hits.
  @Test(arguments: ["lru", "camp", "gdwheel", "belady"])
  func replayTotalsArePaidPerRequest(policy: String) throws {
    let trace = TraceSource(path: Self.gcc, format: .addressPenalties)
    let result = try TraceReplay.run(
      trace, policy: PolicySpec(policy), cacheSize: 2_000, sizeMode: .count, penalty: .trace)
    var visitor = BoxingVisitor<UInt64>()
    var box = BoxedPolicy(
      try PolicySpec(policy).withPolicy(capacity: 2_000, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor))
    var paid = (hit: 0.0, miss: 0.0)
    var hits: Int64 = 0
    let records = try trace.open().readAll()
    let penalties = try #require(try openPenalties(trace.path, format: trace.format)).readAll().map {
      TracePenalty.unpacked($0.key)
    }
    var next: [UInt64: Int64] = [:]
    var nextAccess = [Int64](repeating: Request<UInt64>.never, count: records.count)
    for (i, record) in records.enumerated().reversed() {
      nextAccess[i] = next[record.key] ?? Request<UInt64>.never
      next[record.key] = Int64(i + 1)
    }
    for (i, record) in records.enumerated() {
      let (hit, miss) = penalties[i]
      box.willServe(penalty: miss)
      if box.access(Request(key: record.key, time: Int64(i + 1), nextAccess: nextAccess[i])) {
        hits += 1
        paid.hit += Double(hit)
      } else {
        paid.miss += Double(miss)
      }
    }
    #expect(result.hits == hits)
    #expect(result.fields.penaltyModel == "trace")
    #expect(result.fields.hitPenalty == paid.hit)
    #expect(result.fields.missPenalty == paid.miss)
    #expect(result.fields.totalPenalty == paid.hit + paid.miss)
    #expect(result.fields.averagePenalty == (paid.hit + paid.miss) / Double(records.count))
  }

  /// The cost-aware policies keep what is dear to fetch: on gcc with its
  /// penalties they pay less in all than LRU, though they miss more often.
  @Test func costAwarePoliciesPayLessOnGcc() throws {
    let trace = TraceSource(path: Self.gcc, format: .addressPenalties)
    func replay(_ policy: String) throws -> ReplayResult {
      try TraceReplay.run(trace, policy: PolicySpec(policy), cacheSize: 1_000, sizeMode: .count, penalty: .trace)
    }
    let (lru, camp, gdwheel) = (try replay("lru"), try replay("camp"), try replay("gdwheel"))
    #expect(camp.totalPenalty! < lru.totalPenalty!, "camp \(camp.totalPenalty!) lru \(lru.totalPenalty!)")
    #expect(gdwheel.totalPenalty! < lru.totalPenalty!, "gdwheel \(gdwheel.totalPenalty!) lru \(lru.totalPenalty!)")
    #expect(camp.misses > lru.misses && gdwheel.misses > lru.misses)
    // Without penalties they are LRU, to the miss.
    let plain = try TraceReplay.run(trace, policy: PolicySpec("camp"), cacheSize: 1_000, sizeMode: .count)
    #expect(plain.misses == lru.misses)
    #expect(plain.fields.penaltyModel == nil && plain.fields.totalPenalty == nil)
  }

  @Test func theTraceModelNeedsATraceWithPenalties() throws {
    let trace = TraceSource(
      path: SharedData.trace("caffeine/address/gcc.trace.gz"), format: .address)
    #expect(throws: TraceError.self) {
      _ = try TraceReplay.run(trace, policy: PolicySpec("lru"), cacheSize: 100, sizeMode: .count, penalty: .trace)
    }
    do {
      _ = try TraceReplay.run(trace, policy: PolicySpec("lru"), cacheSize: 100, sizeMode: .count, penalty: .trace)
    } catch { #expect("\(error)".contains("address-penalties"), "\(error)") }
    // A constant needs nothing of the trace: every miss costs it.
    let constant = try TraceReplay.run(
      trace, policy: PolicySpec("lru"), cacheSize: 100, sizeMode: .count, penalty: .constant(miss: 3, hit: 0.5))
    #expect(constant.fields.missPenalty == 3 * Double(constant.misses))
    #expect(constant.fields.hitPenalty == 0.5 * Double(constant.hits))
  }
}
