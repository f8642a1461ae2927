#!/usr/bin/env bash
# Regenerates results/reference/libcachesim_035_lrb.tsv: libCacheSim 0.3.5's LRB
# (objective byte-miss-ratio, its default) on the shared traces. On
# cloudPhysicsIO (113,872 requests, fewer than one training batch of 131,072
# labelled samples) it never trains and is LRU: those rows are marked `exact`,
# and EvictionLab's lrb must match them miss for miss. On twitter_cluster52
# (1 M requests) it trains on LightGBM; EvictionLab's trains on XGBoost, so
# those rows (`lightgbm`) are compared, not matched (docs/learned-policies.md).
#
#   scripts/reference-lrb.sh CACHESIM > results/reference/libcachesim_035_lrb.tsv
#
# CACHESIM is libCacheSim 0.3.5's `cachesim` (PyPI sdist libcachesim==0.3.5, its
# src/libCacheSim built with CMake, -DCMAKE_BUILD_TYPE=Release -DENABLE_LRB=ON
# -DENABLE_3L_CACHE=ON -DENABLE_GLCACHE=ON, against LightGBM 4.6.0 built from
# PyPI's lightgbm sdist (docs/learned-policies.md gives the commands), with
# the one added line that prints exact counters (scripts/reference-adaptsize.sh
# says where). SHARED (default ../shared) is the folder holding traces/.
set -euo pipefail
cd "$(dirname "$0")/.."
cachesim=${1:?usage: scripts/reference-lrb.sh CACHESIM}
shared=${SHARED:-../shared}
# trace (under traces/)|size mode|sizes|match
runs=(
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|count|1000,5000,10000|exact"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|bytes|67108864,268435456,1073741824|exact"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|count|1000,10000,50000|lightgbm"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|bytes|1048576,4194304,16777216|lightgbm"
)
printf 'trace\tformat\talgorithm\teviction_params\tadmission\tadmission_params\tcache_size\tsize_mode'
printf '\tn_req\tn_miss\tn_req_byte\tn_miss_byte\tmiss_ratio_exact\tbyte_miss_ratio_exact\tcache_name\tmatch\tlibcachesim\n'
for run in "${runs[@]}"; do
  IFS='|' read -r trace mode sizes match <<<"$run"
  ignore=1
  [ "$mode" = bytes ] && ignore=0
  args=("$shared/traces/$trace" oracleGeneral LRB "$sizes" --ignore-obj-size "$ignore")
  echo "$cachesim ${args[*]}" >&2
  exact=$("$cachesim" "${args[@]}" 2>/dev/null | grep '^EXACT ' || true)
  [ -n "$exact" ] || { echo "error: cachesim printed no EXACT line (crashed, or lacks the added line)" >&2; exit 1; }
  sort -k3,3n <<<"$exact" |
    awk -v trace="$trace" -v mode="$mode" -v kind="$match" 'BEGIN { OFS = "\t" }
      { printf "%s\toracleGeneral\tLRB\t\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t%.6f\t%.6f\t%s\t%s\t0.3.5+lightgbm-4.6.0\n",
          trace, $3, mode, $5, $7, $9, $11, $7 / $5, $11 / $9, $2, kind }'
done
