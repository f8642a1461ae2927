#!/usr/bin/env bash
# Writes scripts/reference/libcachesim_035_ttl.tsv: exact counts of libCacheSim 0.3.5 built with
# -DSUPPORT_TTL=ON (and the one-line fix in scripts/reference/ttl-fix.patch, without which its TTL build
# crashes on the first expired object) on a generated trace with TTLs, for the policies whose lookup
# honours TTLs in libCacheSim, in both size modes. Tests/EvictionSimTests/TTLReplayTests.swift
# regenerates the same trace and checks every row.
#
#   scripts/ttl-reference.sh [LIBCACHESIM_SRC]
# LIBCACHESIM_SRC is src/libCacheSim of PyPI's libcachesim 0.3.5 source distribution; without it the
# script downloads it (pip download --no-deps --no-binary :all: libcachesim==0.3.5). Needs cmake, a C
# compiler, glib-2.0 and zstd headers, and a release build of evlab (swift build -c release).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=${1:-}
if [ -z "$src" ]; then
  (cd "$work" && pip download --no-deps --no-binary :all: libcachesim==0.3.5 -q && tar xzf libcachesim-0.3.5.tar.gz)
  src="$work/libcachesim-0.3.5/src/libCacheSim"
fi
cp -r "$src" "$work/src"
rm -rf "$work/src/_build"
patch -d "$work/src" -p1 < scripts/reference/ttl-fix.patch
mkdir "$work/build"
(cd "$work/build" && cmake -DSUPPORT_TTL=ON -DENABLE_TESTS=OFF -DCMAKE_BUILD_TYPE=Release "$work/src" > /dev/null &&
  make -j"$(nproc)" libCacheSim > /dev/null)
cc -O2 -DSUPPORT_TTL=1 -I"$work/src/libCacheSim/include" -I"$work/build/libCacheSim/include" \
  $(pkg-config --cflags glib-2.0) scripts/reference/lcs_ttl_driver.c "$work/build/liblibCacheSim.a" \
  $(pkg-config --libs glib-2.0) -lzstd -lm -lpthread -o "$work/driver"

# The trace: keep these parameters as the test regenerates them.
generate=(zipf --objects 2000 --requests 100000 --alpha 0.9 --seed 7 --ttl uniform:5-60
  --size-distribution uniform:100-10000)
.build/release/evlab generate "${generate[@]}" -o "$work/ttl.lcs"

out=scripts/reference/libcachesim_035_ttl.tsv
{
  echo "# libCacheSim 0.3.5, -DSUPPORT_TTL=ON with scripts/reference/ttl-fix.patch, through scripts/reference/lcs_ttl_driver.c"
  echo "# trace: evlab generate ${generate[*]} -o ttl.lcs (lcs version 3); objects without a TTL live 300 days, as in cachesim"
  printf 'policy\tsize_mode\tcache_size\tn_req\tn_miss\tn_req_byte\tn_miss_byte\tcache_name\n'
  for policy in lru fifo clock sieve lfu mru; do
    for mode in count bytes; do
      sizes=$([ "$mode" = count ] && echo 100,200,1000,1500 || echo 500000,1000000,5000000)
      "$work/driver" "$work/ttl.lcs" "$policy" "$mode" "$sizes" 2> /dev/null | grep -v DEBUG |
        while read -r size n_req n_miss n_req_byte n_miss_byte name; do
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$policy" "$mode" "$size" "$n_req" "$n_miss" "$n_req_byte" \
            "$n_miss_byte" "$name"
        done
    done
  done
} > "$out"
echo "wrote $out ($(grep -vc '^#' "$out") lines)"
