import Foundation
import Testing

/// The learned policies through `evlab`, which registers them (EvictionLearned).
@Suite struct LearnedCommandTests {
  static let trace = sharedTraces + "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"

  /// A replay row of a learned policy carries its trainings and their
  /// seconds; the other rows of the table leave those columns empty.
  @Test func replayRowsCarryTheTrainings() throws {
    let run = try evlab([
      "replay", Self.trace, "--policy", "glcache:retrain-intvl=600,lru", "--size", "5000", "--csv", "-",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let table = rows(run.stdout)
    let learned = try #require(table.first { $0["policy"]!.hasPrefix("glcache") })
    let lru = try #require(table.first { $0["policy"] == "lru" })
    #expect(learned["misses"] == "90505", "libCacheSim 0.3.5's count (results/reference/libcachesim_035_glcache.tsv)")
    #expect(Int(learned["trainings"]!)! >= 5)
    #expect(Double(learned["training_seconds"]!)! > 0)
    #expect(lru["trainings"] == "" && lru["training_seconds"] == "")
    #expect(!run.stderr.contains("never trained"))
  }

  /// Untrained, it says so (and still counts as libCacheSim does).
  @Test func aTraceTooShortToTrainOnIsNamed() throws {
    let run = try evlab(["replay", Self.trace, "--policy", "glcache", "--size", "1000", "--csv", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(rows(run.stdout).first?["misses"] == "94811")
    #expect(rows(run.stdout).first?["trainings"] == "0")
    #expect(run.stderr.contains("glcache on cloudPhysicsIO.oracleGeneral.bin at 1000 never trained"))
    #expect(run.stderr.contains("training interval"))
    #expect(
      run.stderr.split(separator: "\n").filter { $0.contains("never trained") }.count == 1, "one note for all rows")
  }

  /// A comparison's rows carry the trainings too, and an untrained learned
  /// policy is named (it may still rank best).
  @Test func compareRowsCarryTheTrainings() throws {
    let dir = try scratchDirectory()
    let run = try evlab([
      "compare", "--trace", Self.trace, "--policy", "glcache,glcache:retrain-intvl=600,lru", "--size", "5000",
      "--output", dir.appendingPathComponent("out").path,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let csv = try String(contentsOf: dir.appendingPathComponent("out/results.csv"), encoding: .utf8)
    let table = rows(csv)
    #expect(table.first { $0["policy"] == "glcache" }?["trainings"] == "0")
    #expect(Int(table.first { $0["policy"] == "glcache:retrain-intvl=600" }?["trainings"] ?? "") ?? 0 >= 5)
    #expect(table.first { $0["policy"] == "lru" }?["trainings"] == "")
    #expect(run.stderr.contains("never trained") && run.stderr.contains("glcache on cloudPhysicsIO"))
    #expect(!run.stderr.contains("retrain-intvl=600 on"))
  }

  /// LRB and 3L-Cache through evlab: on cloudPhysicsIO (too few labelled
  /// samples) LRB never trains and is LRU, libCacheSim's count; a smaller
  /// batch trains either.
  @Test func lrbAnd3LCacheReplayAndTrain() throws {
    let run = try evlab([
      "replay", Self.trace, "--policy", "lrb,lrb:batch-size=4096,3lcache:batch-size=512,lru", "--size", "5000",
      "--csv", "-",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let table = rows(run.stdout)
    let untrained = try #require(table.first { $0["policy"] == "lrb" })
    #expect(untrained["misses"] == "91527", "libCacheSim 0.3.5's (results/reference/libcachesim_035_lrb.tsv)")
    #expect(untrained["trainings"] == "0")
    #expect(table.first { $0["policy"] == "lru" }?["misses"] == "91527")
    let trained = try #require(table.first { $0["policy"]!.hasPrefix("lrb:") })
    #expect(Int(trained["trainings"]!)! >= 10)
    let threeL = try #require(table.first { $0["policy"]!.hasPrefix("3lcache") })
    #expect(Int(threeL["trainings"]!)! >= 10 && threeL["misses"] != "91527")
    #expect(run.stderr.contains("lrb on cloudPhysicsIO.oracleGeneral.bin at 5000 never trained"))
    #expect(run.stderr.contains("batch-size"))
  }

  @Test func lrbParametersOutOfRangeAreOneLineErrors() throws {
    let run = try evlab(["replay", Self.trace, "--policy", "lrb:memory-window=100", "--size", "1000"])
    #expect(run.status == 1)
    #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("memory-window"), "\(run.stderr)")
  }

  @Test func parametersThatDoNotGoTogetherAreOneLineErrors() throws {
    let run = try evlab(["replay", Self.trace, "--policy", "glcache:n-merge=60", "--size", "1000"])
    #expect(run.status == 1)
    #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("n-merge"), "\(run.stderr)")
  }

  @Test(arguments: ["glcache", "lrb", "3lcache"])
  func listedAndConformant(policy: String) throws {
    let listed = try evlab(["policies"])
    #expect(listed.stdout.contains(policy))
    let checked = try evlab(["check-policy", policy])
    #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
  }
}
