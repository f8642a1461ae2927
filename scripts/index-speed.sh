#!/usr/bin/env bash
# Replay speed of two builds, whole process, interleaved: for each policy and
# trace, OLD and NEW run alternately RUNS times; the table gives each build's
# median seconds and the ratio new/old. Builds are evlab binaries built the
# same way (swift build -c release -Xswiftc -enable-testing --product evlab).
#
#   scripts/index-speed.sh OLD_EVLAB NEW_EVLAB [RUNS] > results/index-speed/README.md
#
# Traces: cloudPhysicsIO (oracleGeneral, from ../shared) tiled 100 times at
# 5,000 objects, and the ARC paper's P12 converted to oracleGeneral at
# 1,000,000 objects.
set -euo pipefail
old=$1 new=$2 runs=${3:-5}
shared=$(cd "$(dirname "$0")/../.." && pwd)/shared
cloud=$shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin
p12=${TMPDIR:-/tmp}/P12.oracleGeneral.bin
[ -s "$p12" ] || "$new" convert "$shared/traces/arc/P12.lis.zst" --to oracleGeneral -o "$p12" >/dev/null
policies="lru arc car 2q s3fifo sieve wtinylfu"
seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "# Replay speed, old and new builds interleaved"
echo
commit() { git -C "$(dirname "$1")/../.." rev-parse --short HEAD 2>/dev/null || echo unknown; }
echo "\`scripts/index-speed.sh OLD NEW $runs\` with OLD built at $(commit "$old") and NEW at $(commit "$new"), $(date -u +%Y-%m-%d), $(nproc) cores: medians of $runs runs each, old and new alternating, whole process (\`evlab replay TRACE --policy P --size N --jobs 1\`)."
echo
echo "| trace | size | policy | old (s) | new (s) | new/old |"
echo "|---|---:|---|---:|---:|---:|"
for setting in "cloudPhysicsIO×100|$cloud|5000|--repeat 100" "P12|$p12|1000000|"; do
  IFS='|' read -r name trace size extra <<<"$setting"
  for policy in $policies; do
    o=() n=()
    for _ in $(seq "$runs"); do
      # shellcheck disable=SC2086
      o+=("$(seconds "$old" replay "$trace" --policy "$policy" --size "$size" --jobs 1 $extra)")
      # shellcheck disable=SC2086
      n+=("$(seconds "$new" replay "$trace" --policy "$policy" --size "$size" --jobs 1 $extra)")
    done
    mo=$(printf '%s\n' "${o[@]}" | median) mn=$(printf '%s\n' "${n[@]}" | median)
    printf '| %s | %s | %s | %.3f | %.3f | %.3f |\n' "$name" "$size" "$policy" "$mo" "$mn" "$(echo "$mn / $mo" | bc -l)"
  done
done
