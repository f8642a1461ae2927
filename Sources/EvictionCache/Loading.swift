import Synchronization

extension MemoryCache where Key: Sendable, Value: Sendable {
  /// The value for `key`, loaded by `load` on a miss and stored (at `cost`,
  /// or as ``setValue(_:forKey:cost:ttl:)`` weighs it without one).
  ///
  /// However many tasks ask for one missing key at once, `load` runs once
  /// and every one of them receives its value, as Caffeine's
  /// `get(key, mappingFunction)` and Guava's `LoadingCache` do. If `load`
  /// throws, every waiter receives the error and nothing is cached; the next
  /// request loads again. The load runs in a task of its own: cancelling a
  /// waiter ends that waiter's wait (with `CancellationError`) and neither
  /// the load nor the other waiters'.
  ///
  /// A hit returns at once, without suspending.
  public func value(
    forKey key: Key, cost: Int? = nil, orLoad load: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    if let value = value(forKey: key) { return value }
    let waiter = loads.newWaiter()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        if loads.wait(for: key, as: waiter, continuation) {
          Task { await self.runLoad(key, cost: cost, load) }
        }
      }
    } onCancel: {
      loads.cancel(waiter, of: key)
    }
  }

  /// Loads `key` once for all its waiters (unless a load that finished
  /// between their miss and this cached it already) and stores the value.
  func runLoad(_ key: Key, cost: Int?, _ load: @Sendable () async throws -> Value) async {
    let outcome: Result<Value, any Error>
    if let cached = value(forKey: key) {
      outcome = .success(cached)
    } else {
      do {
        let value = try await load()
        setValue(value, forKey: key, cost: cost)
        outcome = .success(value)
      } catch {
        outcome = .failure(error)
      }
    }
    loads.finish(key, outcome)
  }

  /// Loads in progress (for tests and monitoring).
  public var loadsInFlight: Int { loads.count }
}

/// The loads in flight of one cache, by key, and who waits for each. A
/// waiter is first *pending* (it has an identity, not yet a continuation),
/// then waits on its key's load until the load finishes or the waiter is
/// cancelled, whichever comes first: exactly one of them resumes it.
@usableFromInline
final class LoadTable<Key: Hashable, Value>: @unchecked Sendable {
  /// The waiters of one key's load.
  typealias Waiters = [Int: CheckedContinuation<Value, any Error>]

  fileprivate let mutex = Mutex(())
  fileprivate var loads: [Key: Waiters] = [:]
  /// Waiters with an identity and no continuation yet: true once cancelled.
  fileprivate var pending: [Int: Bool] = [:]
  fileprivate var nextWaiter = 0

  @usableFromInline init() {}

  var count: Int { mutex.withLock { _ in loads.count } }

  /// How many waiters `key`'s load has (for tests).
  func waiters(of key: Key) -> Int { mutex.withLock { _ in loads[key]?.count ?? 0 } }

  func newWaiter() -> Int {
    mutex.withLock { _ in
      nextWaiter += 1
      pending[nextWaiter] = false
      return nextWaiter
    }
  }

}

extension LoadTable where Value: Sendable {
  /// Adds `waiter` to `key`'s load; returns true if there was none, and the
  /// caller must start it. A waiter cancelled before it got here is resumed
  /// with `CancellationError` at once.
  func wait(for key: Key, as waiter: Int, _ continuation: CheckedContinuation<Value, any Error>) -> Bool {
    let (cancelled, starts): (Bool, Bool) = mutex.withLock { _ in
      if pending.removeValue(forKey: waiter) == true { return (true, false) }
      let starts = loads[key] == nil
      loads[key, default: [:]][waiter] = continuation
      return (false, starts)
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
    return starts
  }

  /// Ends `waiter`'s wait with `CancellationError` (the load goes on).
  func cancel(_ waiter: Int, of key: Key) {
    let continuation: CheckedContinuation<Value, any Error>? = mutex.withLock { _ in
      if pending[waiter] != nil {
        pending[waiter] = true
        return nil
      }
      return loads[key]?.removeValue(forKey: waiter)
    }
    continuation?.resume(throwing: CancellationError())
  }

  /// Hands `outcome` to every waiter of `key`'s load and forgets the load.
  func finish(_ key: Key, _ outcome: Result<Value, any Error>) {
    let waiters = mutex.withLock { _ in loads.removeValue(forKey: key) ?? [:] }
    for continuation in waiters.values { continuation.resume(with: outcome) }
  }
}
