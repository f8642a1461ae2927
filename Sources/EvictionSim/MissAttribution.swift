import EvictionCore
import EvictionRun
import EvictionTraces
import Synchronization

/// Why a replay's counted misses happened, judged request by request
/// against an optimum replayed on the same trace at the same size:
///
/// - *compulsory*: the object's first request in the trace; no cache avoids it.
/// - *capacity*: the optimum misses it too; no policy of this size is
///   expected to keep it.
/// - *policy*: the optimum hits it; the policy's own eviction cost it.
/// - *admission*: the optimum hits it, and the object is absent because it
///   was not admitted at its previous request (only with an admission
///   policy in front: the filter's decision, not the eviction's).
///
/// The four add up to the row's `misses`, and their bytes to `bytes_missed`.
/// The optimum is `belady` in either size mode: with equal weights no
/// policy misses less; with sizes it is the classic reference, not a bound
/// (optimal eviction of objects of different sizes is NP-hard), so a
/// size-aware policy may hit where it misses, and the split reads "missed
/// where farthest-next-use would have kept it".
public struct MissAttribution: Sendable, Codable, Equatable {
  /// The policy whose hits mark a miss as avoidable.
  public var reference: String
  public var compulsoryMisses: Int64 = 0
  public var capacityMisses: Int64 = 0
  public var policyMisses: Int64 = 0
  public var admissionMisses: Int64 = 0
  public var compulsoryBytesMissed: Int64 = 0
  public var capacityBytesMissed: Int64 = 0
  public var policyBytesMissed: Int64 = 0
  public var admissionBytesMissed: Int64 = 0

  public init(reference: String) { self.reference = reference }

  enum CodingKeys: String, CodingKey {
    case reference = "attributionReference"
    case compulsoryMisses, capacityMisses, policyMisses, admissionMisses
    case compulsoryBytesMissed, capacityBytesMissed, policyBytesMissed, admissionBytesMissed
  }

  /// The columns an attributed row adds, in order (after the row's own).
  public static let columns = [
    "attribution_reference", "compulsory_misses", "capacity_misses", "policy_misses", "admission_misses",
    "compulsory_bytes_missed", "capacity_bytes_missed", "policy_bytes_missed", "admission_bytes_missed",
  ]

  /// The attribution of a row read back, or nil for a row without one.
  static func decodeIfPresent(from decoder: any Decoder) throws -> MissAttribution? {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guard container.contains(.reference) else { return nil }
    if try container.decodeNil(forKey: .reference) { return nil }
    return try MissAttribution(from: decoder)
  }

  /// The sum of the four categories.
  public var misses: Int64 { compulsoryMisses + capacityMisses + policyMisses + admissionMisses }
  public var bytesMissed: Int64 {
    compulsoryBytesMissed + capacityBytesMissed + policyBytesMissed + admissionBytesMissed
  }

  /// Why one miss happened.
  public enum Cause: String, Sendable, CaseIterable, Codable {
    case compulsory, capacity, policy, admission
  }

  @inline(__always)
  mutating func count(_ cause: Cause, bytes: Int64) {
    switch cause {
    case .compulsory: (compulsoryMisses, compulsoryBytesMissed) = (compulsoryMisses + 1, compulsoryBytesMissed + bytes)
    case .capacity: (capacityMisses, capacityBytesMissed) = (capacityMisses + 1, capacityBytesMissed + bytes)
    case .policy: (policyMisses, policyBytesMissed) = (policyMisses + 1, policyBytesMissed + bytes)
    case .admission: (admissionMisses, admissionBytesMissed) = (admissionMisses + 1, admissionBytesMissed + bytes)
    }
  }

