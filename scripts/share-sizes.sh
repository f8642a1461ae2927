#!/usr/bin/env bash
# What a size given as a share of the footprint (--size 1%) costs against the
# same cache given in objects: the footprint is one extra pass that counts
# distinct objects (TraceInfo.footprint). Whole processes, the two
# interleaved, median of 5 each, on P12 (13.2 million requests, 3.2 million
# objects). Writes results/share-sizes/README.md; run it on a quiet machine.
#
#   scripts/share-sizes.sh [EVLAB]
set -euo pipefail
cd "$(dirname "$0")/.."
evlab=${1:-.build/release/evlab}
trace=../shared/traces/arc/P12.lis.zst
[ -x "$evlab" ] || { echo "error: $evlab is not built; run swift build -c release first" >&2; exit 1; }
[ -f "$trace" ] || { echo "error: $trace is missing; ../shared holds the traces" >&2; exit 1; }
objects=$("$evlab" replay "$trace" --policy lru --size 1% --csv - 2>/dev/null | awk -F, 'NR == 2 { print $4 }')
seconds() { /usr/bin/time -f %e "$evlab" replay "$trace" --policy "$1" --size "$2" 2>&1 >/dev/null | tail -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rows=""
for policies in lru arc lru,arc,s3fifo; do
  share=() absolute=()
  for _ in 1 2 3 4 5; do
    absolute+=("$(seconds "$policies" "$objects")")
    share+=("$(seconds "$policies" 1%)")
  done
  a=$(printf '%s\n' "${absolute[@]}" | median)
  s=$(printf '%s\n' "${share[@]}" | median)
  rows+="| \`$policies\` | $a | $s | $(awk -v s="$s" -v a="$a" 'BEGIN { printf "%.2f", s / a }') |"$'\n'
done
mkdir -p results/share-sizes
cat > results/share-sizes/README.md <<MD
# A share of the footprint against the same size in objects

\`replay P12.lis.zst --size 1%\` against \`--size $objects\` (1% of P12's
distinct objects): whole processes, interleaved, median of 5 seconds each.
The difference is the pass that counts distinct objects before the replay.

| policies | \`--size $objects\` (s) | \`--size 1%\` (s) | ratio |
| --- | ---: | ---: | ---: |
$rows
Made by \`scripts/share-sizes.sh\` with $("$evlab" --version) on $(nproc) cores.
MD
cat results/share-sizes/README.md
