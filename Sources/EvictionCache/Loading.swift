import Synchronization

extension MemoryCache where Key: Sendable, Value: Sendable {
  /// The value for `key`, loaded by `load` on a miss and stored (at `cost`,
  /// or as ``setValue(_:forKey:cost:ttl:)`` weighs it without one; with
  /// `ttl`, expiring that long after it is stored; without, as the cache's
  /// `expiry` closure says).
  ///
  /// However many tasks ask for one missing key at once, `load` runs once
  /// and every one of them receives its value, as Caffeine's
  /// `get(key, mappingFunction)` and Guava's `LoadingCache` do. If `load`
  /// throws, every waiter receives the error and nothing is cached; the next
  /// request loads again. The load runs in a task of its own: cancelling a
  /// waiter ends that waiter's wait (with `CancellationError`) and neither
  /// the load nor the other waiters'. With a `timeout`, a waiter stops
  /// waiting after it with ``CacheError/loadTimedOut(key:after:)``; the
  /// load goes on for the others, and is stored when it ends.
  ///
  /// A value stored for `key` while it loads (by `load` itself, with a TTL
  /// of its own, or by another writer) is newer than the load: it stays,
  /// and the loaded value is only returned. A loader that asks the same
  /// cache for the key it is loading, directly or through other keys'
  /// loads, would wait for itself: it receives
  /// ``CacheError/recursiveLoad(_:)`` instead, as Caffeine throws on a
  /// recursive computation.
  ///
  /// A hit returns at once, without suspending. The miss that starts a wait
  /// counts once in ``statistics``; loads, their failures and their time
  /// are counted there too.
  public func value(
    forKey key: Key, cost: Int? = nil, ttl: Duration? = nil, timeout: Duration? = nil,
    orLoad load: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    if let value = value(forKey: key) { return value }
    return try await self.load(afterMiss: key, ttl: ttl, timeout: timeout) { (try await load(), cost) }
  }

  /// Like ``value(forKey:cost:ttl:timeout:orLoad:)``, for an entry that
  /// expires once it has gone `timeToIdle` without a read, as
  /// ``setValue(_:forKey:cost:ttl:timeToIdle:)`` stores one (Caffeine's
  /// `expireAfterAccess` on a loading cache): every hit, through this call
  /// or any other read, extends it; with a `ttl` too, it expires at
  /// whichever comes first. A `timeToIdle` of zero or less stores the
  /// loaded value expired: it is returned, and the next read loads again.
  public func value(
    forKey key: Key, cost: Int? = nil, ttl: Duration? = nil, timeToIdle: Duration, timeout: Duration? = nil,
    orLoad load: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    if let value = value(forKey: key) { return value }
    return try await self.load(
      afterMiss: key, ttl: timeToIdle > .zero ? ttl : .zero, idle: Self.idleNanoseconds(timeToIdle), timeout: timeout
    ) { (try await load(), cost) }
  }

  /// Like ``value(forKey:cost:ttl:timeout:orLoad:)``, for a loader that
  /// learns what the value costs as it loads it (the bytes downloaded or
  /// read from disk): the value is stored at the cost `load` returns.
  public func value(
    forKey key: Key, ttl: Duration? = nil, timeout: Duration? = nil,
    orLoadWithCost load: @escaping @Sendable () async throws -> (value: Value, cost: Int)
  ) async throws -> Value {
    if let value = value(forKey: key) { return value }
    return try await self.load(afterMiss: key, ttl: ttl, timeout: timeout) {
      let (value, cost) = try await load()
      return (value, cost)
    }
  }

