#!/usr/bin/env bash
# Shows that both regression gates fail on what they exist to catch, with no
# build of its own: each gate is run once more against a reference that the
# code no longer matches, and must fail and name what differs.
#   1. `evlab bench check` against a copy of results/baseline.json in which
#      every LRU cell has one hit fewer and one miss more: it must exit 1
#      and name exactly LRU's cells, no other policy's.
#   2. The instruction gate's judgement of the figures its check has just
#      measured (.build/instruction-gate/measured.csv), against thresholds
#      that put replay-lru 2 % over its instructions (the tolerance is 1 %)
#      and disk-mixed-100 one allocation per key over its allocations: it
#      must fail and name those two cells, no other.
# Run after the test build (.build/release/evlab) and scripts/instruction-gate.sh.
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

echo "== gate self-test 2: thresholds 2 % below replay-lru's instructions and one allocation per key below disk-mixed-100's; the instruction gate must name both, and only them"
measured=.build/instruction-gate/measured.csv
[ -f "$measured" ] || { echo "error: no $measured; run scripts/instruction-gate.sh first" >&2; exit 1; }
grep -q '^replay-lru,' "$measured" && grep -q '^disk-mixed-100,' "$measured" \
  || { echo "error: $measured has no replay-lru or disk-mixed-100 cell" >&2; exit 1; }
awk -F, -v OFS=, '
  $1 == "replay-lru" { $3 = sprintf("%.1f", $3 / 1.02) }
  $1 == "disk-mixed-100" { $4 = sprintf("%.3f", $4 - 1) }
  { print }' "$measured" > "$scratch/thresholds.csv"
status=0
scripts/instruction-gate.sh compare "$measured" "$scratch/thresholds.csv" > "$scratch/gate.log" 2>&1 || status=$?
flagged=$(grep -E 'SLOWER|MORE ALLOCATIONS|no threshold|not measured' "$scratch/gate.log" || true)
if [ $status -ne 1 ] || [ "$(echo "$flagged" | grep -c .)" -ne 2 ] \
  || ! echo "$flagged" | grep -q '^  replay-lru .*SLOWER' || ! echo "$flagged" | grep -q '^  disk-mixed-100 .*MORE ALLOCATIONS'; then
  cat "$scratch/gate.log" >&2
  echo "error: the instruction gate did not name exactly replay-lru (2 % slower) and disk-mixed-100 (one allocation more) (status $status)" >&2
  exit 1
fi
echo "caught: status 1, and only these:"
echo "$flagged"
echo "gate self-test: both gates fail on their faults"