  /// The mean of several runs' attributions (a compare row of several
  /// seeds), in whole misses and bytes that add up to the row's own
  /// rounded means, `misses` and `bytesMissed`: each cause's mean rounded
  /// down, and what is left given, one at a time, to the causes with the
  /// largest fractions (each rounded on its own, the four could miss the
  /// total by one).
  public static func mean(_ runs: [MissAttribution], misses: Int64, bytesMissed: Int64) -> MissAttribution? {
    guard let first = runs.first else { return nil }
    guard runs.count > 1 else { return first }
    func apportion(_ fields: [WritableKeyPath<MissAttribution, Int64>], to total: Int64, in out: inout MissAttribution)
    {
      let means = fields.map { field in Double(runs.map { $0[keyPath: field] }.reduce(0, +)) / Double(runs.count) }
      var whole = means.map { Int64($0.rounded(.down)) }
      var left = total - whole.reduce(0, +)
      let largestFirst = means.indices.sorted { means[$0] - Double(whole[$0]) > means[$1] - Double(whole[$1]) }
      while left > 0 {
        for k in largestFirst where left > 0 {
          whole[k] += 1
          left -= 1
        }
      }
      while left < 0, whole.contains(where: { $0 > 0 }) {
        for k in largestFirst.reversed() where left < 0 && whole[k] > 0 {
          whole[k] -= 1
          left += 1
        }
      }
      for (field, value) in zip(fields, whole) { out[keyPath: field] = value }
    }
    var out = MissAttribution(reference: first.reference)
    apportion([\.compulsoryMisses, \.capacityMisses, \.policyMisses, \.admissionMisses], to: misses, in: &out)
    apportion(
      [\.compulsoryBytesMissed, \.capacityBytesMissed, \.policyBytesMissed, \.admissionBytesMissed], to: bytesMissed,
      in: &out)
    return out
  }
}

/// One bit per request, numbered from 1 as replay positions are.
public struct RequestBits: Sendable {
  var words: [UInt64] = []

  public init() {}

  @inline(__always)
  mutating func set(_ position: Int64) {
    let word = Int(position >> 6)
    if word >= words.count {
      let added = max(word + 1 - words.count, words.count)
      GrowthWatch.willAllocate(
        (words.count + added) * 8, "miss attribution's bit per request (\(words.count * 64) requests)",
        from: GrowthWatch.perObjectThreshold)
      words.append(contentsOf: repeatElement(0, count: added))
    }
    words[word] |= 1 << UInt64(position & 63)
  }

  @inline(__always)
  public subscript(position: Int64) -> Bool {
    let word = Int(position >> 6)
    return word < words.count && words[word] & (1 << UInt64(position & 63)) != 0
  }
}

/// What misses are attributed against: a schedule that exists, so every
/// miss it avoids a cache could have avoided.
public enum AttributionReferenceKind: String, Sendable, Hashable, CaseIterable, Codable {
  /// libCacheSim's Belady: the optimum with equal weights for a cache that
  /// admits every miss; with sizes, the field's usual reference, not a bound.
  case belady
  /// FOO-U's schedule (``FlowBound/foo(_:capacity:include:reserved:)``):
  /// within FOO-L of the optimum, with sizes too. At most
  /// ``FlowBound/defaultFOOLimit`` requests.
  case foo
  /// PFOO-U's schedule (``FlowBound/pfooUpper(_:capacity:step:)``), for
  /// traces too long for FOO.
  case pfooU = "pfoo-u"

  /// PFOO-U's band when it is a reference: intervals a band.
  public static var pfooStep: Int { 200_000 }
}

/// What the optimum did at one size on one trace: which requests it hit.
/// Every policy attributed at that size is judged against the same bits.
public struct AttributionReference: Sendable {
  /// The optimum's name (`belady`, `foo`, `pfoo-u`).
  public let policy: String
  /// Which schedule it is.
  public var kind: AttributionReferenceKind { AttributionReferenceKind(rawValue: policy) ?? .belady }
  /// The requests it hit, by replay position (warm-up included).
  public let hits: RequestBits
  /// Its misses over the counted requests, for checks.
  public let misses: Int64

