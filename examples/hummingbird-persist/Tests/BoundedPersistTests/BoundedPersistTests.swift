import BoundedPersist
import EvictionCache
import EvictionCore
import EvictionSim
import EvictionTraces
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A clock the tests move by hand (nanoseconds).
final class HandClock: @unchecked Sendable {
  private let lock = NSLock()
  private var nanoseconds: UInt64 = 1_000_000_000
  func now() -> UInt64 { lock.withLock { nanoseconds } }
  func advance(seconds: Double) { lock.withLock { nanoseconds += UInt64(seconds * 1e9) } }
}

/// The driver keeps `MemoryPersistDriver`'s promises.
@Suite struct PersistSemanticsTests {
  let clock = HandClock()
  func driver(countLimit: Int = 100, policy: CachePolicy = .lru) throws -> BoundedPersistDriver {
    let clock = self.clock
    return try BoundedPersistDriver(policy: policy, countLimit: countLimit, clock: { clock.now() })
  }

  @Test func createRefusesALiveKeyAndAcceptsAnExpiredOne() async throws {
    let persist = try driver()
    try await persist.create(key: "a", value: 1, expires: .seconds(1))
    await #expect(throws: PersistError.duplicate) { try await persist.create(key: "a", value: 2, expires: nil) }
    #expect(try await persist.get(key: "a", as: Int.self) == 1)
    clock.advance(seconds: 2)
    #expect(try await persist.get(key: "a", as: Int.self) == nil)
    try await persist.create(key: "a", value: 3, expires: nil)
    #expect(try await persist.get(key: "a", as: Int.self) == 3)
  }

  /// Of many concurrent creates of one key, exactly one succeeds.
  @Test func concurrentCreatesMakeOneEntry() async throws {
    let persist = try driver()
    let created = await withTaskGroup(of: Bool.self) { group in
      for i in 0..<64 {
        group.addTask { (try? await persist.create(key: "k", value: i, expires: nil)) != nil }
      }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(created == 1)
    #expect(persist.count == 1)
  }

  @Test func setWithoutExpiryKeepsTheReplacedValuesExpiry() async throws {
    let persist = try driver()
    try await persist.set(key: "s", value: "one", expires: .seconds(10))
    clock.advance(seconds: 6)
    try await persist.set(key: "s", value: "two", expires: nil)
    let (value, ttl) = try #require(try await persist.getWithTTL(key: "s", as: String.self))
    #expect(value == "two" && ttl == .seconds(4))
    clock.advance(seconds: 5)
    #expect(try await persist.get(key: "s", as: String.self) == nil)
    // A value set with no expiry over nothing never expires.
    try await persist.set(key: "t", value: "forever", expires: nil)
    clock.advance(seconds: 1e6)
    let kept = try await persist.getWithTTL(key: "t", as: String.self)
    #expect(kept?.object == "forever" && kept?.ttl == nil)
  }

  @Test func aValueOfAnotherTypeIsAConversionError() async throws {
    let persist = try driver()
    try await persist.set(key: "n", value: 5, expires: nil)
    await #expect(throws: PersistError.invalidConversion) { try await persist.get(key: "n", as: String.self) }
    try await persist.remove(key: "n")
    #expect(try await persist.get(key: "n", as: Int.self) == nil)
  }

  /// The point of the driver: 10,000 keys into a limit of 100 leave 100.
  @Test(arguments: ["lru", "s3fifo", "wtinylfu"])
  func itHoldsNoMoreThanItsLimit(policy: String) async throws {
    let persist = try driver(countLimit: 100, policy: CachePolicy(stringLiteral: policy))
    for i in 0..<10_000 {
      try await persist.set(key: "key-\(i)", value: Array(repeating: UInt8(1), count: 64), expires: nil)
    }
    #expect(persist.count <= 100)
    #expect(persist.statistics.evictions[.capacity, default: 0] + persist.count >= 9_900)
  }
}

/// A Hummingbird app on 127.0.0.1 that persists what it serves through the
/// driver: under a key stream, its hits are the simulator's for the same
/// policy and size, request for request, and it stays within its limit.
@Suite struct LiveServerTests {
  /// A skewed, seeded key stream: `count` keys over `objects`.
  static func keys(_ count: Int, objects: Int, seed: UInt64) -> [Int] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let u = Double(state >> 11) / Double(1 << 53)
      return Int(u * u * u * Double(objects))
    }
  }

  @Test(arguments: ["lru", "s3fifo", "sieve"])
  func theServersHitsAreTheReplays(policy: String) async throws {
    let size = 200
    let persist = try BoundedPersistDriver(policy: CachePolicy(stringLiteral: policy), countLimit: size)
    let router = Router()
    router.get("item/:key") { _, context -> String in
      let key = try context.parameters.require("key")
      if try await persist.get(key: key, as: String.self) != nil { return "hit" }
      try await persist.set(key: key, value: "value of \(key)", expires: .seconds(3600))
      return "miss"
    }
    let app = Application(router: router)
    let stream = Self.keys(4_000, objects: 2_000, seed: 7)
    let hits = try await app.test(.live) { client in
      var hits = 0
      for key in stream {
        let answer = try await client.execute(uri: "/item/\(key)", method: .get) { response in
          #expect(response.status == .ok)
          return String(buffer: response.body)
        }
        if answer == "hit" { hits += 1 }
      }
      return hits
    }
    #expect(persist.count <= size)
    // The same stream replayed by the simulator.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-persist-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let trace = folder.appendingPathComponent("stream.txt").path
    try stream.map(String.init).joined(separator: "\n").appending("\n").write(
      toFile: trace, atomically: true, encoding: .utf8)
    let replay = try TraceReplay.run(
      TraceSource(path: trace, format: .txt), policy: PolicySpec(policy), cacheSize: Int64(size), sizeMode: .count)
    #expect(Int64(hits) == replay.hits, "\(policy): the server hit \(hits) times, the replay \(replay.hits)")
    #expect(hits > 0 && hits < stream.count)
  }
}
