#if canImport(Glibc)
  import Glibc
#endif

/// How much more memory this process may use, from the limits Linux
/// enforces: the memory the kernel says is available (`MemAvailable`), the
/// cgroup's limit less what the cgroup uses (a container's or a Slurm job's;
/// reclaimable page cache counted as free), and the address-space limit
/// (`ulimit -v`) less the process's address space. The tightest wins.
///
/// Estimates are checked against it before large work starts, and large
/// allocations as they happen (``check(_:for:wayOut:)``); a run that would
/// not fit stops with the estimate and a way out instead of dying in the
/// allocator or at the hands of the out-of-memory killer.
public enum MemoryBudget {
  /// What is left under the tightest limit, and which limit that is.
  public struct Headroom: Sendable, Equatable {
    public var bytes: Int64
    public var limit: String
  }

  /// The headroom under every limit this machine sets, tightest first; empty
  /// where none can be read (not Linux). `countingReserves` counts the
  /// address space reserved but not yet usable (``reservedBytes()``) as
  /// room under `ulimit -v`: what a start-up check wants, where a malloc
  /// arena's reserve appears or not as threads race.
  public static func headrooms(countingReserves: Bool = false) -> [Headroom] {
    var found: [Headroom] = []
    if let available = meminfo("MemAvailable") {
      found.append(Headroom(bytes: available, limit: "the memory available on this machine"))
    }
    if let cgroup = cgroupHeadroom() { found.append(cgroup) }
    var limit = rlimit()
    if getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
      let pages = firstNumber(in: "/proc/self/statm")
    {
      let used = pages * Int64(sysconf(Int32(_SC_PAGESIZE))) - (countingReserves ? reservedBytes() : 0)
      let cap = Int64(clamping: limit.rlim_cur)
      found.append(Headroom(bytes: max(0, cap - used), limit: "the address-space limit (ulimit -v)"))
    }
    return found.sorted { $0.bytes < $1.bytes }
  }

  /// The tightest headroom, or nil where no limit can be read.
  public static func headroom() -> Headroom? { headrooms().first }

  /// Refuses `bytes` more for `what` when they exceed the headroom.
  public static func check(_ bytes: Int64, for what: String, wayOut: String) throws(TraceError) {
    if let shortage = shortage(bytes, for: what, wayOut: wayOut) { throw shortage }
  }

  /// What an estimate leaves for the rest of the program: a quarter of the
  /// estimate (what grows beside it: buffers, tables, the allocator's slack)
  /// and 64 MiB. An estimate that only just fits would still fail.
  public static func margin(for bytes: Int64) -> Int64 { bytes / 4 + (64 << 20) }

  /// The margin of one of several per-object tables that grow together
  /// (``GrowthWatch/perObjectThreshold``): an eighth of the growth and 8 MiB.
  /// Their growths are many and each small beside the run, so the whole
  /// margin at each would refuse runs that fit.
  public static func tableMargin(for bytes: Int64) -> Int64 { bytes / 8 + (8 << 20) }

  /// The error `check` throws, or nil when `bytes` and their margin
  /// (``margin(for:)`` unless another is given) fit.
  public static func shortage(_ bytes: Int64, for what: String, wayOut: String, margin given: Int64? = nil)
    -> TraceError?
  {
    let (withMargin, overflow) = bytes.addingReportingOverflow(given ?? margin(for: bytes))
    guard let room = headroom(), overflow || withMargin > room.bytes else { return nil }
    return .notEnoughMemory(what: what, needed: bytes, available: room.bytes, limit: room.limit, wayOut: wayOut)
  }

  /// The one line of a shortage: what needs how much, with how much to
  /// spare beside it, against what is left under which limit, and the way out.
  public static func shortageText(
    what: String, needed: Int64, spare: Int64, available: Int64, limit: String, wayOut: String
  ) -> String {
    "not enough memory: \(what) needs \(describe(needed)) more, and \(describe(spare)) to spare for the rest of the "
      + "run, but \(describe(available)) are left under \(limit); \(wayOut)"
  }