  /// Replays `trace` through the optimum at `cacheSize`, or solves FOO's
  /// or PFOO-U's schedule there (whose requests are numbered from the
  /// trace's first: no warm-up, which ``RunDescription`` refuses with them).
  public static func make(
    _ trace: TraceSource, cacheSize: Int64, sizeMode: SizeMode, window: ReplayWindow,
    kind: AttributionReferenceKind = .belady, progress: ReplayProgress? = nil
  ) throws(TraceError) -> AttributionReference {
    if kind != .belady {
      precondition(window.isEmpty, "a flow reference is solved over the whole trace")
      let estimate = try trace.estimatedRequests()
      if kind == .foo && estimate > FlowBound.defaultFOOLimit {
        throw .invalidOption(
          "\(trace.path): attributing against foo solves a min-cost flow of its \(estimate) requests, past the "
            + "\(FlowBound.defaultFOOLimit) FOO runs (about \(FlowBound.describeFOOTime(requests: Int(estimate)))); "
            + "attribute against pfoo-u or belady")
      }
      try MemoryBudget.check(
        FlowIntervals.footprint(requests: estimate)
          + FlowBound.fooFootprint(requests: min(estimate, Int64(2 * AttributionReferenceKind.pfooStep))),
        for: "\(kind.rawValue)'s schedule of \(trace.path)", wayOut: "attribute against belady")
      let intervals = try FlowIntervals.read(trace, sizeMode: sizeMode, progress: progress)
      let solution =
        kind == .foo
        ? try FlowBound.foo(intervals, capacity: cacheSize)
        : try FlowBound.pfooUpper(intervals, capacity: cacheSize, step: AttributionReferenceKind.pfooStep)
      var hits = RequestBits()
      for (i, hit) in solution.hits.enumerated() where hit { hits.set(Int64(i) + 1) }
      return AttributionReference(policy: kind.rawValue, hits: hits, misses: solution.misses)
    }
    let optimum = try! PolicySpec("belady")
    var box = optimum.integerBox(capacity: cacheSize)
    var run = AttributedReplay(reference: nil, admission: false, recordHits: true)
    let counts = try run.replay(
      trace, through: &box, sizeMode: sizeMode, window: window, needsNextAccess: true, progress: progress)
    return AttributionReference(policy: optimum.description, hits: run.hits, misses: counts.misses)
  }
}

/// The optimum's bits for each (trace, size, size mode) a sweep attributes,
/// made once however many policies (and threads) ask for them.
public final class AttributionReferences: Sendable {
  struct Key: Hashable {
    let trace: TraceSource
    let cacheSize: Int64
    let sizeMode: SizeMode
    let warmup: ReplayWindow.Span?
    let kind: AttributionReferenceKind
  }

  /// One reference, made by the first thread that asks while the others wait.
  final class Slot: Sendable {
    let value = Mutex<Result<AttributionReference, TraceError>?>(nil)
  }

  private let slots = Mutex<[Key: Slot]>([:])

  public init() {}

  /// The reference for `cell`'s trace and size, made now or by an earlier call.
  public func reference(for cell: ReplayCell, progress: ReplayProgress?) throws(TraceError) -> AttributionReference {
    let key = Key(
      trace: cell.trace, cacheSize: cell.cacheSize, sizeMode: cell.sizeMode, warmup: cell.window.warmup,
      kind: cell.attributionReference)
    let slot = slots.withLock { slots in
      if let slot = slots[key] { return slot }
      let slot = Slot()
      slots[key] = slot
      return slot
    }
    let result = slot.value.withLock { value in
      if let value { return value }
      var trace = cell.trace
      trace.readAhead = false
      let made: Result<AttributionReference, TraceError>
      do throws(TraceError) {
        made = .success(
          try AttributionReference.make(
            trace, cacheSize: cell.cacheSize, sizeMode: cell.sizeMode, window: ReplayWindow(warmup: cell.window.warmup),
            kind: cell.attributionReference, progress: progress))
      } catch {
        made = .failure(error)
      }
      value = made
      return made
    }
    return try result.get()
  }
}

/// The evictions whose misses the optimum would have avoided: the costliest
/// ones, and the policy's avoidable misses by the object's size and by its
/// reuse distance (requests since its previous request).
public struct Regret: Sendable, Codable, Equatable {
  /// One eviction and what it cost: the misses of its object, the optimum
  /// hitting each, until the policy held the object again.
  public struct Eviction: Sendable, Codable, Equatable {
    public var key: UInt64
    /// The replay position of the request whose miss made room by evicting it.
    public var evictedAt: Int64
    /// The object whose miss evicted it.
    public var evictedFor: UInt64
    /// Its weight (1 in count mode, its size in bytes in byte mode).
    public var weight: Int64
    public var misses: Int64
    public var bytesMissed: Int64
    /// The object's size as the trace gives it.
    public var size: Int64
    /// What the policy held of it at the start of the evicting request
    /// (``EvictionCore/ReplacementPolicy/explain(_:)``), when asked for.
    public var state: String? = nil
  }

