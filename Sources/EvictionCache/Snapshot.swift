import EvictionCore

#if canImport(Glibc)
  import Glibc
#endif

/// What a ``MemoryCache`` holds, as values: every entry with its cost and
/// times, and each shard's policy state where the policy saves one
/// (EvictionCore's `ReplacementPolicy.saveState(into:)`). ``MemoryCache/snapshot()``
/// takes it; ``MemoryCache/restore(_:elapsed:)`` puts it into an empty
/// cache; EvictionDisk writes it to a file and reads it back.
///
/// Times are kept relative to the moment the snapshot was taken (how long
/// ago an entry was read, how long until it expires), with that moment on
/// the wall clock (``takenAt``), so a restore in another process, after a
/// reboot, counts the time in between: an entry that would have expired
/// meanwhile is expired.
public struct CacheSnapshot<Key: Hashable, Value> {
  /// One cached entry.
  public struct Entry {
    /// The entry's key.
    public var key: Key
    /// Its value.
    public var value: Value
    /// What the cost limit counts.
    public var cost: Int
    /// The policy's slot for it (an exact restore puts it there).
    public var slot: Int
    /// Nanoseconds since it was last read or written (nil: the cache kept no ages).
    public var sinceAccess: UInt64?
    /// Nanoseconds since its value was written (nil: the cache kept no write times).
    public var sinceWrite: UInt64?
    /// When it expires, if it does.
    public var expiry: Expiry?

    /// An entry as a snapshot file reads it back.
    public init(
      key: Key, value: Value, cost: Int, slot: Int, sinceAccess: UInt64? = nil, sinceWrite: UInt64? = nil,
      expiry: Expiry? = nil
    ) {
      self.key = key
      self.value = value
      self.cost = cost
      self.slot = slot
      self.sinceAccess = sinceAccess
      self.sinceWrite = sinceWrite
      self.expiry = expiry
    }
  }

  /// An entry's expiry, relative to the snapshot.
  public struct Expiry: Sendable, Equatable {
    /// Nanoseconds until it expires; negative: it had expired that long ago.
    public var remaining: Int64
    /// Nanoseconds until its write's own deadline, which reads never pass
    /// (nil: none, it expires only when idle).
    public var deadline: Int64?
    /// How long a read extends it (0: it does not slide).
    public var idle: UInt64
    /// Its place in the order of the stores (expired entries leave in it).
    public var serial: UInt64

    /// An expiry as a snapshot file reads it back.
    public init(remaining: Int64, deadline: Int64?, idle: UInt64, serial: UInt64) {
      self.remaining = remaining
      self.deadline = deadline
      self.idle = idle
      self.serial = serial
    }
  }

  /// One shard: its entries, oldest first, and its policy's state.
  public struct Shard {
    /// The policy's state, or nil where the policy saves none (then
    /// ``unsavedBecause`` says why, and a restore admits the entries afresh).
    public var policy: PolicyState<Key>?
    /// Why the policy's state is not saved.
    public var unsavedBecause: String?
    /// The entries, least recently used first where the cache kept ages,
    /// else in the policy's own order, least valuable first as far as its
    /// lists tell: the order a restore that admits afresh writes them in.
    public var entries: [Entry]
    /// The shard's request clock, which the policy's requests carry.
    public var tick: Int64
    /// The last expiry's place in the order of the stores.
    public var expirySerial: UInt64

    /// A shard as a snapshot file reads it back.
    public init(
      policy: PolicyState<Key>?, unsavedBecause: String?, entries: [Entry], tick: Int64, expirySerial: UInt64
    ) {
      self.policy = policy
      self.unsavedBecause = unsavedBecause
      self.entries = entries
      self.tick = tick
      self.expirySerial = expirySerial
    }
  }

  /// ``MemoryCache/policyName`` of the cache it was taken from.
  public var policy: String
  /// ``MemoryCache/policyCapacity`` of that cache.
  public var capacity: Int
  /// ``MemoryCache/weighsCost`` of that cache.
  public var weighsCost: Bool
  /// Its ``LockStrategy``, as text.
  public var lock: String
  /// When it was taken, in nanoseconds since 1970 on the wall clock.
  public var takenAt: Int64
  /// The shards, in the cache's order.
  public var shards: [Shard]

  /// A snapshot as a snapshot file reads it back.
  public init(policy: String, capacity: Int, weighsCost: Bool, lock: String, takenAt: Int64, shards: [Shard]) {
    self.policy = policy
    self.capacity = capacity
    self.weighsCost = weighsCost
    self.lock = lock
    self.takenAt = takenAt
    self.shards = shards
  }

  /// Entries in all shards.
  public var count: Int { shards.reduce(0) { $0 + $1.entries.count } }
}

