import CPrefetch
import EvictionCore
import EvictionRun
import EvictionTraces
import Foundation
import Synchronization

/// Replays traces through policies, exactly, one thread per cell.
public enum TraceReplay {
  /// How far ahead the replay loop prefetches a request's index bucket,
  /// and its entry (once the bucket has arrived), in requests.
  @usableFromInline static let bucketAhead = 16
  @usableFromInline static let entryAhead = 8
  /// How far ahead the policy's own memory is prefetched
  /// (``EvictionCore/ReplacementPolicy/prefetchState(of:)``).
  @usableFromInline static let stateAhead = 8
  /// How far ahead a request's list neighbours and the next victim's
  /// surroundings are prefetched (``EvictionCore/ReplacementPolicy/prefetchLinks(of:)``):
  /// late enough that the request's bucket and entry, prefetched above,
  /// have arrived to be read.
  @usableFromInline static let linksAhead = 3
  /// The resident entries from which prefetching pays. Below, index and
  /// entries fit a core's L2 cache, and working out the addresses only adds
  /// instructions (2% slower at 5,000 objects); at 1 M objects, where every
  /// lookup goes to memory, it makes ARC 1.7× and LeCaR 2.2× as fast.
  @usableFromInline static let prefetchFrom = 1 << 15

  /// Replays `trace` through a fresh `policy` of `cacheSize`, behind `admission`.
  ///
  /// With a `reference`, every counted miss is attributed to its cause
  /// against it (``MissAttribution``) in a slower loop of its own; without
  /// one, the replay is the fast loop, untouched.
  public static func run(
    _ trace: TraceSource, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode,
    admission: AdmissionSpec = .none, window: ReplayWindow = ReplayWindow(), progress: ReplayProgress? = nil,
    attributingAgainst reference: AttributionReference? = nil, ttl: TTLRule? = nil, kv: KVRule? = nil,
    penalty: PenaltyModel? = nil
  ) throws(TraceError) -> ReplayResult {
    try checkMinimumCapacity(policy, cacheSize)
    try penalty?.check(trace)
    // The one check every front end's replay goes through, for this cell.
    var described = RunDescription()
    (described.policies, described.sizeMode, described.admissions) = ([policy], sizeMode, [admission])
    (described.window, described.attribution, described.copies) = (window, reference != nil, trace.copies)
    described.attributionReference = reference?.kind ?? .belady
    (described.useTTL, described.semantics, described.fillOnMiss) = (
      ttl != nil, kv == nil ? .libcachesim : .kv, kv?.fillOnMiss ?? false
    )
    let expiration = kv?.expiration ?? ttl?.expiration ?? .lazy
    described.expiration = expiration == .lazy ? nil : expiration
    described.penalty = penalty
    do throws(RunError) { try described.check() } catch { throw .invalidOption(error.description) }
    let clock = ContinuousClock()
    let start = clock.now
    var counts: ReplayCounts
    var attributed: AttributedReplay? = nil
    var semantics: SemanticsCounts? = nil
    if let reference {
      var box = policy.integerBox(capacity: cacheSize, admission: admission)
      var run = AttributedReplay(reference: reference, admission: admission.kind != .none)
      counts = try run.replay(
        trace, through: &box, sizeMode: sizeMode, window: window, needsNextAccess: policy.descriptor.isOffline,
        progress: progress)
      attributed = run
    } else if let penalty {
      // A run that weighs misses replays the boxed policy through the
      // windowed loop, which hands each request its penalty and sums them:
      // one more loop for all policies, none per policy.
      let schedule = try PenaltySchedule(penalty, over: trace)
      var box = BoxedPolicy(policy.integerBox(capacity: cacheSize, admission: admission))
      counts = try replay(
        trace, through: &box, sizeMode: sizeMode, window: window, needsNextAccess: policy.descriptor.isOffline,
        progress: progress, penalty: schedule)
    } else if ttl != nil || kv != nil {
      // TTLs and key-value operations replay the boxed policy: one loop for
      // all policies, not one per policy. Specialised per policy, the two
      // loops took 37 of EvictionSim's 99 s in a 2-core release build; the
      // box costs these replays 4-10% more instructions (docs/replay.md).
      var box = BoxedPolicy(policy.integerBox(capacity: cacheSize, admission: admission))
      let needsNextAccess = policy.descriptor.isOffline
      if let kv {
        (counts, semantics) = try replayKV(
          trace, through: &box, sizeMode: sizeMode, rule: kv, needsNextAccess: needsNextAccess, progress: progress)
      } else {
        (counts, semantics) = try replayExpiring(
          trace, through: &box, sizeMode: sizeMode, rule: ttl!, needsNextAccess: needsNextAccess, progress: progress)
      }
    } else {
      var visitor = AdmissionVisitor(
        ReplayVisitor(
          trace: trace, sizeMode: sizeMode, needsNextAccess: policy.descriptor.isOffline, window: window,
          progress: progress),
        admission: admission)
      (counts, semantics) = try policy.withPolicy(
        capacity: cacheSize, index: IntegerSlotIndex<UInt64>.self, visitor: &visitor
      ).get()
    }
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    let hitCounts = counts.hitCounts
    var result = ReplayResult(
      key: CellKey(
        trace: trace.name, format: trace.format.rawValue, policy: policy.description, cacheSize: cacheSize,
        sizeMode: sizeMode, admission: admission.description),
      counts: hitCounts,
      fields: ReplayResult.Fields(
        missRatio: hitCounts.missRatio, byteMissRatio: hitCounts.byteMissRatio, seconds: seconds,
        requestsPerSecond: seconds > 0 ? (Double(counts.requests) / seconds).rounded() : 0,
        skippedZeroSize: counts.skipped.zeroSize, maxOccupancy: counts.maxOccupancy,
        exceedsCapacity: counts.maxOccupancy > cacheSize, warmupRequests: counts.warmupRequests,
        flashWrites: counts.flashWrites?.objects, flashWriteBytes: counts.flashWrites?.bytes,
        trainings: counts.learning?.trainings, trainingSeconds: counts.learning?.seconds,
        tuned: counts.learning?.choice))
    if let penalties = counts.penalties {
      result.fields.penaltyModel = penalties.model.description
      (result.fields.hitPenalty, result.fields.missPenalty) = (penalties.hit, penalties.miss)
      result.fields.totalPenalty = penalties.total
      result.fields.averagePenalty = hitCounts.requests > 0 ? penalties.total / Double(hitCounts.requests) : 0
    }
    result.skipped = counts.skipped
    result.intervals = counts.intervals
    result.attribution = attributed?.attribution
    result.semantics = semantics
    result.regret = attributed?.regret
    return result
  }