  /// Misses of one class of objects or reuse distances, by cause.
  public struct Bucket: Sendable, Codable, Equatable {
    /// The class's lower bound (a power of two; 0 for the class of 0).
    public var from: Int64
    public var requests: Int64 = 0
    public var compulsory: Int64 = 0
    public var capacity: Int64 = 0
    public var policy: Int64 = 0
    public var admission: Int64 = 0
  }

  /// The costliest evictions, most misses first (then most bytes, earliest).
  public var costliest: [Eviction] = []
  /// Counted requests by the requested object's size (bytes, as the trace gives them).
  public var bySize: [Bucket] = []
  /// Counted requests by reuse distance (a first request has none and is left out).
  public var byReuseDistance: [Bucket] = []

  /// How many evictions ``costliest`` keeps.
  public static let kept = 20

  static func bucketIndex(_ value: Int64) -> Int { value <= 0 ? 0 : 64 - value.leadingZeroBitCount }
  static func bucketStart(_ index: Int) -> Int64 { index == 0 ? 0 : 1 << Int64(index - 1) }

  static func ranks(_ a: Eviction, before b: Eviction) -> Bool {
    (a.misses, a.bytesMissed, -a.evictedAt) > (b.misses, b.bytesMissed, -b.evictedAt)
  }
}

/// What a replay knows of one object while attributing.
struct ObjectLife {
  var key: UInt64
  var lastRequest: Int64
  /// The position that last evicted it, and what that eviction has cost so far.
  var evictedAt: Int64 = 0
  var evictedFor: UInt64 = 0
  var chargedMisses: Int64 = 0
  var chargedBytes: Int64 = 0
  var weight: Int64 = 0
  var size: Int64 = 0
  /// Whether it was turned away at its last miss.
  var refused = false

  init(key: UInt64, lastRequest: Int64) {
    self.key = key
    self.lastRequest = lastRequest
  }
}

/// Every object's life, found by key: an open-addressing table (linear
/// probing, at most half full) of keys beside indices into one array of
/// lives. One probe a request, where a `Dictionary` of lives hashed each
/// key with SipHash and moved 64-byte values in and out: attribution of a
/// million objects ran about half as fast with it.
struct LifeTable {
  struct Cell {
    var key: UInt64
    /// Into `lives`; -1 for an empty cell.
    var index: Int32
  }

  var lives: [ObjectLife] = []
  private var cells: [Cell]
  private var shift: UInt64

  init() {
    cells = Array(repeating: Cell(key: 0, index: -1), count: 1 << 12)
    shift = 64 - 12
  }

  @inline(__always)
  private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift) }

  /// The index of `key`'s life in ``lives``, and whether it was made now
  /// (first seen at `position`).
  @inline(__always)
  mutating func index(of key: UInt64, at position: Int64) -> (index: Int, new: Bool) {
    if lives.count * 2 >= cells.count { grow() }
    let mask = cells.count - 1
    var i = home(key)
    while true {
      let cell = cells[i]
      if cell.index < 0 {
        precondition(lives.count < Int(Int32.max), "more than 2^31 objects to attribute")
        cells[i] = Cell(key: key, index: Int32(lives.count))
        if lives.count == lives.capacity {
          GrowthWatch.willAllocate(
            Swift.max(lives.capacity * 2, 16) * MemoryLayout<ObjectLife>.stride,
            "miss attribution's object lives (\(lives.count) objects)", from: GrowthWatch.perObjectThreshold)
        }
        lives.append(ObjectLife(key: key, lastRequest: position))
        return (lives.count - 1, true)
      }
      if cell.key == key { return (Int(cell.index), false) }
      i = (i + 1) & mask
    }
  }

  private mutating func grow() {
    GrowthWatch.willAllocate(
      cells.count * 2 * MemoryLayout<Cell>.stride, "miss attribution's index of objects (\(lives.count) objects)",
      from: GrowthWatch.perObjectThreshold)
    let old = cells
    cells = Array(repeating: Cell(key: 0, index: -1), count: old.count * 2)
    shift -= 1
    let mask = cells.count - 1
    for cell in old where cell.index >= 0 {
      var i = home(cell.key)
      while cells[i].index >= 0 { i = (i + 1) & mask }
      cells[i] = cell
    }
  }
}