/// What a restore did (``MemoryCache/restore(_:elapsed:)``).
public struct RestoreSummary: Sendable, Equatable {
  /// Whether every shard's policy took its saved state: the cache then
  /// makes the same next decisions as the one saved. False when the policy
  /// saves no state, or the cache differs (policy, capacity, shards), or a
  /// key's shard differs in this process (``reason`` says which): the
  /// entries were then written afresh, least valuable first.
  public var exact: Bool
  /// Why the restore was not exact (nil when it was).
  public var reason: String?
  /// Entries restored.
  public var restored: Int
  /// Entries that had expired by the restore, left out of one written
  /// afresh (an exact restore keeps them, expired, as the saved cache did,
  /// and the next read finds them expired).
  public var expired: Int
  /// Entries an afresh write did not keep (refused, or evicted by later ones).
  public var dropped: Int
  /// How much time the restore counted between the snapshot and now.
  public var elapsed: Duration
}

extension CacheError {
  /// A snapshot went into a cache that holds entries.
  static func restoreIntoNonEmpty(_ count: Int) -> CacheError {
    .snapshot("the cache holds \(count) entries: restore a snapshot into a new, empty cache")
  }
}

/// Nanoseconds since 1970 on the wall clock.
@usableFromInline func wallClockNanoseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

extension MemoryCache {
  /// Everything the cache holds, with each shard's policy state, taken
  /// shard by shard under each shard's lock (a `buffered` cache's pending
  /// hits reach the policy first). Loads and refreshes in flight are not
  /// part of it; neither are the statistics.
  public func snapshot() -> CacheSnapshot<Key, Value> {
    let now = clock()
    let taken = wallClockNanoseconds()
    let shardSnapshots = shards.map { shard in shard.exclusive { shard.snapshot(now: now) } }
    return CacheSnapshot(
      policy: policyName, capacity: policyCapacity, weighsCost: weighsCost, lock: "\(lockStrategy)", takenAt: taken,
      shards: shardSnapshots)
  }

  /// Puts a snapshot's entries into this cache, which must be empty
  /// (``CacheError/snapshot(_:)`` otherwise). Where the cache is built as
  /// the saved one was (policy with its parameters, capacity, shards) and
  /// the policy saves its state, each shard's policy takes it: the cache
  /// makes the same next decisions as the saved one, hit for hit and
  /// victim for victim. Otherwise each entry is written afresh, least
  /// valuable first, so the policy's own order is approximated.
  ///
  /// Times count on from the snapshot: `elapsed` (by default the wall
  /// clock's time since ``CacheSnapshot/takenAt``, never negative) is added
  /// to each entry's age and taken off its time to live. An entry past the
  /// age limit by then leaves at once (reason `age`), and limits lower than
  /// the saved cache's are enforced (reasons `count`, `cost`), through
  /// `onEvict`. An age older than this process's monotonic clock (a
  /// restore minutes after a reboot) counts from the clock's zero.
  @discardableResult
  public func restore(_ snapshot: CacheSnapshot<Key, Value>, elapsed: Duration? = nil) throws(CacheError)
    -> RestoreSummary
  {
    let held = count
    guard held == 0 else { throw .restoreIntoNonEmpty(held) }
    let gap = elapsed.map { max(.zero, $0) } ?? .nanoseconds(max(0, wallClockNanoseconds() - snapshot.takenAt))
    let gapNanoseconds = saturatingNanoseconds(gap)
    let now = clock()
    var summary = RestoreSummary(exact: false, reason: nil, restored: 0, expired: 0, dropped: 0, elapsed: gap)
    if let reason = exactRestoreRefusal(snapshot) {
      summary.reason = reason
      restoreAfresh(snapshot, gap: gapNanoseconds, into: &summary)
    } else {
      do throws(PolicyStateError) {
        // Each shard's state goes into a scratch policy first: a damaged
        // one is refused before any shard changes.
        for (shard, saved) in zip(shards, snapshot.shards) { try shard.checkRestorable(saved) }
      } catch {
        throw .snapshotDamaged("\(error)")
      }
      for (shard, saved) in zip(shards, snapshot.shards) {
        let departed = shard.exclusive { () -> [(key: Key, value: Value, reason: EvictionReason)]? in
          // A write from another thread since the check above: this
          // shard keeps it, and the restore stops (each shard restored
          // so far stays whole).
          guard shard.policy.count() == 0 else { return nil }
          shard.restoreExactly(saved, now: now, gap: gapNanoseconds)
          return shard.takeDeparted()
        }
        guard let departed else { throw .snapshot("the cache was written to during the restore") }
        deliver(departed)
      }
      summary.exact = true
      summary.restored = snapshot.count
    }
    // Lower limits than the saved cache's bind now; expired entries stay,
    // as they did in the saved cache, until a read or a trim finds them.
    for shard in shards {
      deliver(
        shard.exclusive {
          shard.enforceLimits()
          return shard.takeDeparted()
        })
    }
    return summary
  }

