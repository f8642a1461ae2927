import EvictionCache
import EvictionCore
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How a snapshot file writes keys and values, and reads them back.
public struct SnapshotCoder<Key, Value>: Sendable {
  /// A key's bytes.
  public let encodeKey: @Sendable (Key) throws -> [UInt8]
  /// A key from its bytes; a throw refuses the file.
  public let decodeKey: @Sendable ([UInt8]) throws -> Key
  /// A value's bytes; a throw writes no file.
  public let encodeValue: @Sendable (Value) throws -> [UInt8]
  /// A value from its bytes; a throw refuses the file.
  public let decodeValue: @Sendable ([UInt8]) throws -> Value
  /// The coder's name, written in the file and checked on reading.
  public let name: String

  /// A coder of your own (a binary format, a compression step).
  public init(
    name: String, encodeKey: @escaping @Sendable (Key) throws -> [UInt8],
    decodeKey: @escaping @Sendable ([UInt8]) throws -> Key,
    encodeValue: @escaping @Sendable (Value) throws -> [UInt8],
    decodeValue: @escaping @Sendable ([UInt8]) throws -> Value
  ) {
    self.name = name
    self.encodeKey = encodeKey
    self.decodeKey = decodeKey
    self.encodeValue = encodeValue
    self.decodeValue = decodeValue
  }
}

extension SnapshotCoder where Key: Codable & Sendable, Value: Codable & Sendable {
  /// JSON for each key and value; `String` keys and `[UInt8]` values are
  /// written as their bytes.
  public static var json: SnapshotCoder {
    SnapshotCoder(
      name: "json",
      encodeKey: { key in
        if let string = key as? String { return Array(string.utf8) }
        return [UInt8](try JSONEncoder().encode(key))
      },
      decodeKey: { bytes in
        if Key.self == String.self {
          guard let string = String(validating: bytes, as: UTF8.self) else {
            throw SnapshotFileError("a key is not UTF-8")
          }
          return string as! Key
        }
        return try JSONDecoder().decode(Key.self, from: Data(bytes))
      },
      encodeValue: { value in
        if let bytes = value as? [UInt8] { return bytes }
        return [UInt8](try JSONEncoder().encode(value))
      },
      decodeValue: { bytes in
        if Value.self == [UInt8].self { return bytes as! Value }
        return try JSONDecoder().decode(Value.self, from: Data(bytes))
      })
  }
}

/// A problem found reading a snapshot file.
struct SnapshotFileError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// What `MemoryCache.writeSnapshot(to:coder:)` wrote.
public struct SnapshotFileSummary: Sendable, Equatable {
  /// Entries written.
  public var entries: Int
  /// The file's size.
  public var bytes: Int
  /// Shards whose policy state was written (the others are restored afresh).
  public var shardsWithPolicyState: Int
}

/// The file format: a magic line, a JSON header saying what made it and
/// how, the shards in binary (little-endian), and a checksum of all that.
enum SnapshotFormat {
  static let magic = Array("EVLSNAP1\n".utf8)
  static let version = 1

  struct Header: Codable {
    var format: Int
    var writer: String
    var policy: String
    var capacity: Int
    var weighsCost: Bool
    var lock: String
    var takenAtNanoseconds: Int64
    var shards: Int
    var entries: Int
    var coder: String
    var keyType: String
    var valueType: String

    enum CodingKeys: String, CodingKey {
      case format, writer, policy, capacity, lock, shards, entries, coder
      case weighsCost = "weighs_cost"
      case takenAtNanoseconds = "taken_at_ns"
      case keyType = "key_type"
      case valueType = "value_type"
    }
  }

  /// A 64-bit checksum of `bytes`: damage, not forgery, is what it finds.
  static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
    bytes.withUnsafeBytes { raw in
      var i = 0
      while i + 8 <= raw.count {
        hash = xxHash64(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ hash, seed: 0x5EED)
        i += 8
      }
      var tail: UInt64 = UInt64(raw.count - i) << 56
      for j in i..<raw.count { tail |= UInt64(raw[j]) << (8 * UInt64(j - i)) }
      hash = xxHash64(tail ^ hash, seed: 0x7A11)
    }
    return hash
  }
}

/// Bytes written little-endian.
struct ByteWriter {
  var bytes: [UInt8] = []
  mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
  mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
  mutating func u8(_ value: UInt8) { bytes.append(value) }
  mutating func blob(_ value: [UInt8]) {
    u64(UInt64(value.count))
    bytes.append(contentsOf: value)
  }
}