/// The replay loop of an attributed run: the policy boxed (a slower loop
/// than ``TraceReplay/replay(_:through:sizeMode:needsNextAccess:progress:observe:)``,
/// whose speed the attribution must not touch), every eviction seen, each
/// counted miss given its cause against `reference`.
struct AttributedReplay {
  let reference: AttributionReference?
  /// Whether an admission policy is in front: then an object turned away is tracked.
  let admission: Bool
  /// Whether to keep the run's own hits (the reference's run does).
  let recordHits: Bool
  var hits = RequestBits()
  var attribution = MissAttribution(reference: "")
  var regret = Regret()
  var table = LifeTable()
  private var pending: [Regret.Eviction] = []

  /// How many of the costliest evictions to keep (tests keep them all).
  let kept: Int

  init(reference: AttributionReference?, admission: Bool, recordHits: Bool = false, kept: Int = Regret.kept) {
    self.reference = reference
    self.admission = admission
    self.recordHits = recordHits
    self.kept = kept
    attribution.reference = reference?.policy ?? ""
  }

  /// Closes the charge of `life`'s last eviction, keeping it in `pending`
  /// if it cost anything (and only the costliest once `pending` fills).
  private static func settle(_ life: inout ObjectLife, into pending: inout [Regret.Eviction], kept: Int) {
    guard life.chargedMisses > 0 else { return }
    let eviction = Regret.Eviction(
      key: life.key, evictedAt: life.evictedAt, evictedFor: life.evictedFor, weight: life.weight,
      misses: life.chargedMisses, bytesMissed: life.chargedBytes, size: life.size)
    life.chargedMisses = 0
    life.chargedBytes = 0
    // Once `kept` are known (sorted first), one that ranks below the last of them never enters.
    if pending.count >= kept, !Regret.ranks(eviction, before: pending[kept - 1]) { return }
    pending.append(eviction)
    // The first `kept` sorted, so that the last of them is a threshold.
    if pending.count == kept { pending.sort(by: Regret.ranks) }
    if pending.count >= max(4096, 2 * kept) { keepCostliest(&pending, kept: kept) }
  }

  /// Sorts `pending` and keeps its `kept` costliest.
  private static func keepCostliest(_ pending: inout [Regret.Eviction], kept: Int) {
    pending.sort(by: Regret.ranks)
    pending.removeLast(max(0, pending.count - kept))
  }

  private static func add(_ cause: MissAttribution.Cause?, at index: Int, to buckets: inout [Regret.Bucket]) {
    while buckets.count <= index { buckets.append(Regret.Bucket(from: Regret.bucketStart(buckets.count))) }
    buckets[index].requests += 1
    switch cause {
    case nil: break
    case .compulsory?: buckets[index].compulsory += 1
    case .capacity?: buckets[index].capacity += 1
    case .policy?: buckets[index].policy += 1
    case .admission?: buckets[index].admission += 1
    }
  }

