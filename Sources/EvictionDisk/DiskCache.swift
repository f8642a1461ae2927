import Dispatch
import EvictionCache
import EvictionCore
import FoundationEssentials

/// A thread-safe cache of `Value`s by `Key` on disk: a ``DiskStore`` (SQLite
/// manifest, large values in files of their own) with count, cost (bytes),
/// age and free-disk-space limits, evicting by any online catalog policy,
/// the same code as `MemoryCache` and `evlab replay`.
///
/// ```swift
/// struct Thumbnail: Codable, Sendable { var width: Int; var png: [UInt8] }
/// let thumbnails = try DiskCache<URL, Thumbnail>(
///   directory: "/var/cache/app/thumbnails", policy: .s3fifo(), costLimit: 512 << 20)
/// try thumbnails.setValue(thumbnail, forKey: url)
/// let cached = try thumbnails.value(forKey: url)
/// ```
///
/// - **Keys and values.** A ``DiskCoder`` turns each key into the store's
///   text key and each value into bytes and back: ``DiskCoder/json`` for
///   `Codable` types (the default), whose `String` keys and `[UInt8]`
///   values are stored as they are; or your own (a binary format, a
///   compression step). A stored value that no longer decodes (its type
///   changed between versions of an app) is dropped and read as a miss,
///   counted in ``statistics``.
/// - **Limits.** With a `costLimit` the policy weighs each value by its
///   encoded bytes; the count limit is enforced beside it. A value heavier
///   than the whole cost limit is refused with
///   ``DiskError/valueTooLarge(key:bytes:limit:)`` and nothing changes; one
///   heavier than the policy's first segment takes (S3-FIFO's small queue)
///   is cached as `MemoryCache` caches it (`HeavyEntryRule`).
/// - **Restarts.** The policy's state lives in memory and is rebuilt when
///   the cache opens, by admitting the stored values in last-access order:
///   an LRU comes back exactly as it was.
/// - **Threads.** One lock covers each operation, the write to disk
///   included: of two concurrent `setValue`s of a key, the one that runs
///   last is the one on disk. The `async` variants run the same work on a
///   queue of the cache's own, so a task never blocks a thread of Swift's
///   cooperative pool on the disk.
///
/// Errors are ``DiskError``s; each message says what to do.
public final class DiskCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  let core: DiskCacheCore
  /// How keys and values are written.
  public let coder: DiskCoder<Key, Value>
  /// Where the `async` variants run.
  let queue: DispatchQueue

  /// Opens (or creates) the cache in `directory`, creating the folders
  /// above it that are missing.
  ///
  /// - Parameters:
  ///   - directory: the store's own folder: missing, empty, or a store.
  ///   - policy: an online catalog policy (`.lru`, `.s3fifo()`, `"slru:segments=3"`).
  ///   - countLimit: at most this many values (nil: no count limit).
  ///   - costLimit: at most this many bytes of encoded values (nil: none);
  ///     with one, the policy weighs each value by its bytes.
  ///   - ageLimit: values not read or written for this long are removed at
  ///     each write and by ``trimToLimits()``.
  ///   - freeDiskSpaceLimit: evict until the file system has this many bytes free.
  ///   - heavyEntries: what to do with a value heavier than the policy's
  ///     first segment takes but within the cost limit (`HeavyEntryRule`).
  ///   - inlineThreshold: values up to this many bytes live in the SQLite
  ///     manifest, larger ones in files (``DiskStore/defaultInlineThreshold``).
  ///   - coder: how keys and values become bytes (``DiskCoder``).
  public init(
    directory: String, policy: CachePolicy = .lru, countLimit: Int? = nil, costLimit: Int? = nil,
    ageLimit: Duration? = nil, freeDiskSpaceLimit: Int? = nil, heavyEntries: HeavyEntryRule = .admit,
    inlineThreshold: Int = DiskStore.defaultInlineThreshold, coder: DiskCoder<Key, Value>
  ) throws(DiskError) {
    core = try DiskCacheCore(
      directory: directory, policy: policy, countLimit: countLimit, costLimit: costLimit, ageLimit: ageLimit,
      freeDiskSpaceLimit: freeDiskSpaceLimit, heavyEntries: heavyEntries, inlineThreshold: inlineThreshold)
    self.coder = coder
    queue = DispatchQueue(label: "EvictionDisk.DiskCache")
  }

  /// The store's folder.
  public var directory: String { core.store.directory }
  /// The policy as the catalog prints it.
  public var policyName: String { core.policy.name }
  /// At most this many values (nil: none).
  public var countLimit: Int? { core.countLimit }
  /// At most this many bytes of encoded values (nil: none).
  public var costLimit: Int? { core.costLimit }
  /// Values not read or written for this long are removed.
  public var ageLimit: Duration? { core.ageLimit }
  /// Evict until the file system has at least this many bytes free.
  public var freeDiskSpaceLimit: Int? { core.freeDiskSpaceLimit }
  /// What the cache has done since it opened.
  public var statistics: DiskCacheStatistics { core.statistics }
  /// Values that failed verification on a read, were dropped and counted as misses.
  public var corruptValuesDropped: Int { statistics.corruptValuesDropped }

  /// The value under `key`, or nil; a hit counts as an access for the policy.
  public func value(forKey key: Key) throws(DiskError) -> Value? { try read(key)?.value }

  /// Stores `value` under `key`, evicting what the policy and the limits
  /// say, and says what became of it: `.stored`; `.rejected(.policy)` when
  /// the policy refused it (the key's older value is removed too); or
  /// `.evicted` when the limits evicted it before the call returned.
  ///
  /// A `setValue` right after a `value(forKey:)` of the same key that
  /// missed admits without a second lookup, as `MemoryCache` and the
  /// replay do, so a policy's ghost hits count the same in all three.
  @discardableResult
  public func setValue(_ value: Value, forKey key: Key) throws(DiskError) -> StoreOutcome {
    try write(value, forKey: key).outcome ?? .stored
  }

  /// Removes `key`'s value; true if there was one.
  @discardableResult
  public func removeValue(forKey key: Key) throws(DiskError) -> Bool {
    try core.removeValue(forKey: storeKey(key))
  }

  /// Removes every value (the files go to the trash, emptied in the background).
  public func removeAll() throws(DiskError) { try core.removeAll() }

  /// Whether `key` has a value (not an access for the policy).
  public func contains(_ key: Key) throws(DiskError) -> Bool { try core.contains(storeKey(key)) }

  /// The values stored and their bytes.
  public func totals() throws(DiskError) -> (count: Int, bytes: Int64) { try core.totals() }

  /// How many values the policy holds (equal to the stored count once consistent).
  public var policyCount: Int { core.policyCount }

  /// Removes values older than the age limit and evicts until the
  /// free-space limit holds.
  public func trimToLimits() throws(DiskError) { try core.trimToLimits() }

  /// The value under `key` and its encoded size, or nil (also when it was
  /// written before `writtenAfter`, nanoseconds since the Unix epoch: then removed).
  func read(_ key: Key, writtenAfter: Int64? = nil) throws(DiskError) -> (value: Value, bytes: Int)? {
    let decode = coder.decode
    return try core.value(forKey: storeKey(key), writtenAfter: writtenAfter) { bytes in
      (try decode(bytes), bytes.count)
    }
  }

  /// Stores `value` (with `ifAbsent`, only where no value is stored: then
  /// a nil outcome says one was, and stays); its outcome and encoded size.
  func write(_ value: Value, forKey key: Key, ifAbsent: Bool = false) throws(DiskError) -> (
    outcome: StoreOutcome?, bytes: Int
  ) {
    let text = try storeKey(key)
    let bytes: [UInt8]
    do { bytes = try coder.encode(value) } catch {
      throw .encoding("the value of key '\(text)' could not be encoded: \(error)")
    }
    return (try core.setValue(bytes, forKey: text, ifAbsent: ifAbsent), bytes.count)
  }

  func storeKey(_ key: Key) throws(DiskError) -> String {
    do { return try coder.key(key) } catch { throw .encoding("a key could not be encoded: \(error)") }
  }

  /// Runs `body` on the cache's queue.
  func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws(DiskError) -> T) async throws(DiskError) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, DiskError>, Never>) in
      queue.async {
        do throws(DiskError) { continuation.resume(returning: .success(try body())) } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }

  /// ``value(forKey:)`` on the cache's queue, leaving the caller's thread free.
  public func value(forKey key: Key) async throws(DiskError) -> Value? {
    try await onQueue { () throws(DiskError) in try self.read(key)?.value }
  }

  /// ``setValue(_:forKey:)`` on the cache's queue. A write that has begun
  /// completes even if the calling task is cancelled.
  @discardableResult
  public func setValue(_ value: Value, forKey key: Key) async throws(DiskError) -> StoreOutcome {
    try await onQueue { () throws(DiskError) in try self.write(value, forKey: key).outcome ?? .stored }
  }

  /// ``removeValue(forKey:)`` on the cache's queue.
  @discardableResult
  public func removeValue(forKey key: Key) async throws(DiskError) -> Bool {
    try await onQueue { () throws(DiskError) in try self.core.removeValue(forKey: self.storeKey(key)) }
  }

  /// ``removeAll()`` on the cache's queue.
  public func removeAll() async throws(DiskError) {
    try await onQueue { () throws(DiskError) in try self.core.removeAll() }
  }
}

