@_exported import EvictionConformance
import EvictionCore
import Testing

/// What one conformance run observed (``PolicyConformance/Run``).
public typealias ConformanceOutcome = PolicyConformance.Run

/// ``PolicyConformance/Driver`` in a test: every guarantee it finds broken
/// is recorded as an issue of the running test.
public struct ConformanceDriver: PolicyVisitor {
  public typealias Key = UInt64
  public var driver: PolicyConformance.Driver

  public init(requests: [Request<UInt64>], checkEvery: Int, policy: PolicySpec? = nil) {
    driver = PolicyConformance.Driver(
      requests: requests, checkEvery: checkEvery, policy: policy, name: policy?.description ?? "policy")
  }

  public mutating func visit<Policy: ReplacementPolicy & ~Copyable>(_ policy: consuming Policy) -> ConformanceOutcome
  where Policy.Key == UInt64 {
    let run = driver.visit(policy)
    for violation in run.violations { Issue.record(Comment(rawValue: violation.description)) }
    if run.violationCount > run.violations.count {
      Issue.record(Comment(rawValue: "and \(run.violationCount - run.violations.count) more"))
    }
    #expect(run.hits + run.misses == driver.requests.count)
    return run
  }
}

/// ``PolicyConformance/requests(seed:weighted:weightless:count:)``.
public func conformanceRequests(
  seed: UInt64, weighted: Bool, weightless: Bool = false, count: Int = 6_000
) -> [Request<UInt64>] {
  PolicyConformance.requests(seed: seed, weighted: weighted, weightless: weightless, count: count)
}

/// ``PolicyConformance/withNextAccess(_:)``.
public func withNextAccess(_ requests: [Request<UInt64>]) -> [Request<UInt64>] {
  PolicyConformance.withNextAccess(requests)
}
