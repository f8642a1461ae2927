#!/usr/bin/env bash
# Whole-process speed of evlab against libCacheSim's `cachesim`, same trace,
# same policies, runs interleaved in the same minutes: cloudPhysicsIO tiled
# 100 times (11.4 M requests; copy k's ids shifted by k·(max id + 1)) at
# 5,000 objects, count mode, medians of RUNS runs. Both read the same tiled
# oracleGeneral file. Writes results/versus-libcachesim/NAME.csv and .md.
#
#   scripts/versus-libcachesim.sh CACHESIM NAME "evlab-spec=libcachesim-name ..." [RUNS]
#   scripts/versus-libcachesim.sh ~/libCacheSim/_build/bin/cachesim new-in-035 \
#     "mq=mq lru-k=lru-k clock2qplus=clock2qplus car=CAR clock-pro=clockpro" 3
#
# CACHESIM is a libCacheSim build of your own (see docs in results/README.md:
# libCacheSim 0.3.5's C sources ship in PyPI's `libcachesim` source
# distribution). Run it on a quiet machine: nothing else should be running.
set -euo pipefail
cd "$(dirname "$0")/.."
cachesim=${1:?usage: scripts/versus-libcachesim.sh CACHESIM NAME "SPEC=ALGO ..." [RUNS]}
name=${2:?name of the output files}
pairs=${3:?policy pairs, e.g. "lru=lru car=CAR"}
runs=${4:-3}
[ -x "$cachesim" ] || { echo "error: $cachesim is not an executable cachesim" >&2; exit 1; }
trace=../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin
[ -f "$trace" ] || { echo "error: $trace missing: ../shared must sit beside the repository" >&2; exit 1; }
command -v python3 > /dev/null || { echo "error: python3 is needed to tile the trace" >&2; exit 1; }
swift build -c release -Xswiftc -enable-testing --product evlab > /dev/null
evlab=.build/release/evlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tiled=$work/cloudPhysicsIO-x100.oracleGeneral.bin
python3 - "$trace" "$tiled" << 'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
records = [struct.unpack_from('<IQIq', data, i) for i in range(0, len(data), 24)]
n, span = len(records), max(r[1] for r in records) + 1
with open(sys.argv[2], 'wb') as out:
    for k in range(100):
        out.write(b''.join(struct.pack('<IQIq', t, key + k * span, size, nxt + k * n if nxt >= 0 else -1)
                           for t, key, size, nxt in records))
EOF
seconds() {  # seconds COMMAND...: the command's wall time; its output kept in $work/out
  local start end
  start=$(date +%s.%N)
  "$@" > "$work/out" 2> /dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' 
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mkdir -p results/versus-libcachesim
csv=results/versus-libcachesim/$name.csv
echo "policy,libcachesim_algorithm,requests,evlab_misses,libcachesim_misses,libcachesim_seconds,evlab_seconds,ratio" > "$csv"
for pair in $pairs; do
  spec=${pair%=*}
  algorithm=${pair##*=}
  : > "$work/lcs" && : > "$work/ev"
  for _ in $(seq "$runs"); do
    seconds "$cachesim" "$tiled" oracleGeneral "$algorithm" 5000 --ignore-obj-size 1 >> "$work/lcs"
    lcs_line=$(grep -E "cache size +5000" "$work/out" | tail -1)
    seconds "$evlab" replay "$tiled" --format oracleGeneral --policy "$spec" --size 5000 --jobs 1 --csv - >> "$work/ev"
    ev_row=$(tail -1 "$work/out")
  done
  requests=$(echo "$ev_row" | cut -d, -f6)
  ev_misses=$(echo "$ev_row" | cut -d, -f8)
  # cachesim prints the miss ratio to 4 decimals: the misses it implies.
  lcs_ratio=$(echo "$lcs_line" | sed -E 's/.*miss ratio ([0-9.]+).*/\1/')
  lcs_misses=$(awk -v r="$lcs_ratio" -v n="$requests" 'BEGIN { printf "%.0f", r * n }')
  lcs_s=$(median < "$work/lcs")
  ev_s=$(median < "$work/ev")
  ratio=$(awk -v a="$lcs_s" -v b="$ev_s" 'BEGIN { printf "%.1f", a / b }')
  printf '%s,%s,%s,%s,%s,%.2f,%.2f,%s\n' "$spec" "$algorithm" "$requests" "$ev_misses" "$lcs_misses" "$lcs_s" "$ev_s" \
    "$ratio" >> "$csv"
  echo "$spec: libCacheSim ${lcs_s}s, evlab ${ev_s}s (${ratio}x)" >&2
done
{
  echo "# evlab against libCacheSim: $name"
  echo
  echo "cloudPhysicsIO tiled 100 times (11.4 M requests), 5,000 objects, count mode; whole process,"
  echo "medians of $runs interleaved runs. libCacheSim's misses are its printed 4-decimal miss ratio"
  echo "times the requests. Made by \`scripts/versus-libcachesim.sh $cachesim $name \"$pairs\" $runs\`"
  echo "with $($evlab --version) and $("$cachesim" --version 2> /dev/null | head -1 || true) on $(uname -srm), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)."
  echo
  echo "| policy | libCacheSim | evlab misses | libCacheSim misses (±0.5e-4) | libCacheSim s | evlab s | ratio |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  tail -n +2 "$csv" | awk -F, '{ printf "| `%s` | `%s` | %s | %s | %s | %s | %s× |\n", $1, $2, $4, $5, $6, $7, $8 }'
} > "results/versus-libcachesim/$name.md"
echo "wrote $csv and results/versus-libcachesim/$name.md" >&2