  /// Replays every request of `trace` through `policy`, serving each with
  /// ``ReplacementPolicy/access(_:)``. The engine behind ``run``; public so
  /// tests and embedders can drive a policy they built themselves.
  ///
  /// With `needsNextAccess`, a trace whose format carries no next-access
  /// times (all but oracleGeneral) is read into memory once and given them
  /// by a backward pass, so offline policies can run on it.
  @inlinable
  public static func replay<Policy: ReplacementPolicy & ~Copyable>(
    _ trace: TraceSource, through policy: inout Policy, sizeMode: SizeMode, needsNextAccess: Bool = false,
    progress: ReplayProgress? = nil, observe: (TraceRecord, Bool) -> Void = { _, _ in }
  ) throws(TraceError) -> ReplayCounts where Policy.Key == UInt64 {
    var counts = ReplayCounts()
    let countMode = sizeMode == .count
    counts.skipped = try trace.forEachBatch(withNextAccess: needsNextAccess, progress: progress) {
      records, tile throws(TraceError) in
      // The batch's counts live in locals (registers), not in the captured `counts`.
      var time = counts.requests  // requests so far, across copies
      var hits: Int64 = 0
      var bytesRequested: Int64 = 0
      var bytesMissed: Int64 = 0
      var maxOccupancy = counts.maxOccupancy
      let end = records.endIndex
      let prefetching = policy.count >= TraceReplay.prefetchFrom
      for i in records.indices {
        let record = records.base[i]
        // The index bucket ``bucketAhead`` requests on, then the entry that
        // bucket names ``entryAhead`` on: the loads a request waits on are
        // under way while the requests before it run.
        if prefetching {
          if i &+ TraceReplay.bucketAhead < end {
            let ahead = records.base[i &+ TraceReplay.bucketAhead].key &+ tile.idOffset
            evictionlab_prefetch(policy.indexAddress(of: ahead))
          }
          if i &+ TraceReplay.entryAhead < end {
            let ahead = records.base[i &+ TraceReplay.entryAhead].key &+ tile.idOffset
            evictionlab_prefetch(policy.entryAddress(of: ahead))
          }
          if i &+ TraceReplay.stateAhead < end {
            policy.prefetchState(of: records.base[i &+ TraceReplay.stateAhead].key &+ tile.idOffset)
          }
          if i &+ TraceReplay.linksAhead < end {
            policy.prefetchLinks(of: records.base[i &+ TraceReplay.linksAhead].key &+ tile.idOffset)
          }
        }
        time &+= 1
        let hit = policy.access(record.request(in: tile, time: time, countMode: countMode))
        hits &+= hit ? 1 : 0
        bytesMissed &+= hit ? 0 : record.size
        bytesRequested &+= record.size
        // Capacity honesty: the most the policy ever held (objects in count
        // mode, bytes in byte mode). Only an admission adds, and only a miss admits.
        if !hit { maxOccupancy = max(maxOccupancy, policy.usedWeight) }
        observe(record, hit)
      }
      counts.hits &+= hits
      counts.bytesRequested &+= bytesRequested
      counts.bytesMissed &+= bytesMissed
      counts.maxOccupancy = maxOccupancy
      counts.requests &+= Int64(records.count)
      // Sizes are at most 2^40 (the readers refuse more), so a batch cannot wrap a total twice.
      if counts.bytesRequested < 0 {
        throw .invalidOption("\(trace.path): the bytes requested exceed 2^63; replay a shorter trace")
      }
    }
    if counts.requests == 0 { throw .emptyTrace(path: trace.path) }
    counts.flashWrites = policy.flashWrites
    counts.learning = policy.learning
    return counts
  }

