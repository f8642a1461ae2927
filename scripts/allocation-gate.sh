#!/usr/bin/env bash
# The allocation gate: runs the benchmark suite in Benchmarks/ and compares
# each benchmark's allocation count (mallocCountTotal, p90) with the
# thresholds committed for this Swift version in
# Benchmarks/Thresholds/<major.minor>/. Allocation counts do not drift with
# machine noise, so they gate; wall clock and throughput are printed for
# people and never gate (the committed files hold allocation counts only).
# Tolerance per benchmark (in its code): 64 allocations above the committed
# count; one allocation per request or per cache operation is 200,000.
#
#   scripts/allocation-gate.sh           # check (CI); exit 1 on a regression
#   scripts/allocation-gate.sh update    # rewrite this Swift version's thresholds; review and commit the diff
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
[ -n "$version" ] || { echo "error: cannot tell the Swift version from 'swift --version'" >&2; exit 1; }
thresholds=Thresholds/$version
cd Benchmarks

case "${1:-check}" in
  update)
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    swift package --allow-writing-to-package-directory --allow-writing-to-directory "$scratch" \
      benchmark thresholds update --path "$scratch" --no-progress
    rm -rf "$thresholds" && mkdir -p "$thresholds"
    for file in "$scratch"/*.json; do
      count=$(sed -n 's/.*"mallocCountTotal" *: *\([0-9]*\).*/\1/p' "$file")
      [ -n "$count" ] || { echo "error: $file has no mallocCountTotal" >&2; exit 1; }
      printf '{\n  "mallocCountTotal" : %s\n}\n' "$count" > "$thresholds/$(basename "$file")"
    done
    echo "wrote $(ls "$thresholds" | wc -l) allocation thresholds to Benchmarks/$thresholds; review and commit them"
    ;;
  check)
    [ -d "$thresholds" ] || {
      echo "error: no allocation thresholds for Swift $version in Benchmarks/$thresholds; run scripts/allocation-gate.sh update on a trusted build and commit them" >&2
      exit 1
    }
    # One run: stored as a baseline, printed (wall clock and throughput for
    # people), then checked against the allocation thresholds.
    swift package --allow-writing-to-package-directory benchmark baseline update ci --no-progress --quiet
    swift package benchmark baseline read ci --no-progress --format markdown --time-units milliseconds \
      | grep -E '^### |Malloc \(total\)|Time \(wall clock\)|Throughput' || true
    status=0
    swift package benchmark thresholds check ci --path "$PWD/$thresholds" --no-progress || status=$?
    case $status in
      0) echo "allocation gate: every benchmark allocates as its threshold says" ;;
      4) echo "allocation gate: fewer allocations than the thresholds (improvements); consider scripts/allocation-gate.sh update" ;;
      *) echo "error: allocation gate failed (status $status): a benchmark allocates more than Benchmarks/$thresholds allows; find the new allocation, or update the thresholds if it is intended" >&2
         exit 1 ;;
    esac
    ;;
  *) echo "usage: scripts/allocation-gate.sh [check|update]" >&2; exit 2 ;;
esac
