// swift-tools-version: 6.1
// EvictionLab's benchmark suite (package-benchmark by ordo-one), kept in its
// own package so the main build does not depend on it. Run from this folder:
//   swift package benchmark                                  # every benchmark: wall clock, throughput, allocations
// CI does not build it: its speed gate is ../scripts/instruction-gate.sh
// (instructions and allocations per request under callgrind).
import PackageDescription

let package = Package(
  name: "EvictionLabBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "EvictionLab", path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    .executableTarget(
      name: "EvictionBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "EvictionCore", package: "EvictionLab"),
        .product(name: "EvictionCache", package: "EvictionLab"),
        .product(name: "EvictionTraces", package: "EvictionLab"),
        .product(name: "EvictionSim", package: "EvictionLab"),
        .product(name: "EvictionExperiments", package: "EvictionLab"),
        .product(name: "EvictionDisk", package: "EvictionLab"),
      ],
      path: "Benchmarks/EvictionBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")])
  ]
)
