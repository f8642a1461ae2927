import ArgumentParser
import EvictionCache
import EvictionCore
import EvictionExperiments
import EvictionReports
import EvictionSim
import EvictionTraces
import EvictionWorkloads
import Foundation

struct Stress: ParsableCommand, TakesPolicies, TakesSizeMode {
  static let configuration = CommandConfiguration(
    abstract: "Replay a trace from many threads through one shared MemoryCache: throughput, latency, lock contention.",
    discussion: """
      Threads claim the trace's requests in blocks of 64 from a shared counter, so the cache sees them \
      close to the trace's order; a miss is followed by a set, as a read-through cache does. Every \
      (threads, lock) cell is measured beside two comparison points at the same thread count: \
      Foundation's NSCache and an unbounded Dictionary behind a Mutex. Cache cells also report their \
      hit ratio's drift from the same requests replayed in order on one thread, and the hits the \
      buffered strategy dropped.
        evlab stress trace.oracleGeneral.bin --policy lru --size 5000 --threads 1,2,4 --lock mutex,striped:8
      """)

  @Argument(help: "The trace to replay (read into memory first).")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions

  @OptionGroup var policyOptions: PolicyOptions

  @OptionGroup var admissions: AdmissionOptions

  @Option(
    help:
      "Cache size: objects in count mode, bytes in byte mode (k/m/g suffixes), or a share of the footprint (1%, 0.01).")
  var size: Checked<SizeList>

  @OptionGroup var sizeModeOption: SizeModeOption

  @Option(help: "Thread counts, comma-separated or repeated.")
  var threads: [Checked<ThreadCounts>] = ["1,2,4,8"]

  @Option(
    help: "Lock strategies, comma-separated or repeated: \(LockStrategy.names).")
  var lock: [Checked<LockList>] = ["mutex,pthread,rwlock,queue,barrier,striped,buffered"]

  @Option(help: "Requests replayed per cell (default: the trace's length; a shorter trace wraps around).")
  var ops: Int?

  @OptionGroup var output: OutputOptions

  /// The policies, `all` meaning every one that can run a real cache.
  func specs() throws -> [PolicySpec] {
    let specs = try policies.specs(or: DefaultJob.lru).filter { $0.descriptor.canDriveACache || !policies.namesAll }
    for spec in specs where spec.descriptor.isOffline {
      throw ArgumentError(CacheError.offlinePolicy(spec.name).description)
    }
    return specs
  }

  func validate() throws {
    _ = try specs()
    try OutputCheck.notAnInput([("--csv", output.csv), ("--json", output.json)], inputs: [trace])
    try threads.check()
    try lock.check()
    try size.check()
    guard size.value.sizes.count == 1 else {
      throw ArgumentError("--size '\(size.text)': stress runs one size; give one")
    }
    if let ops, ops < 1 { throw ArgumentError("--ops \(ops): at least one request is needed") }
    _ = try admissions.specs(sizeMode: sizeMode, policies: try specs())
  }

  func run() throws {
    let specs = try specs()
    let threadCounts = threads.counts()
    let locks: [LockStrategy] = lock.values()
    let source = try traceSource(trace, traceOptions)
    let workload = try failing { () throws(TraceError) in try StressRun.Workload(source) }
    let cacheSize = try resolveSizes(size.value.sizes, for: source, sizeMode: sizeMode)[0]
    let need = workload.memoryNeeded(cacheSize: cacheSize, sizeMode: sizeMode)
    try MemoryBudget.check(
      need.bytes, for: "a cache of up to \(need.entries) entries (NSCache's take about 256 bytes each)",
      wayOut: "give a smaller --size, or a shorter trace, or run where more memory is free")
    let plan = StressRun.Sweep(
      policies: specs, admissions: try admissions.specs(sizeMode: sizeMode, policies: specs), locks: locks,
      threads: threadCounts,
      cacheSize: cacheSize, sizeMode: sizeMode,
      ops: ops ?? workload.keys.count)
    noteLongRun(
      requests: Double(plan.cells.count) * Double(plan.ops), workers: threadCounts.max() ?? 1, perCore: 50e6,
      asked: "--ops \(plan.ops) in \(Wording.count(plan.cells.count, "run"))")
    let progress = ReplayProgress(expectedRequests: plan.cells.count * plan.ops)
    let display = ProgressLine(progress, total: plan.cells.count, label: "stress")
    display.begin()
    defer { display.end() }
    let results = try failing { () throws(CacheError) in try plan.run(workload, progress: progress) }
    display.end()
    try output.emit(
      table: StressTables.table(results), json: StressTables.json(results), csv: StressTables.csv(results))
  }
}
