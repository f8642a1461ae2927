#!/usr/bin/env bash
# Regenerates results/reference/libcachesim_035_glcache.tsv: libCacheSim 0.3.5's
# GL-Cache with its model trained. The shared reference rows
# (../shared/reference/libcachesim_035.tsv) run GL-Cache with its default
# retrain-intvl of 86,400 s on traces that span 7,200 s (cloudPhysicsIO) and
# 509 s (twitter_cluster52): it never trains there. These rows train it every
# 60 or 600 s of trace time, so XGBoost's trees decide the merges.
#
#   scripts/reference-glcache.sh CACHESIM > results/reference/libcachesim_035_glcache.tsv
#
# CACHESIM is libCacheSim 0.3.5's `cachesim` (PyPI sdist libcachesim==0.3.5,
# its src/libCacheSim built with CMake, -DCMAKE_BUILD_TYPE=Release
# -DENABLE_GLCACHE=ON, against Debian's libxgboost-dev 1.7.4), with the one
# added line that prints exact counters (scripts/reference-adaptsize.sh says
# where). SHARED (default ../shared) is the folder holding traces/.
set -euo pipefail
cd "$(dirname "$0")/.."
cachesim=${1:?usage: scripts/reference-glcache.sh CACHESIM}
shared=${SHARED:-../shared}
# trace (under traces/)|size mode|sizes|retrain-intvl
runs=(
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|count|1000,5000,10000|600"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|bytes|67108864,268435456,1073741824|600"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|count|1000,5000,10000|60"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|count|1000,10000,50000|60"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|bytes|1048576,4194304,16777216|60"
)
printf 'trace\tformat\talgorithm\teviction_params\tadmission\tadmission_params\tcache_size\tsize_mode'
printf '\tn_req\tn_miss\tn_req_byte\tn_miss_byte\tmiss_ratio_exact\tbyte_miss_ratio_exact\tcache_name\tmatch\tlibcachesim\n'
for run in "${runs[@]}"; do
  IFS='|' read -r trace mode sizes interval <<<"$run"
  ignore=1
  [ "$mode" = bytes ] && ignore=0
  args=("$shared/traces/$trace" oracleGeneral GLCache "$sizes" --ignore-obj-size "$ignore" -e "retrain-intvl=$interval")
  echo "$cachesim ${args[*]}" >&2
  exact=$("$cachesim" "${args[@]}" 2>/dev/null | grep '^EXACT ' || true)
  [ -n "$exact" ] || { echo "error: cachesim printed no EXACT line (crashed, or lacks the added line)" >&2; exit 1; }
  sort -k3,3n <<<"$exact" |
    awk -v trace="$trace" -v mode="$mode" -v params="retrain-intvl=$interval" 'BEGIN { OFS = "\t" }
      { printf "%s\toracleGeneral\tGLCache\t%s\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t%.6f\t%.6f\t%s\texact\t0.3.5+glcache\n",
          trace, params, $3, mode, $5, $7, $9, $11, $7 / $5, $11 / $9, $2 }'
done
