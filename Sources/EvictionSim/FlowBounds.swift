import CFlow
import EvictionRun
import EvictionTraces

/// A trace as FOO reads it: each request's object size and where its
/// object is requested next.
public struct FlowIntervals: Sendable {
  /// The request's size: 1 in count mode, its bytes in byte mode.
  public internal(set) var sizes: [Int64] = []
  /// The position of the next request of the same object (key and size), or -1.
  public internal(set) var next: [Int32] = []
  /// Objects (key and size) requested: the compulsory misses.
  public internal(set) var objects: Int64 = 0

  public var count: Int { sizes.count }

  /// The most requests FOO's graph can number (LEMON's ids are `Int32`).
  public static var maximumRequests: Int { Int(Int32.max) / 2 }

  /// What reading a trace of `requests` requests keeps, in bytes.
  public static func footprint(requests: Int64) -> Int64 {
    // sizes and next (12), the backward pass's table (about 40 per object, at most one per request).
    requests * 52
  }

  public init(sizes: [Int64], next: [Int32], objects: Int64) {
    self.sizes = sizes
    self.next = next
    self.objects = objects
  }

  /// Reads `trace` in `sizeMode`, its first `limit` requests if given.
  public static func read(
    _ trace: TraceSource, sizeMode: SizeMode, limit: Int64? = nil, progress: ReplayProgress? = nil
  ) throws(TraceError) -> FlowIntervals {
    var keys: [UInt64] = []
    var sizes: [Int64] = []
    let countMode = sizeMode == .count
    _ = try trace.forEachBatch(limit: limit, progress: progress) { records, tile throws(TraceError) in
      guard keys.count + records.count <= maximumRequests else {
        throw .invalidOption(
          "\(trace.path) has more than \(maximumRequests) requests, the most a flow bound numbers; "
            + "bound its first requests (--requests) or a sample of it")
      }
      for record in records {
        keys.append(record.key &+ tile.idOffset)
        sizes.append(countMode ? 1 : record.size)
      }
    }
    if keys.isEmpty { throw .emptyTrace(path: trace.path) }
    return FlowIntervals(keys: keys, sizes: sizes)
  }

  /// Links each request to the next of its object, by a backward pass.
  public init(keys: [UInt64], sizes: [Int64]) {
    struct Object: Hashable {
      let key: UInt64
      let size: Int64
    }
    precondition(keys.count == sizes.count && keys.count <= Self.maximumRequests)
    var next = [Int32](repeating: -1, count: keys.count)
    var seen: [Object: Int32] = [:]
    for i in stride(from: keys.count - 1, through: 0, by: -1) {
      let object = Object(key: keys[i], size: sizes[i])
      if let later = seen.updateValue(Int32(i), forKey: object) { next[i] = later }
    }
    self.init(sizes: sizes, next: next, objects: Int64(seen.count))
  }
}

/// Bounds on the fewest misses any cache of a given size can have on a
/// trace, for objects of different sizes, after Berger, Beckmann and
/// Harchol-Balter, "Practical Bounds on Optimal Caching with Variable Object
/// Sizes" (SIGMETRICS 2018).
///
/// Each request that has a next request of the same object opens an
/// *interval*, which ends at that next request. Caching the object over the
/// whole interval makes the next request a hit. At every moment between two
/// requests, the intervals cached must fit in the cache. Choosing how much of
/// each interval to cache is a min-cost flow (FOO): the requests form a
/// path whose arcs carry the cached bytes (capacity: the cache size, cost
/// 0), and each interval has an arc of its own from its first request to its
/// last that carries its uncached bytes (capacity: the object's size, cost:
/// one miss per size bytes).
///
/// - **FOO-L** is the flow's cost, with the misses of requests outside it
///   (first requests): the fewest misses if an object could be cached in
///   part, so no cache misses less (a lower bound).
/// - **FOO-U** counts a miss wherever the flow leaves any byte of an
///   interval uncached: that schedule caches whole objects only and fits
///   the cache at every moment, so a cache can do at least as well (an
///   upper bound on the optimum). For equal sizes the flow is whole and
///   FOO-L = FOO-U = Belady with bypass.
/// - **PFOO-L** keeps only the cache's total space-time: the intervals with
///   the least `size × length` first, as many as fit in
///   `cache size × (requests − 1)`.
///   A weaker lower bound, in O(n log n) for traces FOO cannot solve.
/// - **PFOO-U** solves FOO on bands of intervals by utility (one miss per
///   `size × length`), the best first, each band with what the ones before
///   left: a schedule of whole objects, so an upper bound, on traces too
///   long for FOO.
///
/// An object is a key at one size: a request of a key at another size is a
/// new object (what was cached is stale), as in the authors' tools. An
/// object larger than the cache is never cached, even in part (the authors'
/// FOO lets the flow cache part of it; `cachesPartOfLargerObjects`). Time is
/// the request's position, as for every offline policy here.
public enum FlowBound {
  /// The most requests FOO solves unless told otherwise: about half a
  /// minute and 100 MiB (results/bounds/).
  public static var defaultFOOLimit: Int { 250_000 }

