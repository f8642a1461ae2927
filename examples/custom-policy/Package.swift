// swift-tools-version: 6.1
// A package of its own that adds a policy to EvictionLab without forking it.
//
// EvictionLab comes from the checkout two folders up, or, with
// EVICTIONLAB_URL set, from a tagged repository at that URL, as any
// dependency would (CI builds it that way against a tagged copy):
//   EVICTIONLAB_URL=file:///tmp/evictionlab EVICTIONLAB_VERSION=0.3.0 swift build
import PackageDescription

let evictionLab: Package.Dependency =
  if let url = Context.environment["EVICTIONLAB_URL"] {
    .package(url: url, from: Version(stringLiteral: Context.environment["EVICTIONLAB_VERSION"] ?? "0.3.0"))
  } else {
    .package(name: "EvictionLab", path: "../..")
  }

let package = Package(
  name: "custom-policy",
  platforms: [.macOS(.v15)],
  dependencies: [evictionLab],
  targets: [
    // The policy: one file.
    .target(name: "LRU2", dependencies: [.product(name: "EvictionCore", package: "EvictionLab")]),
    // The whole evlab command line with LRU-2 in its catalog.
    .executableTarget(
      name: "lru2-evlab",
      dependencies: ["LRU2", .product(name: "EvictionLab", package: "EvictionLab")]),
    // LRU-2 driving a two-tier cache (memory over disk) of Codable values.
    .executableTarget(
      name: "lru2-thumbnails",
      dependencies: [
        "LRU2",
        .product(name: "EvictionCache", package: "EvictionLab"),
        .product(name: "EvictionDisk", package: "EvictionLab"),
      ]),
    .testTarget(
      name: "LRU2Tests",
      dependencies: [
        "LRU2",
        .product(name: "EvictionCore", package: "EvictionLab"),
        .product(name: "EvictionTraces", package: "EvictionLab"),
        .product(name: "EvictionSim", package: "EvictionLab"),
        .product(name: "EvictionCache", package: "EvictionLab"),
        .product(name: "EvictionConformance", package: "EvictionLab"),
      ]),
  ]
)
