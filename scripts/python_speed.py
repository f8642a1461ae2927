"""Replay from Python against the command line on the same cells: each run
whole (the CLI as a process, Python as one call), RUNS runs each,
interleaved, medians; the ratio is Python's time over the CLI's. Writes
results/python/speed.md. Run by scripts/python-speed.sh."""

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import evictionlab as el

repo = Path(os.environ["EVICTIONLAB_REPO"])
evlab = os.environ["EVLAB"]
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
traces = sorted(str(p) for p in (repo / "traces").glob("*.oracleGeneral.zst"))
cells = [
    ("4 policies × 2 sizes × 3 traces, repeated 10 times", ["lru", "s3fifo", "arc", "wtinylfu"], ["1%", "10%"], 10),
    ("1 policy × 1 size × 3 traces", ["lru"], ["10%"], 1),
]
rows = []
for label, policies, sizes, repeat in cells:
    cli, py = [], []
    args = ["--policy", ",".join(policies), "--size", ",".join(sizes), "--repeat", str(repeat), "--jobs", "1"]
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([evlab, "replay", *traces, *args, "--csv", os.devnull], check=True, capture_output=True)
        cli.append(time.perf_counter() - start)
        start = time.perf_counter()
        el.replay_csv(traces, policies=policies, sizes=sizes, repeat=repeat, jobs=1)
        py.append(time.perf_counter() - start)
    c, p = statistics.median(cli), statistics.median(py)
    rows.append(f"| {label} | {c:.3f} | {p:.3f} | {p / c:.3f} |")

commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
out = repo / "results" / "python" / "speed.md"
out.write_text(
    "# Replay from Python against the command line\n\n"
    f"Made by `scripts/python-speed.sh {runs}` on commit {commit.stdout.strip()}, "
    f"{time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} cores, {el.version()}.\n\n"
    "The same cells (the bundled traces, one job) run as `evlab replay … --csv /dev/null`, a process timed whole,\n"
    f"and as `evictionlab.replay_csv(…)`, one call timed whole; {runs} runs each, interleaved; medians.\n\n"
    "| cells | CLI, s | Python, s | Python ÷ CLI |\n| --- | --- | --- | --- |\n" + "\n".join(rows) + "\n"
)
print(out.read_text())
