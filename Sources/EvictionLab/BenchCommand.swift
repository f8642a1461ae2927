import ArgumentParser
import EvictionCore
import EvictionReports
import EvictionSim
import EvictionStats
import EvictionTraces
import Foundation

struct Bench: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Benchmarks (figures for people; throughput --baseline is an opt-in speed gate for quiet machines) and the exact-results regression gate (check, update).",
    subcommands: [
      ReplayBench.self, ThroughputBench.self, CacheBench.self, ReadBench.self, BenchCheck.self, BenchUpdate.self,
    ])
}

/// Single-thread replay throughput per policy: `runs` rounds, each replaying
/// every policy once in turn (interleaved, so machine noise spreads evenly),
/// reported as the median with min and max.
struct ReplayBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Median single-thread replay throughput per policy.",
    discussion: """
      A heavy workload: the cloudPhysicsIO oracleGeneral trace tiled 100 times with disjoint ids:
        evlab bench replay ../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin \\
          --repeat 100 --size 5000 --runs 7
        evlab bench replay ... --repeat 100 --size 256m --size-mode bytes --runs 7
      """)

  @Argument(help: "The trace to replay.")
  var trace: String

  @OptionGroup var traceOptions: TraceOptions

  @Option(name: .customLong("policy"), help: "Policies (default: the seven core policies).")
  var policies: [String] = ["lru", "fifo", "lfu", "mru", "random", "arc", "slru"]

  @Option(help: "Cache size (objects in count mode, bytes in byte mode; k/m/g suffixes).")
  var size: String

  @Option(help: "count or bytes.")
  var sizeMode: SizeMode = .count

  @Option(name: .customLong("repeat"), help: "Tile the trace this many times with disjoint ids (default 1).")
  var copies: Int = 1

  @Option(help: "Rounds; the median is reported.")
  var runs: Int = 5

  @Option(help: "Write the medians as JSON to PATH.")
  var json: String?

  @Flag(
    help:
      "Also time a bare-bones LRU loop (keys in memory, one open-addressing table, no framework) in every round, as the practical limit to compare against (count mode only)."
  )
  var bareReference = false

  /// Checks the arguments; a bad one is reported in one line by `oneLineErrors`.
  func checkArguments() throws {
    try traceOptions.checkArguments()
    guard runs >= 1 && copies >= 1 else { throw ValidationError("--runs and --repeat must be at least 1") }
    if bareReference && sizeMode != .count {
      throw ValidationError("--bare-reference is a count-mode LRU loop; drop it or use --size-mode count")
    }
    _ = try parseSize(size)
    _ = try parsePolicies(policies)
  }

  func run() throws {
    try oneLineErrors { try checkArguments() }
    let specs = try parsePolicies(policies)
    let capacity = try parseSize(size)
    let source: TraceSource
    do throws(TraceError) { source = try traceOptions.source(trace, copies: copies) } catch { throw fail(error) }
    var rates = Array(repeating: [Double](), count: specs.count)
    var reference: [ReplayResult?] = Array(repeating: nil, count: specs.count)
    var bareRates: [Double] = []
    var bareMisses = 0
    let keys = bareReference ? try loadKeys(source) : []
    for round in 1...runs {
      if bareReference {
        let clock = ContinuousClock()
        let start = clock.now
        bareMisses = BareLRU.replay(keys, copies: copies, capacity: Int(capacity))
        let elapsed = (clock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
        bareRates.append(Double(keys.count * copies) / seconds)
        printError("round \(round)/\(runs) bare-bones LRU: \(ReplayTables.fixed(bareRates.last! / 1e6, 2)) M req/s")
      }
      for (i, spec) in specs.enumerated() {
        let result: ReplayResult
        do throws(TraceError) {
          result = try TraceReplay.run(source, policy: spec, cacheSize: capacity, sizeMode: sizeMode)
        } catch { throw fail(error) }
        if let first = reference[i], first.misses != result.misses {
          throw fail(
            "\(spec) gave \(result.misses) misses in round \(round) but \(first.misses) before: not deterministic")
        }
        reference[i] = result
        rates[i].append(result.requestsPerSecond)
        printError("round \(round)/\(runs) \(spec): \(ReplayTables.fixed(result.requestsPerSecond / 1e6, 2)) M req/s")
      }
    }
    let bareMedian = bareRates.isEmpty ? nil : SampleSummary(bareRates).median
    print(
      "policy          requests   miss ratio   median Mreq/s   min     max"
        + (bareMedian == nil ? "" : "     vs bare LRU"))
    var rows: [String] = []
    if let bareMedian {
      let s = SampleSummary(bareRates)
      let requests = keys.count * copies
      print(
        "bare-bones LRU".padding(16) + String(requests).padding(11)
          + ReplayTables.fixed(Double(bareMisses) / Double(requests), 4).padding(13)
          + ReplayTables.fixed(bareMedian / 1e6, 2).padding(16) + ReplayTables.fixed(s.minimum / 1e6, 2).padding(8)
          + ReplayTables.fixed(s.maximum / 1e6, 2) + String(repeating: " ", count: 6) + "1.00")
      rows.append(
        "{\"policy\": \"bare-bones lru\", \"requests\": \(requests), \"misses\": \(bareMisses), \"runs\": \(runs), "
          + "\"median_requests_per_second\": \(bareMedian.rounded())}")
    }
    for (i, spec) in specs.enumerated() {
      let s = SampleSummary(rates[i])
      let r = reference[i]!
      print(
        spec.description.padding(16) + String(r.requests).padding(11)
          + ReplayTables.fixed(r.missRatio, 4).padding(13) + ReplayTables.fixed(s.median / 1e6, 2).padding(16)
          + ReplayTables.fixed(s.minimum / 1e6, 2).padding(8) + ReplayTables.fixed(s.maximum / 1e6, 2)
          + (bareMedian.map { String(repeating: " ", count: 6) + ReplayTables.fixed(s.median / $0, 2) } ?? ""))
      rows.append(
        "{\"policy\": \"\(spec)\", \"requests\": \(r.requests), \"misses\": \(r.misses), \"runs\": \(runs), "
          + "\"median_requests_per_second\": \(s.median.rounded()), \"min_requests_per_second\": \(s.minimum.rounded()), "
          + "\"max_requests_per_second\": \(s.maximum.rounded())"
          + (bareMedian.map { ", \"ratio_to_bare_lru\": \(s.median / $0)" } ?? "") + "}")
    }
    try write(
      "{\"trace\": \"\(source.name)\", \"copies\": \(copies), \"cache_size\": \(capacity), \"size_mode\": \"\(sizeMode.rawValue)\", \"results\": [\n  "
        + rows.joined(separator: ",\n  ") + "\n]}\n", to: json)
  }
}

