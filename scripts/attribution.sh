#!/usr/bin/env bash
# Miss attribution's committed examples and its cost (docs/miss-attribution.md),
# into results/attribution/:
#   - a comparison with attribution = true on the zipf trace and cloudPhysicsIO
#     (results.csv, report.md, report.html, figures/causes-*);
#   - the life of key 300 of the zipf trace under LRU and S3-FIFO at 500 objects
#     (explain-lru.txt, explain-s3fifo.txt) and the regret of both cells (regret-zipf-500.json);
#   - cost.md: replay with and without --attribution, whole processes,
#     interleaved, median of 5 each, on cloudPhysicsIO tiled 100 times at 5,000 objects.
# Run it on a quiet machine (the cost is a wall-clock figure).
#
#   scripts/attribution.sh [EVLAB]
set -euo pipefail
cd "$(dirname "$0")/.."
evlab=${1:-.build/release/evlab}
zipf=traces/zipf-0.9.oracleGeneral.zst
cloud=../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin
[ -x "$evlab" ] || { echo "error: $evlab is not built; run swift build -c release first" >&2; exit 1; }
[ -f "$cloud" ] || { echo "error: $cloud is missing; ../shared holds the traces" >&2; exit 1; }
out=results/attribution
rm -rf "$out"
"$evlab" compare --trace "$zipf" --trace "$cloud" --policy fifo,lru,clock,arc,s3fifo,sieve,lfu,wtinylfu,belady \
  --size 1%,10% --attribution --name attribution --output "$out"
for policy in lru s3fifo; do
  "$evlab" explain "$zipf" --policy "$policy" --size 500 --key 300 --events 40 > "$out/explain-$policy.txt"
done
"$evlab" replay "$zipf" --policy lru,s3fifo --size 500 --attribution --regret "$out/regret-zipf-500.json" >/dev/null

seconds() { /usr/bin/time -f %e "$evlab" replay "$cloud" --policy "$1" --size 5000 --jobs 1 --repeat 100 "${@:2}" 2>&1 >/dev/null | tail -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rows=""
for policy in lru s3fifo arc; do
  off=() on=()
  for _ in 1 2 3 4 5; do
    off+=("$(seconds "$policy")")
    on+=("$(seconds "$policy" --attribution)")
  done
  a=$(printf '%s\n' "${off[@]}" | median)
  b=$(printf '%s\n' "${on[@]}" | median)
  rows+="| \`$policy\` | $a | $b | $(awk -v b="$b" -v a="$a" 'BEGIN { printf "%.1f", b / a }') |"$'\n'
done
cat > "$out/cost.md" <<MD
# What miss attribution costs

\`replay cloudPhysicsIO.oracleGeneral.bin --size 5000 --jobs 1 --repeat 100\`
(the trace tiled 100 times: 11.4 million requests) with and without
\`--attribution\`: whole processes, interleaved, median of 5 seconds
each. With it, the run replays Belady at the same size first (its bits are
shared by every policy of a sweep at that size), then the policy through the
attributing loop (boxed, every eviction seen, a record per object).

| policy | without (s) | with \`--attribution\` (s) | ratio |
| --- | ---: | ---: | ---: |
$rows
Made by \`scripts/attribution.sh\` with $("$evlab" --version) on $(nproc) cores.
MD
cat "$out/cost.md"
