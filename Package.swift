// swift-tools-version: 6.2
// EvictionLab: cache replacement policies written once, measured in a simulator
// and shipped in a real cache. Module layout and import rules: ../shared/DESIGN.md.
import PackageDescription

/// No unsafe flags in any target a product contains (only the tests carry
/// one, `-Onone`, below), so the package works as a versioned dependency.
/// EvictionCore uses one experimental feature, which SwiftPM accepts in a
/// dependency: noncopyable associated types, so `StoredPolicy` can name a
/// policy's (noncopyable) storage and forward its bookkeeping once. Speed
/// comes from `@inlinable` hot paths and `@exclusivity(unchecked)` on the
/// cache's lock-guarded state (README, "Use EvictionLab as a library").
let core: [SwiftSetting] = [.enableExperimentalFeature("SuppressedAssociatedTypes")]

/// Test code is compiled without optimisation, in release builds too. The
/// libraries under test stay optimised (the reference tests replay through
/// them); the tests' own calls reach the policies unspecialised. Optimising
/// the tests specialised every catalog policy again for each test's visitor:
/// EvictionCoreTests alone took 7 of a 2-core machine's minutes. Test
/// targets are in no product, so depending packages never see this flag.
let tests: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
  name: "EvictionLab",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "EvictionCore", targets: ["EvictionCore"]),
    .library(name: "EvictionCache", targets: ["EvictionCache"]),
    .library(name: "EvictionTraces", targets: ["EvictionTraces"]),
    .library(name: "EvictionWorkloads", targets: ["EvictionWorkloads"]),
    .library(name: "EvictionSim", targets: ["EvictionSim"]),
    .library(name: "EvictionExperiments", targets: ["EvictionExperiments"]),
    .library(name: "EvictionReports", targets: ["EvictionReports"]),
    .library(name: "EvictionDisk", targets: ["EvictionDisk"]),
    .library(name: "EvictionLab", targets: ["EvictionLab"]),
    .library(name: "EvictionConformance", targets: ["EvictionConformance"]),
    .library(name: "EvictionLearned", targets: ["EvictionLearned"]),
    .library(name: "EvictionMetrics", targets: ["EvictionMetrics"]),
    .executable(name: "evlab", targets: ["evlab"]),
    // The shared library the Python package loads (scripts/python-wheel.sh).
    .library(name: "EvictionLabNative", type: .dynamic, targets: ["EvictionLabNative"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    // The EvictionMetrics product only (EvictionCache depends on nothing).
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    // `swift package generate-documentation`: the DocC catalogs (scripts/docs.sh).
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // System libraries: a module map and a small shim header each.
    .systemLibrary(
      name: "CSQLite", path: "Sources/CSQLite",
      providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CGSL", path: "Sources/CGSL",
      providers: [.apt(["libgsl-dev"])]),
    .systemLibrary(
      name: "CCompression", path: "Sources/CCompression",
      providers: [.apt(["zlib1g-dev", "liblzma-dev", "libzstd-dev"])]),
    // glibc's allocator statistics (malloc.h), for `evlab bench memory`.
    .systemLibrary(name: "CAllocator", path: "Sources/CAllocator"),
    // The compiler's prefetch hint, for the replay loop (a header only).
    .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),
    // One compare of a whole index chunk (SSE2, NEON or a loop; a header only).
    .systemLibrary(name: "CChunkMatch", path: "Sources/CChunkMatch"),
    // XGBoost's C API (the learned policies' trees).
    .systemLibrary(
      name: "CXGBoost", path: "Sources/CXGBoost",
      providers: [.apt(["libxgboost-dev"])]),

    // The policy family. Standard library only (and one header of compiler
    // intrinsics, CChunkMatch): it must stay embeddable anywhere.
    .target(name: "EvictionCore", dependencies: ["CChunkMatch"], swiftSettings: core),
    // MemoryCache: any policy behind a choice of locks; TieredCache over the disk tier.
    .target(name: "EvictionCache", dependencies: ["EvictionCore", "CThreadSlot"]),
    // LEMON's network simplex behind a C function (Debian's liblemon-dev,
    // header-only here): the min-cost flows of the FOO bounds.
    .target(name: "CFlow", path: "Sources/CFlow"),
    // A thread-local variable (one C definition): the buffered strategy's
    // per-thread read stripe, found without a call.
    .target(name: "CThreadSlot", path: "Sources/CThreadSlot"),
    // A thread's kernel id and a signal sent to it (gettid, tgkill): how an
    // interrupted run parks each of its threads.
    .target(name: "CThreadSignal", path: "Sources/CThreadSignal"),
    // GSL-backed statistics and random streams (GPL-3: never linked by Core,
    // Cache, Disk or Traces).
    .target(name: "EvictionStats", dependencies: ["CGSL"]),
    // What every run shares, whatever it runs: the settings messages name,
    // interruption, worker threads. Nothing but a two-function C shim: the disk tier uses it
    // without linking the trace readers' compression libraries.
    .target(name: "EvictionRun", dependencies: ["CThreadSignal"]),
    // Trace formats, readers, writers and decompression (no GSL: the fuzzer links it).
    .target(name: "EvictionTraces", dependencies: ["EvictionRun", "CCompression"]),
    // Synthetic workloads (Zipf, scans, loops, hot spots, mixes), drawn from EvictionStats' streams.
    .target(name: "EvictionWorkloads", dependencies: ["EvictionRun", "EvictionTraces", "EvictionStats"]),
    // Replay engines and the result model. Not the disk tier: the two build
    // side by side (about 40 s of a 2-core release build).
    .target(
      name: "EvictionSim",
      dependencies: [
        "EvictionCore", "EvictionCache", "EvictionRun", "EvictionTraces", "CAllocator", "CPrefetch", "CFlow",
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ]),
    // The checks every built-in policy passes, for a policy of your own
    // (`evlab check-policy NAME` runs them on a registered one).
    .target(name: "EvictionConformance", dependencies: ["EvictionCore", "EvictionSim"]),
    // What is built on the engine: sweeps and their configurations, benchmarks,
    // baselines, trace catalogs, tiered replay, progress.
    .target(
      name: "EvictionExperiments",
      dependencies: [
        "EvictionSim", "EvictionCore", "EvictionCache", "EvictionDisk", "EvictionRun", "EvictionTraces",
        "EvictionWorkloads",
        "EvictionStats", "CAllocator", .product(name: "Histogram", package: "hdrhistogram-swift"),
      ]),
    // The disk tier: a SQLite manifest over value files (libsqlite3, and EvictionRun for
    // its messages' settings; never GSL or a compression library).
    .target(name: "EvictionDisk", dependencies: ["EvictionCore", "EvictionCache", "EvictionRun", "CSQLite"]),
    // Results as CSV, JSON, tables, Markdown and HTML with SVG charts.
    .target(
      name: "EvictionReports",
      dependencies: [
        "EvictionCore", "EvictionRun", "EvictionTraces", "EvictionSim", "EvictionExperiments", "EvictionStats",
      ]),
    // The whole command line as a library: `EvictionLab.main(extraPolicies:)`
    // runs it with a depending package's policies in the catalog.
    .target(
      name: "EvictionLab",
      dependencies: [
        "EvictionCore", "EvictionCache", "EvictionRun", "EvictionTraces", "EvictionWorkloads", "EvictionSim",
        "EvictionExperiments", "EvictionStats", "EvictionReports", "EvictionConformance",
        "EvictionDisk", "CAllocator", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      plugins: ["BuildCommit"]),
    // Records the commit a build is made from (`evlab --version`, provenance).
    .plugin(name: "BuildCommit", capability: .buildTool()),
    // Learned policies (GL-Cache) on XGBoost: a module of their own, so that
    // only a program that asks for them links XGBoost. They join the catalog
    // as a depending package's policies do (`EvictionLearned.policies`).
    .target(name: "EvictionLearned", dependencies: ["EvictionCore", "CXGBoost"]),
    // A cache's statistics through swift-metrics: a product of its own, so
    // EvictionCache stays free of third-party dependencies.
    .target(
      name: "EvictionMetrics",
      dependencies: ["EvictionCache", .product(name: "CoreMetrics", package: "swift-metrics")]),
    // The C interface of the Python binding: evlab's commands in-process and
    // a cache stepped request by request (python/evictionlab).
    .target(
      name: "EvictionLabNative", dependencies: ["EvictionLab", "EvictionLearned", "EvictionCore", "EvictionTraces"]),
    // `evlab`: EvictionLab.main() with the learned policies, and nothing else.
    .executableTarget(name: "evlab", dependencies: ["EvictionLab", "EvictionLearned", "CAllocGuard"]),
    // Trains S4-FIFO's tuner model (scripts/s4fifo-tuner.sh); not a product.
    .executableTarget(
      name: "s4fifo-trainer", dependencies: ["EvictionLearned", "EvictionCore", "EvictionTraces"],
      path: "Tools/S4FIFOTrainer"),
    // evlab's allocation guard: a failed allocation under `ulimit -v` ends in
    // one line that says so (the executable only: a library must not replace
    // its host's allocator).
    .target(name: "CAllocGuard"),

    // What every test target shares: scratch folders that clean up, file-tree digests.
    .target(
      name: "EvictionTestSupport", dependencies: ["EvictionCore", "EvictionConformance"],
      path: "Tests/EvictionTestSupport",
      swiftSettings: tests),
    .testTarget(
      name: "EvictionCoreTests", dependencies: ["EvictionCore", "EvictionTestSupport"], swiftSettings: tests),
    .testTarget(
      name: "EvictionCacheTests", dependencies: ["EvictionCache", "EvictionCore", "EvictionTestSupport"],
      swiftSettings: tests),
    .testTarget(
      name: "EvictionTracesTests", dependencies: ["EvictionRun", "EvictionTraces", "EvictionTestSupport"],
      swiftSettings: tests),
    .testTarget(
      name: "EvictionWorkloadsTests", dependencies: ["EvictionWorkloads", "EvictionTraces", "EvictionTestSupport"],
      swiftSettings: tests),
    .testTarget(
      name: "EvictionSimTests",
      dependencies: [
        "EvictionSim", "EvictionExperiments", "EvictionCore", "EvictionCache", "EvictionTraces", "EvictionWorkloads",
        "EvictionDisk", "EvictionTestSupport",
      ], swiftSettings: tests),
    .testTarget(name: "EvictionStatsTests", dependencies: ["EvictionStats"], swiftSettings: tests),
    .testTarget(
      name: "EvictionLearnedTests",
      dependencies: [
        "EvictionLearned", "EvictionSim", "EvictionTraces", "EvictionCore", "EvictionCache", "EvictionTestSupport",
      ], swiftSettings: tests),
    .testTarget(
      name: "EvictionReportsTests",
      dependencies: [
        "EvictionReports", "EvictionSim", "EvictionExperiments", "EvictionRun", "EvictionTraces", "EvictionCore",
        "EvictionTestSupport",
      ],
      swiftSettings: tests),
    .testTarget(
      name: "EvictionMetricsTests",
      dependencies: [
        "EvictionMetrics", "EvictionCache", .product(name: "MetricsTestKit", package: "swift-metrics"),
      ], swiftSettings: tests),
    .testTarget(
      name: "EvictionDiskTests",
      dependencies: ["EvictionDisk", "EvictionCore", "EvictionCache", "EvictionTestSupport"], swiftSettings: tests),
    // The disk tests' second process: a writer to kill, a holder of the write lock.
    .executableTarget(name: "disk-helper", dependencies: ["EvictionDisk", "EvictionCache"], path: "Tests/DiskHelper"),
    // evlab with three faulty policies, for the tests that check-policy reports every fault.
    .executableTarget(
      name: "faulty-evlab", dependencies: ["EvictionLab", "EvictionCore"], path: "Tests/FaultyPolicies"),
    // Two apps that link one library each, for the test that reads what
    // they link (LinkageTests): the memory cache alone, a conformance check.
    .executableTarget(name: "cache-only-app", dependencies: ["EvictionCache"], path: "Tests/LinkProbes/CacheOnly"),
    .executableTarget(
      name: "conformance-only-app", dependencies: ["EvictionConformance", "EvictionCore"],
      path: "Tests/LinkProbes/ConformanceOnly"),
    .testTarget(
      name: "EvlabTests",
      dependencies: [
        "EvictionLab", "evlab", "disk-helper", "faulty-evlab", "cache-only-app", "conformance-only-app", "EvictionDisk",
        "EvictionSim",
        "EvictionExperiments", "EvictionCore", "EvictionReports",
        "EvictionRun", "EvictionTraces", "EvictionLearned",
        "EvictionTestSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ], swiftSettings: tests),
  ]
)
