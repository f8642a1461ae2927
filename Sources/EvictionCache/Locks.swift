import Dispatch
import Histogram
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

/// How a `MemoryCache` guards its state: an experimental dimension, so every
/// strategy is one name away.
///
/// - `mutex`: `Synchronization.Mutex` (a futex on Linux). Every operation is
///   exclusive.
/// - `pthread`: a `pthread_mutex_t`, the lock YYMemoryCache uses.
/// - `rwlock`: a `pthread_rwlock_t`. A read that hits changes the policy's
///   order (LRU moves the entry, ARC promotes it), so gets take the write
///   lock too; only `contains`, the counts and the statistics share the read
///   lock. It shows what a reader-writer lock costs when reads write.
/// - `queue`: a serial `DispatchQueue` entered with `sync`, as AFNetworking's
///   image cache and the plist file cache in our seed material guard state.
/// - `striped(N)`: N independent shards chosen by key hash, each with its own
///   `Mutex`, policy and 1/N of every limit. Threads on different shards never
///   wait for each other, but the policy's order becomes per shard: the cache
///   evicts the LRU entry *of the shard* that needs room, not the globally
///   least recent one, so hit ratios differ (slightly, for large shards) from
///   the single policy's.
public enum LockStrategy: Hashable, Sendable, CustomStringConvertible {
  case mutex, pthread, rwlock, queue
  case striped(shards: Int)

  /// Parses `mutex`, `pthread`, `rwlock`, `queue`, `striped` (8 shards) or `striped:N`.
  public init(_ text: String) throws(CacheError) {
    let lower = text.lowercased()
    switch lower {
    case "mutex": self = .mutex
    case "pthread": self = .pthread
    case "rwlock": self = .rwlock
    case "queue": self = .queue
    case "striped": self = .striped(shards: 8)
    default:
      if lower.hasPrefix("striped:"), let n = Int(lower.dropFirst("striped:".count)) {
        guard (1...4096).contains(n) else { throw .invalidShardCount(n) }
        self = .striped(shards: n)
      } else {
        throw .unknownLock(text)
      }
    }
  }

  public var description: String {
    switch self {
    case .mutex: "mutex"
    case .pthread: "pthread"
    case .rwlock: "rwlock"
    case .queue: "queue"
    case .striped(let n): "striped:\(n)"
    }
  }
}

/// What a lock saw, when the cache was built with `instrumentLocks`: how
/// often it was taken, how often it was already held, and how long takers
/// waited (an HdrHistogram of nanoseconds).
public struct LockStatistics: Sendable {
  public var acquisitions: UInt64 = 0
  public var contended: UInt64 = 0
  public var waits = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
  public var totalWaitNanoseconds: UInt64 = 0

  public init() {}

  /// The share of acquisitions that found the lock held.
  public var contendedShare: Double { acquisitions == 0 ? 0 : Double(contended) / Double(acquisitions) }

  public mutating func merge(_ other: LockStatistics) {
    acquisitions += other.acquisitions
    contended += other.contended
    waits.add(other.waits)
    totalWaitNanoseconds += other.totalWaitNanoseconds
  }

  @usableFromInline
  mutating func record(contended wasContended: Bool, wait: UInt64) {
    acquisitions &+= 1
    if wasContended {
      contended &+= 1
      totalWaitNanoseconds &+= wait
      waits.record(min(wait, 60_000_000_000))
    } else {
      waits.record(0)
    }
  }
}

/// One shard's lock. `exclusive` runs a critical section that may change the
/// cache; `shared` one that only reads. With instrumentation the statistics
/// are updated inside the critical section, so they need no lock of their own.
@usableFromInline
class ShardLock: @unchecked Sendable {
  @usableFromInline let instrumented: Bool
  @usableFromInline var statistics = LockStatistics()

  init(instrumented: Bool) { self.instrumented = instrumented }

  static func make(_ strategy: LockStrategy, instrumented: Bool) -> ShardLock {
    switch strategy {
    case .mutex, .striped: MutexLock(instrumented: instrumented)
    case .pthread: PthreadLock(instrumented: instrumented)
    case .rwlock: ReaderWriterLock(instrumented: instrumented)
    case .queue: QueueLock(instrumented: instrumented)
    }
  }

