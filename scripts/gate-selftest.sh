#!/usr/bin/env bash
# Shows that both regression gates fail on what they exist to catch, with no
# build of its own: each gate is run once more against a reference that the
# code no longer matches, and must fail and name what differs.
#   1. `evlab bench check` against a copy of results/baseline.json in which
#      every LRU cell has one hit fewer and one miss more: it must exit 1
#      and name exactly LRU's cells, no other policy's.
#   2. The allocation gate's check, on the run scripts/allocation-gate.sh has
#      just stored (baseline `ci`), against a copy of the thresholds that
#      allows 1,000 fewer allocations for one benchmark than committed: the
#      check must fail and name that benchmark only. (The gate's slack is 64
#      allocations; one allocation per request is 200,000.)
# Run after the test build (.build/release/evlab) and scripts/allocation-gate.sh.
# Earlier versions built a scratch copy with the faults in its code (a second
# release build, 10 to 30 minutes); a gate compares measured against stored
# figures, so a stored figure that is off shows the same comparison failing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
evlab=$root/.build/release/evlab
[ -x "$evlab" ] || { echo "error: $evlab is missing; run scripts/test.sh first" >&2; exit 1; }

echo "== gate self-test 1: a baseline whose LRU cells are one miss off; bench check must name them, and only them"
# Cells are pretty-printed objects, one key a line: buffer each, and shift
# hits and misses by one where the policy is lru.
awk '
  /^    \{/ { inCell = 1; n = 0 }
  inCell { cell[++n] = $0
    if ($0 ~ /^    \}/) {
      lru = 0
      for (i = 1; i <= n; i++) if (cell[i] ~ /"policy" : "lru",/) lru = 1
      for (i = 1; i <= n; i++) {
        line = cell[i]
        if (lru && match(line, /"(hits|misses)" : [0-9]+/)) {
          split(substr(line, RSTART, RLENGTH), kv, " : ")
          value = kv[2] + (kv[1] == "\"misses\"" ? 1 : -1)
          line = substr(line, 1, RSTART - 1) kv[1] " : " value substr(line, RSTART + RLENGTH)
        }
        print line
      }
      lru_cells += lru; inCell = 0
    }
    next }
  { print }
  END { print lru_cells > "/dev/stderr" }
' results/baseline.json > "$scratch/baseline.json" 2> "$scratch/lru-cells"
expected=$(cat "$scratch/lru-cells")
[ "$expected" -gt 0 ] || { echo "error: results/baseline.json has no lru cell to change" >&2; exit 1; }
status=0
"$evlab" bench check --baseline "$scratch/baseline.json" > "$scratch/check.log" 2>&1 || status=$?
named=$(grep -c '^  lru on ' "$scratch/check.log" || true)
if [ $status -ne 1 ] || [ "$named" -ne "$expected" ] || grep -E '^  [^ ]+ on ' "$scratch/check.log" | grep -qv '^  lru on '; then
  cat "$scratch/check.log" >&2
  echo "error: bench check did not name exactly the $expected changed LRU cells (status $status, $named named)" >&2
  exit 1
fi
echo "caught: all $named LRU cells named, no other, e.g.: $(grep -m1 '^  lru on ' "$scratch/check.log")"

echo "== gate self-test 2: thresholds 1,000 allocations too low for one benchmark; the allocation gate must fail on it"
version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
victim=EvictionBenchmarks.disk-write-100KiB.p90.json
thresholds=$scratch/thresholds
cp -r "Benchmarks/Thresholds/$version" "$thresholds"
committed=$(sed -n 's/.*"mallocCountTotal" *: *\([0-9]*\).*/\1/p' "$thresholds/$victim")
[ "${committed:-0}" -gt 1000 ] || { echo "error: $victim allows ${committed:-no} allocations; pick a benchmark above 1,000" >&2; exit 1; }
printf '{\n  "mallocCountTotal" : %s\n}\n' $((committed - 1000)) > "$thresholds/$victim"
status=0
(cd Benchmarks && swift package benchmark thresholds check ci --path "$thresholds" --no-progress) \
  > "$scratch/alloc.log" 2>&1 || status=$?
if [ $status -eq 0 ] || [ $status -eq 4 ] || ! grep -q 'disk-write-100KiB' "$scratch/alloc.log"; then
  tail -30 "$scratch/alloc.log" >&2
  echo "error: the allocation gate passed thresholds 1,000 allocations below what $victim makes (status $status)" >&2
  exit 1
fi
echo "caught: status $status, $(grep -m1 -o 'Deviations worse than threshold for [^ ]*' "$scratch/alloc.log")"
echo "gate self-test: both gates fail on their faults"
