// swift-tools-version: 6.2
// A bounded persist driver for Hummingbird 2 over EvictionLab's MemoryCache:
// Hummingbird's own MemoryPersistDriver has no size limit, so a server that
// persists per-request state (sessions, rate-limit counters, cached
// responses) grows until it is killed. This one holds at most the limits it
// is given, evicting by any catalog policy.
//
// EvictionLab comes from the checkout two folders up.
import PackageDescription

let package = Package(
  name: "hummingbird-bounded-persist",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "EvictionLab", path: "../.."),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.30.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.14.0"),
  ],
  targets: [
    .target(
      name: "BoundedPersist",
      dependencies: [
        .product(name: "EvictionCache", package: "EvictionLab"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    // A load test: a server on 127.0.0.1 under concurrent clients for a
    // bounded time, with this driver or Hummingbird's unbounded one.
    .executableTarget(
      name: "persist-load",
      dependencies: [
        "BoundedPersist",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "BoundedPersistTests",
      dependencies: [
        "BoundedPersist",
        .product(name: "EvictionCache", package: "EvictionLab"),
        .product(name: "EvictionCore", package: "EvictionLab"),
        .product(name: "EvictionTraces", package: "EvictionLab"),
        .product(name: "EvictionSim", package: "EvictionLab"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ]),
  ]
)
