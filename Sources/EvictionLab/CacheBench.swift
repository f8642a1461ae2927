import ArgumentParser
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTraces

/// Single-thread get and set cost of `MemoryCache<UInt64, UInt64>` against NSCache
/// and an unbounded `Dictionary` behind a `Mutex`, measured in the same run.
struct CacheBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cache",
    abstract: "Single-thread nanoseconds per get and per set: MemoryCache vs NSCache vs Dictionary+Mutex.",
    discussion: """
      Each round: fill an empty cache with --keys distinct Int keys (sets), then read a fixed random \
      sequence of keys (gets; the cache holds --capacity of them). Rounds interleave the contenders; \
      medians are reported. Example:
        evlab bench cache --policy lru,arc --runs 7
      """)

  @Option(name: [.customLong("policy"), .customLong("policies")], help: "MemoryCache policies.")
  var policies: [Checked<PolicyList>] = ["lru,arc"]

  @Option(help: "The count limit of every cache.")
  var capacity: Int = 10_000

  @Option(help: "Distinct keys set and read (half the reads miss with LRU).")
  var keys: Int = 20_000

  @Option(help: "Gets per round.")
  var gets: Int = 1_000_000

  @Option(help: "Rounds; medians are reported.")
  var runs: Int = 5

  @Option(help: "Lock strategy of the MemoryCache.")
  var lock: Checked<LockList> = "mutex"

  @Option(help: "Write the medians as JSON to PATH.")
  var json: String?

  func validate() throws {
    _ = try policies.specs()
    if let json { try OutputCheck.file(json, option: "--json") }
    try lock.check()
    guard lock.value.items.count == 1 else { throw ArgumentError("--lock '\(lock.text)': name one lock strategy") }
    guard capacity >= 1, keys >= 1, gets >= 1, runs >= 1 else {
      throw ArgumentError("--capacity, --keys, --gets and --runs must be at least 1")
    }
    guard runs <= maximumRuns else { throw ArgumentError("--runs \(runs): at most \(maximumRuns)") }
    guard Int64(capacity) <= PolicySpec.maximumCapacity else {
      throw ArgumentError(
        "--capacity \(capacity): at most 2⁵⁶ (\(PolicySpec.maximumCapacity)), the largest cache evlab builds")
    }
  }

  func run() throws {
    // The keys (shuffled, then mapped: 16 bytes each) and reads (8) are drawn before the rounds start.
    let bytes =
      Double(keys) * 16 + Double(gets) * 8 + Double(min(capacity, keys)) * Double(MemoryBench.bytesPerEntry)
    try MemoryBudget.check(
      bytes < 0x1p62 ? Int64(bytes) : 1 << 62,
      for: "\(keys) keys, \(gets) reads and a cache of \(min(capacity, keys)) entries",
      wayOut: "measure fewer --keys or --gets, or a smaller --capacity, or run where more memory is free")
    let benchmark = CacheBenchmark(
      policies: try policies.specs(), capacity: capacity, keys: keys, gets: gets, rounds: runs,
      lock: lock.value.items[0])
    let report = try failing { () throws(BenchError) in try benchmark.run(log: printError) }
    print(BenchTables.cache(report), terminator: "")
    try write(OutputFile.json(report), to: json)
  }
}

/// Heap bytes per entry of `MemoryCache<UInt64, UInt64>` per policy, and per ghost
/// entry, beside `Dictionary<Int, Int>` and NSCache.
struct MemoryBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "memory",
    abstract: "Heap bytes per entry (and per ghost) of MemoryCache<UInt64, UInt64> per policy, Dictionary and NSCache.",
    discussion: """
      Read from the allocator's statistics (glibc mallinfo2) before and after filling a cache of N \
      entries with N distinct keys; ghosts: the policy filled, then asked for N more keys. Example:
        evlab bench memory --policy lru,arc,s3fifo --entries 10000,1000000 --json memory.json
      """)

  @Option(
    name: [.customLong("policy"), .customLong("policies")], help: "Policies (default: every one that can run a cache).")
  var policies: [Checked<PolicyList>] = []

  @Option(help: "Entry counts, comma-separated or repeated (default: 10000,100000,1000000).")
  var entries: [String] = []

  @OptionGroup var output: OutputOptions

  func counts() throws -> [Int] {
    let given = entries.isEmpty ? ["10000,100000,1000000"] : entries
    let counts = try listItems(given, option: "--entries").map { text in
      guard let n = Int(text), n >= 1, n <= 100_000_000 else {
        throw ArgumentError("--entries '\(text)': a whole number of entries from 1 to 100000000")
      }
      return n
    }
    guard Set(counts).count == counts.count else { throw ArgumentError("--entries names a count twice") }
    return counts
  }

  func specs() throws -> [PolicySpec] {
    let named = try policies.specs()
    let specs =
      named.isEmpty ? try PolicyCatalog.entries.filter(\.canDriveACache).map { try PolicySpec($0.name) } : named
    for spec in specs where !spec.descriptor.canDriveACache {
      throw ArgumentError("--policy \(spec.name) cannot run a cache (offline or trimmed on a timer)")
    }
    return specs
  }

  func validate() throws {
    _ = try counts()
    _ = try specs()
  }

  /// What the largest cache measured takes an entry: every run measures
  /// NSCache beside the policies (218 bytes an entry at 10,000 entries;
  /// LRU's slab entry and bucket take 78 at 1,000,000, results/memory).
  static let bytesPerEntry: Int64 = 256

  func run() throws {
    let benchmark = MemoryBenchmark(policies: try specs(), entries: try counts())
    if let largest = benchmark.entries.max() {
      try MemoryBudget.check(
        Int64(largest) * Self.bytesPerEntry, for: "a cache of \(largest) entries (NSCache's take about 256 bytes each)",
        wayOut: "measure fewer entries (--entries), or run where more memory is free")
    }
    let report = try failing { () throws(BenchError) in try benchmark.run(log: printError) }
    try output.emit(
      table: BenchTables.memory(report), json: OutputFile.json(report), csv: ResultWriter.csv(report.results))
  }
}
