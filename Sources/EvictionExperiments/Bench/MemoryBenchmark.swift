import CAllocator
import EvictionCache
import EvictionCore
import EvictionSim
import Foundation

/// `evlab bench memory`: the heap bytes a cache holds per entry, and a
/// policy per ghost entry, read from the allocator's own statistics
/// (glibc's `mallinfo2`: bytes in use in the arenas plus mmapped blocks)
/// before and after filling, single-threaded, so nothing else allocates in
/// between.
///
/// - Per entry: `MemoryCache<UInt64, UInt64>` with the policy over the integer
///   index, limited to N objects and given N distinct keys (index, entry
///   record, policy metadata and the value, per entry it then holds), beside `Dictionary<Int,
///   Int>` (the same 16 bytes a pair) and `NSCache<NSNumber, NSNumber>` holding the same N pairs.
/// - Per ghost: the policy alone (as the replay runs it), filled with N keys
///   (each key twice, so policies that separate recency from frequency hold
///   them as proven) and then asked for N new keys, which turns evicted
///   keys into whatever history the policy keeps; the growth divided by the distinct keys it
///   then lists beyond its residents. Null where it keeps none.
///
/// Growth comes in the tables' doubling steps, so a figure depends on where
/// N falls between two powers of two; that is the memory a user pays.
public struct MemoryBenchmark: Sendable {
  public var policies: [PolicySpec]
  public var entries: [Int]

  public init(policies: [PolicySpec], entries: [Int]) {
    self.policies = policies
    self.entries = entries
  }

  /// The name of the `Dictionary<Int, Int>` row.
  public static let dictionaryName = "dictionary"
  /// The name of the `NSCache` row.
  public static let nscacheName = "nscache"

  /// One row (JSON keys: the snake_case names).
  public struct Row: Codable, Sendable, Equatable {
    public var policy: String
    public var entries: Int
    public var bytesPerEntry: Double
    /// Null where the policy keeps no ghosts (and for the two baselines).
    public var bytesPerGhost: Double?
    /// The ghost entries measured (null where none).
    public var ghosts: Int?

    enum CodingKeys: String, CodingKey { case policy, entries, bytesPerEntry, bytesPerGhost, ghosts }

    /// Writes `null` where a policy keeps no ghosts, so every row has every key.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(policy, forKey: .policy)
      try container.encode(entries, forKey: .entries)
      try container.encode(bytesPerEntry, forKey: .bytesPerEntry)
      try container.encode(bytesPerGhost, forKey: .bytesPerGhost)
      try container.encode(ghosts, forKey: .ghosts)
    }
  }

  public struct Report: Codable, Sendable {
    public var results: [Row]
  }

  /// Bytes the allocator has handed out and not had back.
  public static func heapInUse() -> Int { Int(callocator_bytes_in_use()) }

  public func run(log: (String) -> Void = { _ in }) throws(BenchError) -> Report {
    var rows: [Row] = []
    // Instantiate every type once, so the runtime's own first-use
    // allocations fall outside the measurements.
    for spec in policies {
      let small = max(1_024, Int(spec.minimumCapacity))
      _ = try Self.cacheBytes(spec, entries: small)
      _ = Self.ghostBytes(spec, entries: small)
    }
    _ = Self.dictionaryBytes(entries: 1_024)
    _ = Self.nscacheBytes(entries: 1_024)
    for n in entries {
      log("memory: \(n) entries")
      for spec in policies {
        let ghost = Self.ghostBytes(spec, entries: n)
        rows.append(
          Row(
            policy: spec.description, entries: n, bytesPerEntry: try Self.cacheBytes(spec, entries: n),
            bytesPerGhost: ghost.map { $0.bytes }, ghosts: ghost.map { $0.ghosts }))
      }
      rows.append(Row(policy: Self.dictionaryName, entries: n, bytesPerEntry: Self.dictionaryBytes(entries: n)))
      rows.append(Row(policy: Self.nscacheName, entries: n, bytesPerEntry: Self.nscacheBytes(entries: n)))
    }
    return Report(results: rows)
  }

  static func cacheBytes(_ spec: PolicySpec, entries n: Int) throws(BenchError) -> Double {
    let before = heapInUse()
    // UInt64 over the integer index: the specialisation the stress run and
    // the cache benchmark already compile in this module.
    let cache: MemoryCache<UInt64, UInt64>
    do {
      cache = try MemoryCache.ofIntegers(policy: spec, countLimit: n)
      for key in 0..<UInt64(n) { cache.setValue(key, forKey: key) }
    } catch { throw BenchError("\(spec): \(error)") }
    let bytes = heapInUse() - before
    // Per entry held: a policy may keep fewer than its limit (SR-LRU's
    // halves), and what it allocated serves those it holds.
    let held = cache.count
    guard held > 0 else { throw BenchError("\(spec) holds no entry after \(n) sets") }
    return withExtendedLifetime(cache) { Double(bytes) / Double(held) }
  }

  static func ghostBytes(_ spec: PolicySpec, entries n: Int) -> (bytes: Double, ghosts: Int)? {
    // The engine's boxed build: no new specialisation of every policy here.
    let policy = spec.integerBox(capacity: Int64(n))
    // Each key twice, so recency-and-frequency policies (ARC, 2Q) hold them
    // as proven; then N new keys push them into history.
    var time: Int64 = 0
    func request(_ key: Int) {
      time += 1
      _ = policy.access(Request(key: UInt64(key), weight: 1, time: time))
    }
    for key in 0..<n {
      request(key)
      request(key)
    }
    let full = heapInUse()
    for key in n..<(2 * n) { request(key) }
    let grown = heapInUse() - full
    // Lists may share keys (LIRS's stack holds residents too): count each once.
    let ghosts = Set(policy.lists().flatMap(\.keys)).count - policy.count()
    guard ghosts > 0 else { return nil }
    return (Double(grown) / Double(ghosts), ghosts)
  }

  static func dictionaryBytes(entries n: Int) -> Double {
    let before = heapInUse()
    var dictionary: [Int: Int] = [:]
    for key in 0..<n { dictionary[key] = key }
    let bytes = heapInUse() - before
    return withExtendedLifetime(dictionary) { Double(bytes) / Double(n) }
  }

  static func nscacheBytes(entries n: Int) -> Double {
    let before = heapInUse()
    let cache = NSCache<NSNumber, NSNumber>()
    cache.countLimit = n
    for key in 0..<n { cache.setObject(NSNumber(value: key), forKey: NSNumber(value: key)) }
    let bytes = heapInUse() - before
    return withExtendedLifetime(cache) { Double(bytes) / Double(n) }
  }
}