extension DiskCache where Key: Encodable, Value: Codable {
  /// A cache of `Codable` keys and values, written by ``DiskCoder/json``;
  /// the parameters are those of ``init(directory:policy:countLimit:costLimit:ageLimit:freeDiskSpaceLimit:heavyEntries:inlineThreshold:coder:)``.
  public convenience init(
    directory: String, policy: CachePolicy = .lru, countLimit: Int? = nil, costLimit: Int? = nil,
    ageLimit: Duration? = nil, freeDiskSpaceLimit: Int? = nil, heavyEntries: HeavyEntryRule = .admit,
    inlineThreshold: Int = DiskStore.defaultInlineThreshold
  ) throws(DiskError) {
    try self.init(
      directory: directory, policy: policy, countLimit: countLimit, costLimit: costLimit, ageLimit: ageLimit,
      freeDiskSpaceLimit: freeDiskSpaceLimit, heavyEntries: heavyEntries, inlineThreshold: inlineThreshold,
      coder: .json)
  }
}

/// How a ``DiskCache`` writes its keys and values: each key as the store's
/// text key (distinct keys must give distinct texts), each value as bytes
/// and back.
public struct DiskCoder<Key, Value>: Sendable {
  /// The store's text key for a key (not empty).
  public let key: @Sendable (Key) throws -> String
  /// A value's bytes.
  public let encode: @Sendable (Value) throws -> [UInt8]
  /// A value from its bytes; a throw drops the stored value, read as a miss.
  public let decode: @Sendable ([UInt8]) throws -> Value