  /// Loads `key` for a caller whose lookup just missed (and counted the
  /// miss): shared with every other waiter of the key, stored at the cost
  /// `load` returns (nil: as ``setValue(_:forKey:cost:ttl:)`` weighs it).
  package func load(
    afterMiss key: Key, ttl: Duration?, idle: UInt64 = 0, timeout: Duration?,
    _ load: @escaping @Sendable () async throws -> (Value, Int?)
  ) async throws -> Value {
    if LoadScope.keys.contains(self, key) { throw CacheError.recursiveLoad("\(key)") }
    return try await awaitLoad(of: key, timeout: timeout) {
      Task { await self.runLoad(key, ttl: ttl, idle: idle, load) }
    }
  }

  /// The values of `keys`, each as a `Result`: cached ones at once; the
  /// missing ones from **one** call of `load` with every missing key that
  /// no other task is loading, as Caffeine's `getAll` does. A key another
  /// task is loading, by this call or the single-key
  /// ``value(forKey:cost:ttl:timeout:orLoad:)``, is waited for, not loaded
  /// twice; a single-key request for a key this call loads waits for it
  /// in turn. Each value is stored as the cache's `cost` closure weighs it,
  /// expiring after `ttl`.
  ///
  /// Failures are per key: a key `load` leaves out of its answer fails
  /// with ``CacheError/notLoaded(_:)``; if `load` throws, every key it was
  /// asked for fails with its error; a key asked for by its own loader
  /// fails with ``CacheError/recursiveLoad(_:)``; a key waited for fails
  /// with ``CacheError/loadTimedOut(key:after:)`` past `timeout`. One call
  /// of `load` counts as one load in ``statistics``.
  public func values(
    forKeys keys: [Key], ttl: Duration? = nil, timeout: Duration? = nil,
    orLoad load: @escaping @Sendable ([Key]) async throws -> [Key: Value]
  ) async -> [Key: Result<Value, any Error>] {
    var results: [Key: Result<Value, any Error>] = [:]
    var missing: [Key] = []
    for key in keys where results[key] == nil {
      if let value = value(forKey: key) {
        results[key] = .success(value)
      } else if LoadScope.keys.contains(self, key) {
        results[key] = .failure(CacheError.recursiveLoad("\(key)"))
      } else {
        results[key] = .failure(CacheError.notLoaded("\(key)"))  // until its load says otherwise
        missing.append(key)
      }
    }
    let (owned, joined) = loads.claim(missing)
    // The load runs in a task of its own, as the single-key load does: the
    // other tasks waiting for its keys do not depend on this one's fate.
    let bulk = owned.isEmpty ? nil : Task { await self.runLoads(owned, ttl: ttl, load) }
    for key in joined {
      do {
        results[key] = .success(
          try await awaitLoad(of: key, timeout: timeout) {
            Task { _ = await self.runLoads([key], ttl: ttl, load) }
          })
      } catch {
        results[key] = .failure(error)
      }
    }
    if let bulk { results.merge(await bulk.value) { $1 } }
    return results
  }

