#!/usr/bin/env bash
# Shows that both regression gates catch what they exist for, on one scratch
# copy of the repository carrying two deliberate, independent faults:
#   1. LRU promotes on every second hit only: `evlab bench check` must fail
#      and name LRU's cells (and MRU's, which shares the code; no other's);
#   2. the replay loop allocates once per request: the allocation gate
#      (scripts/allocation-gate.sh) must fail.
# Neither fault touches the other's measure: the first changes hits, not
# allocations; the second allocates, but changes no hit. So one release
# build serves both: the Benchmarks package builds the library once, and its
# `evlab` product from the same modules (two cold builds took about 6 minutes
# more). Exit 0 when both gates fail as they should.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

copy=$scratch/faults  # the tracked files, built afresh (build folders do not move)
mkdir -p "$copy"
git ls-files -z | xargs -0 cp --parents -t "$copy"
ln -s "$root/../shared" "$scratch/shared"

inject() {  # inject FILE SED-SCRIPT PROOF: edit FILE, then insist PROOF is in it
  sed -i "$2" "$copy/$1"
  grep -q "$3" "$copy/$1" || { echo "error: the fault was not injected into $1" >&2; exit 1; }
}
inject Sources/EvictionCore/Policies/QueuePolicy.swift \
  's/if Discipline.promotesOnHit { store.table.moveToFront(slot, \&queue) }/if Discipline.promotesOnHit \&\& request.time % 2 == 0 { store.table.moveToFront(slot, \&queue) }/' \
  "request.time % 2 == 0"
inject Sources/EvictionSim/TraceReplay.swift \
  's/^\( *\)let hit = policy.access(request)/\1allocationProbe = [record.key]\n\1let hit = policy.access(request)/' \
  "allocationProbe = \[record.key\]"
printf '\n/// Injected by scripts/gate-selftest.sh: one escaping allocation per request.\nnonisolated(unsafe) public var allocationProbe: [UInt64] = []\n' \
  >> "$copy/Sources/EvictionSim/TraceReplay.swift"

echo "== gate self-test: building the faulty copy (release)"
(cd "$copy/Benchmarks" && swift build -c release --product evlab > "$scratch/build.log" 2>&1) || {
  tail -20 "$scratch/build.log" >&2
  echo "error: the scratch copy did not build" >&2
  exit 1
}

echo "== gate self-test 1: LRU promotes on every second hit only; bench check must name its cells"
status=0
# One job: the second fault's probe is a global that parallel replays would race on.
(cd "$copy" && Benchmarks/.build/release/evlab bench check --baseline results/baseline.json --jobs 1 \
  > "$scratch/check.log" 2>&1) || status=$?
if [ $status -ne 1 ] || ! grep -q "^  lru on " "$scratch/check.log"; then
  cat "$scratch/check.log" >&2
  echo "error: bench check did not catch the changed LRU (status $status)" >&2
  exit 1
fi
# The fault sits in the queue code LRU shares with MRU (both promote on a
# hit); no other policy's cell may change.
if grep -E "^  [^ ]+ on " "$scratch/check.log" | grep -qvE "^  (lru|mru) on "; then
  cat "$scratch/check.log" >&2
  echo "error: bench check named cells of policies other than LRU and MRU, whose code did not change" >&2
  exit 1
fi
echo "caught: $(grep -c '^  lru on ' "$scratch/check.log") LRU cells and $(grep -c '^  mru on ' "$scratch/check.log") MRU cells named, no other, e.g.: $(grep -m1 '^  lru on ' "$scratch/check.log")"

echo "== gate self-test 2: one allocation per request in the replay loop; the allocation gate must fail"
status=0
(cd "$copy" && scripts/allocation-gate.sh > "$scratch/alloc.log" 2>&1) || status=$?
if [ $status -eq 0 ] || ! grep -q "allocation gate failed" "$scratch/alloc.log"; then
  tail -30 "$scratch/alloc.log" >&2
  echo "error: the allocation gate did not catch an allocation per request (status $status)" >&2
  exit 1
fi
echo "caught: $(grep -c '^Deviations worse than threshold' "$scratch/alloc.log") benchmarks over their allocation thresholds, e.g. $(grep -m1 '^Deviations worse than threshold' "$scratch/alloc.log")"
echo "gate self-test: both gates fail on their faults"
