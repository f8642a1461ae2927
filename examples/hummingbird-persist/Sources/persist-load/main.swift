// persist-load: a Hummingbird server on 127.0.0.1 whose route gets a key
// from a persist driver and, on a miss, sets it (a value of --value-bytes),
// under --connections concurrent clients for --seconds, over a skewed key
// stream of --keys distinct keys. Prints one CSV row (with --header, the
// header first): requests served, their rate, the hit ratio, the entries
// held, and the process's resident memory before, at the end of the load
// (the server still holding what it stored) and at its peak.
//
//   persist-load --driver bounded|memory [--seconds 10] [--keys 1000000]
//     [--limit 10000] [--policy lru] [--value-bytes 1024] [--connections 8] [--header]
import AsyncHTTPClient
import BoundedPersist
import EvictionCache
import Foundation
import Hummingbird
import Logging
import NIOCore

struct Options {
  var driver = "bounded"
  var seconds = 10.0
  var keys = 1_000_000
  var limit = 10_000
  var policy = "lru"
  var valueBytes = 1024
  var connections = 8
  var header = false

  init(_ arguments: [String]) throws {
    var rest = arguments[...]
    func value(_ name: String) throws -> String {
      guard let next = rest.popFirst() else { throw Failure("\(name) needs a value") }
      return next
    }
    func number(_ name: String) throws -> Int {
      guard let n = Int(try value(name)), n > 0 else { throw Failure("\(name): give a positive whole number") }
      return n
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "--driver":
        driver = try value(argument)
        guard ["bounded", "memory"].contains(driver) else { throw Failure("--driver: bounded or memory") }
      case "--seconds":
        guard let s = Double(try value(argument)), s > 0, s <= 3600 else {
          throw Failure("--seconds: more than 0, at most 3600")
        }
        seconds = s
      case "--keys": keys = try number(argument)
      case "--limit": limit = try number(argument)
      case "--policy": policy = try value(argument)
      case "--value-bytes": valueBytes = try number(argument)
      case "--connections": connections = try number(argument)
      case "--header": header = true
      default: throw Failure("unknown argument \(argument); see the comment at the top of main.swift")
      }
    }
  }
}

struct Failure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Resident memory now, in MiB (/proc/self/statm).
func residentMiB() -> Double {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
  let fields = text.split(separator: " ")
  guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
  return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// The route: a hit returns "hit"; a miss stores a value of its own
/// (`valueBytes` long: not one shared string) and returns "miss".
func router(_ persist: some PersistDriver, valueBytes: Int) -> Router<BasicRequestContext> {
  let router = Router()
  router.get("item/:key") { _, context -> String in
    let key = try context.parameters.require("key")
    if try await persist.get(key: key, as: String.self) != nil { return "hit" }
    let value = key + String(repeating: "v", count: max(0, valueBytes - key.utf8.count))
    try await persist.set(key: key, value: value, expires: .seconds(3600))
    return "miss"
  }
  return router
}

/// Runs the load against the app on `port`; returns (requests, hits).
func load(port: Int, options: Options) async throws -> (requests: Int, hits: Int) {
  let client = HTTPClient(eventLoopGroupProvider: .singleton)
  let deadline = ContinuousClock.now + .milliseconds(Int(options.seconds * 1000))
  let totals = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
    for lane in 0..<options.connections {
      group.addTask {
        var state = UInt64(lane + 1) &* 0x9E37_79B9_7F4A_7C15
        var (requests, hits) = (0, 0)
        while ContinuousClock.now < deadline {
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          let u = Double(state >> 11) / Double(1 << 53)
          let key = Int(u * u * u * Double(options.keys))
          let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/item/\(key)")
          let response = try await client.execute(request, timeout: .seconds(30))
          let body = try await response.body.collect(upTo: 64)
          requests += 1
          if String(buffer: body) == "hit" { hits += 1 }
        }
        return (requests, hits)
      }
    }
    return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
  }
  try await client.shutdown()
  return totals
}

/// Serves on an ephemeral port of 127.0.0.1 while `body` runs with it.
func serving<Driver: PersistDriver>(
  _ persist: Driver, options: Options, _ body: @escaping @Sendable (Int) async throws -> Void
) async throws {
  let port = AsyncStream.makeStream(of: Int.self)
  let app = Application(
    router: router(persist, valueBytes: options.valueBytes),
    configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in
      port.continuation.yield(channel.localAddress?.port ?? 0)
      port.continuation.finish()
    }, logger: Logger(label: "persist-load", factory: { _ in SwiftLogNoOpLogHandler() }))
  try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await app.run() }
    var iterator = port.stream.makeAsyncIterator()
    guard let bound = await iterator.next(), bound > 0 else { throw Failure("the server did not start") }
    try await body(bound)
    group.cancelAll()
  }
}

let options: Options
do {
  options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("persist-load: \(error)\n".utf8))
  exit(64)
}
let before = residentMiB()
let start = ContinuousClock.now
let outcome = SharedOutcome()
var entries = -1  // MemoryPersistDriver does not say how many it holds
// Resident memory is read while the server still holds what it stored.
if options.driver == "bounded" {
  let persist = try BoundedPersistDriver(
    policy: CachePolicy(stringLiteral: options.policy), countLimit: options.limit, lock: .buffered)
  try await serving(persist, options: options) { port in
    outcome.set(try await load(port: port, options: options), resident: residentMiB())
  }
  entries = persist.count
} else {
  let persist = MemoryPersistDriver()
  try await serving(persist, options: options) { port in
    outcome.set(try await load(port: port, options: options), resident: residentMiB())
  }
}
let elapsed = ContinuousClock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let (requests, hits) = outcome.value
var usage = rusage()
getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
if options.header {
  print(
    "driver,policy,limit,keys,value_bytes,connections,seconds,requests,requests_per_second,hit_ratio,entries,"
      + "rss_before_mib,rss_loaded_mib,peak_rss_mib")
}
let row: [String] = [
  options.driver, options.driver == "bounded" ? options.policy : "",
  options.driver == "bounded" ? "\(options.limit)" : "",
  "\(options.keys)", "\(options.valueBytes)", "\(options.connections)", String(format: "%.1f", seconds), "\(requests)",
  String(format: "%.0f", Double(requests) / options.seconds),
  String(format: "%.4f", Double(hits) / Double(max(1, requests))),
  entries >= 0 ? "\(entries)" : "", String(format: "%.1f", before), String(format: "%.1f", outcome.resident),
  String(format: "%.1f", Double(usage.ru_maxrss) / 1024),
]
print(row.joined(separator: ","))

/// The load's totals, handed out of the server's task.
final class SharedOutcome: @unchecked Sendable {
  private let lock = NSLock()
  private var totals = (0, 0)
  private var loaded = Double.nan
  func set(_ value: (requests: Int, hits: Int), resident: Double) {
    lock.withLock { (totals, loaded) = ((value.requests, value.hits), resident) }
  }
  var value: (Int, Int) { lock.withLock { totals } }
  /// Resident memory (MiB) at the end of the load, the server still up.
  var resident: Double { lock.withLock { loaded } }
}
