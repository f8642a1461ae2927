#!/usr/bin/env bash
# The learned policies' speed (GL-Cache, LRB, 3L-Cache) against libCacheSim 0.3.5's, whole
# process, same trace and settings: each cell run by both tools in alternation, RUNS times (default 5),
# medians of wall-clock and CPU (user + system) seconds, and their ratio.
#
#   scripts/learned-speed.sh CACHESIM [RUNS] > results/learned/speed.md
#
# CACHESIM is libCacheSim 0.3.5's `cachesim` built with -DENABLE_GLCACHE=ON
# against Debian's libxgboost-dev 1.7.4 and -DENABLE_LRB=ON against LightGBM
# 4.6.0 (scripts/reference-glcache.sh and scripts/reference-lightgbm.sh say how; put
# LightGBM's lib_lightgbm.so on LD_LIBRARY_PATH); EVLAB (default .build/release/evlab) is this repository's release
# build; SHARED (default ../shared) holds traces/. Both replay one cache size
# per process, libCacheSim with --num-thread 1. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cachesim=${1:?usage: scripts/learned-speed.sh CACHESIM [RUNS]}
runs=${2:-5}
evlab=${EVLAB:-.build/release/evlab}
shared=${SHARED:-../shared}
exec python3 - "$cachesim" "$evlab" "$shared" "$runs" <<'PY'
import os, statistics, subprocess, sys, time

cachesim, evlab, shared, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
traces = shared + "/traces/libcachesim/"
# policy, trace, size mode, size, parameters (GL-Cache's retrain-intvl of 86400,
# libCacheSim's default, is never reached on these traces; LRB and 3L-Cache
# train on twitter_cluster52 and never on cloudPhysicsIO, shorter than a batch)
cells = [
    ("glcache", "cloudPhysicsIO.oracleGeneral.bin", "count", 10000, "retrain-intvl=600"),
    ("glcache", "cloudPhysicsIO.oracleGeneral.bin", "bytes", 1073741824, "retrain-intvl=600"),
    ("glcache", "twitter_cluster52.oracleGeneral.zst", "count", 50000, "retrain-intvl=60"),
    ("glcache", "twitter_cluster52.oracleGeneral.zst", "bytes", 16777216, "retrain-intvl=60"),
    ("glcache", "twitter_cluster52.oracleGeneral.zst", "count", 50000, "retrain-intvl=86400"),
    ("lrb", "twitter_cluster52.oracleGeneral.zst", "count", 1000, ""),
    ("lrb", "twitter_cluster52.oracleGeneral.zst", "count", 10000, ""),
    ("lrb", "twitter_cluster52.oracleGeneral.zst", "bytes", 4194304, ""),
    ("lrb", "cloudPhysicsIO.oracleGeneral.bin", "count", 10000, ""),
    ("3lcache", "twitter_cluster52.oracleGeneral.zst", "count", 1000, ""),
    ("3lcache", "twitter_cluster52.oracleGeneral.zst", "count", 10000, ""),
    ("3lcache", "twitter_cluster52.oracleGeneral.zst", "bytes", 4194304, ""),
]

def timed(argv):
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)

version = subprocess.run([evlab, "--version"], capture_output=True, text=True).stdout.strip()
print("# Learned policies: EvictionLab against libCacheSim 0.3.5\n")
print(f"`scripts/learned-speed.sh CACHESIM {runs}`: {version}, and libCacheSim 0.3.5's `cachesim` built with")
print("XGBoost 1.7.4 (Debian's libxgboost-dev) for GL-Cache and LightGBM 4.6.0 for LRB and 3L-Cache. Whole processes, one")
print(f"cache size each, run in alternation; medians of {runs} runs. CPU is user + system seconds. Ratio:")
print("EvictionLab / libCacheSim.\n")
print("| policy | trace | size | parameters | libCacheSim wall | evlab wall | wall ratio | libCacheSim CPU | evlab CPU | CPU ratio |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
names = {"glcache": "GLCache", "lrb": "LRB", "3lcache": "3LCache"}
for policy, trace, mode, size, params in cells:
    path = traces + trace
    theirs = [cachesim, path, "oracleGeneral", names[policy], str(size), "--ignore-obj-size", "1" if mode == "count" else "0",
              "--num-thread", "1"] + (["-e", params] if params else [])
    ours = [evlab, "replay", path, "--policy", f"{policy}:{params}" if params else policy, "--size", str(size),
            "--size-mode", mode, "--csv", "/dev/null"]
    lcs, evl = [], []
    for _ in range(runs):
        lcs.append(timed(theirs))
        evl.append(timed(ours))
    lw, lc = statistics.median(w for w, _ in lcs), statistics.median(c for _, c in lcs)
    ew, ec = statistics.median(w for w, _ in evl), statistics.median(c for _, c in evl)
    label = f"{size:,} objects" if mode == "count" else f"{size // 1048576:,} MiB"
    print(f"| {policy} | {trace.split('.')[0]} | {label} | {params or 'defaults'} | {lw:.3f} s | {ew:.3f} s | {ew / lw:.2f} | {lc:.3f} s | {ec:.3f} s | {ec / lc:.2f} |")
PY