  @usableFromInline func exclusive<R>(_ body: () -> R) -> R { fatalError("abstract") }
  @usableFromInline func shared<R>(_ body: () -> R) -> R { exclusive(body) }
}

/// Holds a `Mutex` in a final class of its own (a non-copyable value stored
/// directly in a subclass crashes the 6.3 compiler's ownership verifier when
/// building with `-enable-testing`).
final class MutexBox: Sendable {
  let mutex = Mutex(())
}

/// An `Atomic<Bool>` in a final class of its own (same compiler limitation).
final class AtomicFlag: Sendable {
  let value = Atomic<Bool>(false)
}

final class MutexLock: ShardLock, @unchecked Sendable {
  let box = MutexBox()

  override func exclusive<R>(_ body: () -> R) -> R {
    var result: R?
    if !instrumented {
      box.mutex.withLock { _ in result = body() }
      return result!
    }
    let done: Bool = box.mutex.withLockIfAvailable { _ in
      statistics.record(contended: false, wait: 0)
      result = body()
      return true
    } ?? false
    if !done {
      let start = monotonicNanoseconds()
      box.mutex.withLock { _ in
        statistics.record(contended: true, wait: monotonicNanoseconds() &- start)
        result = body()
      }
    }
    return result!
  }
}

final class PthreadLock: ShardLock, @unchecked Sendable {
  let mutex: UnsafeMutablePointer<pthread_mutex_t>

  override init(instrumented: Bool) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    super.init(instrumented: instrumented)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  override func exclusive<R>(_ body: () -> R) -> R {
    if !instrumented {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return body()
    }
    if pthread_mutex_trylock(mutex) == 0 {
      statistics.record(contended: false, wait: 0)
    } else {
      let start = monotonicNanoseconds()
      pthread_mutex_lock(mutex)
      statistics.record(contended: true, wait: monotonicNanoseconds() &- start)
    }
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}

final class ReaderWriterLock: ShardLock, @unchecked Sendable {
  let lock: UnsafeMutablePointer<pthread_rwlock_t>
  /// Readers update the statistics concurrently; they take this to do so.
  let statisticsGuard = MutexBox()

  override init(instrumented: Bool) {
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_rwlock_t())
    pthread_rwlock_init(lock, nil)
    super.init(instrumented: instrumented)
  }

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deallocate()
  }

  override func exclusive<R>(_ body: () -> R) -> R {
    if !instrumented {
      pthread_rwlock_wrlock(lock)
      defer { pthread_rwlock_unlock(lock) }
      return body()
    }
    if pthread_rwlock_trywrlock(lock) == 0 {
      statistics.record(contended: false, wait: 0)
    } else {
      let start = monotonicNanoseconds()
      pthread_rwlock_wrlock(lock)
      statistics.record(contended: true, wait: monotonicNanoseconds() &- start)
    }
    defer { pthread_rwlock_unlock(lock) }
    return body()
  }

  override func shared<R>(_ body: () -> R) -> R {
    if !instrumented {
      pthread_rwlock_rdlock(lock)
      defer { pthread_rwlock_unlock(lock) }
      return body()
    }
    var wait: UInt64 = 0
    let contended = pthread_rwlock_tryrdlock(lock) != 0
    if contended {
      let start = monotonicNanoseconds()
      pthread_rwlock_rdlock(lock)
      wait = monotonicNanoseconds() &- start
    }
    statisticsGuard.mutex.withLock { _ in statistics.record(contended: contended, wait: wait) }
    defer { pthread_rwlock_unlock(lock) }
    return body()
  }
}

final class QueueLock: ShardLock, @unchecked Sendable {
  let queue = DispatchQueue(label: "EvictionCache.shard")
  /// Set while a block runs: a caller that finds it set will wait.
  let busy = AtomicFlag()

  override func exclusive<R>(_ body: () -> R) -> R {
    if !instrumented {
      return queue.sync(execute: body)
    }
    let contended = busy.value.load(ordering: .relaxed)
    let start = monotonicNanoseconds()
    return queue.sync {
      busy.value.store(true, ordering: .relaxed)
      defer { busy.value.store(false, ordering: .relaxed) }
      statistics.record(contended: contended, wait: contended ? monotonicNanoseconds() &- start : 0)
      return body()
    }
  }
}