  /// `bytes` as a reader wants them: 1.5 GiB, 230 MiB, 12 KiB.
  public static func describe(_ bytes: Int64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    if unit == 0 { return "\(bytes) bytes" }
    let rounded = value >= 100 ? (value).rounded() : (value * 10).rounded() / 10
    let text = rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    return "\(text) \(units[unit])"
  }

  // MARK: Reading the limits

  /// A field of /proc/meminfo in bytes.
  static func meminfo(_ field: String) -> Int64? {
    guard let text = readSmallFile("/proc/meminfo") else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      guard parts.count >= 2, let kib = Int64(parts[1]) else { return nil }
      return kib * 1024
    }
    return nil
  }

  /// The cgroup's limit less its use (v2, else v1), where a limit is set.
  static func cgroupHeadroom() -> Headroom? {
    guard let membership = readSmallFile("/proc/self/cgroup") else { return nil }
    var v2Path: String? = nil
    var v1Path: String? = nil
    for line in membership.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else { continue }
      if parts[0] == "0" && parts[1].isEmpty { v2Path = String(parts[2]) }
      if parts[1].split(separator: ",").contains("memory") { v1Path = String(parts[2]) }
    }
    // Inside a container the hierarchy is often mounted at the group itself.
    func folders(_ root: String, _ path: String?) -> [String] {
      guard let path, path != "/" else { return [root] }
      return [root + path, root]
    }
    if let v2Path {
      for folder in folders("/sys/fs/cgroup", v2Path) {
        guard let max = readSmallFile(folder + "/memory.max")?.trimmingSpace, max != "max", let limit = Int64(max),
          let current = firstNumber(in: folder + "/memory.current")
        else { continue }
        let reclaimable = statField("inactive_file", in: folder + "/memory.stat") ?? 0
        return Headroom(bytes: Swift.max(0, limit - (current - reclaimable)), limit: "the cgroup's memory limit")
      }
    }
    if let v1Path {
      for folder in folders("/sys/fs/cgroup/memory", v1Path) {
        // v1 writes "no limit" as the largest page-aligned 64-bit number.
        guard let limit = firstNumber(in: folder + "/memory.limit_in_bytes"), limit < 1 << 62,
          let usage = firstNumber(in: folder + "/memory.usage_in_bytes")
        else { continue }
        let reclaimable = statField("total_inactive_file", in: folder + "/memory.stat") ?? 0
        return Headroom(bytes: Swift.max(0, limit - (usage - reclaimable)), limit: "the cgroup's memory limit")
      }
    }
    return nil
  }

  /// Address space reserved with no access yet: anonymous private
  /// mappings marked `---p` in `/proc/self/maps`, such as the 64 MiB a
  /// malloc arena reserves for a new thread and grows into. `ulimit -v`
  /// counts them in full though little of them is in use. Libraries' gaps
  /// (file-backed) are not counted.
  public static func reservedBytes() -> Int64 {
    guard let text = readSmallFile("/proc/self/maps") else { return 0 }
    var total: Int64 = 0
    for line in text.split(separator: "\n") {
      // address perms offset device inode [path]
      let fields = line.split(separator: " ")
      guard fields.count == 5, fields[1] == "---p", fields[4] == "0" else { continue }
      let range = fields[0].split(separator: "-")
      guard range.count == 2, let start = UInt64(range[0], radix: 16), let end = UInt64(range[1], radix: 16),
        end > start
      else { continue }
      total += Int64(end - start)
    }
    return total
  }

  static func firstNumber(in path: String) -> Int64? {
    guard let text = readSmallFile(path) else { return nil }
    return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first.flatMap { Int64($0) }
  }

  static func statField(_ name: String, in path: String) -> Int64? {
    guard let text = readSmallFile(path) else { return nil }
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ")
      if parts.count == 2 && parts[0] == name { return Int64(parts[1]) }
    }
    return nil
  }

  /// The first 64 KiB of a file (the kernel's small text files), or nil.
  static func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 1 << 16)
    var filled = 0
    while filled < bytes.count {
      let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      filled += n
    }
    return String(decoding: bytes[..<filled], as: UTF8.self)
  }
}

extension StringProtocol {
  fileprivate var trimmingSpace: String {
    String(drop(while: { $0 == " " || $0 == "\n" }).reversed().drop(while: { $0 == " " || $0 == "\n" }).reversed())
  }
}