  /// Waits for `key`'s load, calling `start` if there is none to join.
  func awaitLoad(of key: Key, timeout: Duration?, start: () -> Void) async throws -> Value {
    let waiter = loads.newWaiter()
    let loads = loads
    let timer = timeout.map { limit in
      Task {
        try await Task.sleep(for: limit)
        loads.cancel(waiter, of: key, with: CacheError.loadTimedOut(key: "\(key)", after: limit))
      }
    }
    defer { timer?.cancel() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        if loads.wait(for: key, as: waiter, continuation) { start() }
      }
    } onCancel: {
      loads.cancel(waiter, of: key, with: CancellationError())
    }
  }

  /// Loads `keys` (claimed in the load table) with one call of `load`,
  /// stores what it returns, and hands each key's outcome to its waiters.
  func runLoads(_ keys: [Key], ttl: Duration?, _ load: @Sendable ([Key]) async throws -> [Key: Value]) async
    -> [Key: Result<Value, any Error>]
  {
    var outcomes: [Key: Result<Value, any Error>] = [:]
    var asked: [Key] = []
    for key in keys {
      if let cached = valueUncounted(forKey: key) { outcomes[key] = .success(cached) } else { asked.append(key) }
    }
    if !asked.isEmpty {
      let start = ContinuousClock.now
      let scope = asked.reduce(LoadScope.keys) { $0.adding(self, $1) }
      do {
        let loaded = try await LoadScope.$keys.withValue(scope) { try await load(asked) }
        let took = ContinuousClock.now - start
        loads.recordLoad(failed: false, took: took)
        // One call loaded them all: each key is priced its share of the time.
        let share = seconds(took) / Double(asked.count)
        for key in asked {
          if let value = loaded[key] {
            storeIfAbsent(value, forKey: key, cost: nil, ttl: ttl, loadSeconds: share)
            outcomes[key] = .success(value)
          } else {
            outcomes[key] = .failure(CacheError.notLoaded("\(key)"))
          }
        }
      } catch {
        loads.recordLoad(failed: true, took: ContinuousClock.now - start)
        for key in asked { outcomes[key] = .failure(error) }
      }
    }
    for key in keys { loads.finish(key, outcomes[key]!) }
    return outcomes
  }

  /// Loads `key` once for all its waiters (unless a load that finished
  /// between their miss and this cached it already) and stores the value.
  func runLoad(_ key: Key, ttl: Duration?, idle: UInt64 = 0, _ load: @Sendable () async throws -> (Value, Int?)) async {
    let outcome: Result<Value, any Error>
    if let cached = valueUncounted(forKey: key) {
      outcome = .success(cached)
    } else {
      let start = ContinuousClock.now
      do {
        let (value, cost) = try await LoadScope.$keys.withValue(LoadScope.keys.adding(self, key)) { try await load() }
        let took = ContinuousClock.now - start
        loads.recordLoad(failed: false, took: took)
        storeIfAbsent(value, forKey: key, cost: cost, ttl: ttl, idle: idle, loadSeconds: seconds(took))
        outcome = .success(value)
      } catch {
        loads.recordLoad(failed: true, took: ContinuousClock.now - start)
        outcome = .failure(error)
      }
    }
    loads.finish(key, outcome)
  }

  /// The value for `key`, as ``value(forKey:cost:ttl:timeout:orLoad:)``
  /// gives it, **refreshed** once it is older than `refreshAfter`: a read
  /// that finds an entry written at least that long ago returns the cached
  /// value at once and starts one reload in the background, as Caffeine's
  /// `refreshAfterWrite` does. However many reads find the entry due, one
  /// reload per key runs (shared with any load of the key); a read that
  /// misses while it runs waits for it, as for a load.
  ///
  /// The reloaded value replaces the entry (at `cost`, expiring after `ttl`,
  /// as a load's would) only if nothing wrote or removed the key meanwhile:
  /// a newer write stands, and a removal is not undone. If the entry was
  /// evicted or expired meanwhile, the value is stored as a load's is. A
  /// reload that throws leaves the entry as it was (its next read past the
  /// interval tries again) and is counted in
  /// ``CacheStatistics/refreshFailures``. An entry past its time-to-live
  /// is never served: refreshing does not extend an expiry.
  ///
  /// The age is the time since the entry was last *written*: reads do not
  /// reset it. Entries stored before the cache's first refreshing read
  /// count as written at that read.
  ///
  /// **Stale while revalidating.** With `serveStale`, an entry whose
  /// time-to-live ran out no longer than `serveStale` ago is served too,
  /// while one reload replaces it (HTTP's `stale-while-revalidate`,
  /// pingora's `get_stale`): the staleness a reader can see is bounded by
  /// the grace. Such a hit counts in ``CacheStatistics/staleHits``. Past the
  /// grace the entry is a miss, as any expired entry is, and the read waits
  /// for the load.
  ///
  /// - Throws: ``CacheError/invalidLimit(name:value:)`` for a
  ///   `refreshAfter` of zero or less or a negative `serveStale`, and what
  ///   the loader throws on a miss.
  public func value(
    forKey key: Key, cost: Int? = nil, ttl: Duration? = nil, refreshAfter: Duration, serveStale: Duration? = nil,
    timeout: Duration? = nil, orLoad load: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    guard refreshAfter > .zero else { throw CacheError.invalidLimit(name: "refreshAfter", value: "\(refreshAfter)") }
    if let serveStale, serveStale < .zero {
      throw CacheError.invalidLimit(name: "serveStale", value: "\(serveStale)")
    }
    let grace = serveStale.map(saturatingNanoseconds)
    let interval = saturatingNanoseconds(refreshAfter)
    // A loader reading its own key gets the cached value, and no reload of itself.
    let mayRefresh = !LoadScope.keys.contains(self, key)
    let shard = shard(for: key)
    let now = clock()
    // The due check, the claim and the mark share the read's lock: no write
    // can come between them unnoticed.
    let (found, refreshes, departed) = shard.exclusive(ownRing: true) {
      // An expired entry within the grace is due at once.
      let found = shard.valueAndWrite(forKey: key, now: now, staleGrace: grace)
      var refreshes = false
      if mayRefresh, let found, found.stale || elapsed(since: found.written, until: now) >= interval,
        loads.claim([key]).owned == [key]
      {
        shard.beginRefresh(of: key)
        refreshes = true
      }
      return (found?.value, refreshes, shard.takeDeparted())
    }
    deliver(departed)
    guard let value = found else {
      return try await self.load(afterMiss: key, ttl: ttl, timeout: timeout) { (try await load(), cost) }
    }
    if refreshes {
      loads.recordRefresh(started: true)
      Task { await self.runRefresh(key, cost: cost, ttl: ttl, load) }
    }
    return value
  }

  /// Reloads `key` (claimed in the load table) and stores the value over
  /// the entry it refreshes (see ``value(forKey:cost:ttl:refreshAfter:serveStale:timeout:orLoad:)``).
  func runRefresh(_ key: Key, cost: Int?, ttl: Duration?, _ load: @Sendable () async throws -> Value) async {
    let outcome: Result<Value, any Error>
    do {
      let start = ContinuousClock.now
      let value = try await LoadScope.$keys.withValue(LoadScope.keys.adding(self, key)) { try await load() }
      let took = seconds(ContinuousClock.now - start)
      storeLoaded(value, forKey: key, cost: cost, ttl: ttl, loadSeconds: took) { shard, now in
        switch shard.endRefresh(of: key) {
        case .intact: true
        case .left: !shard.contains(key, now: now)
        case .superseded: false
        }
      }
      outcome = .success(value)
    } catch {
      let shard = shard(for: key)
      _ = shard.exclusive { shard.endRefresh(of: key) }
      loads.recordRefresh(failed: true)
      outcome = .failure(error)
    }
    loads.finish(key, outcome)
  }

  /// `duration` in seconds, as a load's penalty (``MissPenalty/loadTime(stored:)``).
  func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }

  /// Loads in progress (for tests and monitoring).
  public var loadsInFlight: Int { loads.count }
}

