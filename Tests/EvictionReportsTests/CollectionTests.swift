import EvictionCore
import EvictionRun
import EvictionTestSupport
import EvictionTraces
import Foundation
import Testing

@testable import EvictionExperiments
@testable import EvictionSim

/// Trace collections: glob and folder entries, catalogs and their checks.
@Suite struct CollectionTests {
  /// A folder laid out as Caffeine lays its traces out: `lirs/a.trace`,
  /// `lirs/b.trace`, the same requests as `a` again in `other/a.txt`, a
  /// README and a file of no known format.
  static func collection() throws -> String {
    let root = try Scratch.directory("collection").path
    let manager = FileManager.default
    for folder in ["lirs", "other", "misc"] {
      try manager.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
    }
    try "1\n2\n3\n1\n2\n4\n".write(toFile: "\(root)/lirs/a.trace", atomically: true, encoding: .utf8)
    try "7\n*\n8\n7\n9\n".write(toFile: "\(root)/lirs/b.trace", atomically: true, encoding: .utf8)
    try "1\n2\n3\n1\n2\n4\n".write(toFile: "\(root)/other/a.txt", atomically: true, encoding: .utf8)
    try "about these traces\n".write(toFile: "\(root)/lirs/README.txt", atomically: true, encoding: .utf8)
    try "?\n".write(toFile: "\(root)/misc/x.dat", atomically: true, encoding: .utf8)
    return root
  }

  static func config(_ traces: String) throws -> CompareConfig {
    try CompareConfig.parse(
      "policies = [\"lru\"]\nsizes = [2]\n\(traces)", format: "toml", file: "sweep.toml")
  }

  @Test func aFolderEntryListsItsTracesWithFormatAndDatasetFromTheFolder() throws {
    let root = try Self.collection()
    let config = try Self.config("[[traces]]\nfolder = \"\(root)/lirs\"\n")
    #expect(config.traces.map(\.name) == ["a.trace", "b.trace"])
    #expect(config.traces.map(\.dataset) == ["lirs", "lirs"])
    for entry in config.traces {
      guard case .file(let source) = entry.origin else {
        Issue.record("not a file")
        continue
      }
      #expect(source.format == .lirs)
    }
    // The expanded list is what a shard's partial result carries.
    let again = try CompareConfig.parse(config.source, format: config.sourceFormat, file: "x", checkFiles: false)
    #expect(again.traces.map(\.name) == ["a.trace", "b.trace"])
  }

