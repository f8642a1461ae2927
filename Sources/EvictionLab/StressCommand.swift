import ArgumentParser
import EvictionCache
import EvictionCore
import EvictionReports
import EvictionSim
import EvictionTraces
import EvictionWorkloads
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

  @Option(
    name: .customLong("policy"),
    help:
      "The cache's policies, comma-separated or repeated (catalog names with parameters; not offline ones; default lru)."
  )
  var policies: [String] = []

  @Option(
    help:
      "Cache size: objects in count mode, bytes in byte mode (k/m/g suffixes), or a share of the footprint (1%, 0.01).")
  var size: String

  @Option(help: "count or bytes.")
  var sizeMode: SizeMode = .count

  @Option(help: "Thread counts, comma-separated or repeated (default 1,2,4,8).")
  var threads: [String] = []

  @Option(
    help:
      "Lock strategies, comma-separated or repeated: mutex, pthread, rwlock, queue, striped, striped:N (default: all five)."
  )
  var lock: [String] = []

  @Option(help: "Requests replayed per cell (default: the trace's length; a shorter trace wraps around).")
  var ops: Int?

  @Option(help: "Write the results as JSON ({\"results\": [...]}) to PATH; - for standard output.")
  var json: String?

  @Option(help: "Write the results as CSV to PATH; - for standard output.")
  var csv: String?

  func run() throws {
    var threadCounts: [Int] = []
    var locks: [LockStrategy] = []
    var specs: [PolicySpec] = []
    var requestedSize = CacheSize.absolute(1)
    try oneLineErrors {
      try traceOptions.checkArguments()
      threadCounts = try listItems(threads.isEmpty ? ["1,2,4,8"] : threads, option: "--threads").map { text in
        guard let n = Int(text), (1...256).contains(n) else {
          throw ValidationError("--threads '\(text)': give thread counts from 1 to 256, e.g. 1,2,4,8")
        }
        return n
      }
      locks = try listItems(lock.isEmpty ? ["mutex,pthread,rwlock,queue,striped"] : lock, option: "--lock").map {
        text throws in
        do throws(CacheError) { return try LockStrategy(text) } catch {
          throw ValidationError(error.description)
        }
      }
      let named = policies.isEmpty ? ["lru"] : policies
      specs = try parsePolicies(named).filter {
        !(($0.descriptor.isOffline || PolicyCatalog.entry(named: $0.name)?.trimsOnATimer == true)
          && named.contains { $0.lowercased() == "all" })
      }
      for spec in specs where spec.descriptor.isOffline {
        throw ValidationError(CacheError.offlinePolicy(spec.name).description)
      }
      guard Set(specs).count == specs.count else {
        throw ValidationError("--policy names a policy twice; name each once")
      }
      let parsed = try parseCacheSizes([size], option: "--size")
      guard parsed.count == 1 else { throw ValidationError("--size '\(size)': stress runs one size; give one") }
      requestedSize = parsed[0]
      if let ops, ops < 1 { throw ValidationError("--ops \(ops): at least one request is needed") }
    }
    let workload: StressRun.Workload
    do throws(TraceError) {
      workload = try StressRun.Workload(traceOptions.source(trace, copies: 1))
    } catch {
      throw fail(error)
    }
    let cacheSize = try resolveSizes([requestedSize], for: traceOptions.source(trace, copies: 1), sizeMode: sizeMode)[0]
    let requests = ops ?? workload.keys.count
    var targets = locks.map(StressTarget.cache)
    targets += [.nscache, .dictionary]
    let total = threadCounts.count * targets.count * specs.count
    let progress = ReplayProgress()
    let display = ProgressLine(progress, total: total, label: "stress")
    display.begin()
    var results: [StressResult] = []
    do throws(CacheError) {
      for spec in specs {
        for n in threadCounts {
          for target in targets {
            // The comparison points have no policy: measured once, beside the first.
            if spec != specs[0] && (target == .nscache || target == .dictionary) { continue }
            results.append(
              try StressRun.run(
                workload, target: target, policy: spec, cacheSize: cacheSize, sizeMode: sizeMode, threads: n,
                ops: requests))
            progress.requests.add(requests, ordering: .relaxed)
            progress.cellsDone.add(1, ordering: .relaxed)
          }
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