/// The keys whose loads the current task runs inside, by cache: a loader
/// that asks for one of them would wait for itself.
enum LoadScope {
  @TaskLocal static var keys = LoadingKeys()
}

/// (cache, key) pairs; the keys are `Sendable` (the loading API requires it).
struct LoadingKeys: @unchecked Sendable {
  var pairs: [(cache: ObjectIdentifier, key: AnyHashable)] = []

  func contains(_ cache: AnyObject, _ key: some Hashable) -> Bool {
    let key = AnyHashable(key)
    return pairs.contains { $0.cache == ObjectIdentifier(cache) && $0.key == key }
  }

  func adding(_ cache: AnyObject, _ key: some Hashable) -> LoadingKeys {
    var grown = self
    grown.pairs.append((ObjectIdentifier(cache), AnyHashable(key)))
    return grown
  }
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
  /// Waiters with an identity and no continuation yet, and the error that
  /// ended each one's wait before it began (cancelled, timed out).
  fileprivate var pending: [Int: PendingWait] = [:]
  fileprivate var nextWaiter = 0
  /// Loads finished, how many threw, and their time.
  fileprivate var counts = (loads: 0, failures: 0, time: Duration.zero)
  /// Refreshes started, and how many threw.
  fileprivate var refreshes = (started: 0, failures: 0)