/// Bytes read little-endian, every read checked against the end.
struct ByteReader {
  let bytes: [UInt8]
  var offset: Int
  let end: Int

  mutating func u64() throws -> UInt64 {
    guard end - offset >= 8 else { throw SnapshotFileError("it ends early, at byte \(offset)") }
    defer { offset += 8 }
    return bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
  }
  mutating func i64() throws -> Int64 { Int64(bitPattern: try u64()) }
  mutating func u8() throws -> UInt8 {
    guard offset < end else { throw SnapshotFileError("it ends early, at byte \(offset)") }
    defer { offset += 1 }
    return bytes[offset]
  }
  /// A count of things each taking at least `each` bytes, checked against what is left.
  mutating func count(each: Int, _ what: String) throws -> Int {
    let n = try u64()
    guard n <= UInt64((end - offset) / max(each, 1)) else {
      throw SnapshotFileError("\(what) claims \(n), more than the file holds")
    }
    return Int(n)
  }
  mutating func blob() throws -> [UInt8] {
    let n = try count(each: 1, "a key or value's length")
    defer { offset += n }
    return Array(bytes[offset..<offset + n])
  }
}

extension MemoryCache {
  /// Writes the cache's `snapshot()` to `path`, whole or not at all: into a new file
  /// beside it, flushed to the disk, then renamed over `path` (a link
  /// there is replaced, not followed), as the disk tier writes its files.
  /// Keys and values go through `coder`. A restart restores it with
  /// ``restoreSnapshot(from:coder:elapsed:)``.
  @discardableResult
  public func writeSnapshot(to path: String, coder: SnapshotCoder<Key, Value>) throws(DiskError)
    -> SnapshotFileSummary
  {
    let snapshot = self.snapshot()
    var body = ByteWriter()
    var withState = 0
    do {
      for shard in snapshot.shards {
        if let state = shard.policy {
          withState += 1
          body.u8(1)
          body.blob(Array(state.policy.utf8))
          body.i64(state.capacity)
          body.u64(UInt64(state.words.count))
          for word in state.words { body.u64(word) }
          body.u64(UInt64(state.keys.count))
          for key in state.keys { body.blob(try coder.encodeKey(key)) }
        } else {
          body.u8(0)
          body.blob(Array((shard.unsavedBecause ?? "").utf8))
        }
        body.i64(shard.tick)
        body.u64(shard.expirySerial)
        body.u64(UInt64(shard.entries.count))
        for entry in shard.entries {
          body.blob(try coder.encodeKey(entry.key))
          body.blob(try coder.encodeValue(entry.value))
          body.i64(Int64(entry.cost))
          body.i64(Int64(entry.slot))
          let flags: UInt8 =
            (entry.sinceAccess != nil ? 1 : 0) | (entry.sinceWrite != nil ? 2 : 0) | (entry.expiry != nil ? 4 : 0)
            | (entry.expiry?.deadline != nil ? 8 : 0)
          body.u8(flags)
          if let since = entry.sinceAccess { body.u64(since) }
          if let since = entry.sinceWrite { body.u64(since) }
          if let expiry = entry.expiry {
            body.i64(expiry.remaining)
            if let deadline = expiry.deadline { body.i64(deadline) }
            body.u64(expiry.idle)
            body.u64(expiry.serial)
          }
        }
      }
    } catch {
      throw .encoding("a snapshot's key or value could not be encoded (\(coder.name)): \(error)")
    }
    let header = SnapshotFormat.Header(
      format: SnapshotFormat.version, writer: "EvictionLab EvictionDisk", policy: snapshot.policy,
      capacity: snapshot.capacity, weighsCost: snapshot.weighsCost, lock: snapshot.lock,
      takenAtNanoseconds: snapshot.takenAt, shards: snapshot.shards.count, entries: snapshot.count, coder: coder.name,
      keyType: "\(Key.self)", valueType: "\(Value.self)")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var file = ByteWriter()
    file.bytes = SnapshotFormat.magic
    file.blob([UInt8]((try? encoder.encode(header)) ?? Data()))
    file.u64(UInt64(snapshot.shards.count))
    file.bytes += body.bytes
    file.u64(SnapshotFormat.checksum(file.bytes[...]))
    try SnapshotFile.replace(path, with: file.bytes)
    return SnapshotFileSummary(entries: snapshot.count, bytes: file.bytes.count, shardsWithPolicyState: withState)
  }

