import EvictionTraces

/// When expired objects leave a cache: the `--expiration` dimension of
/// replays with TTLs.
public enum Expiration: Sendable, Hashable, CustomStringConvertible {
  /// An expired object stays, holding its room, until a request finds it
  /// expired or the policy evicts it (libCacheSim's TTL build; memcached's
  /// lazy path).
  case lazy
  /// As `lazy`, and every `interval` seconds of trace time, counted from
  /// the first request, every object expired by then is removed, whatever
  /// its place in the policy's order (Segcache's proactive removal of
  /// expired segments, memcached's LRU crawler). The removals take effect
  /// before the first request at or after the scan's time, and an object
  /// counts as gone from the scan's time on. An interval of 0 scans before
  /// every request.
  case scan(interval: Int64)

  /// The interval of a `scan` given without one: one second, the finest
  /// timestamps of the literature's key-value traces.
  public static let defaultScanInterval: Int64 = 1

  /// Reads `lazy`, `scan` or `scan:interval=SECONDS`.
  public init(parsing text: String) throws(TraceError) {
    let usage = "use lazy, scan or scan:interval=SECONDS (trace time, 0 to scan before every request)"
    if text == "lazy" {
      self = .lazy
      return
    }
    if text == "scan" {
      self = .scan(interval: Self.defaultScanInterval)
      return
    }
    let prefix = "scan:interval="
    guard text.hasPrefix(prefix) else { throw .invalidOption("unknown expiration '\(text)': \(usage)") }
    guard let interval = Int64(text.dropFirst(prefix.count)), interval >= 0, interval <= Int64(UInt32.max) else {
      throw .invalidOption("expiration '\(text)': the interval is whole seconds from 0 to \(UInt32.max); \(usage)")
    }
    self = .scan(interval: interval)
  }

  /// `lazy` or `scan:interval=S`, as rows report it and ``init(parsing:)`` reads it.
  public var description: String {
    switch self {
    case .lazy: "lazy"
    case .scan(let interval): "scan:interval=\(interval)"
    }
  }
}

/// The expiries of the resident objects that have one, kept beside a
/// policy by the replays with TTLs: which object has expired, which are due
/// for a scan, and what expired objects cost while they stayed.
///
/// An object *expires while resident* when its expiry passes before it
/// leaves the cache (found expired, scanned, evicted, removed or replaced),
/// or before the trace ends. Each such object is counted once, and holds
/// its bytes expired from its expiry until it leaves: their integral over
/// the trace's time, divided by the time the trace spans (its latest
/// timestamp less its earliest: a clock may go back), is the mean memory
/// that expired data wasted (the figure of Segcache's paper, Yang et al.,
/// NSDI'21, §2).
///
/// Scans remove objects in order of expiry, then key, so a policy that
/// draws at random sees the same removals in every run.
///
/// Times are the trace's signed 64-bit seconds, and no sum or difference of
/// them may trap: an expiry past 2^63 − 1 s is 2^63 − 1 (the object never
/// expires within representable time), waste is integrated in doubles, and
/// scan times are worked out in 128-bit arithmetic.
@usableFromInline
struct ExpiryTable {
  @usableFromInline
  struct Entry {
    @usableFromInline var expiry: Int64
    /// The object's size in bytes (in count mode too: memory wasted is bytes).
    @usableFromInline var size: Int64
    /// Seconds a hit extends the expiry by, never past `deadline` (0: a
    /// hit extends nothing, and the expiry is the deadline).
    @usableFromInline var idle: Int64
    @usableFromInline var deadline: Int64
    @inlinable init(expiry: Int64, size: Int64, idle: Int64 = 0, deadline: Int64? = nil) {
      self.expiry = expiry
      self.size = size
      self.idle = idle
      self.deadline = deadline ?? expiry
    }
  }