  /// Why `snapshot` cannot be restored exactly here, or nil.
  func exactRestoreRefusal(_ snapshot: CacheSnapshot<Key, Value>) -> String? {
    guard snapshot.policy == policyName, snapshot.capacity == policyCapacity, snapshot.weighsCost == weighsCost else {
      return "saved from \(snapshot.policy) of \(snapshot.capacity) (\(snapshot.weighsCost ? "costs" : "entries")), "
        + "restored into \(policyName) of \(policyCapacity) (\(weighsCost ? "costs" : "entries"))"
    }
    guard snapshot.shards.count == shards.count else {
      return "saved from \(snapshot.shards.count) shards, restored into \(shards.count)"
    }
    for (i, shard) in snapshot.shards.enumerated() {
      if shard.policy == nil { return shard.unsavedBecause ?? "the policy saved no state" }
      guard shards[i].emptyPolicy != nil else { return "the cache's policy was built by hand" }
      for entry in shard.entries where shardIndex(for: entry.key) != i {
        return "keys hash to other shards in this process (Swift seeds hashing per process)"
      }
    }
    return nil
  }

  /// Writes each entry again, least valuable first, with what is left of its time to live.
  func restoreAfresh(_ snapshot: CacheSnapshot<Key, Value>, gap: UInt64, into summary: inout RestoreSummary) {
    var written = 0
    for shard in snapshot.shards {
      for entry in shard.entries {
        var ttl: Duration? = nil
        var idle: Duration? = nil
        if let expiry = entry.expiry {
          let remaining = expiry.remaining.subtractingReportingOverflow(Int64(clamping: gap))
          guard !remaining.overflow, remaining.partialValue > 0 else {
            summary.expired += 1
            continue
          }
          if let deadline = expiry.deadline {
            let left = deadline.subtractingReportingOverflow(Int64(clamping: gap))
            guard !left.overflow, left.partialValue > 0 else {
              summary.expired += 1
              continue
            }
            ttl = .nanoseconds(left.partialValue)
          }
          // An idle expiry slides from the next read, as the saved one's
          // would: it gets its whole idle time again from now.
          if expiry.idle != 0 { idle = .nanoseconds(Int64(clamping: expiry.idle)) }
          if ttl == nil && idle == nil { ttl = .nanoseconds(remaining.partialValue) }
        }
        if let idle {
          setValue(entry.value, forKey: entry.key, cost: entry.cost, ttl: ttl, timeToIdle: idle)
        } else {
          setValue(entry.value, forKey: entry.key, cost: entry.cost, ttl: ttl)
        }
        written += 1
      }
    }
    waitForWrites()
    summary.restored = count
    summary.dropped = written - summary.restored
  }
}

extension CacheShard {
  /// The shard's entries, times and policy state (caller holds the lock).
  func snapshot(now: UInt64) -> CacheSnapshot<Key, Value>.Shard {
    var state: PolicyState<Key>? = nil
    var unsaved: String? = nil
    do throws(PolicyStateError) {
      state = try policy.saveState()
    } catch {
      unsaved = "\(error)"
    }
    var entries: [CacheSnapshot<Key, Value>.Entry] = []
    entries.reserveCapacity(policy.count())
    for slot in order() {
      let key = policy.keyAt(Slot(slot))
      let value: Value
      if let reads {
        guard let held = reads.value(of: key) else { continue }
        value = held
      } else {
        value = values[slot]
      }
      var entry = CacheSnapshot<Key, Value>.Entry(key: key, value: value, cost: Int(slotCost(slot)), slot: slot)
      if let ages { entry.sinceAccess = now >= ages[slot].stamp ? now - ages[slot].stamp : 0 }
      if let writes { entry.sinceWrite = now >= writes[slot] ? now - writes[slot] : 0 }
      if !expiries.isEmpty, let expiry = expiries[key] {
        entry.expiry = CacheSnapshot.Expiry(
          remaining: Self.signedDifference(expiry.at, now),
          deadline: expiry.deadline == .max ? nil : Self.signedDifference(expiry.deadline, now),
          idle: expiry.idle, serial: expiry.serial)
      }
      entries.append(entry)
    }
    return CacheSnapshot.Shard(
      policy: state, unsavedBecause: unsaved, entries: entries, tick: tick, expirySerial: expirySerial)
  }

  /// `a - b` in nanoseconds, saturated to 64 signed bits.
  static func signedDifference(_ a: UInt64, _ b: UInt64) -> Int64 {
    a >= b ? Int64(clamping: a - b) : -Int64(clamping: b - a)
  }

