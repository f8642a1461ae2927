#!/usr/bin/env bash
# Regenerates results/reference/libcachesim_035_first_batch.tsv: a digest of the
# first training batch libCacheSim 0.3.5's LRB and 3L-Cache build on the Twitter
# trace (FNV-1a over the dense rows' float bits, then the labels'). EvictionLab's
# must be the same batch, row for row (Tests/EvictionLearnedTests/LightGBMReferenceTests.swift):
# the same samples drawn, labelled at the same requests, with the same features.
#
#   scripts/reference-first-batch.sh CACHESIM > results/reference/libcachesim_035_first_batch.tsv
#
# CACHESIM is the `cachesim` of scripts/reference-lightgbm.sh built with
# scripts/reference/lightgbm_first_batch.patch applied in src/libCacheSim
# (`patch -p1 < .../lightgbm_first_batch.patch`), which prints the digest at
# the first training; put LightGBM's lib_lightgbm.so on LD_LIBRARY_PATH.
# SHARED (default ../shared) holds traces/.
set -euo pipefail
cd "$(dirname "$0")/.."
cachesim=${1:?usage: scripts/reference-first-batch.sh CACHESIM}
shared=${SHARED:-../shared}
trace=libcachesim/twitter_cluster52.oracleGeneral.zst
printf 'algorithm\ttrace\tsize_mode\tcache_size\trows\tdigest\n'
for algorithm in LRB 3LCache; do
  for cell in count:1000 count:10000 bytes:1048576; do
    mode=${cell%%:*}
    size=${cell#*:}
    ignore=1
    [ "$mode" = bytes ] && ignore=0
    echo "$cachesim $shared/traces/$trace oracleGeneral $algorithm $size --ignore-obj-size $ignore" >&2
    line=$("$cachesim" "$shared/traces/$trace" oracleGeneral "$algorithm" "$size" --ignore-obj-size "$ignore" 2>&1 |
      grep -o 'FIRSTBATCH .*' || true)
    [ -n "$line" ] || { echo "error: no FIRSTBATCH line (is the patch applied?)" >&2; exit 1; }
    read -r _ _ _ rows _ digest <<<"$line"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$algorithm" "$trace" "$mode" "$size" "$rows" "$digest"
  done
done
