// A policy author's conformance check, for the link test (`LinkageTests`):
// it must link no GSL. Prints whether LRU passes the standard battery.
import EvictionConformance
import EvictionCore

let report = PolicyConformance.check(try PolicySpec("lru"), requests: 500)
print(report.passed ? "passed" : "failed: \(report.violations)")
