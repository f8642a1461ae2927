#!/usr/bin/env bash
# Regenerates results/reference/libcachesim_035_adaptsize.tsv: libCacheSim
# 0.3.5's exact counters in byte mode on the AdaptSize trace
# (../shared/traces/caffeine/adapt_size/request.trace.xz, `time id size` per
# line) with its size changes kept: 66,987 requests, 36,815 ids, 4,876 requests
# whose size differs from the id's previous one (1,079 ids change size).
#
#   scripts/reference-adaptsize.sh CACHESIM [EXTRA_CACHESIM] > results/reference/libcachesim_035_adaptsize.tsv
#
# CACHESIM is libCacheSim 0.3.5's `cachesim` (PyPI sdist libcachesim==0.3.5,
# its src/libCacheSim built with CMake, -DCMAKE_BUILD_TYPE=Release). cachesim
# prints miss ratios with 4 decimals only, which is not enough: the script
# reads exact counters from one added line. In bin/cachesim/main.c, in the
# loop over the results, right after `printf("%s", output_str);`, add
#
#   printf("EXACT %s %ld n_req %lld n_miss %lld n_req_byte %lld n_miss_byte %lld\n",
#          result[i].cache_name, (long)result[i].cache_size, (long long)result[i].n_req,
#          (long long)result[i].n_miss, (long long)result[i].n_req_byte, (long long)result[i].n_miss_byte);
#
# and rebuild (`make cachesim`). Nothing else changes. (cachesim prints that
# loop only when it runs more than one cache, so every line below asks for at
# least two sizes.)
#
# EXTRA_CACHESIM (optional) is the same build with seven policies 0.3.5 has
# but its cachesim does not offer: sr_lru, cr_lfu and mru (compiled into the
# library, missing from bin/cachesim/cache_init.h's table of names) and sfifo,
# lp-arc, lp-twoq and lp-sfifo (sources in cache/eviction/fifo/, not even
# compiled). To build it: add eviction/fifo/LP_ARC.c, LP_SFIFO.c, LP_TwoQ.c and
# SFIFO.c to the C sources in libCacheSim/cache/CMakeLists.txt; in
# bin/cachesim/cache_init.h declare LP_ARC_init, LP_SFIFO_init and LP_TwoQ_init
# (same signature as the other *_init) and add to the table of names
# {"mru", MRU_init}, {"sr_lru", SR_LRU_init}, {"cr_lfu", CR_LFU_init},
# {"sfifo", SFIFO_init}, {"lp-arc", LP_ARC_init}, {"lp-twoq", LP_TwoQ_init},
# {"lp-sfifo", LP_SFIFO_init}. Without it those rows are left out.
#
# The trace is converted with EvictionLab's csv reader, key = the id column,
# so a request keeps its own size: NOT with `--format adapt-size`, whose key is
# the (id, size) pair (as Caffeine reads the trace), which leaves no size
# change at all. EVLAB (default .build/release/evlab) does the conversion;
# the file's name must contain "oracleGeneral" (cachesim's belady insists).
# SHARED (default ../shared) is the folder holding traces/.
#
# Sizes: 0.1%, 1%, 10% and 50% of the bytes footprint (278,854,232 bytes, each
# id at its first size): 280,000, 2,800,000, 28,000,000 and 140,000,000 bytes.
# Where 0.3.5 itself fails: lfuda at 280,000 bytes does not terminate and
# CAR crashes there (both left out); lp-arc crashes (segmentation fault) at
# 280,000 and 2,800,000 bytes, because its get evicts for an object larger
# than the whole cache without asking can_insert, so it is measured at
# 5,000,000 and 10,000,000 bytes instead (the largest object is 4,092,928
# bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
cachesim=${1:?usage: scripts/reference-adaptsize.sh CACHESIM [EXTRA_CACHESIM]}
extra=${2:-}
evlab=${EVLAB:-.build/release/evlab}
shared=${SHARED:-../shared}
source_trace=$shared/traces/caffeine/adapt_size/request.trace.xz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace=$work/adapt_size_ids.oracleGeneral.bin
"$evlab" convert "$source_trace" --format csv --key-column 2 --size-column 3 --time-column 1 --header no \
  --delimiter ' ' --to oracleGeneral -o "$trace" >&2

sizes=280000,2800000,28000000,140000000
# algorithm|eviction params|sizes (empty: $sizes)|binary (main or extra)
runs=(
  "lru|||main" "fifo|||main" "lfu|||main" "mru|||extra" "cr_lfu|||extra" "sr_lru|||extra"
  "arc|||main" "lp-arc||5000000,10000000,28000000,140000000|extra"
  "slru|||main" "sfifo|||extra" "lp-sfifo|||extra"
  "clock|||main" "clock|n-bit-counter=2||main" "sieve|||main"
  "qdlp|||main" "s3fifod|||main" "2q|||main" "lp-twoq|||extra"
  "lfuda||2800000,28000000,140000000|main" "size|||main" "belady|||main"
  # Being changed by other branches; measured here all the same.
  "CAR||2800000,28000000,140000000|main" "clockpro|||main" "s3fifo|||main" "wtinyLFU|||main" "gdsf|||main" "fifo-merge|||main"
)

printf 'trace\tformat\talgorithm\teviction_params\tadmission\tadmission_params\tcache_size\tsize_mode'
printf '\tn_req\tn_miss\tn_req_byte\tn_miss_byte\tmiss_ratio_exact\tbyte_miss_ratio_exact\tcache_name\tmatch\tlibcachesim\n'
for run in "${runs[@]}"; do
  IFS='|' read -r algo params run_sizes which <<<"$run"
  binary=$cachesim
  if [ "$which" = extra ]; then
    [ -n "$extra" ] || { echo "skipping $algo: no EXTRA_CACHESIM" >&2; continue; }
    binary=$extra
  fi
  args=("$trace" oracleGeneral "$algo" "${run_sizes:-$sizes}" --ignore-obj-size 0)
  [ -n "$params" ] && args+=(-e "$params")
  echo "$binary ${args[*]}" >&2
  exact=$("$binary" "${args[@]}" 2>/dev/null | grep '^EXACT ' || true)
  [ -n "$exact" ] || { echo "error: $algo printed no EXACT line (crashed, or cachesim lacks the added line)" >&2; exit 1; }
  sort -k3,3n <<<"$exact" |
    awk -v algo="$algo" -v params="$params" 'BEGIN { OFS = "\t" }
      { printf "caffeine/adapt_size/request.trace.xz\tcsv\t%s\t%s\t\t\t%s\tbytes\t%s\t%s\t%s\t%s\t%.6f\t%.6f\t%s\texact\t0.3.5\n",
          algo, params, $3, $5, $7, $9, $11, $7 / $5, $11 / $9, $2 }'
done
