import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// How full the memory a process may use is: its cgroup's usage against
/// the cgroup's limit (v2's `memory.current` and `memory.max`, else v1's
/// `memory.usage_in_bytes` and `memory.limit_in_bytes`), or, where the
/// cgroup sets no limit, the machine's (`/proc/meminfo`: MemTotal less
/// MemAvailable, against MemTotal).
public struct MemoryUsage: Sendable, Equatable {
  /// Bytes in use.
  public var used: Int
  /// Bytes the process may use.
  public var limit: Int

  /// `used` bytes in use out of the `limit` bytes the process may use.
  public init(used: Int, limit: Int) {
    self.used = used
    self.limit = limit
  }

  /// `used` as a share of `limit`.
  public var fraction: Double { limit > 0 ? Double(used) / Double(limit) : 0 }

  /// This process's memory now, or nil where none of the files can be read
  /// (not Linux, or no `/proc`).
  public static func current() -> MemoryUsage? {
    let machine = machineUsage()
    let cgroup =
      cgroupUsage(current: "/sys/fs/cgroup/memory.current", max: "/sys/fs/cgroup/memory.max")
      ?? cgroupUsage(
        current: "/sys/fs/cgroup/memory/memory.usage_in_bytes", max: "/sys/fs/cgroup/memory/memory.limit_in_bytes")
    guard let cgroup, let limit = cgroup.limit, limit < machine?.limit ?? .max else { return machine }
    return MemoryUsage(used: cgroup.used, limit: limit)
  }

  /// A cgroup's usage and limit (nil: no limit, written `max`, or v1's
  /// page-rounded `Int64.max`).
  static func cgroupUsage(current: String, max: String) -> (used: Int, limit: Int?)? {
    guard let used = readText(current).flatMap({ Int($0) }), let limitText = readText(max) else { return nil }
    let limit = Int(limitText)
    return (used, limit.flatMap { $0 >= Int.max / 2 ? nil : $0 })
  }

  /// The machine's memory from `/proc/meminfo`.
  static func machineUsage() -> MemoryUsage? {
    guard let text = readText("/proc/meminfo") else { return nil }
    return parseMeminfo(text)
  }

  /// MemTotal less MemAvailable, against MemTotal (kB in the file).
  static func parseMeminfo(_ text: String) -> MemoryUsage? {
    var fields: [Substring: Int] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " })
      if parts.count >= 2, let kilobytes = Int(parts[1]) { fields[parts[0]] = kilobytes * 1024 }
    }
    guard let total = fields["MemTotal"], let available = fields["MemAvailable"] else { return nil }
    return MemoryUsage(used: total - available, limit: total)
  }

  /// A small file's text, trimmed of its final newline; nil if it cannot be read.
  static func readText(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 1 << 20 {
      let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      bytes += buffer[0..<n]
    }
    var text = String(decoding: bytes, as: UTF8.self)
    while text.last == "\n" || text.last == " " { text.removeLast() }
    return text
  }
}

/// Trims caches when memory runs short, as NSCache and Nuke purge on a
/// memory warning (Linux sends none): it reads ``MemoryUsage`` every
/// `interval`, and when the share in use rises to `threshold` it trims
/// every cache it watches to `keep` of its entries and cost
/// (``MemoryCache/trim(toFraction:)``). It trims once per rise: it acts
/// again only after the share has fallen back below `threshold`, so memory
/// held elsewhere in the process does not empty the caches poll by poll.
/// Caches are held weakly.
public final class MemoryPressureMonitor: Sendable {
  /// The share of the limit in use at which caches are trimmed.
  public let threshold: Double
  /// The share of each cache kept by a trim.
  public let keep: Double
  let reading: @Sendable () -> MemoryUsage?
  let state = Mutex(State())
  /// The polling timer (set once in `init`, cancelled in `deinit`).
  nonisolated(unsafe) let timer: DispatchSourceTimer?

  struct State {
    var caches: [@Sendable (Double) -> Bool] = []
    var armed = true
    var trims = 0
  }

  /// - Parameters:
  ///   - threshold: trim when this share of the memory limit is in use (0.9).
  ///   - keep: the share of each cache a trim keeps (0.5).
  ///   - interval: how often to read the usage (one second; nil: only
  ///     when ``check()`` is called).
  ///   - reading: where the usage comes from (``MemoryUsage/current()``;
  ///     tests and apps with their own budget give their own).
  public init(
    threshold: Double = 0.9, keep: Double = 0.5, interval: Duration? = .seconds(1),
    reading: @escaping @Sendable () -> MemoryUsage? = { MemoryUsage.current() }
  ) {
    self.threshold = threshold
    self.keep = keep
    self.reading = reading
    guard let interval else {
      timer = nil
      return
    }
    let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
    let nanos = Int(nanoseconds(max(interval, .milliseconds(1))))
    timer.schedule(deadline: .now() + .nanoseconds(nanos), repeating: .nanoseconds(nanos))
    self.timer = timer
    timer.setEventHandler { [weak self] in _ = self?.check() }
    timer.resume()
  }

  deinit { timer?.cancel() }

  /// Watches `cache` from now on (weakly: a cache that goes is forgotten).
  public func watch<Key: Hashable & Sendable, Value: Sendable>(_ cache: MemoryCache<Key, Value>) {
    let weak = WeakCache(cache)
    state.withLock { $0.caches.append { keep in weak.cache?.trim(toFraction: keep) != nil } }
  }

  /// Reads the usage once and trims if it has risen to the threshold;
  /// returns whether it trimmed.
  @discardableResult
  public func check() -> Bool {
    guard let usage = reading() else { return false }
    let caches: [@Sendable (Double) -> Bool]? = state.withLock { state in
      guard usage.fraction >= threshold else {
        state.armed = true
        return nil
      }
      guard state.armed else { return nil }
      state.armed = false
      state.trims += 1
      return state.caches
    }
    guard let caches else { return false }
    let alive = caches.map { $0(keep) }
    state.withLock { state in
      // Forget the caches that have gone (those added meanwhile stay).
      var index = 0
      state.caches.removeAll { _ in
        defer { index += 1 }
        return index < alive.count && !alive[index]
      }
    }
    return true
  }

  /// How often it has trimmed.
  public var trims: Int { state.withLock { $0.trims } }

  /// The caches it watches that still exist.
  public var watching: Int { state.withLock { $0.caches.count } }
}

/// A cache held without keeping it alive.
private final class WeakCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  nonisolated(unsafe) weak var cache: MemoryCache<Key, Value>?
  init(_ cache: MemoryCache<Key, Value>) { self.cache = cache }
}