  fileprivate enum PendingWait {
    case waiting
    case ended(any Error)
  }

  @usableFromInline init() {}

  var count: Int { mutex.withLock { _ in loads.count } }

  /// How many waiters `key`'s load has (for tests).
  func waiters(of key: Key) -> Int { mutex.withLock { _ in loads[key]?.count ?? 0 } }

  func newWaiter() -> Int {
    mutex.withLock { _ in
      nextWaiter += 1
      pending[nextWaiter] = .waiting
      return nextWaiter
    }
  }

  func recordLoad(failed: Bool, took time: Duration) {
    mutex.withLock { _ in
      counts.loads += 1
      if failed { counts.failures += 1 }
      counts.time += time
    }
  }

  /// Loads finished, how many threw, and their time.
  var loadCounts: (loads: Int, failures: Int, time: Duration) { mutex.withLock { _ in counts } }

  func recordRefresh(started: Bool = false, failed: Bool = false) {
    mutex.withLock { _ in
      if started { refreshes.started += 1 }
      if failed { refreshes.failures += 1 }
    }
  }

  /// Refreshes started, and how many threw.
  var refreshCounts: (started: Int, failures: Int) { mutex.withLock { _ in refreshes } }

}

extension LoadTable where Value: Sendable {
  /// Adds `waiter` to `key`'s load; returns true if there was none, and the
  /// caller must start it. A waiter cancelled before it got here is resumed
  /// with `CancellationError` at once.
  func wait(for key: Key, as waiter: Int, _ continuation: CheckedContinuation<Value, any Error>) -> Bool {
    let (ended, starts): ((any Error)?, Bool) = mutex.withLock { _ in
      if case .ended(let error) = pending.removeValue(forKey: waiter) { return (error, false) }
      let starts = loads[key] == nil
      loads[key, default: [:]][waiter] = continuation
      return (nil, starts)
    }
    if let ended { continuation.resume(throwing: ended) }
    return starts
  }

  /// Ends `waiter`'s wait with `error` (the load goes on); nothing if it
  /// has ended already.
  func cancel(_ waiter: Int, of key: Key, with error: any Error) {
    let continuation: CheckedContinuation<Value, any Error>? = mutex.withLock { _ in
      if case .waiting = pending[waiter] {
        pending[waiter] = .ended(error)
        return nil
      }
      return loads[key]?.removeValue(forKey: waiter)
    }
    continuation?.resume(throwing: error)
  }

  /// Hands `outcome` to every waiter of `key`'s load and forgets the load.
  func finish(_ key: Key, _ outcome: Result<Value, any Error>) {
    let waiters = mutex.withLock { _ in loads.removeValue(forKey: key) ?? [:] }
    for continuation in waiters.values { continuation.resume(with: outcome) }
  }
}

extension LoadTable where Key: Sendable {
  /// Marks each of `keys` as loading unless it is already: the caller
  /// loads the `owned` ones and must ``finish(_:_:)`` each; the `joined`
  /// ones are another's to load.
  func claim(_ keys: [Key]) -> (owned: [Key], joined: [Key]) {
    mutex.withLock { _ in
      var owned: [Key] = []
      var joined: [Key] = []
      for key in keys {
        if loads[key] == nil {
          loads[key] = [:]
          owned.append(key)
        } else {
          joined.append(key)
        }
      }
      return (owned, joined)
    }
  }
}