  /// A coder of your own (a binary format, a compression step).
  public init(
    key: @escaping @Sendable (Key) throws -> String, encode: @escaping @Sendable (Value) throws -> [UInt8],
    decode: @escaping @Sendable ([UInt8]) throws -> Value
  ) {
    self.key = key
    self.encode = encode
    self.decode = decode
  }
}

extension DiskCoder where Key: Encodable & Sendable, Value: Codable & Sendable {
  /// JSON, with object keys sorted; `String` keys and `[UInt8]` values
  /// are stored as they are. A key type must encode equal keys to equal
  /// texts in every process: structs, enums, strings, integers and arrays
  /// do; a `Set`, a dictionary keyed by anything but strings or integers
  /// (encoded in hashing order, seeded per process) and `-0.0` beside
  /// `0.0` do not: give such keys a ``DiskCoder`` of your own.
  public static var json: DiskCoder {
    DiskCoder(
      key: { key in
        if Key.self == String.self { return unsafeBitCast(key, to: String.self) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(key), as: UTF8.self)
      },
      encode: { value in
        if Value.self == [UInt8].self { return unsafeBitCast(value, to: [UInt8].self) }
        return [UInt8](try JSONEncoder().encode(value))
      },
      decode: { bytes in
        if Value.self == [UInt8].self { return unsafeBitCast(bytes, to: Value.self) }
        return try JSONDecoder().decode(Value.self, from: Data(bytes))
      })
  }
}