  @Test func aGlobEntryMatchesFilesAndKeepsItsOtherKeys() throws {
    let root = try Self.collection()
    let config = try Self.config(
      "[[traces]]\nglob = \"\(root)/*/a.*\"\nformat = \"txt\"\ndataset = \"mine\"\n")
    #expect(config.traces.map(\.name) == ["a.trace", "a.txt"])
    #expect(config.traces.map(\.dataset) == ["mine", "mine"])
    #expect {
      _ = try Self.config("[[traces]]\nglob = \"\(root)/nothing-*\"\n")
    } throws: { ($0 as? ConfigError)?.message.contains("matches no trace file") == true }
    #expect {
      _ = try Self.config("[[traces]]\nglob = \"\(root)/lirs/*\"\nfolder = \"\(root)\"\n")
    } throws: { ($0 as? ConfigError)?.message.contains("not both") == true }
  }

  /// `evlab compare` takes its sweep from one place: a collection alone, a
  /// configuration alone, flags alone, or by default the configuration file.
  @Test func theCommandLineNamesOneSourceOfTheSweep() throws {
    let root = try Self.collection()
    func fails(_ flags: CompareConfig.Choices, _ message: String) {
      #expect {
        _ = try flags.configuration(defaultPath: "\(root)/none.toml")
      } throws: { ($0 as? ConfigError)?.description.contains(message) == true }
    }
    var flags = CompareConfig.Choices()
    fails(flags, "none.toml")  // nothing named: the default configuration, missing here
    flags.traces = ["\(root)/other/a.txt"]
    flags.policies = ["lru,fifo"]
    flags.sizes = ["2"]
    let sweep = try flags.configuration(defaultPath: "\(root)/none.toml")
    #expect(sweep.traces.map(\.name) == ["a.txt"] && sweep.policies.map(\.name) == ["lru", "fifo"])
    flags.config = "\(root)/sweep.toml"
    fails(flags, "not both")
    flags.collection = "\(root)/catalog.toml"
    fails(flags, "\(Setting.collection) alone")
  }

  /// A configuration's synthetic trace is held to the same ranges as
  /// `evlab generate` (a negative Zipf exponent used to pass, and reverse
  /// the popularity).
  @Test func aSyntheticTraceOutsideItsRangesIsRefused() throws {
    for (key, value) in [("alpha", "-1"), ("hot_share", "7"), ("object_size", "99999999999")] {
      #expect {
        _ = try Self.config("[[traces]]\ngenerate = \"hotspot\"\nobjects = 100\n\(key) = \(value)\n")
      } throws: { ($0 as? ConfigError)?.description.contains("traces[1]") == true }
    }
    _ = try Self.config("[[traces]]\ngenerate = \"hotspot\"\nobjects = 100\nalpha = 1.2\nhot_share = 0.5\n")
  }

  /// A folder or glob entry passes over the CSVs a run wrote there (beside
  /// its provenance.json), so a run never reads its own outputs.
  @Test func aFolderEntryPassesOverARunsOutputs() throws {
    let root = try Scratch.directory("outputs").path
    try "time,key,size\n1,1,10\n2,2,10\n".write(toFile: "\(root)/trace.csv", atomically: true, encoding: .utf8)
    try "trace,policy\nx,lru\n".write(toFile: "\(root)/results.csv", atomically: true, encoding: .utf8)
    try "{}".write(toFile: "\(root)/provenance.json", atomically: true, encoding: .utf8)
    #expect(try Self.config("[[traces]]\nfolder = \"\(root)\"\n").traces.map(\.name) == ["trace.csv"])
    #expect(try Self.config("[[traces]]\nglob = \"\(root)/*.csv\"\n").traces.map(\.name) == ["trace.csv"])
  }

  /// In byte mode other sizes make another trace: the catalog lists both.
  @Test func theSameKeysWithOtherSizesAreAnotherTrace() throws {
    let root = try Scratch.directory("sizes").path
    try "time,key,size\n1,1,10\n2,2,10\n".write(toFile: "\(root)/a.csv", atomically: true, encoding: .utf8)
    try "time,key,size\n1,1,10\n2,2,99\n".write(toFile: "\(root)/b.csv", atomically: true, encoding: .utf8)
    let catalog = try TraceCatalog.scan([root], relativeTo: root)
    #expect(catalog.entries.map(\.path) == ["a.csv", "b.csv"] && catalog.skipped.isEmpty)
  }

  @Test func theCatalogListsEachTraceOnceAndNotesWhatItPassedOver() throws {
    let root = try Self.collection()
    let catalog = try TraceCatalog.scan([root], relativeTo: root)
    #expect(catalog.entries.map(\.path) == ["lirs/a.trace", "lirs/b.trace"])
    #expect(catalog.entries.map(\.requests) == [6, 4])
    #expect(catalog.entries.map(\.objects) == [4, 3])
    #expect(catalog.entries.map(\.dataset) == ["lirs", "lirs"])
    #expect(catalog.skipped.map(\.path) == ["misc/x.dat", "other/a.txt"])
    #expect(catalog.skipped[1].reason == "the same requests as lirs/a.trace")
    #expect(catalog.entries[0].checksum == (try FileChecksum.crc32(path: "\(root)/lirs/a.trace")))
  }

  @Test func aCollectionRunsEveryOnlinePolicyAtRelativeSizes() throws {
    let root = try Self.collection()
    let file = "\(root)/catalog.toml"
    try TraceCatalog.scan([root], relativeTo: root).toml(header: ["test"]).write(
      toFile: file, atomically: true, encoding: .utf8)
    let config = try CompareConfig.collection(
      path: file, name: nil, sizeMode: nil, policies: [], sizes: [], seeds: [])
    #expect(config.name == "collection")
    #expect(config.traces.map(\.expectedRequests) == [6, 4])
    #expect(config.sizes.map(\.description) == ["0.1%", "1%", "10%"])
    #expect(config.smallSizes == .skip)
    let names = config.policies.map(\.name)
    #expect(names.contains("fifo") && names.contains("s3fifo"))
    #expect(!names.contains("belady") && !names.contains("nscache-linux"))
    #expect(names.count == PolicyCatalog.entries.filter { !$0.isOffline && !$0.isModel }.count)
    // Every cell is far below what some policies need: all are left out, none fails.
    let workspace = try CompareWorkspace(config)
    let infos = try ComparePlan.measure(config, sources: workspace.sources, parallelism: 2)
    let plan = ComparePlan(config: config, infos: infos, sources: workspace.sources)
    #expect(plan.tooSmall.count == 6 && plan.rows.isEmpty)
  }

  @Test func aTraceThatChangedSinceItsCatalogIsRefused() throws {
    let root = try Self.collection()
    let path = "\(root)/lirs/a.trace"
    let checksum = try FileChecksum.crc32(path: path)
    let entry = "[[traces]]\npath = \"\(path)\"\nformat = \"lirs\"\n"
    _ = try Self.config(entry + "checksum = \"\(checksum)\"\n")
    #expect {
      _ = try Self.config(entry + "checksum = \"crc32:00000000\"\n")
    } throws: { error in
      let text = (error as? ConfigError)?.description ?? ""
      return text.contains("its checksum is \(checksum), not crc32:00000000")
        && text.contains("rewrite the catalog (\(Setting.writeCatalog))")
    }
    // Counts are checked when the trace is read for its statistics.
    let config = try Self.config(entry + "requests = 7\n")
    #expect(throws: TraceError.catalogMismatch(path: path, reason: "it holds 6 requests, not 7")) {
      _ = try ComparePlan.measure(config, sources: CompareWorkspace(config).sources)
    }
    let objects = try Self.config(entry + "requests = 6\nobjects = 5\n")
    #expect(throws: TraceError.catalogMismatch(path: path, reason: "it holds 4 objects, not 5")) {
      _ = try ComparePlan.measure(objects, sources: CompareWorkspace(objects).sources)
    }
  }

  @Test func aSizeTooSmallForAPolicyIsFoundBeforeAnyReplay() throws {
    let root = try Self.collection()
    let text =
      "policies = [\"lru\", \"s3fifo\"]\nsizes = [2, 50]\n[[traces]]\npath = \"\(root)/lirs/a.trace\"\nformat = \"lirs\"\n"
    let config = try CompareConfig.parse(text, format: "toml", file: "sweep.toml")
    #expect(config.smallSizes == .error)
    let workspace = try CompareWorkspace(config)
    let plan = ComparePlan(
      config: config, infos: try ComparePlan.measure(config, sources: workspace.sources), sources: workspace.sources)
    #expect(plan.tooSmall.map(\.cacheSize) == [2])
    #expect(plan.tooSmall.first?.policy.name == "s3fifo")
    #expect(plan.rows.count == 4)  // error mode keeps the rows; the command stops before replaying them
    let skipping = try CompareConfig.parse(text + "", format: "toml", file: "s.toml").with(small: .skip)
    let skipped = ComparePlan(config: skipping, infos: plan.infos, sources: workspace.sources)
    #expect(skipped.rows.map(\.cacheSize) == [50, 50])
  }
}

extension CompareConfig {
  fileprivate func with(small: SmallSizes) -> CompareConfig {
    var copy = self
    copy.smallSizes = small
    return copy
  }
}
