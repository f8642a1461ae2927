import Benchmark
import EvictionCache
import EvictionCore
import EvictionDisk
import EvictionExperiments
import EvictionSim
import EvictionTraces
import Foundation

/// The bundled sample trace every benchmark reads (200,000 requests, 18,516 objects).
let tracePath: String = {
  let here = URL(fileURLWithPath: #filePath)
  return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("traces/zipf-0.9.oracleGeneral.zst").path
}()

/// Names avoid "/": the threshold files are named after the benchmarks.
///
/// Allocation counts are the gate (they do not drift with machine noise);
/// wall clock and throughput are reported only. A benchmark fails when it
/// allocates more than 64 above its committed count: slack for one-time
/// buffers, while an allocation per request or per operation (200,000 an
/// iteration) fails at once.
func configuration(_ extra: [BenchmarkMetric] = []) -> Benchmark.Configuration {
  .init(
    metrics: [.mallocCountTotal, .wallClock, .throughput] + extra,
    timeUnits: .milliseconds,
    warmupIterations: 1,
    scalingFactor: .one,
    maxDuration: .seconds(2),
    maxIterations: 5,
    thresholds: [.mallocCountTotal: .init(absolute: [.p90: 64])])
}

let benchmarks: @Sendable () -> Void = {
  let source = TraceSource(path: tracePath, format: .oracleGeneral)

  // Replay per built-in policy (the catalog's every name, so a new policy is
  // gated without an edit here): one pass over the trace at 2,000 objects
  // (about 10% of its objects), reading and decompressing included.
  for name in PolicyCatalog.names {
    Benchmark("replay-\(name)", configuration: configuration()) { benchmark in
      let spec = try PolicySpec(name)
      for _ in benchmark.scaledIterations {
        blackHole(try TraceReplay.run(source, policy: spec, cacheSize: 2000, sizeMode: .count).misses)
      }
    }
  }

  // Reading: the trace decoded into records, nothing else.
  Benchmark("read-oracleGeneral-zst", configuration: configuration()) { benchmark in
    let buffer = UnsafeMutableBufferPointer<TraceRecord>.allocate(capacity: 4096)
    defer { buffer.deallocate() }
    for _ in benchmark.scaledIterations {
      let reader = try source.open()
      var total = 0
      while true {
        let n = try reader.read(into: buffer)
        if n == 0 { break }
        total += n
      }
      blackHole(total)
    }
  }

  // MemoryCache get and set, single thread, integer keys: 200,000 operations
  // per iteration over the trace's keys.
  let keys: [Int] = {
    guard let records = try? source.open().readAll() else { return [] }
    return records.map { Int(truncatingIfNeeded: $0.key) }
  }()
  for policy: CachePolicy in [.lru, .s3fifo()] {
    Benchmark("cache-\(policy)-set", configuration: configuration()) { benchmark in
      let cache = try MemoryCache<Int, Int>(policy: policy, index: IntegerSlotIndex<Int>.self, countLimit: 2000)
      for _ in benchmark.scaledIterations {
        for key in keys { cache.setValue(key, forKey: key) }
      }
      blackHole(cache.count)
    }
    Benchmark("cache-\(policy)-get", configuration: configuration()) { benchmark in
      let cache = try MemoryCache<Int, Int>(policy: policy, index: IntegerSlotIndex<Int>.self, countLimit: 2000)
      for key in keys { cache.setValue(key, forKey: key) }
      for _ in benchmark.scaledIterations {
        var hits = 0
        for key in keys where cache.value(forKey: key) != nil { hits += 1 }
        blackHole(hits)
      }
    }
  }

  // GetPut (Caffeine's JMH benchmark, as `evlab bench concurrent` runs it):
  // a filled LRU cache of 65,536 entries read and written at scrambled Zipf
  // keys, 2^18 operations an iteration split over the threads. Throughput is
  // iterations per second: times 262,144 for operations per second. NSCache
  // is left to `evlab bench concurrent`: it boxes every key and value in an
  // NSNumber, so its allocation count would gate Foundation, not us.
  for contender in ["mutex", "striped:8", "buffered", ConcurrentBenchmark.dictionaryName] {
    for mix in ["100/0", "75/25"] {
      for threads in [1, 2] {
        let name = "getput-\(contender.replacing(":", with: ""))-\(mix.replacing("/", with: "-"))-\(threads)t"
        Benchmark(name, configuration: configuration()) { benchmark in
          let cell = try ConcurrentBenchmark.Cell(
            contender: contender, mix: try ConcurrentBenchmark.Mix(mix), policy: try PolicySpec("lru"))
          benchmark.startMeasurement()
          for _ in benchmark.scaledIterations { cell.run(threads: threads, operationsPerThread: (1 << 18) / threads) }
          benchmark.stopMeasurement()
        }
      }
    }
  }

  // The disk store, mixed mode (20 KiB inline threshold): 1,000 writes and
  // 1,000 reads an iteration, of 100-byte values (inline in SQLite) and of
  // 100 KiB values (a file each).
  for (label, size) in [("100B", 100), ("100KiB", 100 * 1024)] {
    let value = [UInt8](repeating: 0x5A, count: size)
    Benchmark("disk-write-\(label)", configuration: configuration()) { benchmark in
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evlab-bench-\(UUID())").path
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let store = try DiskStore(directory: directory)
      defer { store.close() }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        for i in 0..<1000 { try store.set(value, forKey: "key-\(i)") }
      }
      benchmark.stopMeasurement()
    }
    Benchmark("disk-read-\(label)", configuration: configuration()) { benchmark in
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evlab-bench-\(UUID())").path
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let store = try DiskStore(directory: directory)
      defer { store.close() }
      for i in 0..<1000 { try store.set(value, forKey: "key-\(i)") }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        for i in 0..<1000 { blackHole(try store.value(forKey: "key-\(i)")) }
      }
      benchmark.stopMeasurement()
    }
  }
}
