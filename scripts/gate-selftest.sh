#!/usr/bin/env bash
# Shows that both regression gates catch what they exist for, on scratch
# copies of the repository with a deliberate fault:
#   1. LRU promotes on every second hit only: `evlab bench check` must fail
#      and name LRU's cells;
#   2. the replay loop allocates once per request: the allocation gate
#      (scripts/allocation-gate.sh) must fail.
# Each copy builds from scratch in release mode (a few minutes). Exit 0 when
# both gates fail as they should.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

copy() {  # copy NAME: the tracked files into $scratch/NAME (built afresh: build folders do not move)
  local dest="$scratch/$1"
  mkdir -p "$dest"
  git ls-files -z | xargs -0 cp --parents -t "$dest"
  ln -s "$root/../shared" "$scratch/shared" 2>/dev/null || true
  echo "$dest"
}

echo "== gate self-test 1: LRU promotes on every second hit only; bench check must name its cells"
lru=$(copy lru)
sed -i 's/if Discipline.promotesOnHit { store.table.moveToFront(slot, \&queue) }/if Discipline.promotesOnHit \&\& request.time % 2 == 0 { store.table.moveToFront(slot, \&queue) }/' \
  "$lru/Sources/EvictionCore/Policies/QueuePolicy.swift"
grep -q "request.time % 2 == 0" "$lru/Sources/EvictionCore/Policies/QueuePolicy.swift" || { echo "error: the LRU fault was not injected" >&2; exit 1; }
(cd "$lru" && swift build -c release --product evlab > "$scratch/build.log" 2>&1) || { tail -20 "$scratch/build.log" >&2; echo "error: the scratch copy did not build" >&2; exit 1; }
status=0
(cd "$lru" && .build/release/evlab bench check --baseline results/baseline.json > "$scratch/check.log" 2>&1) || status=$?
if [ $status -ne 1 ] || ! grep -q "^  lru on " "$scratch/check.log"; then
  cat "$scratch/check.log" >&2
  echo "error: bench check did not catch the changed LRU (status $status)" >&2
  exit 1
fi
echo "caught: $(grep -c '^  lru on ' "$scratch/check.log") LRU cells named, e.g.: $(grep -m1 '^  lru on ' "$scratch/check.log")"
rm -rf "$lru"

echo "== gate self-test 2: one allocation per request in the replay loop; the allocation gate must fail"
alloc=$(copy alloc)
file="$alloc/Sources/EvictionSim/TraceReplay.swift"
sed -i 's/^\( *\)let hit = policy.access(request)/\1allocationProbe = [record.key]\n\1let hit = policy.access(request)/' "$file"
printf '\n/// Injected by scripts/gate-selftest.sh: one escaping allocation per request.\nnonisolated(unsafe) public var allocationProbe: [UInt64] = []\n' >> "$file"
grep -q "allocationProbe = \[record.key\]" "$file" || { echo "error: the allocation fault was not injected" >&2; exit 1; }
status=0
(cd "$alloc" && scripts/allocation-gate.sh > "$scratch/alloc.log" 2>&1) || status=$?
if [ $status -eq 0 ] || ! grep -q "allocation gate failed" "$scratch/alloc.log"; then
  tail -30 "$scratch/alloc.log" >&2
  echo "error: the allocation gate did not catch an allocation per request (status $status)" >&2
  exit 1
fi
echo "caught: $(grep -c '^Deviations worse than threshold' "$scratch/alloc.log") benchmarks over their allocation thresholds, e.g. $(grep -m1 '^Deviations worse than threshold' "$scratch/alloc.log")"
echo "gate self-test: both gates fail on their faults"