  mutating func replay(
    _ trace: TraceSource, through box: inout AnyCachePolicy<UInt64>, sizeMode: SizeMode, window: ReplayWindow,
    needsNextAccess: Bool, progress: ReplayProgress?
  ) throws(TraceError) -> ReplayCounts {
    guard window.interval == nil else {
      throw .invalidOption(
        "miss attribution does not cut a replay into intervals; drop \(Setting.interval) or \(Setting.attribution)")
    }
    var counts = ReplayCounts()
    let countMode = sizeMode == .count
    var position: Int64 = 0
    var gate = WarmupGate(window.warmup)
    var evicted: [UInt64] = []
    counts.skipped = try trace.forEachBatch(withNextAccess: needsNextAccess, progress: progress) {
      records, tile throws(TraceError) in
      for record in records {
        position &+= 1
        let warming = gate.warms(record.time)
        let request = record.request(in: tile, time: position, countMode: countMode)
        let key = request.key
        evicted.removeAll(keepingCapacity: true)
        let hit = box.lookup(request) { _, victim in evicted.append(victim) } != nil
        let refused = !hit && box.admit(request) { _, victim in evicted.append(victim) } == nil
        if !hit { counts.maxOccupancy = max(counts.maxOccupancy, box.usedWeight()) }
        if recordHits && hit { hits.set(position) }
        // The reference's own run needs only its hits.
        guard let reference else {
          if warming {
            counts.warmupRequests &+= 1
          } else {
            counts.requests &+= 1
            counts.hits &+= hit ? 1 : 0
            counts.bytesRequested &+= record.size
            counts.bytesMissed &+= hit ? 0 : record.size
          }
          continue
        }
        // The victims: from now on their misses are charged to this request.
        for victim in evicted where victim != key {
          let v = table.index(of: victim, at: position).index
          Self.settle(&table.lives[v], into: &pending, kept: kept)
          table.lives[v].evictedAt = position
          table.lives[v].evictedFor = key
        }
        let (index, first) = table.index(of: key, at: position)
        let reuse = position - table.lives[index].lastRequest
        let wasRefused = table.lives[index].refused
        table.lives[index].lastRequest = position
        table.lives[index].weight = request.weight
        table.lives[index].size = record.size
        table.lives[index].refused = admission && refused
        if warming {
          counts.warmupRequests &+= 1
          continue
        }
        counts.requests &+= 1
        counts.bytesRequested &+= record.size
        var cause: MissAttribution.Cause? = nil
        if hit {
          counts.hits &+= 1
        } else {
          counts.bytesMissed &+= record.size
          if first {
            cause = .compulsory
          } else if reference.hits[position] {
            if wasRefused {
              cause = .admission
            } else {
              cause = .policy
              if table.lives[index].evictedAt > 0 {
                table.lives[index].chargedMisses += 1
                table.lives[index].chargedBytes += record.size
              }
            }
          } else {
            cause = .capacity
          }
          attribution.count(cause!, bytes: record.size)
        }
        Self.add(cause, at: Regret.bucketIndex(record.size), to: &regret.bySize)
        if !first { Self.add(cause, at: Regret.bucketIndex(reuse), to: &regret.byReuseDistance) }
      }
      if counts.bytesRequested < 0 {
        throw .invalidOption("\(trace.path): the bytes requested exceed 2^63; replay a shorter trace")
      }
    }
    if position == 0 { throw .emptyTrace(path: trace.path) }
    if counts.requests == 0 {
      throw .invalidOption(
        "\(trace.path): the warm-up (\(window.warmup!)) covers all \(position) requests; give a shorter \(Setting.warmup)"
      )
    }
    for i in table.lives.indices where table.lives[i].chargedMisses > 0 {
      Self.settle(&table.lives[i], into: &pending, kept: kept)
    }
    Self.keepCostliest(&pending, kept: kept)
    regret.costliest = pending
    counts.flashWrites = box.flashWrites()
    counts.learning = box.learning()
    return counts
  }
}

extension Regret {
  /// ``costliest`` with each eviction's ``Eviction/state``: what the policy
  /// held of the object at the start of the request that evicted it, found
  /// by replaying the cell once more up to the last of those requests.
  public func withStates(
    _ trace: TraceSource, policy: PolicySpec, cacheSize: Int64, sizeMode: SizeMode, admission: AdmissionSpec = .none
  ) throws(TraceError) -> Regret {
    guard let last = costliest.map(\.evictedAt).max() else { return self }
    let box = policy.integerBox(capacity: cacheSize, admission: admission)
    let wanted = Dictionary(grouping: costliest.indices, by: { costliest[$0].evictedAt })
    var described = self
    let countMode = sizeMode == .count
    var position: Int64 = 0
    try trace.forEachBatch(withNextAccess: policy.descriptor.isOffline, limit: last) {
      records, tile throws(TraceError) in
      for record in records {
        position &+= 1
        for i in wanted[position] ?? [] { described.costliest[i].state = box.explain(costliest[i].key) }
        _ = box.access(record.request(in: tile, time: position, countMode: countMode))
      }
    }
    return described
  }
}
