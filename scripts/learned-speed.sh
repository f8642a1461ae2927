#!/usr/bin/env bash
# GL-Cache's speed against libCacheSim 0.3.5's, whole process, same trace and
# settings: each cell run by both tools in alternation, RUNS times (default 5),
# medians of wall-clock and CPU (user + system) seconds, and their ratio.
#
#   scripts/learned-speed.sh CACHESIM [RUNS] > results/learned/speed.md
#
# CACHESIM is libCacheSim 0.3.5's `cachesim` built with -DENABLE_GLCACHE=ON
# against Debian's libxgboost-dev 1.7.4 (scripts/reference-glcache.sh says
# how); EVLAB (default .build/release/evlab) is this repository's release
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
# trace, size mode, size, retrain-intvl (86400: libCacheSim's default, never reached on these traces)
cells = [
    ("cloudPhysicsIO.oracleGeneral.bin", "count", 10000, 600),
    ("cloudPhysicsIO.oracleGeneral.bin", "bytes", 1073741824, 600),
    ("twitter_cluster52.oracleGeneral.zst", "count", 50000, 60),
    ("twitter_cluster52.oracleGeneral.zst", "bytes", 16777216, 60),
    ("twitter_cluster52.oracleGeneral.zst", "count", 50000, 86400),
]

def timed(argv):
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)

version = subprocess.run([evlab, "--version"], capture_output=True, text=True).stdout.strip()
print("# GL-Cache: EvictionLab against libCacheSim 0.3.5\n")
print(f"`scripts/learned-speed.sh CACHESIM {runs}`: {version}, and libCacheSim 0.3.5's `cachesim` built with")
print("XGBoost 1.7.4 (Debian's libxgboost-dev). Whole processes, one cache size each, run in alternation;")
print(f"medians of {runs} runs. CPU is user + system seconds. Ratio: EvictionLab / libCacheSim.\n")
print("| trace | size | retrain-intvl | libCacheSim wall | evlab wall | wall ratio | libCacheSim CPU | evlab CPU | CPU ratio |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for trace, mode, size, interval in cells:
    path = traces + trace
    theirs = [cachesim, path, "oracleGeneral", "GLCache", str(size), "--ignore-obj-size", "1" if mode == "count" else "0",
              "-e", f"retrain-intvl={interval}", "--num-thread", "1"]
    ours = [evlab, "replay", path, "--policy", f"glcache:retrain-intvl={interval}", "--size", str(size),
            "--size-mode", mode, "--csv", "/dev/null"]
    lcs, evl = [], []
    for _ in range(runs):
        lcs.append(timed(theirs))
        evl.append(timed(ours))
    lw, lc = statistics.median(w for w, _ in lcs), statistics.median(c for _, c in lcs)
    ew, ec = statistics.median(w for w, _ in evl), statistics.median(c for _, c in evl)
    label = f"{size:,} objects" if mode == "count" else f"{size // 1048576:,} MiB"
    print(f"| {trace.split('.')[0]} | {label} | {interval} s | {lw:.3f} s | {ew:.3f} s | {ew / lw:.2f} | {lc:.3f} s | {ec:.3f} s | {ec / lc:.2f} |")
PY
