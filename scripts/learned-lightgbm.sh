#!/usr/bin/env bash
# LRB's and 3L-Cache's miss ratios beside libCacheSim 0.3.5's (which trains them on
# LightGBM) and LRU's, on every row of results/reference/libcachesim_035_lightgbm.tsv
# (scripts/reference-lightgbm.sh makes it).
#
#   scripts/learned-lightgbm.sh > results/learned/lightgbm.md
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
with open("results/reference/libcachesim_035_lightgbm.tsv") as f:
    reference = list(csv.DictReader(f, delimiter="\t"))
names = {"LRB": "lrb", "3LCache": "3lcache"}

def replay(policy, trace, mode, sizes):
    run = subprocess.run([evlab, "replay", f"{shared}/traces/{trace}", "--policy", f"{policy},lru", "--size",
                          ",".join(sizes), "--size-mode", mode, "--csv", "-"], capture_output=True, text=True, check=True)
    return {(r["policy"], r["cache_size"]): r for r in csv.DictReader(io.StringIO(run.stdout))}

version = subprocess.run([evlab, "--version"], capture_output=True, text=True).stdout.strip()
print("# LRB and 3L-Cache: EvictionLab (XGBoost) beside libCacheSim 0.3.5 (LightGBM)\n")
print(f"`scripts/learned-lightgbm.sh`: {version}; libCacheSim's rows from")
print("`results/reference/libcachesim_035_lightgbm.tsv` (`scripts/reference-lightgbm.sh`, libCacheSim 0.3.5 built")
print("with LightGBM 4.6.0). Object miss ratios; the objective is both tools' default, byte-miss-ratio.")
print("`trainings` are EvictionLab's; a row without one is LRU in both tools (the same rules decide when")
print("the first training comes), and there the two must agree to the miss.\n")
print("| policy | trace | size | LRU | libCacheSim | EvictionLab | misses, ours − theirs | trainings | agree |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
groups = {}
for row in reference:
    groups.setdefault((row["algorithm"], row["trace"], row["size_mode"]), []).append(row)
for (algorithm, trace, mode), rows in groups.items():
    policy = names[algorithm]
    ours = replay(policy, trace, mode, [r["cache_size"] for r in rows])
    for row in rows:
        size = row["cache_size"]
        learned, lru = ours[(policy, size)], ours[("lru", size)]
        theirs = int(row["n_miss"]) / int(row["n_req"])
        mine = int(learned["misses"]) / int(learned["requests"])
        label = f"{int(size):,} objects" if mode == "count" else f"{int(size) // 1048576:,} MiB"
        trained = int(learned["trainings"])
        same = int(learned["misses"]) == int(row["n_miss"])
        agree = "exact" if same else ("**differs**" if trained == 0 else "—")
        print(f"| {policy} | {trace.split('/')[-1].split('.')[0]} | {label} | {float(lru['miss_ratio']):.4f} "
              f"| {theirs:.4f} | {mine:.4f} | {int(learned['misses']) - int(row['n_miss']):+,} | {trained} | {agree} |")
PY
