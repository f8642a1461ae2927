#!/usr/bin/env bash
# Regenerates results/reference/libcachesim_035_s4fifo.tsv: S4-FIFO with fixed
# knobs (auto-tune=0) in libCacheSim, its S4FIFO files grafted onto release
# 0.3.5, on the shared traces in both size modes. The `s4fifo` policy must
# agree with every row to the miss (Tests/EvictionSimTests/S4FIFOTests.swift).
#
#   scripts/reference-s4fifo.sh S4FIFO_CHECKOUT LIBCACHESIM_035 > results/reference/libcachesim_035_s4fifo.tsv
#
# S4FIFO_CHECKOUT is a libCacheSim checkout holding
# libCacheSim/cache/eviction/S4FIFO/ (pull request #335, commit 3415e3d; no
# release has it yet). Only S4FIFO.c, S4FIFO_features.h and
# S4FIFO_predictor.h are taken: the data plane and the feature collector,
# not the learned model. LIBCACHESIM_035 is 0.3.5's src/libCacheSim (PyPI
# sdist libcachesim==0.3.5) with the one added line that prints exact
# counters (scripts/reference-adaptsize.sh says where). Neither folder is
# changed: the graft is made in a copy and built there with CMake
# (cmake, libglib2.0-dev and libzstd-dev, as 0.3.5 needs). SHARED (default
# ../shared) is the folder holding traces/; S4FIFO_COMMIT names the checkout's
# commit where it is not a git work tree (files exported from it).
#
# The graft, what 0.3.5 lacks for S4FIFO.c to build and run:
# - the S4FIFO member of cache_obj_t's metadata union (insert_seq, freq,
#   insert_bucket; cacheObj.h), S4FIFO_init declared (evictionAlgo.h) and
#   named `s4fifo` in cachesim's table (bin/cachesim/cache_init.h);
# - S4FIFO.c reads the trace length from common_cache_params_t.n_total_req,
#   which 0.3.5 does not have: 0 here (only a fractional
#   feature-collect-reqs reads it, and only with auto-tune on);
# - the learned model's two entry points (s4fifo_predict_auto,
#   s4fifo_dump_features76) are stubs that predict nothing: every row here
#   passes auto-tune=0, which never reaches them.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=${1:?usage: scripts/reference-s4fifo.sh S4FIFO_CHECKOUT LIBCACHESIM_035}
release=${2:?usage: scripts/reference-s4fifo.sh S4FIFO_CHECKOUT LIBCACHESIM_035}
shared=${SHARED:-../shared}
source_dir=$checkout/libCacheSim/cache/eviction/S4FIFO
for file in S4FIFO.c S4FIFO_features.h S4FIFO_predictor.h; do
  [ -f "$source_dir/$file" ] || { echo "error: $source_dir/$file is missing: S4FIFO_CHECKOUT must be a libCacheSim checkout with pull request #335" >&2; exit 1; }
done
grep -q '^    printf("EXACT ' "$release/libCacheSim/bin/cachesim/main.c" ||
  { echo "error: $release lacks the EXACT line in bin/cachesim/main.c (scripts/reference-adaptsize.sh says where)" >&2; exit 1; }
