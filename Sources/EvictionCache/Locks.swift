import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Nanoseconds on the monotonic clock.
@inlinable @inline(__always)
public func monotonicNanoseconds() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// Nanoseconds on the coarse monotonic clock (updated every tick, a few ms).
@inlinable @inline(__always)
public func coarseMonotonicNanoseconds() -> UInt64 {
  var now = timespec()
  #if os(Linux)
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
  #else
    clock_gettime(CLOCK_MONOTONIC, &now)
  #endif
  return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// How long before `now` an entry stamped `stamp` was last used, 0 for a
/// stamp later than `now`. Threads read the clock before they take a lock,
/// and a stamp is never set below the newest one, so a stamp can be newer
/// than a reader's clock: a wrapping subtraction would then read an age
/// near 2⁶⁴ and evict an entry that was just read.
@inlinable @inline(__always)
func elapsed(since stamp: UInt64, until now: UInt64) -> UInt64 { now > stamp ? now &- stamp : 0 }

/// How a `MemoryCache` guards its state: an experimental dimension, so every
/// strategy is one name away. A strategy is a *primitive* (the lock of one
/// shard: ``Primitive``) times a *layout* (``Layout``: one shard, striped
/// shards, or buffered reads in front of one shard); each is added in one
/// place. The names below are the combinations measured most; any primitive
/// can be striped (`rwlock+striped:4`), and buffered reads go with `pthread`.
///
/// - `mutex`: `Synchronization.Mutex` (a futex on Linux). Every operation is
///   exclusive; a contended caller backs off in turns (see
///   `ShardLock.acquireAfterBackingOff`).
/// - `pthread`: a `pthread_mutex_t`, the lock YYMemoryCache uses.
/// - `rwlock`: a `pthread_rwlock_t`. A read that hits changes the policy's
///   order (LRU moves the entry, ARC promotes it), so gets take the write
///   lock too; only `contains`, the counts and the statistics share the read
///   lock. It shows what a reader-writer lock costs when reads write.
/// - `queue`: a serial `DispatchQueue` entered with `sync`, as AFNetworking's
///   image cache guards its state.
/// - `barrier`: GCD's reader-writer design, as the plist file cache of our
///   seed material guards its dictionary: a concurrent `DispatchQueue` on
///   which the reads that change nothing (`contains`, the counts and
///   statistics) run side by side under `sync`, and every write is a barrier
///   block. `setValue` submits its barrier asynchronously
///   (`dispatch_barrier_async`) and returns at once; up to
///   1,024 writes may wait on the queue, past
///   that a writer waits for its own (so a writer cannot outrun the cache
///   without bound). A read that hits changes the policy's order, so gets
///   are barriers too, entered with `sync`; evictions caused by an
///   asynchronous write reach `onEvict` in order on a serial queue of their
///   own.
/// - `striped(N)`: N independent shards chosen by key hash, each with its own
///   `Mutex` (or the primitive named, `pthread+striped:N`), policy and 1/N of every limit. Threads on different shards never
///   wait for each other, but the policy's order becomes per shard: the cache
///   evicts the LRU entry *of the shard* that needs room, not the globally
///   least recent one, so hit ratios differ (slightly, for large shards) from
///   the single policy's.
/// - `buffered`: hits are served without the policy lock, from a read index
///   beside the policy's, and recorded in per-thread ring buffers that the
///   next holder of the policy lock (a `pthread_mutex_t`) replays into the
///   policy (BP-Wrapper, as in Caffeine). A set of a cached key at the same
///   cost, in a count-limited cache without ages, replaces the value in
///   place and is recorded the same way. Misses and other writes take the
///   lock, in turns of 0.1 ms when it is contended (as `mutex` does, in
///   shorter turns: a waiter sleeps, and holds up only its own thread).
///   Under pressure an access may go unrecorded (counted as a dropped
///   access); on one thread nothing is dropped and the policy decides
///   exactly as under `mutex`, except that an entry a hit evicts (SLRU,
///   W-TinyLFU: `PolicyTraits.evictsOnHit`) leaves when that hit is
///   replayed, at the thread's next miss or write, and can be read until
///   then (Caffeine's deferred maintenance). See `BufferedReads`.
public struct LockStrategy: Hashable, Sendable, CustomStringConvertible {
  /// The lock that guards one shard.
  public enum Primitive: String, Hashable, Sendable, CaseIterable {
    /// `mutex`: a `Synchronization.Mutex`; `pthread`: a `pthread_mutex_t`; `rwlock`: a `pthread_rwlock_t`;
    /// `queue`: a serial `DispatchQueue`; `barrier`: a concurrent `DispatchQueue` whose writes are barriers.
    case mutex, pthread, rwlock, queue, barrier
  }

  /// How the cache is laid out around its locks.
  public enum Layout: Hashable, Sendable {
    /// One shard under one lock.
    case single
    /// N shards by key hash (1...4096), each with its own lock, policy and 1/N of every limit.
    case striped(shards: Int)
    /// One shard whose hits are served from a read index and recorded in
    /// ring buffers (see `BufferedReads`); its lock needs a try-lock: `pthread`.
    case buffered
  }

  /// The lock that guards each shard.
  public let primitive: Primitive
  /// How the shards are laid out around their locks.
  public let layout: Layout

  /// `primitive` in `layout`: a striped layout needs 1...4096 shards, a buffered one `pthread`.
  public init(_ primitive: Primitive, _ layout: Layout = .single) throws(CacheError) {
    if case .striped(let n) = layout, !(1...4096).contains(n) { throw .invalidShardCount(n) }
    if layout == .buffered && primitive != .pthread {
      throw .bufferedNeedsPthread("\(primitive)+buffered")
    }
    self.primitive = primitive
    self.layout = layout
  }

  init(checked primitive: Primitive, _ layout: Layout) {
    self.primitive = primitive
    self.layout = layout
  }

  /// One shard under a `Synchronization.Mutex` (a futex on Linux).
  public static let mutex = LockStrategy(checked: .mutex, .single)
  /// One shard under a `pthread_mutex_t`.
  public static let pthread = LockStrategy(checked: .pthread, .single)
  /// One shard under a `pthread_rwlock_t`; gets that hit take the write lock.
  public static let rwlock = LockStrategy(checked: .rwlock, .single)
  /// One shard on a serial `DispatchQueue`, entered with `sync`.
  public static let queue = LockStrategy(checked: .queue, .single)
  /// One shard on a concurrent `DispatchQueue`, every write a barrier (`setValue`'s asynchronous).
  public static let barrier = LockStrategy(checked: .barrier, .single)
  /// `pthread` with buffered reads.
  public static let buffered = LockStrategy(checked: .pthread, .buffered)
  /// N `mutex` shards (N in 1...4096, checked when a cache is built).
  public static func striped(shards: Int) -> LockStrategy { LockStrategy(checked: .mutex, .striped(shards: shards)) }

  /// Every strategy's name, as help texts and errors list them.
  public static let names =
    "mutex, pthread, rwlock, queue, barrier, buffered, striped, striped:N (N mutex shards), PRIMITIVE+striped:N"

  /// Parses a name of ``names``: `striped` is 8 shards, `pthread+buffered` is `buffered`.
  public init(_ text: String) throws(CacheError) {
    let lower = text.lowercased()
    let parts = lower.split(separator: "+", maxSplits: 1).map(String.init)
    let layoutName: String
    var primitive: Primitive
    if parts.count == 2 {
      guard let named = Primitive(rawValue: parts[0]) else { throw .unknownLock(text) }
      primitive = named
      layoutName = parts[1]
    } else if let named = Primitive(rawValue: lower) {
      self.init(checked: named, .single)
      return
    } else {
      primitive = lower == "buffered" ? .pthread : .mutex
      layoutName = lower
    }
    let layout: Layout
    switch layoutName {
    case "buffered": layout = .buffered
    case "striped": layout = .striped(shards: 8)
    case "single" where parts.count == 2: layout = .single
    default:
      guard layoutName.hasPrefix("striped:"), let n = Int(layoutName.dropFirst("striped:".count)) else {
        throw .unknownLock(text)
      }
      layout = .striped(shards: n)
    }
    if parts.count == 1 && layout == .buffered { primitive = .pthread }
    try self.init(primitive, layout)
  }

  /// The shards the layout makes.
  public var shards: Int {
    if case .striped(let n) = layout { return n }
    return 1
  }

  /// The name the text initialiser reads back: a primitive alone, `buffered`,
  /// `striped:N` (mutex shards) or `PRIMITIVE+striped:N`.
  public var description: String {
    switch layout {
    case .single: primitive.rawValue
    case .buffered: "buffered"
    case .striped(let n): primitive == .mutex ? "striped:\(n)" : "\(primitive.rawValue)+striped:\(n)"
    }
  }
}

/// How long takers of a lock waited, in nanoseconds: a distribution kept
/// to three significant digits (exact below 2,048 ns, then 1,024 buckets
/// per power of two, as HdrHistogram does), up to 60 s. Its buckets are
/// allocated as values reach them: a lock that never waited keeps one.
public struct WaitTimes: Sendable, Equatable {
  /// Counts by bucket (``bucket(of:)``).
  var counts: [UInt64] = []
  /// Waits recorded (an acquisition that did not wait records 0).
  public private(set) var count: UInt64 = 0
  /// The longest wait.
  public private(set) var max: UInt64 = 0
  var sum: Double = 0

  /// Values below this are counted exactly; above, each power of two has half as many buckets.
  static var exactBelow: UInt64 { 2048 }
  /// The longest wait recorded as itself (60 s); longer ones count as it.
  public static let longest: UInt64 = 60_000_000_000

  /// A distribution with no waits recorded.
  public init() {}

  /// The mean wait.
  public var mean: Double { count == 0 ? 0 : sum / Double(count) }

  /// Adds `nanoseconds` (at most ``longest``).
  public mutating func record(_ nanoseconds: UInt64) {
    let value = Swift.min(nanoseconds, Self.longest)
    let index = Self.bucket(of: value)
    if index >= counts.count { counts.append(contentsOf: repeatElement(0, count: index + 1 - counts.count)) }
    counts[index] &+= 1
    count &+= 1
    max = Swift.max(max, value)
    sum += Double(value)
  }

  /// The wait at `percent` (0–100) of the distribution: `percentile(99)` is
  /// the p99, the largest value its bucket holds (never above ``max``).
  public func percentile(_ percent: Double) -> UInt64 {
    guard count > 0 else { return 0 }
    let rank = Swift.max(1, UInt64((Swift.min(Swift.max(percent, 0), 100) / 100 * Double(count)).rounded(.up)))
    var seen: UInt64 = 0
    for (index, n) in counts.enumerated() where n > 0 {
      seen += n
      if seen >= rank { return Swift.min(Self.highest(inBucket: index), max) }
    }
    return max
  }

  /// Adds the waits `other` recorded (another shard's lock, say) to these.
  public mutating func merge(_ other: WaitTimes) {
    if other.counts.count > counts.count {
      counts.append(contentsOf: repeatElement(0, count: other.counts.count - counts.count))
    }
    for (index, n) in other.counts.enumerated() where n > 0 { counts[index] &+= n }
    count &+= other.count
    max = Swift.max(max, other.max)
    sum += other.sum
  }

  /// The bucket of `value`: itself below ``exactBelow``; above, 1,024
  /// buckets for each power of two, so a bucket is at most 1/1,024 of its values wide.
  static func bucket(of value: UInt64) -> Int {
    if value < exactBelow { return Int(value) }
    let shift = (UInt64.bitWidth - value.leadingZeroBitCount) - 11
    return Int(exactBelow) + (shift - 1) * 1024 + Int(value >> UInt64(shift)) - 1024
  }

  /// The largest value bucket `index` holds.
  static func highest(inBucket index: Int) -> UInt64 {
    if index < Int(exactBelow) { return UInt64(index) }
    let k = index - Int(exactBelow)
    let shift = UInt64(k / 1024 + 1)
    let top = UInt64(k % 1024 + 1024)
    return ((top + 1) << shift) - 1
  }
}

/// What a lock saw, when the cache was built with `instrumentLocks`: how
/// often it was taken, how often it was already held, and how long takers
/// waited.
public struct LockStatistics: Sendable {
  /// Times the lock was taken.
  public var acquisitions: UInt64 = 0
  /// Acquisitions that found the lock already held.
  public var contended: UInt64 = 0
  /// Each acquisition's wait, in nanoseconds (0 for one that found the lock free).
  public var waits = WaitTimes()
  /// Nanoseconds the contended acquisitions waited, summed.
  public var totalWaitNanoseconds: UInt64 = 0

  /// Statistics of a lock not yet taken.
  public init() {}

  /// The share of acquisitions that found the lock held.
  public var contendedShare: Double { acquisitions == 0 ? 0 : Double(contended) / Double(acquisitions) }

  /// Adds `other`'s counts and waits (another shard's lock, say) to these.
  public mutating func merge(_ other: LockStatistics) {
    acquisitions += other.acquisitions
    contended += other.contended
    waits.merge(other.waits)
    totalWaitNanoseconds += other.totalWaitNanoseconds
  }

  @usableFromInline
  mutating func record(contended wasContended: Bool, wait: UInt64) {
    acquisitions &+= 1
    if wasContended {
      contended &+= 1
      totalWaitNanoseconds &+= wait
      waits.record(wait)
    } else {
      waits.record(0)
    }
  }
}

/// One shard's lock: `exclusive` runs a critical section that may change the
/// cache, `shared` one that only reads. With instrumentation the statistics
/// are updated inside the critical section, so they need no lock of their
/// own (the reader-writer lock's readers take a small mutex for them).
@usableFromInline
final class ShardLock: @unchecked Sendable {
  @usableFromInline enum Kind { case mutex, pthread, rwlock, queue, barrier }

  @usableFromInline let kind: Kind
  @usableFromInline let instrumented: Bool
  @usableFromInline @exclusivity(unchecked) var statistics = LockStatistics()
  @usableFromInline let mutex: MutexBox?
  /// ``mutex``, held unretained: taking the lock writes no reference count.
  @usableFromInline let unretainedMutex: Unmanaged<MutexBox>?
  @usableFromInline let pthreadMutex: UnsafeMutablePointer<pthread_mutex_t>?
  @usableFromInline let rwlock: UnsafeMutablePointer<pthread_rwlock_t>?
  @usableFromInline let queue: DispatchQueue?
  /// The `barrier` strategy's writes submitted and not yet run.
  @usableFromInline let pendingWrites = Atomic<Int>(0)
  /// Set while a queue block runs: a caller that finds it set will wait.
  @usableFromInline let busy = AtomicFlag()
  /// Readers of a reader-writer lock record their statistics under this.
  @usableFromInline let statisticsGuard: UnsafeMutablePointer<pthread_mutex_t>
  /// Whether a contended `pthread` lock is taken in turns, as `mutex` is
  /// (the `buffered` strategy's writers; nil for plain `pthread`).
  @usableFromInline let pthreadTurns: TurnClock?

  @usableFromInline
  init(_ strategy: LockStrategy, instrumented: Bool) {
    self.instrumented = instrumented
    statisticsGuard = .allocate(capacity: 1)
    statisticsGuard.initialize(to: pthread_mutex_t())
    pthread_mutex_init(statisticsGuard, nil)
    var mutex: MutexBox?
    var pthreadMutex: UnsafeMutablePointer<pthread_mutex_t>?
    var rwlock: UnsafeMutablePointer<pthread_rwlock_t>?
    var queue: DispatchQueue?
    pthreadTurns = strategy.layout == .buffered ? TurnClock(length: Self.bufferedTurn) : nil
    switch strategy.primitive {
    case .mutex:
      kind = .mutex
      mutex = MutexBox()
    case .pthread:
      kind = .pthread
      pthreadMutex = .allocate(capacity: 1)
      pthreadMutex!.initialize(to: pthread_mutex_t())
      var attributes = pthread_mutexattr_t()
      pthread_mutexattr_init(&attributes)
      pthread_mutex_init(pthreadMutex!, &attributes)
      pthread_mutexattr_destroy(&attributes)
    case .rwlock:
      kind = .rwlock
      rwlock = .allocate(capacity: 1)
      rwlock!.initialize(to: pthread_rwlock_t())
      pthread_rwlock_init(rwlock!, nil)
    case .queue:
      kind = .queue
      queue = DispatchQueue(label: "EvictionCache.shard")
    case .barrier:
      kind = .barrier
      queue = DispatchQueue(label: "EvictionCache.shard", attributes: .concurrent)
    }
    self.mutex = mutex
    unretainedMutex = mutex.map { Unmanaged.passUnretained($0) }
    self.pthreadMutex = pthreadMutex
    self.rwlock = rwlock
    self.queue = queue
  }

  deinit {
    pthread_mutex_destroy(statisticsGuard)
    statisticsGuard.deallocate()
    if let pthreadMutex {
      pthread_mutex_destroy(pthreadMutex)
      pthreadMutex.deallocate()
    }
    if let rwlock {
      pthread_rwlock_destroy(rwlock)
      rwlock.deallocate()
    }
  }

  @inlinable @inline(__always)
  func exclusive<R>(_ body: () -> R) -> R {
    if instrumented { return instrumentedExclusive(body) }
    switch kind {
    case .mutex:
      return unretainedMutex.unsafelyUnwrapped._withUnsafeGuaranteedRef { box in
        var result: R?
        if box.mutex.withLockIfAvailable({ _ in result = body() }) == nil {
          acquireAfterBackingOff(box) { result = body() }
        }
        return result.unsafelyUnwrapped
      }
    case .pthread:
      let lock = pthreadMutex.unsafelyUnwrapped
      if let pthreadTurns {
        if pthread_mutex_trylock(lock) != 0 { acquireInTurns(lock, pthreadTurns) }
      } else {
        pthread_mutex_lock(lock)
      }
      defer { pthread_mutex_unlock(lock) }
      return body()
    case .rwlock:
      pthread_rwlock_wrlock(rwlock.unsafelyUnwrapped)
      defer { pthread_rwlock_unlock(rwlock.unsafelyUnwrapped) }
      return body()
    case .queue:
      return queue.unsafelyUnwrapped.sync(execute: body)
    case .barrier:
      return queue.unsafelyUnwrapped.sync(flags: .barrier, execute: body)
    }
  }

  /// The concurrent queue of the `barrier` strategy, nil for the others.
  @inlinable var barrierQueue: DispatchQueue? { kind == .barrier ? queue : nil }

  /// How many of the `barrier` strategy's asynchronous writes may wait on
  /// the queue before a writer waits for its own.
  @usableFromInline static var pendingBarrierWrites: Int { 1024 }

  /// Runs `body` as a barrier block on `queue` (``barrierQueue``):
  /// asynchronously while fewer than ``pendingBarrierWrites`` writes wait,
  /// else synchronously.
  @usableFromInline
  func barrierWrite(_ queue: DispatchQueue, _ body: @escaping () -> Void) {
    nonisolated(unsafe) let body = body
    let contended = instrumented && busy.value.load(ordering: .relaxed)
    let submitted = instrumented ? monotonicNanoseconds() : 0
    let block: @Sendable () -> Void = { [self] in
      if instrumented {
        busy.value.store(true, ordering: .relaxed)
        statistics.record(contended: contended, wait: contended ? monotonicNanoseconds() &- submitted : 0)
      }
      body()
      if instrumented { busy.value.store(false, ordering: .relaxed) }
    }
    if pendingWrites.add(1, ordering: .relaxed).newValue > Self.pendingBarrierWrites {
      queue.sync(flags: .barrier, execute: block)
      pendingWrites.subtract(1, ordering: .relaxed)
    } else {
      queue.async(flags: .barrier) { [self] in
        block()
        pendingWrites.subtract(1, ordering: .relaxed)
      }
    }
  }

  /// Runs `body` if the lock is free now (a `pthread` lock); any other kind
  /// waits for it. Returns whether `body` ran.
  @inlinable
  func tryExclusive(_ body: () -> Void) -> Bool {
    guard kind == .pthread else {
      exclusive(body)
      return true
    }
    let lock = pthreadMutex.unsafelyUnwrapped
    guard pthread_mutex_trylock(lock) == 0 else { return false }
    if instrumented { statistics.record(contended: false, wait: 0) }
    defer { pthread_mutex_unlock(lock) }
    body()
    return true
  }

  @inlinable @inline(__always)
  func shared<R>(_ body: () -> R) -> R {
    if kind == .barrier {
      if instrumented { return instrumentedQueue(queue.unsafelyUnwrapped, flags: [], body) }
      return queue.unsafelyUnwrapped.sync(execute: body)
    }
    guard kind == .rwlock else { return exclusive(body) }
    if instrumented { return instrumentedShared(body) }
    pthread_rwlock_rdlock(rwlock.unsafelyUnwrapped)
    defer { pthread_rwlock_unlock(rwlock.unsafelyUnwrapped) }
    return body()
  }

  /// A held `Mutex`, taken without queueing in the kernel where possible.
  ///
  /// On Linux `Mutex` waits on a priority-inheriting futex, which hands the
  /// lock to the longest waiter even when that thread is not running: with
  /// more threads than cores every hand-over waits for a context switch, and
  /// throughput fell to 1% of one thread's at 8 threads on 2 cores.
  /// Retrying at once instead keeps the lock moving between cores with every
  /// operation, and the cache's hot lines with it: each operation then starts
  /// by fetching them from the other core, and two threads ran at 30–40% of
  /// one thread's throughput (`evlab bench concurrent`).
  ///
  /// So a waiter that finds the lock held sleeps between tries, without
  /// telling the holder, and lets whoever won the lock after waiting keep it
  /// for at least ``turn``: the holder takes and leaves it as if alone, with
  /// warm caches, and the hot lines move once per turn instead of once per
  /// operation. That trades fairness for throughput, as barging locks do;
  /// after ``pausesBeforeQueueing`` pauses a waiter queues in the kernel,
  /// which bounds how long it can be passed over.
  @usableFromInline
  func acquireAfterBackingOff(_ box: MutexBox, _ body: () -> Void) {
    let won = Self.waitForTurn(box.turns) {
      let taken: Void? = box.mutex.withLockIfAvailable { _ in
        box.turns.handedOver.store(monotonicNanoseconds(), ordering: .relaxed)
        body()
      }
      return taken != nil
    }
    if !won { box.mutex.withLock { _ in body() } }
  }

  /// Takes the `pthread` lock `lock`, found held, in turns as
  /// ``acquireAfterBackingOff(_:_:)`` takes a `Mutex`: the `buffered`
  /// strategy's writers, whose readers need no lock, so that a writer
  /// waiting its turn holds up only its own thread.
  @usableFromInline
  func acquireInTurns(_ lock: UnsafeMutablePointer<pthread_mutex_t>, _ turns: TurnClock) {
    let won = Self.waitForTurn(turns) {
      guard pthread_mutex_trylock(lock) == 0 else { return false }
      turns.handedOver.store(monotonicNanoseconds(), ordering: .relaxed)
      return true
    }
    if !won { pthread_mutex_lock(lock) }
  }

  /// Sleeps through the last winner's turn (or a pause that doubles) and
  /// calls `attempt` after each sleep, up to ``pausesBeforeQueueing``
  /// times; returns whether an attempt took the lock.
  @usableFromInline
  static func waitForTurn(_ turns: TurnClock, _ attempt: () -> Bool) -> Bool {
    var pause = firstPause
    for _ in 0..<pausesBeforeQueueing {
      let now = monotonicNanoseconds()
      let turnEnds = turns.handedOver.load(ordering: .relaxed) &+ turns.length
      var sleep = timespec(tv_sec: 0, tv_nsec: turnEnds > now ? Int(turnEnds - now) : pause)
      nanosleep(&sleep, nil)
      if attempt() { return true }
      pause = min(pause * 2, longestPause)
    }
    return false
  }

  /// How long a waiter that won the lock keeps it from other waiters, in
  /// nanoseconds: long beside a cold start's cache misses (tens of
  /// microseconds), short beside a scheduler's time slice.
  @usableFromInline static var turn: UInt64 { 1_000_000 }
  /// The turn of the `buffered` strategy's writers: a tenth of ``turn``.
  /// A thread waiting out a turn holds back the requests it has claimed, so
  /// a long turn reorders a replay (`evlab stress`) the more; 1 ms turns
  /// moved `buffered`'s hit-ratio drift at 8 threads from +0.03 to +0.15
  /// percentage points on cloudPhysicsIO.
  @usableFromInline static var bufferedTurn: UInt64 { 100_000 }
  /// A waiter's first pause, in nanoseconds (Linux adds its timer slack,
  /// 50 µs by default, to every sleep).
  @usableFromInline static var firstPause: Int { 20_000 }
  /// The longest pause between two tries, in nanoseconds.
  @usableFromInline static var longestPause: Int { 1_000_000 }
  /// Pauses before a waiter queues in the kernel.
  @usableFromInline static var pausesBeforeQueueing: Int { 16 }

  @usableFromInline
  func instrumentedExclusive<R>(_ body: () -> R) -> R {
    switch kind {
    case .mutex:
      var result: R?
      let box = mutex.unsafelyUnwrapped
      let done: Bool =
        box.mutex.withLockIfAvailable { _ in
          statistics.record(contended: false, wait: 0)
          result = body()
          return true
        } ?? false
      if !done {
        let start = monotonicNanoseconds()
        acquireAfterBackingOff(box) {
          statistics.record(contended: true, wait: monotonicNanoseconds() &- start)
          result = body()
        }
      }
      return result!
    case .pthread:
      let lock = pthreadMutex.unsafelyUnwrapped
      if pthread_mutex_trylock(lock) == 0 {
        statistics.record(contended: false, wait: 0)
      } else {
        let start = monotonicNanoseconds()
        if let pthreadTurns { acquireInTurns(lock, pthreadTurns) } else { pthread_mutex_lock(lock) }
        statistics.record(contended: true, wait: monotonicNanoseconds() &- start)
      }
      defer { pthread_mutex_unlock(lock) }
      return body()
    case .rwlock:
      let lock = rwlock.unsafelyUnwrapped
      if pthread_rwlock_trywrlock(lock) == 0 {
        statistics.record(contended: false, wait: 0)
      } else {
        let start = monotonicNanoseconds()
        pthread_rwlock_wrlock(lock)
        statistics.record(contended: true, wait: monotonicNanoseconds() &- start)
      }
      defer { pthread_rwlock_unlock(lock) }
      return body()
    case .queue:
      return instrumentedQueue(queue.unsafelyUnwrapped, flags: [], body)
    case .barrier:
      return instrumentedQueue(queue.unsafelyUnwrapped, flags: .barrier, body)
    }
  }

  /// A block on `queue`, counted as contended when another block was
  /// running as it was submitted. Readers of the `barrier` strategy's queue
  /// run side by side, so they record under ``statisticsGuard``.
  @usableFromInline
  func instrumentedQueue<R>(_ queue: DispatchQueue, flags: DispatchWorkItemFlags, _ body: () -> R) -> R {
    let contended = busy.value.load(ordering: .relaxed)
    let start = monotonicNanoseconds()
    let concurrent = kind == .barrier && !flags.contains(.barrier)
    return queue.sync(flags: flags) {
      if !concurrent { busy.value.store(true, ordering: .relaxed) }
      defer { if !concurrent { busy.value.store(false, ordering: .relaxed) } }
      if concurrent { pthread_mutex_lock(statisticsGuard) }
      statistics.record(contended: contended, wait: contended ? monotonicNanoseconds() &- start : 0)
      if concurrent { pthread_mutex_unlock(statisticsGuard) }
      return body()
    }
  }

  @usableFromInline
  func instrumentedShared<R>(_ body: () -> R) -> R {
    let lock = rwlock.unsafelyUnwrapped
    var wait: UInt64 = 0
    let contended = pthread_rwlock_tryrdlock(lock) != 0
    if contended {
      let start = monotonicNanoseconds()
      pthread_rwlock_rdlock(lock)
      wait = monotonicNanoseconds() &- start
    }
    pthread_mutex_lock(statisticsGuard)
    statistics.record(contended: contended, wait: wait)
    pthread_mutex_unlock(statisticsGuard)
    defer { pthread_rwlock_unlock(lock) }
    return body()
  }
}

/// Holds a `Mutex` in a final class of its own, shareable by reference.
@usableFromInline
final class MutexBox: Sendable {
  @usableFromInline let mutex = Mutex(())
  @usableFromInline let turns = TurnClock(length: ShardLock.turn)
  @usableFromInline init() {}
}

/// When a waiter last won a lock taken in turns (monotonic nanoseconds; see
/// `ShardLock.acquireAfterBackingOff`).
@usableFromInline
final class TurnClock: Sendable {
  @usableFromInline let handedOver = Atomic<UInt64>(0)
  /// How long a waiter that won keeps the lock from other waiters (nanoseconds).
  @usableFromInline let length: UInt64
  @usableFromInline init(length: UInt64) { self.length = length }
}

/// An `Atomic<Bool>` in a final class of its own.
@usableFromInline
final class AtomicFlag: Sendable {
  @usableFromInline let value = Atomic<Bool>(false)
  @usableFromInline init() {}
}

/// The departures this thread is handing to eviction handlers, innermost
/// last: which (cache, key) a handler running now was told of.
@usableFromInline
final class HandlerDeliveries {
  var stack: [(cache: ObjectIdentifier, key: AnyHashable)] = []

  /// This thread's list, made on first use and released with the thread.
  @usableFromInline static var current: HandlerDeliveries {
    if let existing = pthread_getspecific(handlerDeliveriesKey) {
      return Unmanaged<HandlerDeliveries>.fromOpaque(existing).takeUnretainedValue()
    }
    let made = HandlerDeliveries()
    pthread_setspecific(handlerDeliveriesKey, Unmanaged.passRetained(made).toOpaque())
    return made
  }

  @usableFromInline func isDelivering(_ cache: ObjectIdentifier, _ key: some Hashable) -> Bool {
    guard !stack.isEmpty else { return false }
    let key = AnyHashable(key)
    return stack.contains { $0.cache == cache && $0.key == key }
  }

  @usableFromInline func push(_ cache: ObjectIdentifier, _ key: some Hashable) {
    stack.append((cache, AnyHashable(key)))
  }

  @usableFromInline func pop() { stack.removeLast() }
}

/// The thread-specific slot of ``HandlerDeliveries``.
let handlerDeliveriesKey: pthread_key_t = {
  var key = pthread_key_t()
  pthread_key_create(&key) { pointer in
    #if canImport(Glibc)
      guard let pointer else { return }
    #endif
    Unmanaged<HandlerDeliveries>.fromOpaque(pointer).release()
  }
  return key
}()
