import ArgumentParser
import EvictionCache
import EvictionCore
import EvictionReports
import EvictionSim
import EvictionTraces
import Foundation

struct Stress: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replay a trace from many threads through one shared MemoryCache: throughput, latency, lock contention.",
    discussion: """
      Each thread takes every T-th request (a disjoint share); a miss is followed by a set, as a \
      read-through cache does. Every (threads, lock) cell is measured beside two comparison points at \
      the same thread count: Foundation's NSCache and an unbounded Dictionary behind a Mutex.
        evlab stress trace.oracleGeneral.bin --policy lru --size 5000 --threads 1,2,4 --lock mutex,striped:8
      """)

  @Argument(help: "The trace to replay (read into memory first).")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions

  @Option(help: "The cache's policy (a catalog name with parameters; not an offline one).")
  var policy: String = "lru"

  @Option(help: "Cache size: objects in count mode, bytes in byte mode (k/m/g suffixes).")
  var size: String

  @Option(help: "count or bytes (default count).")
  var sizeMode: SizeMode = .count

  @Option(help: "Thread counts, comma-separated (default 1,2,4,8).")
  var threads: String = "1,2,4,8"

  @Option(help: "Lock strategies, comma-separated: mutex, pthread, rwlock, queue, striped, striped:N (default: all five).")
  var lock: String = "mutex,pthread,rwlock,queue,striped"

  @Option(help: "Requests replayed per cell (default: the trace's length; a shorter trace wraps around).")
  var ops: Int?

  @Option(help: "Write the results as JSON ({\"results\": [...]}) to PATH; - for standard output.")
  var json: String?

  @Option(help: "Write the results as CSV to PATH; - for standard output.")
  var csv: String?

  func run() throws {
    var threadCounts: [Int] = []
    var locks: [LockStrategy] = []
    var spec = try PolicySpec("lru")
    var cacheSize: Int64 = 0
    try oneLineErrors {
      try traceOptions.checkArguments()
      threadCounts = try threads.split(separator: ",").map { text in
        guard let n = Int(String(text).trimmingCharacters(in: " ")), (1...256).contains(n) else {
          throw ValidationError("--threads '\(text)': give thread counts from 1 to 256, e.g. 1,2,4,8")
        }
        return n
      }
      guard !threadCounts.isEmpty else { throw ValidationError("--threads is empty; e.g. --threads 1,2,4") }
      locks = try lock.split(separator: ",").map { text throws in
        do throws(CacheError) { return try LockStrategy(String(text).trimmingCharacters(in: " ")) } catch {
          throw ValidationError(error.description)
        }
      }
      spec = try parsePolicies([policy]).first!
      if PolicyCatalog.offline.contains(spec.name) { throw ValidationError(CacheError.offlinePolicy(spec.name).description) }
      cacheSize = try parseSize(size)
      if let ops, ops < 1 { throw ValidationError("--ops \(ops): at least one request is needed") }
    }
    let workload: StressRun.Workload
    do throws(TraceError) {
      workload = try StressRun.Workload(traceOptions.source(trace, copies: 1))
    } catch {
      throw fail(error)
    }
    let requests = ops ?? workload.keys.count
    var targets = locks.map(StressTarget.cache)
    targets += [.nscache, .dictionary]
    let total = threadCounts.count * targets.count
    let progress = ReplayProgress()
    let display = ProgressLine(progress, total: total, label: "stress")
    display.begin()
    var results: [StressResult] = []
    do throws(CacheError) {
      for n in threadCounts {
        for target in targets {
          results.append(
            try StressRun.run(
              workload, target: target, policy: spec, cacheSize: cacheSize, sizeMode: sizeMode, threads: n,
              ops: requests))
          progress.requests.add(requests, ordering: .relaxed)
          progress.cellsDone.add(1, ordering: .relaxed)
        }
      }
      display.end()
    } catch {
      display.end()
      throw fail(error)
    }
    StressRun.addRatios(&results)
    if json != "-" && csv != "-" { print(StressTables.table(results), terminator: "") }
    try write(StressTables.json(results), to: json)
    try write(StressTables.csv(results), to: csv)
  }
}
