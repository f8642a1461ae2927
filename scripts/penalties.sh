#!/usr/bin/env bash
# Writes results/penalties/: what each policy pays when misses differ in
# cost. Caffeine's gcc address trace with its own hit and miss penalties
# (count mode), and twitter_cluster52 with a miss costing a fixed latency
# plus a transfer time per byte (byte mode). README.md is made from the CSVs.
#
#   scripts/penalties.sh        # needs ../shared beside the repository and a release build
set -euo pipefail
cd "$(dirname "$0")/.."
evlab=.build/release/evlab
shared=../shared/traces
[ -x "$evlab" ] || { echo "error: build first: swift build -c release -Xswiftc -enable-testing --product evlab" >&2; exit 1; }
[ -d "$shared" ] || { echo "error: ../shared/traces must sit beside the repository" >&2; exit 1; }
mkdir -p results/penalties
policies=lru,arc,s3fifo,wtinylfu,lfuda,gdsf,camp,camp:precision=53,gdwheel,belady

gcc=(replay "$shared"/caffeine/address/penalties/gcc.trace.xz --format address-penalties --policy "$policies"
  --size 250,1000,4000 --penalty trace --csv results/penalties/gcc.csv)
twitter=(replay "$shared"/libcachesim/twitter_cluster52.oracleGeneral.zst --policy "${policies/,belady/,belady-size}"
  --size 1%,10% --size-mode bytes --penalty size:base=500,per-byte=0.01 --csv results/penalties/twitter.csv)
"$evlab" "${gcc[@]}" > /dev/null
"$evlab" "${twitter[@]}" > /dev/null

python3 - "${gcc[*]}" "${twitter[*]}" << 'EOF_PY'
import csv, subprocess, sys
version = subprocess.run([".build/release/evlab", "--version"], capture_output=True, text=True).stdout.strip()
lines = ["# Miss penalties", "",
         f"Made by `scripts/penalties.sh` ({version}); the rows are `gcc.csv` and `twitter.csv`, each with its "
         "provenance beside it. `average_penalty` is what a request paid on average (hits at their hit penalty, "
         "misses at their miss penalty); the last column compares it with LRU's at the same size. Belady's optimum "
         "minimises misses, not penalties: it is no bound here. docs/replay.md explains `--penalty`, "
         "docs/policies.md `camp` and `gdwheel`.", ""]
for name, command, title in [
    ("gcc", sys.argv[1], "Caffeine's gcc address trace with its own penalties (hits cost 1, misses 1, 10 or 100), "
                          "count mode"),
    ("twitter", sys.argv[2], "twitter_cluster52, byte mode, a miss costing 500 + 0.01 per byte, hits free"),
]:
    rows = list(csv.DictReader(open(f"results/penalties/{name}.csv")))
    lines += [f"## {title}", "", f"`evlab {command}`", "",
              "| size | policy | miss ratio | byte miss ratio | average penalty | vs LRU |",
              "|---:|---|---:|---:|---:|---:|"]
    lru = {r["size_label"]: float(r["average_penalty"]) for r in rows if r["policy"] == "lru"}
    for r in rows:
        average = float(r["average_penalty"])
        change = 100 * (average - lru[r["size_label"]]) / lru[r["size_label"]]
        lines.append(f"| {r['size_label']} | {r['policy']} | {float(r['miss_ratio']):.4f} | "
                     f"{float(r['byte_miss_ratio']):.4f} | {average:,.4f} | {change:+.2f} % |")
    lines.append("")
open("results/penalties/README.md", "w").write("\n".join(lines))
EOF_PY
echo "wrote results/penalties/"