  /// Refuses a capacity at which `policy` caches nothing (every request
  /// would miss, and the row would look like a result), and one past
  /// ``EvictionCore/PolicySpec/maximumCapacity``.
  public static func checkMinimumCapacity(_ policy: PolicySpec, _ cacheSize: Int64) throws(TraceError) {
    guard cacheSize <= PolicySpec.maximumCapacity else {
      throw .invalidOption(
        "a cache size of \(cacheSize) is past the largest evlab builds, 2⁵⁶ (64 Pi objects or bytes); give a smaller size"
      )
    }
    let minimum = policy.minimumCapacity
    guard cacheSize >= minimum else {
      throw .invalidOption(
        "\(policy) caches nothing at a size of \(cacheSize); it needs at least \(minimum)\(policy.minimumCapacityHint)")
    }
  }

  /// Replays every cell, `parallelism` at a time, and returns the results in
  /// the order of `cells`. The first error stops the remaining cells.
  public static func runAll(
    _ cells: [ReplayCell], parallelism: Int, progress: ReplayProgress? = nil
  ) throws(TraceError) -> [ReplayResult] {
    let results = Mutex<[ReplayResult?]>(Array(repeating: nil, count: cells.count))
    let failure = Mutex<TraceError?>(nil)
    let next = Atomic<Int>(0)
    let references = AttributionReferences()
    let workers = max(1, min(parallelism, cells.count))
    // A cell whose worker has a core to spare reads its trace on that core
    // (a single replay: about 15% less wall time for LRU on cloudPhysicsIO).
    let readAhead = 2 * workers <= ProcessInfo.processInfo.activeProcessorCount
    WorkerThread.pool(workers) {
      while failure.withLock({ $0 == nil }) {
        let i = next.add(1, ordering: .relaxed).oldValue
        if i >= cells.count { return }
        var cell = cells[i]
        cell.trace.readAhead = readAhead
        do throws(TraceError) {
          let reference = try cell.attribution ? references.reference(for: cell, progress: progress) : nil
          let result = try run(
            cell.trace, policy: cell.policy, cacheSize: cell.cacheSize, sizeMode: cell.sizeMode,
            admission: cell.admission, window: cell.window, progress: progress, attributingAgainst: reference,
            ttl: cell.ttl, kv: cell.kv, penalty: cell.penalty)
          results.withLock { $0[i] = result.sized(as: cell) }
          progress?.cellsDone.add(1, ordering: .relaxed)
        } catch {
          failure.withLock { if $0 == nil { $0 = error } }
        }
      }
    }
    if let error = failure.withLock({ $0 }) { throw error }
    return results.withLock { $0.map { $0! } }
  }

