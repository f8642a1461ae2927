// swift-tools-version: 6.1
// The fuzzing harness for the trace readers, kept out of the main package
// because it is built with `-sanitize=fuzzer` (libFuzzer supplies `main`).
// Build and run it with scripts/fuzz.sh.
import PackageDescription

let package = Package(
  name: "EvictionLabFuzz",
  dependencies: [.package(name: "EvictionLab", path: "..")],
  targets: [
    .target(name: "CFuzzerDriver", path: "Sources/CFuzzerDriver"),
    .executableTarget(
      name: "TraceFuzz",
      dependencies: ["CFuzzerDriver", .product(name: "EvictionTraces", package: "EvictionLab")],
      path: "Sources/TraceFuzz"),
  ]
)
