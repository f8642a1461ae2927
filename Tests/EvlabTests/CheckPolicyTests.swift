import EvictionTestSupport
import Foundation
import Testing

let faultyEvlabPath = builtExecutable("faulty-evlab")

/// `evlab check-policy` reports every fault of a policy, its own invariant
/// check's traps included, as a violation with where it happened, and exits
/// 1; it never ends with the policy's signal.
@Suite struct CheckPolicyTests {
  func check(_ policy: String) throws -> Run {
    try runProgram(faultyEvlabPath, ["check-policy", policy, "--requests", "1000"], in: nil, environment: nil)
  }

  @Test func anOverfullCacheIsReportedBeforeItsOwnCheckTraps() throws {
    let run = try check("overfill")
    #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("overfill: FAILED"), "\(run.stdout)")
    // The driver's finding, then where the policy's own check stopped it.
    #expect(run.stdout.contains("holds 2 of a capacity of 1"), "\(run.stdout)")
    #expect(
      run.stdout.contains("unit weights at capacity 1, request 1: the policy stopped the process with signal"),
      "\(run.stdout)")
    #expect(run.stderr.contains("broke the guarantees above"))
    #expect(!run.stderr.contains("Program crashed") && !run.stderr.contains("evlab-battery"), "\(run.stderr)")
  }

  @Test func aVictimThatWasNotResidentIsReported() throws {
    let run = try check("bad-victim")
    #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("bad-victim: FAILED"), "\(run.stdout)")
    #expect(run.stdout.contains("which was not resident") || run.stdout.contains("is still resident"), "\(run.stdout)")
  }

  @Test func aTrapInThePolicysOwnCheckIsReportedWithItsMessage() throws {
    let run = try check("trap-check")
    #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("trap-check: FAILED, 1 broken guarantees"), "\(run.stdout)")
    #expect(run.stdout.contains("unit weights at capacity 1, request 0: the policy stopped the process with signal"))
    #expect(run.stdout.contains("the policy's own invariant check fails"), "\(run.stdout)")
    // The policies after a faulty one are still checked.
    let both = try runProgram(
      faultyEvlabPath, ["check-policy", "trap-check,lru", "--requests", "1000"], in: nil, environment: nil)
    #expect(both.status == 1 && both.stdout.contains("lru: passed"), "\(both.stdout)")
  }
}