  /// Restores the snapshot at `path` into this cache, which must be empty
  /// (`MemoryCache.restore(_:elapsed:)` says what is kept, and when the
  /// restore is exact). Returns nil, changing nothing, when there is no
  /// file at `path` (a first start). A file that is damaged, not a
  /// snapshot, or written for other key or value types, or by another
  /// coder, is an error that names it; the cache is left empty.
  @discardableResult
  public func restoreSnapshot(from path: String, coder: SnapshotCoder<Key, Value>, elapsed: Duration? = nil)
    throws(DiskError) -> RestoreSummary?
  {
    let held = count
    guard held == 0 else {
      throw .restoreRefused(path: path, reason: "the cache holds \(held) entries: restore into a new, empty cache")
    }
    guard let bytes = try SnapshotFile.read(path) else { return nil }
    let snapshot: CacheSnapshot<Key, Value>
    do {
      snapshot = try Self.decodeSnapshot(bytes, coder: coder)
    } catch let error as SnapshotFileError {
      throw .corruptSnapshot(path: path, reason: "\(error)")
    } catch {
      throw .corruptSnapshot(path: path, reason: "a key or value does not decode (\(coder.name)): \(error)")
    }
    do {
      return try restore(snapshot, elapsed: elapsed)
    } catch {
      // A state that does not read back is damage the checksum did not
      // catch (a file written by hand); anything else is this cache's.
      if case .snapshotDamaged(let message) = error { throw .corruptSnapshot(path: path, reason: message) }
      throw .restoreRefused(path: path, reason: "\(error)")
    }
  }

  static func decodeSnapshot(_ bytes: [UInt8], coder: SnapshotCoder<Key, Value>) throws -> CacheSnapshot<Key, Value> {
    let magic = SnapshotFormat.magic
    guard bytes.count >= magic.count + 16, Array(bytes[..<magic.count]) == magic else {
      throw SnapshotFileError("it does not start as a snapshot does")
    }
    let stored = bytes.withUnsafeBytes {
      UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
    }
    guard SnapshotFormat.checksum(bytes[..<(bytes.count - 8)]) == stored else {
      throw SnapshotFileError("its checksum does not match: the file is damaged")
    }
    var reader = ByteReader(bytes: bytes, offset: magic.count, end: bytes.count - 8)
    let header: SnapshotFormat.Header
    do {
      header = try JSONDecoder().decode(SnapshotFormat.Header.self, from: Data(try reader.blob()))
    } catch {
      throw SnapshotFileError("its header does not read: \(error)")
    }
    guard header.format == SnapshotFormat.version else {
      throw SnapshotFileError("format \(header.format); this EvictionLab reads format \(SnapshotFormat.version)")
    }
    guard header.coder == coder.name, header.keyType == "\(Key.self)", header.valueType == "\(Value.self)" else {
      throw SnapshotFileError(
        "written for \(header.keyType) → \(header.valueType) by coder \(header.coder), "
          + "read as \(Key.self) → \(Value.self) by \(coder.name)")
    }
    let shardCount = try reader.count(each: 33, "the number of shards")
    var shards: [CacheSnapshot<Key, Value>.Shard] = []
    for _ in 0..<shardCount {
      var state: PolicyState<Key>? = nil
      var unsaved: String? = nil
      if try reader.u8() == 1 {
        let name = String(decoding: try reader.blob(), as: UTF8.self)
        let capacity = try reader.i64()
        let wordCount = try reader.count(each: 8, "a policy's words")
        var words: [UInt64] = []
        words.reserveCapacity(wordCount)
        for _ in 0..<wordCount { words.append(try reader.u64()) }
        let keyCount = try reader.count(each: 8, "a policy's keys")
        var keys: [Key] = []
        keys.reserveCapacity(keyCount)
        for _ in 0..<keyCount { keys.append(try coder.decodeKey(try reader.blob())) }
        state = PolicyState(policy: name, capacity: capacity, words: words, keys: keys)
      } else {
        unsaved = String(decoding: try reader.blob(), as: UTF8.self)
      }
      let tick = try reader.i64()
      let serial = try reader.u64()
      let entryCount = try reader.count(each: 33, "a shard's entries")
      var entries: [CacheSnapshot<Key, Value>.Entry] = []
      entries.reserveCapacity(entryCount)
      for _ in 0..<entryCount {
        let key = try coder.decodeKey(try reader.blob())
        let value = try coder.decodeValue(try reader.blob())
        let cost = try reader.i64()
        let slot = try reader.i64()
        guard cost >= 0, (0..<Int64(Int32.max)).contains(slot) else {
          throw SnapshotFileError("an entry's cost \(cost) or slot \(slot) is out of range")
        }
        var entry = CacheSnapshot<Key, Value>.Entry(key: key, value: value, cost: Int(cost), slot: Int(slot))
        let flags = try reader.u8()
        guard flags & ~15 == 0, flags & 8 == 0 || flags & 4 != 0 else {
          throw SnapshotFileError("an entry's flags \(flags) mean nothing")
        }
        if flags & 1 != 0 { entry.sinceAccess = try reader.u64() }
        if flags & 2 != 0 { entry.sinceWrite = try reader.u64() }
        if flags & 4 != 0 {
          let remaining = try reader.i64()
          let deadline = flags & 8 != 0 ? try reader.i64() : nil
          entry.expiry = CacheSnapshot.Expiry(
            remaining: remaining, deadline: deadline, idle: try reader.u64(), serial: try reader.u64())
        }
        entries.append(entry)
      }
      shards.append(
        CacheSnapshot.Shard(policy: state, unsavedBecause: unsaved, entries: entries, tick: tick, expirySerial: serial))
    }
    guard reader.offset == reader.end else { throw SnapshotFileError("\(reader.end - reader.offset) bytes left over") }
    guard shards.count == header.shards, shards.reduce(0, { $0 + $1.entries.count }) == header.entries else {
      throw SnapshotFileError(
        "its header counts \(header.shards) shards and \(header.entries) entries; it holds others")
    }
    return CacheSnapshot(
      policy: header.policy, capacity: header.capacity, weighsCost: header.weighsCost, lock: header.lock,
      takenAt: header.takenAtNanoseconds, shards: shards)
  }
}

