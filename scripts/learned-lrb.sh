#!/usr/bin/env bash
# LRB's miss ratios beside libCacheSim 0.3.5's (LightGBM) and LRU's, on every row
# of results/reference/libcachesim_035_lrb.tsv (scripts/reference-lrb.sh makes it).
#
#   scripts/learned-lrb.sh > results/learned/lrb.md
#
# EVLAB (default .build/release/evlab) is this repository's release build; SHARED
# (default ../shared) holds traces/.
set -euo pipefail
cd "$(dirname "$0")/.."
evlab=${EVLAB:-.build/release/evlab}
shared=${SHARED:-../shared}
exec python3 - "$evlab" "$shared" <<'PY'
import csv, io, subprocess, sys

evlab, shared = sys.argv[1], sys.argv[2]
with open("results/reference/libcachesim_035_lrb.tsv") as f:
    reference = list(csv.DictReader(f, delimiter="\t"))

def replay(trace, mode, sizes):
    run = subprocess.run([evlab, "replay", f"{shared}/traces/{trace}", "--policy", "lrb,lru", "--size", ",".join(sizes),
                          "--size-mode", mode, "--csv", "-"], capture_output=True, text=True, check=True)
    return {(r["policy"], r["cache_size"]): r for r in csv.DictReader(io.StringIO(run.stdout))}

version = subprocess.run([evlab, "--version"], capture_output=True, text=True).stdout.strip()
print("# LRB: EvictionLab (XGBoost) beside libCacheSim 0.3.5 (LightGBM)\n")
print(f"`scripts/learned-lrb.sh`: {version}; libCacheSim's rows from `results/reference/libcachesim_035_lrb.tsv`")
print("(`scripts/reference-lrb.sh`, libCacheSim 0.3.5 built with LightGBM 4.6.0). Object miss ratios; the")
print("objective is libCacheSim's default, byte-miss-ratio (`LRB-BMR`). `trainings` are EvictionLab's; a row")
print("with none is LRU in both tools, and the two must agree to the miss.\n")
print("| trace | size | LRU | libCacheSim LRB | EvictionLab LRB | misses, ours − theirs | trainings | agree |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
groups = {}
for row in reference:
    groups.setdefault((row["trace"], row["size_mode"]), []).append(row)
for (trace, mode), rows in groups.items():
    ours = replay(trace, mode, [r["cache_size"] for r in rows])
    for row in rows:
        size = row["cache_size"]
        lrb, lru = ours[("lrb", size)], ours[("lru", size)]
        theirs = int(row["n_miss"]) / int(row["n_req"])
        mine = int(lrb["misses"]) / int(lrb["requests"])
        label = f"{int(size):,} objects" if mode == "count" else f"{int(size) // 1048576:,} MiB"
        trained = int(lrb["trainings"])
        agree = "exact" if int(lrb["misses"]) == int(row["n_miss"]) else ("must match" if trained == 0 else "—")
        print(f"| {trace.split('/')[-1].split('.')[0]} | {label} | {float(lru['miss_ratio']):.4f} | {theirs:.4f} "
              f"| {mine:.4f} | {int(lrb['misses']) - int(row['n_miss']):+,} | {trained} | {agree} |")
PY