  /// `a / b`, or 0 for an empty denominator.
  public static func ratio(_ a: Int64, _ b: Int64) -> Double { b == 0 ? 0 : Double(a) / Double(b) }
}

extension ReplayResult {
  /// The row with its size as the cell gave it (`size_label`) and as a
  /// share of the footprint (`size_share`) where the sweep measured one,
  /// the columns `evlab compare` writes under the same names.
  func sized(as cell: ReplayCell) -> ReplayResult {
    var sized = self
    sized.fields.sizeLabel = cell.sizeGiven?.description ?? String(cell.cacheSize)
    if let footprint = cell.footprint, footprint > 0 {
      sized.fields.sizeShare = Double(cell.cacheSize) / Double(footprint)
    }
    return sized
  }
}

/// One (trace, policy, size) cell of a replay sweep.
public struct ReplayCell: Sendable, Hashable {
  public var trace: TraceSource
  public var policy: PolicySpec
  public var cacheSize: Int64
  public var sizeMode: SizeMode
  public var admission: AdmissionSpec
  public var window: ReplayWindow
  /// The size as the user gave it (`0.1%` for 3,153 objects), when the
  /// cell came from a sweep's sizes (``grid(_:policies:sizes:sizeMode:admissions:)``).
  public var sizeGiven: CacheSize? = nil
  /// The trace's footprint (distinct objects, or their bytes, as
  /// `sizeMode`), when the sweep measured it to resolve a share.
  public var footprint: Int64? = nil
  /// Whether each counted miss is attributed to its cause against Belady's
  /// optimum at the same size (``MissAttribution``).
  public var attribution = false
  /// What its misses are attributed against (``AttributionReferenceKind``).
  public var attributionReference: AttributionReferenceKind = .belady
  /// How requests' TTLs expire objects, when they do (``TTLRule``).
  public var ttl: TTLRule? = nil
  /// Key-value semantics, when the records are read as operations (``KVRule``).
  public var kv: KVRule? = nil
  /// What each request costs, when the run weighs misses (``PenaltyModel``).
  public var penalty: PenaltyModel? = nil

  public init(
    trace: TraceSource, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode, admission: AdmissionSpec = .none,
    window: ReplayWindow = ReplayWindow()
  ) {
    self.trace = trace
    self.policy = policy
    self.cacheSize = cacheSize
    self.sizeMode = sizeMode
    self.admission = admission
    self.window = window
  }
}

/// Drives a policy the catalog built through ``TraceReplay/replay``.
struct ReplayVisitor: PolicyVisitor {
  typealias Key = UInt64
  let trace: TraceSource
  let sizeMode: SizeMode
  let needsNextAccess: Bool
  let window: ReplayWindow
  let progress: ReplayProgress?

  mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> Result<
    (ReplayCounts, SemanticsCounts?), TraceError
  > where Policy.Key == UInt64 {
    var policy = policy
    do throws(TraceError) {
      guard window.isEmpty else {
        return .success(
          (
            try TraceReplay.replay(
              trace, through: &policy, sizeMode: sizeMode, window: window, needsNextAccess: needsNextAccess,
              progress: progress), nil
          ))
      }
      return .success(
        (
          try TraceReplay.replay(
            trace, through: &policy, sizeMode: sizeMode, needsNextAccess: needsNextAccess, progress: progress), nil
        ))
    } catch {
      return .failure(error)
    }
  }
}

extension TraceRecord {
  /// The request this record makes of a policy: its key and next access
  /// moved by the tile's offsets (a copy of a repeated trace), weighing 1 in
  /// count mode, and `time` its position in the replay. A next access past
  /// the copy's end never comes.
  @inlinable @inline(__always)
  func request(in tile: TraceTile, time: Int64, countMode: Bool) -> Request<UInt64> {
    Request(
      key: key &+ tile.idOffset, weight: countMode ? 1 : size, time: time,
      nextAccess: nextAccess > tile.copyLength ? Request<UInt64>.never : nextAccess &+ tile.requestOffset,
      timestamp: self.time)
  }
}
