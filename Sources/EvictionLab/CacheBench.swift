import ArgumentParser
import EvictionReports
import EvictionSim

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

  @Option(name: .customLong("policy"), help: "MemoryCache policies.")
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
    try lock.check()
    guard lock.value.locks.count == 1 else { throw ArgumentError("--lock '\(lock.text)': name one lock strategy") }
    guard capacity >= 1, keys >= 1, gets >= 1, runs >= 1 else {
      throw ArgumentError("--capacity, --keys, --gets and --runs must be at least 1")
    }
  }

  func run() throws {
    let benchmark = CacheBenchmark(
      policies: try policies.specs(), capacity: capacity, keys: keys, gets: gets, rounds: runs,
      lock: lock.value.locks[0])
    let report = try failing { () throws(BenchError) in try benchmark.run(log: printError) }
    print(BenchTables.cache(report), terminator: "")
    try write(OutputFile.json(report), to: json)
  }
}
