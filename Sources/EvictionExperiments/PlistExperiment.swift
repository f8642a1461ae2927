import EvictionCache
import EvictionDisk
import EvictionRun
import EvictionTraces
import Foundation
import Synchronization

extension DiskBench {
  /// One row of the plist experiment (`evlab disk-bench --mode plist`):
  /// either what concurrent writers lose (`experiment` `lost-updates`) or
  /// what a write costs at a dictionary size (`write-latency`). CSV/JSON
  /// keys are the snake_case names.
  public struct PlistResult: Sendable, Codable, Equatable {
    public var experiment: String
    /// `plist-atomic`, `plist-serial` (``PropertyListStore/Design``) or `sqlite+files` (``DiskStore``, mixed mode).
    public var store: String
    public var writers: Int
    /// Entries in the store before the timed writes.
    public var entries: Int
    public var valueSize: Int
    public var writes: Int
    /// Updates missing from the file once every writer is done (read back from disk).
    public var lostUpdates: Int
    /// Rewrites that put an older snapshot over a newer one.
    public var staleRenames: Int
    /// Changes those rewrites took out of the file, for a while or for good.
    public var changesRolledBack: Int
    /// The caller's wait per write: until `set` returns (`lost-updates`),
    /// until the write is on disk (`write-latency`).
    public var p50Ns: UInt64
    public var p99Ns: UInt64
    /// The file's size after the last write (the plist stores; nil for `sqlite+files`).
    public var fileBytes: Int?

    public static let columns = [
      "experiment", "store", "writers", "entries", "value_size", "writes", "lost_updates", "stale_renames",
      "changes_rolled_back", "p50_ns", "p99_ns", "file_bytes",
    ]
  }

  /// The plist file cache's two designs, measured: for each writer count,
  /// `trials` runs in which that many threads each write `writesPerWriter`
  /// keys of their own to a store of `startingEntries` (so a rewrite takes
  /// a while, as in the article), then the file is read back and every
  /// update missing from it counted; and for each dictionary size of
  /// `entries`, `samples` writes timed until they are on disk, beside the
  /// SQLite/file store's. `progress` hears about each cell before it runs.
  public static func plistExperiment(
    writers: [Int], entries: [Int], valueSize: Int = 256, writesPerWriter: Int = 50, trials: Int = 5,
    startingEntries: Int = 1_000, samples: Int = 20, directory: String, progress: (String) -> Void = { _ in }
  ) throws(DiskError) -> [PlistResult] {
    let value = (0..<valueSize).map { UInt8(truncatingIfNeeded: $0 &* 131) }
    var results: [PlistResult] = []
    let starting = Dictionary(uniqueKeysWithValues: (0..<startingEntries).map { ("entry-\($0)", value) })
    for design in PropertyListStore.Design.allCases {
      for count in writers {
        progress("plist \(design.rawValue): \(count) writer(s), \(trials) trials")
        var row = PlistResult(
          experiment: "lost-updates", store: "plist-\(design.rawValue)", writers: count, entries: startingEntries,
          valueSize: valueSize, writes: 0, lostUpdates: 0, staleRenames: 0, changesRolledBack: 0, p50Ns: 0, p99Ns: 0,
          fileBytes: 0)
        var waits = WaitTimes()
        for _ in 0..<trials {
          try scratchFolder(directory) { (folder) throws(DiskError) in
            let store = try PropertyListStore(path: folder + "/cache.plist", design: design)
            try store.replaceAll(with: starting)
            let outcome = try write(store, writers: count, each: writesPerWriter, value: value)
            try store.flush()
            let onDisk = try PropertyListStore.read(path: store.path)
            let expected = count * writesPerWriter
            row.writes += expected
            row.lostUpdates += startingEntries + expected - onDisk.count
            row.staleRenames += store.statistics.staleRenames
            row.changesRolledBack += store.statistics.changesRolledBack
            row.fileBytes = store.statistics.fileBytes
            waits.merge(outcome)
          }
        }
        row.p50Ns = waits.percentile(50)
        row.p99Ns = waits.percentile(99)
        results.append(row)
      }
    }
    for size in entries {
      let initial = Dictionary(uniqueKeysWithValues: (0..<size).map { ("entry-\($0)", value) })
      for store in ["plist-atomic", "plist-serial", "sqlite+files"] {
        progress("\(store): \(samples) writes at \(size) entries")
        try scratchFolder(directory) { (folder) throws(DiskError) in
          var waits = WaitTimes()
          var fileBytes: Int? = nil
          if store == "sqlite+files" {
            let disk = try DiskStore(directory: folder + "/store")
            defer { disk.close() }
            for (key, value) in initial { try disk.setValue(value, forKey: key) }
            for i in 0..<samples {
              let start = monotonicNanoseconds()
              try disk.setValue(value, forKey: "new-\(i)")
              waits.record(monotonicNanoseconds() &- start)
            }
          } else {
            let plist = try PropertyListStore(
              path: folder + "/cache.plist", design: store == "plist-atomic" ? .atomic : .serial)
            try plist.replaceAll(with: initial)
            for i in 0..<samples {
              let start = monotonicNanoseconds()
              try plist.setValue(value, forKey: "new-\(i)")
              try plist.flush()
              waits.record(monotonicNanoseconds() &- start)
            }
            fileBytes = plist.statistics.fileBytes
          }
          results.append(
            PlistResult(
              experiment: "write-latency", store: store, writers: 1, entries: size, valueSize: valueSize,
              writes: samples, lostUpdates: 0, staleRenames: 0, changesRolledBack: 0, p50Ns: waits.percentile(50),
              p99Ns: waits.percentile(99), fileBytes: fileBytes))
        }
      }
    }
    return results
  }

  /// `writers` threads, started together, each setting `each` keys of its
  /// own; returns how long the calls to `set` took.
  static func write(_ store: PropertyListStore, writers: Int, each: Int, value: [UInt8]) throws(DiskError)
    -> WaitTimes
  {
    let waits = Mutex(WaitTimes())
    let firstError = Mutex<DiskError?>(nil)
    let ready = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for w in 0..<writers {
      ready.enter()
      done.enter()
      let thread = Thread {
        ready.leave()
        start.wait()
        var mine = WaitTimes()
        for k in 0..<each {
          let began = monotonicNanoseconds()
          do throws(DiskError) { try store.setValue(value, forKey: "writer-\(w)-key-\(k)") } catch {
            firstError.withLock { if $0 == nil { $0 = error } }
          }
          mine.record(monotonicNanoseconds() &- began)
        }
        let finished = mine
        waits.withLock { $0.merge(finished) }
        done.leave()
      }
      thread.start()
    }
    ready.wait()
    for _ in 0..<writers { start.signal() }
    done.wait()
    if let error = firstError.withLock({ $0 }) { throw error }
    return waits.withLock { $0 }
  }

  /// Runs `body` on a new folder under `directory`, removed afterwards.
  static func scratchFolder(_ directory: String, _ body: (String) throws(DiskError) -> Void) throws(DiskError) {
    let path = directory + "/plist-\(UUID().uuidString)"
    let token = ScratchPaths.shared.register(path)
    defer {
      try? FileManager.default.removeItem(atPath: path)
      ScratchPaths.shared.unregister(token)
    }
    try makeFolder(path)
    try body(path)
  }

  /// Makes the folder `path` (its parent must exist), or says why not.
  static func makeFolder(_ path: String) throws(DiskError) {
    guard mkdir(path, 0o755) == 0 else {
      throw .io(path: path, operation: "mkdir", errno: errno, reason: String(cString: strerror(errno)))
    }
  }
}
