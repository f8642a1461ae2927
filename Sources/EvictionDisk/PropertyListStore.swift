import Dispatch
import EvictionCache
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The plist file cache of our seed material: a whole dictionary kept in
/// memory and serialised to one property-list file, rewritten on every
/// change the way `-[NSDictionary writeToFile:atomically:]` writes (a new
/// file beside it, then a rename over it), so the file is always whole.
///
/// It is here to be measured beside ``DiskStore`` (`evlab disk-bench --mode
/// plist`), in the article's two designs (``Design``): whole is not the same
/// as up to date. Under concurrent writers, atomic rewrites alone lose
/// updates, because each writer renames its own snapshot and the last
/// rename wins, however stale; a serial write queue fixes it. And every
/// change costs a rewrite of everything, so a write's cost grows with the
/// dictionary.
package final class PropertyListStore: @unchecked Sendable {
  /// How writes reach the file.
  package enum Design: String, Sendable, CaseIterable {
    /// Each writer changes the dictionary under a lock, takes a snapshot and
    /// rewrites the file from it, atomically, concurrently with the others.
    case atomic
    /// The dictionary is guarded by a concurrent queue (reads side by side,
    /// changes as barrier blocks), and the file rewrites go through one
    /// serial queue, each writing the dictionary as it is when the rewrite
    /// runs: the file ends up holding the last change.
    case serial
  }

  /// What the store has done.
  package struct Statistics: Sendable {
    /// Rewrites of the file.
    package var rewrites = 0
    /// How long each rewrite took: serialising the whole dictionary, writing it and renaming.
    package var rewriteTimes = WaitTimes()
    /// The size of the last file written.
    package var fileBytes = 0
    /// Rewrites that replaced the file with an older snapshot than the one
    /// it held: each lost, for a while or for good, the updates between.
    package var staleRenames = 0
    /// Changes the stale renames took out of the file: for each, the
    /// changes between its snapshot and the newest one the file held.
    package var changesRolledBack = 0
  }

  package let path: String
  package let design: Design
  let directory: Int32
  let name: String
  let files = FileLayer()
  /// The `atomic` design's lock (its dictionary and its temporary names).
  let mutex = Mutex(())
  /// The `serial` design's concurrent queue over the dictionary, and its write queue.
  let dictionaryQueue = DispatchQueue(label: "EvictionDisk.plist.dictionary", attributes: .concurrent)
  let writeQueue = DispatchQueue(label: "EvictionDisk.plist.writes")
  nonisolated(unsafe) var entries: [String: Data] = [:]
  /// Changes made to the dictionary (a snapshot's version is the count it saw).
  nonisolated(unsafe) var version = 0
  /// The version of the snapshot the file holds now.
  let written = Mutex(0)
  let counters = Mutex(Statistics())
  /// The first error of a `serial` design's rewrite, reported by ``flush()``.
  let deferredError = Mutex<DiskError?>(nil)
  /// Called by the `atomic` design between a writer's snapshot and its
  /// rewrite (tests use it to hold one writer there while another writes).
  var afterSnapshot: (@Sendable () -> Void)?

  /// Opens the file at `path` (its folder must exist), reading what it holds if it exists.
  package init(path: String, design: Design) throws(DiskError) {
    guard !path.isEmpty, !path.hasSuffix("/") else { throw .invalidPath("'\(path)' names no file") }
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[..<$0]) } ?? "."
    name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    directory = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else { throw FileLayer.error(folder, "open") }
    self.path = path
    self.design = design
    do { entries = try Self.read(path: path) } catch {
      close(directory)
      throw error
    }
  }

  deinit { close(directory) }

  /// What the file at `path` holds (empty if there is none).
  package static func read(path: String) throws(DiskError) -> [String: Data] {
    guard let bytes = try FileLayer.read(path) else { return [:] }
    do {
      return try PropertyListDecoder().decode([String: Data].self, from: Data(bytes))
    } catch {
      throw .corruptFile(path: path, reason: "not a property list of data by key: \(error)")
    }
  }

  /// The value for `key` in memory, or nil.
  package func value(forKey key: String) -> [UInt8]? {
    switch design {
    case .atomic: mutex.withLock { _ in entries[key].map { [UInt8]($0) } }
    case .serial: dictionaryQueue.sync { entries[key].map { [UInt8]($0) } }
    }
  }

  /// Entries in memory.
  package var count: Int {
    switch design {
    case .atomic: mutex.withLock { _ in entries.count }
    case .serial: dictionaryQueue.sync { entries.count }
    }
  }

  package var statistics: Statistics { counters.withLock { $0 } }

  /// Stores `value` and rewrites the file: before returning in the `atomic`
  /// design, on the write queue in the `serial` one (``flush()`` waits).
  package func setValue(_ value: [UInt8], forKey key: String) throws(DiskError) {
    let data = Data(value)
    try change(waits: false) {
      $0[key] = data
      return true
    }
  }

  /// Removes `key` and, if it was there, rewrites the file; returns whether it was.
  @discardableResult
  package func removeValue(forKey key: String) throws(DiskError) -> Bool {
    try change(waits: true) { $0.removeValue(forKey: key) != nil }
  }

  /// Waits for the rewrites asked for so far; throws the first that failed.
  package func flush() throws(DiskError) {
    writeQueue.sync {}
    let failed = deferredError.withLock { error in
      defer { error = nil }
      return error
    }
    if let failed { throw failed }
  }

  /// Applies `body` (which says whether it changed anything) to the
  /// dictionary and rewrites the file if it did. In the serial design the
  /// change is a barrier block, asynchronous unless the caller `waits` for
  /// its answer, and the rewrite is queued; returns whether it changed anything.
  @discardableResult
  func change(waits: Bool, _ body: @escaping @Sendable (inout [String: Data]) -> Bool) throws(DiskError) -> Bool {
    switch design {
    case .atomic:
      let (changed, snapshot, seen): (Bool, [String: Data], Int) = mutex.withLock { _ in
        guard body(&self.entries) else { return (false, [:], 0) }
        self.version += 1
        return (true, self.entries, self.version)
      }
      guard changed else { return false }
      afterSnapshot?()
      try rewrite(snapshot, version: seen)
      return true
    case .serial:
      let apply: @Sendable () -> Bool = {
        guard body(&self.entries) else { return false }
        self.version += 1
        return true
      }
      if waits {
        guard dictionaryQueue.sync(flags: .barrier, execute: apply) else { return false }
      } else {
        dictionaryQueue.async(flags: .barrier) { _ = apply() }
      }
      writeQueue.async {
        let (snapshot, version) = self.dictionaryQueue.sync { (self.entries, self.version) }
        do throws(DiskError) { try self.rewrite(snapshot, version: version) } catch {
          self.deferredError.withLock { if $0 == nil { $0 = error } }
        }
      }
      return true
    }
  }

  /// Replaces the dictionary with `entries` and rewrites the file once (to
  /// start an experiment from a dictionary of a given size).
  package func replaceAll(with entries: [String: [UInt8]]) throws(DiskError) {
    let data = entries.mapValues { Data($0) }
    try change(waits: true) {
      $0 = data
      return true
    }
    try flush()
  }

  /// Serialises `snapshot` (the dictionary after `version` changes) to a
  /// new file beside the store's, then renames it over it.
  func rewrite(_ snapshot: [String: Data], version: Int) throws(DiskError) {
    let start = monotonicNanoseconds()
    let bytes: Data
    do {
      let encoder = PropertyListEncoder()
      encoder.outputFormat = .xml
      bytes = try encoder.encode(snapshot)
    } catch {
      throw .corruptFile(path: path, reason: "could not serialise the dictionary: \(error)")
    }
    let temporaryName = ".\(name).\(getpid()).\(version).tmp"
    try files.write(directory, temporaryName, path: path, [[UInt8](bytes)])
    // The rename and the note of what the file now holds happen together,
    // so the count of stale renames is exact; the snapshots still race.
    let rolledBack = try written.withLock { (newest: inout Int) throws(DiskError) -> Int in
      do throws(DiskError) { try files.rename(directory, temporaryName, name, path: path) } catch {
        unlinkat(directory, temporaryName, 0)
        throw error
      }
      defer { newest = max(newest, version) }
      return max(0, newest - version)
    }
    let took = monotonicNanoseconds() &- start
    counters.withLock {
      if rolledBack > 0 {
        $0.staleRenames += 1
        $0.changesRolledBack += rolledBack
      }
      $0.rewrites += 1
      $0.rewriteTimes.record(took)
      $0.fileBytes = bytes.count
    }
  }
}
