#!/usr/bin/env bash
# Regenerates results/reference/foo_optimalwebcaching.tsv: FOO's bounds as the
# authors' own tool computes them (Berger, Beckmann and Harchol-Balter,
# SIGMETRICS'18; github.com/dasebe/optimalwebcaching, OHRgoal/FOO), built
# outside the repository against Debian's LEMON (liblemon-dev) instead of the
# copy the repository bundles. evlab's FOO, with objects larger than the cache
# kept in the flow as the tool keeps them, must agree with every row: FOO-L's
# misses to 1e-6, FOO-U's exactly (Tests/EvictionSimTests/FlowBoundsTests.swift).
#
#   OPTIMALWEBCACHING=path/to/a/checkout scripts/reference-foo.sh > results/reference/foo_optimalwebcaching.tsv
#
# OPTIMALWEBCACHING is a checkout (or an export) of that repository; nothing is
# downloaded. Each trace is first written by `evlab convert` as the tool's
# 'time id size' text: every request's position, its key as evlab reads it,
# its size in bytes (byte mode) or 1 (count mode). The tool's foo takes the
# cache size and a pivot rule (0: block search, as evlab runs it) and writes
# one decision variable per request; FOO-U's hits are the requests whose
# interval it caches whole (a variable of exactly 1; sizes here are below
# 10^6 bytes, so six printed digits tell 1 from anything less).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
src=${OPTIMALWEBCACHING:?set OPTIMALWEBCACHING to a checkout of github.com/dasebe/optimalwebcaching}
scripts/ensure-deps.sh
command -v g++ > /dev/null || { echo "error: g++ is needed to build the authors' foo" >&2; exit 1; }
swift build -c release --product evlab > /dev/null
evlab=.build/release/evlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/OHRgoal" "$src/lib" "$work/"
rm -rf "$work/lib/lemon"  # Debian's LEMON, not the bundled copy
# The Makefile's -Werror trips on Debian LEMON's own warnings; its other flags are kept.
make -s -C "$work/OHRgoal/FOO" CXX=g++ CXXFLAGS="-std=c++11 -I.. -I../../lib -O3 -ffast-math -march=native" 2> /dev/null
foo="$work/OHRgoal/FOO/foo"
commit=${OPTIMALWEBCACHING_COMMIT:-$(git -C "$src" rev-parse --short=12 HEAD 2> /dev/null || echo "unknown")}

# trace (under traces/)|format|size mode|sizes
runs=(
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|oracleGeneral|bytes|20297697 202976972"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|oracleGeneral|count|1000 5000"
  "caffeine/adapt_size/request.trace.xz|adapt-size|bytes|912641 3042135"
  "caffeine/adapt_size/request.trace.xz|adapt-size|count|400 1000"
  "caffeine/lirs/multi3.trace.gz|lirs|count|100 1000"
)
echo "# FOO by the authors' tool (dasebe/optimalwebcaching $commit, OHRgoal/FOO, pivot rule 0) on Debian's LEMON $(dpkg-query -W -f='${Version}' liblemon-dev); made by scripts/reference-foo.sh with $($evlab --version)"
printf 'trace\tsize_mode\tcache_size\trequests\tfoo_lower_misses\tfoo_upper_misses\n'
for run in "${runs[@]}"; do
  IFS='|' read -r trace format mode sizes <<< "$run"
  text="$work/trace.txt"
  $evlab convert "$shared/traces/$trace" --format "$format" --to csv -o "$work/trace.csv" 2> /dev/null
  # time,key,size (evlab's CSV) -> 'position key size'
  awk -F, -v mode="$mode" 'NR > 1 { print NR - 2, $2, (mode == "count" ? 1 : $3) }' "$work/trace.csv" > "$text"
  requests=$(wc -l < "$text")
  for size in $sizes; do
    line=$("$foo" "$text" "$size" 0 "$work/decisions.txt" 2> /dev/null)
    hits_lower=$(awk '{ print $4 }' <<< "$line")
    hits_upper=$(awk '$4 == "1" { n++ } END { print n + 0 }' "$work/decisions.txt")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$trace" "$mode" "$size" "$requests" \
      "$(awk -v r="$requests" -v h="$hits_lower" 'BEGIN { printf "%.6f", r - h }')" $((requests - hits_upper))
  done
done