/// Reads every key of one copy of the trace into memory.
func loadKeys(_ source: TraceSource) throws -> [UInt64] {
  do throws(TraceError) {
    return try source.open().readAll().map(\.key)
  } catch {
    throw fail(error)
  }
}

/// The practical limit of an LRU replay here: the keys already in memory, a
/// linear-probing table of (key, slot) pairs and three arrays for the list,
/// nothing generic, no reader. What the framework's replay is measured against.
enum BareLRU {
  static func replay(_ keys: [UInt64], copies: Int, capacity: Int) -> Int {
    var size = 16
    while size < 2 * capacity { size <<= 1 }
    let mask = size - 1
    let shift = UInt64(64 - size.trailingZeroBitCount)
    let tableKeys = UnsafeMutablePointer<UInt64>.allocate(capacity: size)
    let tableSlots = UnsafeMutablePointer<Int32>.allocate(capacity: size)
    tableSlots.initialize(repeating: -1, count: size)
    tableKeys.initialize(repeating: 0, count: size)
    let slotKeys = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    let prev = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
    let next = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
    defer {
      for pointer in [tableKeys, slotKeys] { pointer.deallocate() }
      for pointer in [tableSlots, prev, next] { pointer.deallocate() }
    }
    var head: Int32 = -1
    var tail: Int32 = -1
    var used = 0
    var misses = 0
    @inline(__always) func home(_ k: UInt64) -> Int { Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) &>> shift) }
    for copy in 0..<copies {
      let offset = UInt64(copy) << 40
      for raw in keys {
        let key = raw &+ offset
        var i = home(key)
        var found: Int32 = -1
        while tableSlots[i] >= 0 {
          if tableKeys[i] == key {
            found = tableSlots[i]
            break
          }
          i = (i &+ 1) & mask
        }
        if found >= 0 {
          if found != head {
            let s = Int(found)
            let p = prev[s]
            let n = next[s]
            next[Int(p)] = n
            if n >= 0 { prev[Int(n)] = p } else { tail = p }
            prev[s] = -1
            next[s] = head
            prev[Int(head)] = found
            head = found
          }
          continue
        }
        misses += 1
        let slot: Int32
        if used == capacity {
          slot = tail
          let s = Int(slot)
          tail = prev[s]
          if tail >= 0 { next[Int(tail)] = -1 } else { head = -1 }
          var j = home(slotKeys[s])
          while tableSlots[j] != slot { j = (j &+ 1) & mask }
          var hole = j
          var m = (j &+ 1) & mask
          while tableSlots[m] >= 0 {
            let h = home(tableKeys[m])
            if (m &- h) & mask >= (m &- hole) & mask {
              tableKeys[hole] = tableKeys[m]
              tableSlots[hole] = tableSlots[m]
              hole = m
            }
            m = (m &+ 1) & mask
          }
          tableSlots[hole] = -1
        } else {
          slot = Int32(used)
          used += 1
        }
        slotKeys[Int(slot)] = key
        var j = home(key)
        while tableSlots[j] >= 0 { j = (j &+ 1) & mask }
        tableKeys[j] = key
        tableSlots[j] = slot
        prev[Int(slot)] = -1
        next[Int(slot)] = head
        if head >= 0 { prev[Int(head)] = slot } else { tail = slot }
        head = slot
      }
    }
    return misses
  }
}
