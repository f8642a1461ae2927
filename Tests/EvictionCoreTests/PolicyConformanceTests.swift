import EvictionCore
import EvictionTestSupport
import Testing

/// An LRU that holds five objects over what it was built for, as a user's
/// first policy might: it says its capacity is the larger one.
enum OverfullLRU {
  static func policy(capacity: Int64) -> LRUPolicy<IntegerSlotIndex<UInt64>> { LRUPolicy(capacity: capacity + 5) }
}

/// The product every built-in passes, on a policy that breaks it.
@Suite struct PolicyConformanceTests {
  @Test func aPolicyOverItsCapacityIsCaughtAndAnHonestOneIsNot() {
    let requests = PolicyConformance.requests(seed: 4, weighted: false, count: 2_000)
    var driver = PolicyConformance.Driver(requests: requests, checkEvery: 1, name: "overfull")
    driver.capacity = 10
    let run = driver.visit(OverfullLRU.policy(capacity: 10))
    #expect(run.violationCount > 0 && run.violations.count <= PolicyConformance.Driver.mostViolations)
    #expect(run.violations.first?.message == "reports a capacity of 15, but was built with 10")
    #expect(run.violations.contains { $0.message == "holds 11 of a capacity of 10" && $0.request != nil })
    #expect(run.violations.allSatisfy { $0.run == "overfull" })
    var honest = PolicyConformance.Driver(requests: requests, checkEvery: 1, name: "lru")
    honest.capacity = 10
    let fine = honest.visit(LRUPolicy<IntegerSlotIndex<UInt64>>(capacity: 10))
    #expect(fine.violations.isEmpty && fine.hits + fine.misses == requests.count && fine.hits > 0)
  }

  /// The battery `evlab check-policy` runs: every run of a built-in passes,
  /// and the runs cover unit and weighted streams at several capacities.
  @Test(arguments: ["lru", "s3fifo", "belady", "yy-disk", "random"])
  func theBatteryPassesBuiltInPolicies(name: String) throws {
    let report = PolicyConformance.check(try PolicySpec(name), requests: 2_000)
    #expect(report.passed, "\(report.violations.prefix(3))")
    #expect(report.runs.count == 15 && report.policy == name)
    #expect(Set(report.runs.map { $0.name.components(separatedBy: " at ")[0] }).count == 5)
  }
}