extension MemoryCache where Key: Codable & Sendable, Value: Codable & Sendable {
  /// ``writeSnapshot(to:coder:)`` with JSON for keys and values (``SnapshotCoder/json``).
  @discardableResult
  public func writeSnapshot(to path: String) throws(DiskError) -> SnapshotFileSummary {
    try writeSnapshot(to: path, coder: .json)
  }

  /// ``restoreSnapshot(from:coder:elapsed:)`` with JSON for keys and values (``SnapshotCoder/json``).
  @discardableResult
  public func restoreSnapshot(from path: String, elapsed: Duration? = nil) throws(DiskError) -> RestoreSummary? {
    try restoreSnapshot(from: path, coder: .json, elapsed: elapsed)
  }
}

/// Replaces a file whole: a new file beside it, flushed, renamed over it,
/// and the folder flushed, so a crash leaves the old file or the new one.
enum SnapshotFile {
  static func replace(_ path: String, with bytes: [UInt8]) throws(DiskError) {
    guard !path.isEmpty else { throw .invalidPath("a snapshot needs a file name") }
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent().path
    let name = url.lastPathComponent
    var info = stat()
    if stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
      throw .invalidPath("\(path) is a folder: name a file for the snapshot")
    }
    let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else {
      if errno == ENOENT { throw .invalidPath("\(folder), the folder for \(path), does not exist: create it first") }
      if errno == ENOTDIR { throw .invalidPath("\(folder), the folder for \(path), is not a folder") }
      throw FileLayer.error(folder, "open")
    }
    defer { close(directory) }
    let partial = ".\(name).\(UInt32.random(in: 0...UInt32.max)).partial"
    let layer = FileLayer()
    try layer.write(directory, partial, path: path, [bytes], durable: true)
    do {
      try layer.rename(directory, partial, name, path: path)
    } catch {
      unlinkat(directory, partial, 0)
      throw error
    }
    fsync(directory)
  }

  /// The file at `path`, or nil when there is none (a link to nothing
  /// too). Only a regular file is read (a FIFO would wait for a writer for
  /// ever), and only one that starts as a snapshot does is read whole.
  static func read(_ path: String) throws(DiskError) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw FileLayer.error(path, "open")
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw FileLayer.error(path, "stat") }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw .corruptSnapshot(path: path, reason: "it is not a regular file")
    }
    let magic = SnapshotFormat.magic
    let head = try FileLayer.readArray(fd, count: magic.count, at: 0, path: path)
    guard head == magic else { throw .corruptSnapshot(path: path, reason: "it does not start as a snapshot does") }
    return try FileLayer.readArray(fd, count: Int(info.st_size), at: 0, path: path)
  }
}