  /// About how long FOO takes on `requests` requests, in words: the
  /// simplex's time grows about as the square of the trace's length (5 s
  /// for 114,000 requests, 15 minutes for 1,000,000 on this project's
  /// 2-core machine; results/bounds/).
  public static func describeFOOTime(requests: Int) -> String {
    let seconds = fooSecondsPerSquaredRequest * Double(requests) * Double(requests)
    if seconds < 120 { return "\(Int(seconds.rounded(.up))) s" }
    if seconds < 7200 { return "\(Int((seconds / 60).rounded(.up))) min" }
    return "\(Int((seconds / 3600).rounded(.up))) h"
  }

  /// FOO's seconds over its requests squared.
  static var fooSecondsPerSquaredRequest: Double { 6e-10 }

  /// Bytes LEMON's network simplex and the graph take per request (one node
  /// and two arcs each), with room to spare: a million requests peaked at
  /// 366 MB.
  public static func fooFootprint(requests: Int64) -> Int64 { requests * 400 }

  /// An optimal flow, and which requests its whole-object schedule hits.
  public struct Solution: Sendable {
    /// FOO-L: the misses of requests outside the flow (first requests, and
    /// those of objects left out) and the flow's cost, fractional.
    public var lower: Double
    /// Whether each request is a hit of the schedule (its interval wholly cached).
    public var hits: [Bool]
    /// Misses of the schedule.
    public var misses: Int64
  }

  /// FOO on `intervals` at `capacity`, or on those with `include` true
  /// (PFOO-U's bands), each inner arc's capacity less `reserved` at that
  /// request when given. Objects larger than the cache are left out of the
  /// flow unless `cachesPartOfLargerObjects` (the authors' tool keeps them,
  /// which loosens FOO-L).
  public static func foo(
    _ intervals: FlowIntervals, capacity: Int64, include: ((Int) -> Bool)? = nil, reserved: [Int64]? = nil,
    cachesPartOfLargerObjects: Bool = false
  ) throws(TraceError) -> Solution {
    let n = intervals.count
    var sources: [Int32] = []
    var targets: [Int32] = []
    var capacities: [Int64] = []
    var costs: [Double] = []
    var supplies: [Int64] = [0]
    // The node and arc of each open interval, by its end's position.
    var opened = [Int32](repeating: -1, count: n)
    var outerArc = [Int32](repeating: -1, count: n)
    var current: Int32 = 0
    var hasOpen = [Bool](repeating: false, count: n)
    // The path's last arc, whose capacity waits for the next opening: it
    // stands for every gap until then, so it gets the room the fullest of
    // them leaves (PFOO-U's fixed intervals may open in between).
    var pending = -1
    var fullest: Int64 = 0
    func close() {
      if pending >= 0 { capacities[pending] = max(0, capacity - fullest) }
    }
    sources.reserveCapacity(2 * n)
    targets.reserveCapacity(2 * n)
    capacities.reserveCapacity(2 * n)
    costs.reserveCapacity(2 * n)
    for i in 0..<n {
      let size = intervals.sizes[i]
      // An interval that ends here: its uncached bytes go round the path.
      if hasOpen[i] {
        let start = opened[i]
        outerArc[i] = Int32(sources.count)
        sources.append(start)
        targets.append(current)
        capacities.append(size)
        costs.append(1 / Double(size))
        supplies[Int(start)] += size
        supplies[Int(current)] -= size
      }
      // One that opens starts at the current node and takes the path's
      // next arc, to a new node: that arc carries what is cached over the
      // gap after this request.
      let next = Int(intervals.next[i])
      let held = reserved?[i] ?? 0
      if next >= 0 && (size <= capacity || cachesPartOfLargerObjects) && include?(i) ?? true {
        close()
        opened[next] = current
        hasOpen[next] = true
        let node = Int32(supplies.count)
        supplies.append(0)
        pending = sources.count
        fullest = held
        sources.append(current)
        targets.append(node)
        capacities.append(0)
        costs.append(0)
        current = node
      } else {
        fullest = max(fullest, held)
      }
    }
    close()
    var flow = [Int64](repeating: 0, count: sources.count)
    var total = 0.0
    let status = evictionlab_min_cost_flow(
      Int32(supplies.count), Int32(sources.count), sources, targets, capacities, costs, supplies, &flow, &total)
    switch Int(status) {
    case Int(EVICTIONLAB_FLOW_OPTIMAL): break
    case Int(EVICTIONLAB_FLOW_NO_MEMORY):
      throw .notEnoughMemory(
        what: "the min-cost flow of \(n) requests", needed: fooFootprint(requests: Int64(n)), available: 0,
        limit: "the allocator", wayOut: "bound a shorter trace, or use pfoo-l, which needs no flow")
    default:
      // Every interval may go round: the flow is always feasible and bounded.
      preconditionFailure("FOO's flow was infeasible or unbounded (status \(status))")
    }
    var hits = [Bool](repeating: false, count: n)
    var misses: Int64 = 0
    var outside: Int64 = 0
    for i in 0..<n {
      let arc = outerArc[i]
      if arc >= 0 && flow[Int(arc)] == 0 { hits[i] = true } else { misses += 1 }
      if arc < 0 { outside += 1 }
    }
    return Solution(lower: Double(outside) + total, hits: hits, misses: misses)
  }