checkout_commit=${S4FIFO_COMMIT:-$(git -C "$checkout" rev-parse --short HEAD 2> /dev/null || echo unknown)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$release" "$work/src"
rm -rf "$work/src/_build"
src=$work/src/libCacheSim
mkdir -p "$src/cache/eviction/S4FIFO"
cp "$source_dir"/S4FIFO.c "$source_dir"/S4FIFO_features.h "$source_dir"/S4FIFO_predictor.h "$src/cache/eviction/S4FIFO/"
sed -i 's/ccache_params\.n_total_req/0/' "$src/cache/eviction/S4FIFO/S4FIFO.c"
cat > "$src/cache/eviction/S4FIFO/model_stub.c" << 'EOF'
// The learned model is not part of this reference build: no prediction.
#include "S4FIFO_predictor.h"
bool s4fifo_predict_auto(const S4FIFO_feature_vector_t *fv, const char *model_path, S4FIFOConfigEntry *out) {
  return false;
}
bool s4fifo_dump_features76(const S4FIFO_feature_vector_t *fv, double *out76) { return false; }
EOF
python3 - "$src" << 'EOF'
import sys, pathlib
src = pathlib.Path(sys.argv[1])
def edit(path, anchor, text, after=True):
    p = src / path
    body = p.read_text()
    assert body.count(anchor) == 1, f"{path}: anchor {anchor!r} not found once"
    p.write_text(body.replace(anchor, anchor + text if after else text + anchor))
edit("include/libCacheSim/cacheObj.h", "// ############################## cache obj",
     "typedef struct {\n  int64_t insert_seq;\n  int32_t freq;\n  int32_t insert_bucket;\n} S4FIFO_obj_metadata_t;\n\n",
     after=False)
edit("include/libCacheSim/cacheObj.h", "    S3FIFO_obj_metadata_t S3FIFO;\n", "    S4FIFO_obj_metadata_t S4FIFO;\n")
edit("include/libCacheSim/evictionAlgo.h",
     "cache_t *S3FIFOv0_init(const common_cache_params_t ccache_params,\n                       const char *cache_specific_params);\n",
     "cache_t *S4FIFO_init(const common_cache_params_t ccache_params,\n                     const char *cache_specific_params);\n")
edit("bin/cachesim/cache_init.h", '      {"s3fifov0", S3FIFOv0_init},\n', '      {"s4fifo", S4FIFO_init},\n')
edit("cache/CMakeLists.txt", "        eviction/S3FIFOv0.c\n",
     "        eviction/S4FIFO/S4FIFO.c\n        eviction/S4FIFO/model_stub.c\n")
EOF
echo "building 0.3.5 with S4FIFO grafted (a few minutes)..." >&2
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release > "$work/cmake.log" 2>&1 ||
  { tail -20 "$work/cmake.log" >&2; exit 1; }
make -C "$work/build" -j"$(nproc)" cachesim > "$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }
cachesim=$work/build/bin/cachesim

# trace (under traces/)|size mode|sizes
traces=(
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|count|1000,5000,10000"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|bytes|67108864,268435456,1073741824"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|count|1000,10000,50000"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|bytes|1048576,4194304,16777216"
)
# knobs, as libCacheSim spells them: the defaults (S3-FIFO), each new knob
# alone, and four rows of the paper's configuration table
knobs=(
  "small-size-ratio=0.10,ghost-size-ratio=0.90,move-to-main-threshold=2,ghost-to-main-threshold=0,small-skip-ratio=0.00"
  "small-size-ratio=0.10,ghost-size-ratio=0.90,move-to-main-threshold=2,ghost-to-main-threshold=1,small-skip-ratio=0.00"
  "small-size-ratio=0.10,ghost-size-ratio=0.90,move-to-main-threshold=2,ghost-to-main-threshold=0,small-skip-ratio=0.50"
  "small-size-ratio=0.04,ghost-size-ratio=0.60,move-to-main-threshold=2,ghost-to-main-threshold=0,small-skip-ratio=0.80"
  "small-size-ratio=0.70,ghost-size-ratio=0.90,move-to-main-threshold=1,ghost-to-main-threshold=1,small-skip-ratio=0.25"
  "small-size-ratio=0.015,ghost-size-ratio=20.0,move-to-main-threshold=2,ghost-to-main-threshold=0,small-skip-ratio=0.05"
  "small-size-ratio=0.30,ghost-size-ratio=3.0,move-to-main-threshold=8,ghost-to-main-threshold=0,small-skip-ratio=0.90"
)
echo "# libCacheSim 0.3.5 with S4FIFO grafted from $checkout_commit (pull request #335); scripts/reference-s4fifo.sh"
printf 'trace\tformat\talgorithm\teviction_params\tadmission\tadmission_params\tcache_size\tsize_mode'
printf '\tn_req\tn_miss\tn_req_byte\tn_miss_byte\tmiss_ratio_exact\tbyte_miss_ratio_exact\tcache_name\tmatch\tlibcachesim\n'
for run in "${traces[@]}"; do
  IFS='|' read -r trace mode sizes <<< "$run"
  ignore=1
  [ "$mode" = bytes ] && ignore=0
  for knob in "${knobs[@]}"; do
    params="$knob,auto-tune=0"
    args=("$shared/traces/$trace" oracleGeneral s4fifo "$sizes" --ignore-obj-size "$ignore" -e "$params")
    echo "cachesim ${args[*]}" >&2
    exact=$("$cachesim" "${args[@]}" 2> /dev/null | grep '^EXACT ' || true)
    [ -n "$exact" ] || { echo "error: cachesim printed no EXACT line" >&2; exit 1; }
    sort -k3,3n <<< "$exact" |
      awk -v trace="$trace" -v mode="$mode" -v params="$knob" -v commit="$checkout_commit" 'BEGIN { OFS = "\t" }
        { printf "%s\toracleGeneral\ts4fifo\t%s\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t%.6f\t%.6f\t%s\texact\t0.3.5+s4fifo-%s\n",
            trace, params, $3, mode, $5, $7, $9, $11, $7 / $5, $11 / $9, $2, commit }'
  done
done