  @usableFromInline var entries: [UInt64: Entry] = [:]
  /// With scans: a min-heap of expiries. An element whose key has since left
  /// or expires at another time is stale, and dropped when it surfaces.
  @usableFromInline var heap: [(expiry: Int64, key: UInt64)] = []
  /// Seconds between scans; nil without them.
  @usableFromInline let scanInterval: Int64?
  /// The time of the next scan (scans fall on the first request's time
  /// plus multiples of the interval).
  @usableFromInline var nextScan: Int64 = .min
  @usableFromInline var expiredObjects: Int64 = 0
  /// Bytes × seconds that expired objects stayed resident.
  @usableFromInline var expiredByteSeconds: Double = 0
  /// The first, earliest and latest timestamps seen.
  @usableFromInline var first: Int64? = nil
  @usableFromInline var earliest: Int64 = .max
  @usableFromInline var latest: Int64 = .min

  @inlinable
  init(_ expiration: Expiration) {
    switch expiration {
    case .lazy: scanInterval = nil
    case .scan(let interval): scanInterval = interval
    }
  }

  /// Notes the time of the next request.
  @inlinable @inline(__always)
  mutating func advance(to now: Int64) {
    if first == nil {
      first = now
      nextScan = now
    }
    (earliest, latest) = (min(earliest, now), max(latest, now))
  }

  /// The expiry of an object admitted at `now` with `ttl` seconds to live:
  /// their sum, or the latest representable time where that overflows.
  @inlinable @inline(__always)
  static func expiry(at now: Int64, ttl: Int64) -> Int64 {
    let (sum, overflow) = now.addingReportingOverflow(ttl)
    return overflow ? (ttl > 0 ? .max : .min) : sum
  }

  /// Records that `key`'s object, of `size` bytes, expires at `expiry`.
  @inlinable
  mutating func insert(_ key: UInt64, expiry: Int64, size: Int64) {
    insert(key, Entry(expiry: expiry, size: size))
  }

  /// Records that `key`'s object, admitted at `now` with `ttl` seconds to
  /// live (0: no deadline) and `idle` seconds between hits, expires at the
  /// earlier of the two; nothing if both are 0.
  @inlinable
  mutating func insert(_ key: UInt64, at now: Int64, ttl: Int64, idle: Int64, size: Int64) {
    guard ttl != 0 || idle != 0 else { return }
    let deadline = ttl != 0 ? Self.expiry(at: now, ttl: ttl) : .max
    let expiry = idle != 0 ? min(deadline, Self.expiry(at: now, ttl: idle)) : deadline
    insert(key, Entry(expiry: expiry, size: size, idle: idle, deadline: deadline))
  }

  @inlinable
  mutating func insert(_ key: UInt64, _ entry: Entry) {
    entries[key] = entry
    guard scanInterval != nil else { return }
    push((entry.expiry, key))
    if heap.count > 2 * entries.count + 64 { rebuildHeap() }
  }

  /// A hit on `key` at `now`: an object that expires when idle lives
  /// `idle` seconds more, never past its deadline.
  @inlinable
  mutating func touch(_ key: UInt64, at now: Int64) {
    guard var entry = entries[key], entry.idle != 0 else { return }
    let extended = min(entry.deadline, Self.expiry(at: now, ttl: entry.idle))
    guard extended > entry.expiry else { return }
    entry.expiry = extended
    insert(key, entry)
  }

  /// Whether `key`'s object had expired at `now`; if so it is dropped from
  /// the table and counted (the caller removes it from the policy).
  @inlinable @inline(__always)
  mutating func takeIfExpired(_ key: UInt64, at now: Int64) -> Bool {
    guard let entry = entries[key], entry.expiry < now else { return false }
    entries[key] = nil
    count(entry, leavingAt: now)
    return true
  }

  /// `key`'s object left the cache at `now` (evicted, removed or replaced).
  @inlinable
  mutating func leave(_ key: UInt64, at now: Int64) {
    guard let entry = entries.removeValue(forKey: key) else { return }
    if entry.expiry < now { count(entry, leavingAt: now) }
  }

  @inlinable
  mutating func count(_ entry: Entry, leavingAt now: Int64) {
    expiredObjects &+= 1
    expiredByteSeconds += Double(entry.size) * (Double(now) - Double(entry.expiry))
  }

  /// Whether a scan is due before the request at `now`.
  @inlinable @inline(__always)
  func scanDue(at now: Int64) -> Bool { scanInterval != nil && now >= nextScan }