  /// The occupied slots, least valuable first: the age list from its
  /// oldest end where ages are kept; else the policy's lists from the
  /// last to the first, each from its back (its oldest end), then any
  /// slot no list named.
  func order() -> [Int] {
    var out: [Int] = []
    out.reserveCapacity(policy.count())
    if let ages {
      var slot = oldest
      while slot >= 0 {
        out.append(Int(slot))
        slot = ages[Int(slot)].newer
      }
      return out
    }
    var slotOf: [Key: Int] = [:]
    forEachOccupied { slotOf[policy.keyAt(Slot($0))] = $0 }
    for list in policy.lists().reversed() {
      for key in list.keys.reversed() {
        if let slot = slotOf.removeValue(forKey: key) { out.append(slot) }
      }
    }
    out += slotOf.values.sorted()
    return out
  }

  /// Checks, on a scratch policy, that `saved` restores: its state reads
  /// back, and its entries are the resident keys in their slots.
  func checkRestorable(_ saved: CacheSnapshot<Key, Value>.Shard) throws(PolicyStateError) {
    guard let state = saved.policy, let scratch = emptyPolicy?() else {
      throw .unsupported(policy: policy.name, reason: saved.unsavedBecause ?? "no saved state")
    }
    try scratch.restoreState(state)
    guard scratch.count() == saved.entries.count else {
      throw .malformed("the policy holds \(scratch.count()) entries, the snapshot \(saved.entries.count)")
    }
    // Each entry's key resident, in its slot, once: removing it from the
    // scratch policy (which is then thrown away) says where it was, and a
    // second entry of the same key finds nothing.
    for entry in saved.entries {
      guard entry.cost >= 0 else { throw .malformed("an entry's cost is \(entry.cost)") }
      guard let slot = scratch.remove(entry.key), Int(slot) == entry.slot else {
        throw .malformed("an entry's slot \(entry.slot) is not its key's in the policy, or its key is given twice")
      }
    }
  }

  /// Takes `saved` exactly, checked by ``checkRestorable(_:)``: the
  /// policy's state, each entry in its slot, the age list in its order,
  /// and the expiries, all moved on by `gap` nanoseconds (caller holds the lock).
  func restoreExactly(_ saved: CacheSnapshot<Key, Value>.Shard, now: UInt64, gap: UInt64) {
    do throws(PolicyStateError) {
      try policy.restoreState(saved.policy!)
    } catch {
      preconditionFailure("a state checked on a scratch policy was refused: \(error)")
    }
    tick = saved.tick
    expirySerial = saved.expirySerial
    pendingMiss = nil
    if saved.entries.contains(where: { $0.sinceWrite != nil }) { trackWrites(now: now) }
    // The saved cache kept ages (an age trim began it): this one keeps them too.
    if saved.entries.contains(where: { $0.sinceAccess != nil }) { trackAges(now: now) }
    // The age list from its oldest end: the saved order, which a stable
    // sort by age keeps (and puts right in a snapshot assembled by hand).
    let entries = saved.entries.enumerated().sorted {
      ($0.element.sinceAccess ?? 0, -$0.offset) > ($1.element.sinceAccess ?? 0, -$1.offset)
    }.map(\.element)
    for entry in entries {
      let i = entry.slot
      if i >= slotCapacity { growColumns(to: i + 1) }
      if reads == nil { (values + i).initialize(to: entry.value) }
      occupancy[i >> 6] |= 1 << UInt64(i & 63)
      setCost(Int64(entry.cost), at: i)
      let back = { (since: UInt64) -> UInt64 in
        let (sum, overflow) = since.addingReportingOverflow(gap)
        return overflow || sum > now ? 0 : now - sum
      }
      if let writes { writes[i] = entry.sinceWrite.map(back) ?? now }
      if let ages {
        ages[i].stamp = entry.sinceAccess.map(back) ?? now
        linkNewest(Slot(i))
      }
      if let expiry = entry.expiry {
        let shift = { (remaining: Int64) -> UInt64 in
          let left = Int128(remaining) - Int128(gap)
          return left <= 0 ? now &- min(now, UInt64(clamping: -left)) : now &+ min(UInt64(clamping: left), .max &- now)
        }
        expiries[entry.key] = Expiry(
          at: shift(expiry.remaining), serial: expiry.serial, idle: expiry.idle,
          deadline: expiry.deadline.map(shift) ?? .max)
      }
      reads?.store(
        entry.key, entry.value, slot: Slot(i), stamp: ages?[i].stamp ?? now, cost: Int64(entry.cost),
        expires: entry.expiry != nil, returnsOld: false)
    }
    // An entry past the age limit by now leaves at once: its age may be
    // older than this process's clock, which cannot stamp it.
    guard ageLimit != .max else { return }
    for entry in entries {
      guard let since = entry.sinceAccess else { continue }
      let (age, overflow) = since.addingReportingOverflow(gap)
      if overflow || age > ageLimit, policy.remove(entry.key) != nil { depart(Slot(entry.slot), entry.key, .age) }
    }
  }
}
