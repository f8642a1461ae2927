#!/usr/bin/env bash
# Whole-process speed and peak memory of evlab against libCacheSim's
# `cachesim`: the same trace, the same policies, runs interleaved in the
# same minutes, count mode, medians of RUNS runs. By default the trace is
# cloudPhysicsIO tiled 100 times (11.4 M requests; copy k's ids shifted by
# k·(max id + 1)) and the size 5,000 objects. Both tools read the same
# oracleGeneral file. Writes results/versus-libcachesim/NAME.csv and .md.
#
#   scripts/versus-libcachesim.sh [--sizes N,N...] [--trace FILE] [--tile K] \
#     CACHESIM NAME "evlab-spec=libcachesim-name ..." [RUNS]
#   scripts/versus-libcachesim.sh ~/libCacheSim/_build/bin/cachesim new-in-035 \
#     "mq=mq lru-k=lru-k clock2qplus=clock2qplus car=CAR clock-pro=clockpro" 3
#   scripts/versus-libcachesim.sh --sizes 5000,500000 ~/libCacheSim/_build/bin/cachesim large "lru=lru arc=arc"
#   scripts/versus-libcachesim.sh --trace ../shared/traces/arc/P12.lis.zst --tile 1 --sizes 1000000 \
#     ~/libCacheSim/_build/bin/cachesim p12 "lru=lru arc=arc"
#
# --sizes   cache sizes in objects, comma-separated (default 5000)
# --trace   any trace evlab reads (default ../shared's cloudPhysicsIO); evlab
#           converts it to oracleGeneral for both tools
# --tile    copies of the trace, ids shifted apart (default 100)
#
# Paths are taken from the repository's root (the script runs there).
#
# CACHESIM is a libCacheSim build of your own (docs/libcachesim.md says how:
# libCacheSim 0.3.5's C sources ship in PyPI's `libcachesim` source
# distribution). Run it on a quiet machine: nothing else should be running.
set -euo pipefail
cd "$(dirname "$0")/.."
usage='usage: scripts/versus-libcachesim.sh [--sizes N,N...] [--trace FILE] [--tile K] CACHESIM NAME "SPEC=ALGO ..." [RUNS]'
sizes=5000
source_trace=../shared/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin
tile=100
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) sizes=${2:?$usage}; shift 2 ;;
    --trace) source_trace=${2:?$usage}; shift 2 ;;
    --tile) tile=${2:?$usage}; shift 2 ;;
    --help | -h) echo "$usage"; exit 0 ;;
    --*) echo "error: unknown option $1; $usage" >&2; exit 1 ;;
    *) break ;;
  esac