  /// Runs the scans due by `now`: drops and counts every object expired
  /// before the last of them, each as leaving at the first scan after its
  /// expiry, and returns their keys for the caller to remove from the
  /// policy (in order of expiry, then key). Schedules the next scan.
  @inlinable
  mutating func sweep(at now: Int64) -> [UInt64] {
    let interval = Int128(scanInterval ?? 0)
    // The last scan due: `nextScan` plus whole intervals up to `now` (in
    // 128 bits: the two may lie further apart than 2^63 s).
    let firstDue = Int128(nextScan)
    let last = interval == 0 ? Int128(now) : firstDue + (Int128(now) - firstDue) / interval * interval
    nextScan = interval == 0 ? now : Int64(clamping: last + interval)
    var expired: [UInt64] = []
    while let top = heap.first, Int128(top.expiry) < last {
      popMin()
      guard let entry = entries[top.key], entry.expiry == top.expiry else { continue }
      entries[top.key] = nil
      // The first scan after the expiry (scans fall on `firstDue` plus whole intervals).
      var scan = last
      if interval > 0 && Int128(entry.expiry) >= firstDue {
        scan = firstDue + ((Int128(entry.expiry) - firstDue) / interval + 1) * interval
      } else if interval > 0 {
        scan = firstDue
      }
      count(entry, leavingAt: Int64(clamping: scan))
      expired.append(top.key)
    }
    return expired
  }

  /// Counts the objects still resident and expired when the trace ends (at
  /// its latest timestamp).
  @inlinable
  mutating func finish() {
    // In key order: the sum of doubles must not depend on the table's order.
    for (_, entry) in entries.sorted(by: { $0.key < $1.key }) where entry.expiry < latest {
      count(entry, leavingAt: latest)
    }
    entries = [:]
    heap = []
  }

  /// Bytes held by expired objects, averaged over the trace's duration (0
  /// for a trace whose requests share one timestamp).
  @inlinable
  var meanExpiredBytes: Double {
    guard first != nil, latest > earliest else { return 0 }
    let (span, overflow) = latest.subtractingReportingOverflow(earliest)
    return expiredByteSeconds / (overflow ? Double(latest) - Double(earliest) : Double(span))
  }

  /// The counts a row reports.
  @inlinable
  func report(into semantics: inout SemanticsCounts, expiration: Expiration) {
    semantics.expiration = expiration.description
    semantics.expiredObjects = expiredObjects
    semantics.meanExpiredBytes = meanExpiredBytes
  }

  // MARK: The heap

  @inlinable
  mutating func push(_ element: (expiry: Int64, key: UInt64)) {
    heap.append(element)
    var i = heap.count - 1
    while i > 0 {
      let parent = (i - 1) / 2
      guard Self.precedes(heap[i], heap[parent]) else { break }
      heap.swapAt(i, parent)
      i = parent
    }
  }

  @inlinable
  mutating func popMin() {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    siftDown(0)
  }

  @inlinable
  mutating func siftDown(_ start: Int) {
    var i = start
    while true {
      let (left, right) = (2 * i + 1, 2 * i + 2)
      var smallest = i
      if left < heap.count && Self.precedes(heap[left], heap[smallest]) { smallest = left }
      if right < heap.count && Self.precedes(heap[right], heap[smallest]) { smallest = right }
      if smallest == i { return }
      heap.swapAt(i, smallest)
      i = smallest
    }
  }

  /// The heap's order: by expiry, then key.
  @inlinable @inline(__always)
  static func precedes(_ a: (expiry: Int64, key: UInt64), _ b: (expiry: Int64, key: UInt64)) -> Bool {
    a.expiry < b.expiry || (a.expiry == b.expiry && a.key < b.key)
  }

  /// Keeps only the live elements (stale ones pile up as objects leave and
  /// return). Sorted, so the heap's shape does not depend on the table's order.
  @inlinable
  mutating func rebuildHeap() {
    heap = entries.map { (expiry: $0.value.expiry, key: $0.key) }.sorted(by: Self.precedes)
  }
}
