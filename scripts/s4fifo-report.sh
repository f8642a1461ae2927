#!/usr/bin/env bash
# Writes results/s4fifo/README.md from results/s4fifo/tuner.csv (made by
# scripts/s4fifo-tuner.sh): how S4-FIFO's tuner, judged on traces it was not
# trained on, compares with S3-FIFO's knobs kept and with the best of its 20
# candidate settings, after the tuner's window.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - << 'EOF_PY'
import csv, statistics, subprocess
rows = list(csv.DictReader(open("results/s4fifo/tuner.csv")))
version = subprocess.run([".build/release/evlab", "--version"], capture_output=True, text=True).stdout.strip()
kept = [float(r["kept_miss_ratio"]) for r in rows]
tuned = [float(r["tuned_miss_ratio"]) for r in rows]
best = [float(r["best_miss_ratio"]) for r in rows]
better = sum(t < k - 1e-9 for t, k in zip(tuned, kept))
kept_quiet = sum(int(r["window_hits"]) < 100 for r in rows)
worse = sum(t > k + 1e-9 for t, k in zip(tuned, kept))
def reduction(a, b):  # misses saved by a relative to b, in %
    return 100 * (b - a) / b if b > 0 else 0.0
lines = [
    "# S4-FIFO's tuner, leave one trace out",
    "",
    f"Made by `scripts/s4fifo-tuner.sh` ({version}); the rows are `tuner.csv`. Each of the "
    f"{len(set(r['trace'] for r in rows))} shared traces, at three cache sizes (1 %, 5 % and 20 % of its objects, "
    "at least 100, each distinct size once; count mode), is judged by a model trained on the other traces only. "
    "Miss ratios count the requests after the tuner's window (20,000 requests once the cache is full). Where the "
    f"window has fewer than 100 hits the tuner keeps S3-FIFO's knobs, as it does in a replay ({kept_quiet} "
    "workloads here); such workloads are not trained on.",
    "",
    "| | S3-FIFO's knobs kept | tuned (held out) | best choice (a candidate or kept) |",
    "|---|---:|---:|---:|",
    f"| mean miss ratio | {statistics.mean(kept):.4f} | {statistics.mean(tuned):.4f} | {statistics.mean(best):.4f} |",
    f"| mean misses saved vs kept | | {statistics.mean(reduction(t, k) for t, k in zip(tuned, kept)):.2f} % "
    f"| {statistics.mean(reduction(b, k) for b, k in zip(best, kept)):.2f} % |",
    f"| workloads | {len(rows)} | better on {better}, worse on {worse} | |",
    "",
    "`tuned` and `best` are indices into the 20 candidate settings (docs/policies.md lists them), or `kept` for "
    "S3-FIFO's knobs; `model_choice` is what the committed model, trained on every trace, picks.",
    "",
    "| trace | cache size | kept | tuned | best | tuned choice | best choice |",
    "|---|---:|---:|---:|---:|---:|---:|",
]
for r in rows:
    lines.append(f"| {r['trace']} | {int(r['cache_size']):,} | {float(r['kept_miss_ratio']):.4f} | "
                 f"{float(r['tuned_miss_ratio']):.4f} | {float(r['best_miss_ratio']):.4f} | {r['tuned']} | {r['best']} |")
open("results/s4fifo/README.md", "w").write("\n".join(lines) + "\n")
EOF_PY