  /// PFOO-L: the fewest misses if only the cache's total space-time
  /// (`capacity × (requests − 1)`) bound it, fractional.
  public static func pfooLower(_ intervals: FlowIntervals, capacity: Int64) -> Double {
    let n = intervals.count
    var volumes: [Double] = []
    volumes.reserveCapacity(n)
    for i in 0..<n {
      let next = Int(intervals.next[i])
      let size = intervals.sizes[i]
      guard next >= 0, size <= capacity else { continue }
      volumes.append(Double(size) * Double(next - i))
    }
    volumes.sort()
    var room = Double(capacity) * Double(max(n - 1, 0))
    var hits = 0.0
    for volume in volumes {
      if volume <= room {
        room -= volume
        hits += 1
      } else {
        hits += room / volume
        break
      }
    }
    return Double(n) - hits
  }

  /// The most bands PFOO-U solves.
  public static var maximumBands: Int { 2_000 }

  /// PFOO-U: FOO over bands of about `step` intervals each, by utility
  /// (`1 / (size × length)`), the best first; each band is solved with the
  /// room the ones before it took away, and overlaps the next by half.
  public static func pfooUpper(_ intervals: FlowIntervals, capacity: Int64, step: Int) throws(TraceError) -> Solution {
    precondition(step >= 2, "a band holds at least two intervals")
    let n = intervals.count
    var utility = [Double](repeating: 0, count: n)
    var eligible: [Double] = []
    for i in 0..<n {
      let next = Int(intervals.next[i])
      let size = intervals.sizes[i]
      guard next >= 0, size <= capacity else { continue }
      utility[i] = 1 / (Double(size) * Double(next - i))
      eligible.append(utility[i])
    }
    // Each band reads the whole trace again: a step that makes thousands of
    // bands would run for hours on a trace FOO solves in seconds.
    let bands = 2 * eligible.count / step
    guard bands <= maximumBands else {
      throw .invalidOption(
        "PFOO-U with bands of \(step) intervals makes \(bands) bands of \(eligible.count) intervals, past the "
          + "\(maximumBands) it solves (each reads the whole trace); give a step of at least "
          + "\(2 * eligible.count / maximumBands + 1)")
    }
    eligible.sort(by: >)
    // Band edges: every step/2 intervals, the highest first, distinct.
    var edges: [Double] = [.infinity]
    var inBand = 0
    for u in eligible {
      inBand += 1
      if inBand >= step / 2 && u != edges.last! {
        edges.append(u)
        inBand = 0
      }
    }
    edges.append(0)
    // What each interval has cached so far (bytes), fixed outside the band being solved.
    var cached = [Int64](repeating: 0, count: n)
    for band in 0..<max(1, edges.count - 2) {
      let high = edges[band]
      let low = edges[min(band + 2, edges.count - 1)]
      let isIn = { (i: Int) -> Bool in utility[i] > 0 && utility[i] >= low && utility[i] < high }
      // Room the intervals outside the band hold over the gap after each request.
      var reserved = [Int64](repeating: 0, count: n)
      var ending = [Int64](repeating: 0, count: n)
      var held: Int64 = 0
      for i in 0..<n {
        held -= ending[i]
        let next = Int(intervals.next[i])
        if next >= 0 && cached[i] > 0 && !isIn(i) {
          held += cached[i]
          ending[next] += cached[i]
        }
        reserved[i] = held
      }
      let solution = try foo(intervals, capacity: capacity, include: isIn, reserved: reserved)
      for i in 0..<n where isIn(i) {
        cached[i] = solution.hits[Int(intervals.next[i])] ? intervals.sizes[i] : 0
      }
    }
    var hits = [Bool](repeating: false, count: n)
    var misses: Int64 = 0
    for i in 0..<n {
      let next = Int(intervals.next[i])
      if next >= 0 && cached[i] == intervals.sizes[i] { hits[next] = true }
    }
    for i in 0..<n where !hits[i] { misses += 1 }
    return Solution(lower: Double(misses), hits: hits, misses: misses)
  }
}