done
cachesim=${1:?$usage}
name=${2:?name of the output files; $usage}
pairs=${3:?policy pairs, e.g. "lru=lru car=CAR"; $usage}
runs=${4:-3}
[ -x "$cachesim" ] || { echo "error: $cachesim is not an executable cachesim" >&2; exit 1; }
[ -f "$source_trace" ] || { echo "error: $source_trace missing (the default needs ../shared beside the repository)" >&2; exit 1; }
[[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "error: --sizes $sizes: give whole numbers of objects, such as 5000,500000" >&2; exit 1; }
[[ $tile =~ ^[1-9][0-9]*$ ]] && [ "$tile" -le 10000 ] || { echo "error: --tile $tile: give a whole number from 1 to 10000" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "error: RUNS $runs: give a positive whole number" >&2; exit 1; }
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || { echo "error: NAME $name: letters, digits, . _ - only (it names files)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "error: python3 is needed to tile the trace" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed for peak memory: apt install time" >&2; exit 1; }
swift build -c release -Xswiftc -enable-testing --product evlab > /dev/null
evlab=.build/release/evlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Both tools read one oracleGeneral file: the source as evlab reads it, tiled.
one=$work/source.oracleGeneral.bin
"$evlab" convert "$source_trace" --to oracleGeneral -o "$one" > /dev/null 2> "$work/convert" || { cat "$work/convert" >&2; exit 1; }
tiled=$work/tiled.oracleGeneral.bin
python3 - "$one" "$tiled" "$tile" << 'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
records = [struct.unpack_from('<IQIq', data, i) for i in range(0, len(data), 24)]
n, span, copies = len(records), max(r[1] for r in records) + 1, int(sys.argv[3])
with open(sys.argv[2], 'wb') as out:
    for k in range(copies):
        out.write(b''.join(struct.pack('<IQIq', t, key + k * span, size, nxt + k * n if nxt >= 0 else -1)
                           for t, key, size, nxt in records))
EOF
measure() {  # measure COMMAND...: "seconds peak-KiB" of the command; its output kept in $work/out
  if ! /usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out" 2> "$work/err"; then
    echo "error: this failed: $*" >&2
    tail -5 "$work/err" >&2
    exit 1
  fi
  cat "$work/time"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mkdir -p results/versus-libcachesim
csv=results/versus-libcachesim/$name.csv
# The first eight columns are the original file's; size and memory follow.
echo "policy,libcachesim_algorithm,requests,evlab_misses,libcachesim_misses,libcachesim_seconds,evlab_seconds,ratio,size,libcachesim_peak_mib,evlab_peak_mib,memory_ratio" > "$csv"
for pair in $pairs; do
  spec=${pair%=*}
  algorithm=${pair##*=}
  for size in ${sizes//,/ }; do
    : > "$work/lcs" && : > "$work/ev"
    for _ in $(seq "$runs"); do
      measure "$cachesim" "$tiled" oracleGeneral "$algorithm" "$size" --ignore-obj-size 1 >> "$work/lcs"
      lcs_line=$(grep -E "cache size +$size\b" "$work/out" | tail -1 || true)
      measure "$evlab" replay "$tiled" --format oracleGeneral --policy "$spec" --size "$size" --jobs 1 --csv - >> "$work/ev"
      ev_row=$(tail -1 "$work/out")
    done
    [ -n "$lcs_line" ] || { echo "error: cachesim printed no result for $algorithm at $size; is the name right?" >&2; exit 1; }
    requests=$(echo "$ev_row" | cut -d, -f6)
    ev_misses=$(echo "$ev_row" | cut -d, -f8)
    # cachesim prints the miss ratio to 4 decimals: the misses it implies.
    lcs_ratio=$(echo "$lcs_line" | sed -E 's/.*miss ratio ([0-9.]+).*/\1/')
    lcs_misses=$(awk -v r="$lcs_ratio" -v n="$requests" 'BEGIN { printf "%.0f", r * n }')
    lcs_s=$(cut -d' ' -f1 < "$work/lcs" | median)
    ev_s=$(cut -d' ' -f1 < "$work/ev" | median)
    lcs_mib=$(cut -d' ' -f2 < "$work/lcs" | median | awk '{ printf "%.0f", $1 / 1024 }')
    ev_mib=$(cut -d' ' -f2 < "$work/ev" | median | awk '{ printf "%.0f", $1 / 1024 }')
    # GNU time counts hundredths: a run too short to time gives no ratio.
    ratio=$(awk -v a="$lcs_s" -v b="$ev_s" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "n/a" }')
    memory=$(awk -v a="$ev_mib" -v b="$lcs_mib" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }')
    printf '%s,%s,%s,%s,%s,%.2f,%.2f,%s,%s,%s,%s,%s\n' "$spec" "$algorithm" "$requests" "$ev_misses" "$lcs_misses" \
      "$lcs_s" "$ev_s" "$ratio" "$size" "$lcs_mib" "$ev_mib" "$memory" >> "$csv"
    echo "$spec at $size: libCacheSim ${lcs_s}s ${lcs_mib} MiB, evlab ${ev_s}s ${ev_mib} MiB (${ratio}x faster, memory ${memory}x)" >&2
  done
done
requests=$(tail -1 "$csv" | cut -d, -f3 | sed -E ":a;s/([0-9])([0-9]{3})($|,)/\1,\2\3/;ta")
trace_words=$(basename "$source_trace")
if [ "$tile" -gt 1 ]; then trace_words+=" tiled $tile times"; fi
{
  echo "# evlab against libCacheSim: $name"
  echo
  echo "$trace_words ($requests requests), sizes $sizes objects, count mode; whole process,"
  echo "medians of $runs interleaved runs; peak memory is the process's maximum resident set. libCacheSim's"
  echo "misses are its printed 4-decimal miss ratio times the requests. Made by"
  echo "\`scripts/versus-libcachesim.sh --sizes $sizes --trace $source_trace --tile $tile $cachesim $name \"$pairs\" $runs\`"
  echo "with $($evlab --version)$(git diff --quiet HEAD -- Sources Package.swift 2> /dev/null || echo " and uncommitted changes to its sources") and $("$cachesim" --version 2> /dev/null | head -1 || true) on $(uname -srm), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)."
  echo
  echo "| policy | libCacheSim | size | evlab misses | libCacheSim misses (±0.5e-4) | libCacheSim s | evlab s | ratio | libCacheSim MiB | evlab MiB | memory |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  tail -n +2 "$csv" | awk -F, '{ printf "| `%s` | `%s` | %s | %s | %s | %s | %s | %s× | %s | %s | %s× |\n", $1, $2, $9, $4, $5, $6, $7, $8, $10, $11, $12 }'
} > "results/versus-libcachesim/$name.md"
echo "wrote $csv and results/versus-libcachesim/$name.md" >&2
