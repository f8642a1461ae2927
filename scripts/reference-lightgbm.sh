#!/usr/bin/env bash
# Regenerates results/reference/libcachesim_035_lightgbm.tsv: libCacheSim 0.3.5's
# LRB and 3L-Cache (objective byte-miss-ratio, their default), which train on
# LightGBM, on the shared traces. EvictionLab's train on XGBoost: where they
# train, the rows are compared, not matched; where they never train (too few
# labelled samples: all of cloudPhysicsIO, the largest Twitter cache) both
# tools are LRU and must agree to the miss (docs/learned-policies.md).
#
#   scripts/reference-lightgbm.sh CACHESIM > results/reference/libcachesim_035_lightgbm.tsv
#
# CACHESIM is libCacheSim 0.3.5's `cachesim` (PyPI sdist libcachesim==0.3.5, its
# src/libCacheSim built with CMake, -DCMAKE_BUILD_TYPE=Release -DENABLE_LRB=ON
# -DENABLE_3L_CACHE=ON -DENABLE_GLCACHE=ON, against LightGBM 4.6.0 built from
# PyPI's lightgbm sdist (docs/learned-policies.md gives the commands), with
# the one added line that prints exact counters (scripts/reference-adaptsize.sh
# says where). SHARED (default ../shared) is the folder holding traces/.
set -euo pipefail
cd "$(dirname "$0")/.."
cachesim=${1:?usage: scripts/reference-lightgbm.sh CACHESIM}
shared=${SHARED:-../shared}
# algorithm|trace (under traces/)|size mode|sizes
runs=()
for algorithm in LRB 3LCache; do
  runs+=(
    "$algorithm|libcachesim/cloudPhysicsIO.oracleGeneral.bin|count|1000,5000,10000"
    "$algorithm|libcachesim/cloudPhysicsIO.oracleGeneral.bin|bytes|67108864,268435456,1073741824"
    "$algorithm|libcachesim/twitter_cluster52.oracleGeneral.zst|count|1000,10000,50000"
    "$algorithm|libcachesim/twitter_cluster52.oracleGeneral.zst|bytes|1048576,4194304,16777216"
  )
done
printf 'trace\tformat\talgorithm\teviction_params\tadmission\tadmission_params\tcache_size\tsize_mode'
printf '\tn_req\tn_miss\tn_req_byte\tn_miss_byte\tmiss_ratio_exact\tbyte_miss_ratio_exact\tcache_name\tmatch\tlibcachesim\n'
for run in "${runs[@]}"; do
  IFS='|' read -r algorithm trace mode sizes <<<"$run"
  ignore=1
  [ "$mode" = bytes ] && ignore=0
  args=("$shared/traces/$trace" oracleGeneral "$algorithm" "$sizes" --ignore-obj-size "$ignore")
  echo "$cachesim ${args[*]}" >&2
  exact=$("$cachesim" "${args[@]}" 2>/dev/null | grep '^EXACT ' || true)
  [ -n "$exact" ] || { echo "error: cachesim printed no EXACT line (crashed, or lacks the added line)" >&2; exit 1; }
  sort -k3,3n <<<"$exact" |
    awk -v trace="$trace" -v mode="$mode" -v algorithm="$algorithm" 'BEGIN { OFS = "\t" }
      { printf "%s\toracleGeneral\t%s\t\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t%.6f\t%.6f\t%s\tlightgbm\t0.3.5+lightgbm-4.6.0\n",
          trace, algorithm, $3, mode, $5, $7, $9, $11, $7 / $5, $11 / $9, $2 }'
done
