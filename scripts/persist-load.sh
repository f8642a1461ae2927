#!/usr/bin/env bash
# The Hummingbird persist load test (examples/hummingbird-persist): a server
# on 127.0.0.1 whose route gets a key and, on a miss, sets a 1 KiB value,
# under 8 concurrent clients for SECONDS, over a skewed stream of a million
# distinct keys; once with BoundedPersistDriver (LRU, 10,000 entries) and
# once with Hummingbird's MemoryPersistDriver (no limit), alternating, ROUNDS
# times. Writes results/hummingbird-persist/load.csv (every run) and load.md
# (medians, and what made them). Run it on a quiet machine.
#
#   scripts/persist-load.sh [ROUNDS] [SECONDS]      (default: 3 rounds of 20 s)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
seconds=${2:-20}
out=results/hummingbird-persist
mkdir -p "$out"
(cd examples/hummingbird-persist && swift build -c release --product persist-load > /dev/null)
load=examples/hummingbird-persist/.build/release/persist-load
csv=$out/load.csv
"$load" --driver bounded --seconds 0.2 --header | head -1 > "$csv.partial" || true
for round in $(seq "$rounds"); do
  for driver in bounded memory; do
    echo "round $round/$rounds: $driver" >&2
    "$load" --driver "$driver" --seconds "$seconds" >> "$csv.partial"
  done
done
mv "$csv.partial" "$csv"
commit=$(git rev-parse --short=12 HEAD)
python3 - "$csv" "$out/load.md" "$rounds" "$seconds" "$commit" << 'PY'
import csv, statistics, sys, platform, os, subprocess, datetime
rows = list(csv.DictReader(open(sys.argv[1])))
def median(driver, column):
    return statistics.median(float(r[column]) for r in rows if r['driver'] == driver)
swift = subprocess.run(['swift', '--version'], capture_output=True, text=True).stdout.splitlines()[0]
with open(sys.argv[2], 'w') as md:
    md.write('# Hummingbird persist drivers under load\n\n')
    md.write(f'`scripts/persist-load.sh {sys.argv[3]} {sys.argv[4]}` at commit {sys.argv[5]}, '
             f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, '
             f'{platform.system()} {platform.release()}, {swift}. Medians of {sys.argv[3]} alternating runs '
             f'of {sys.argv[4]} s each; every run is in `load.csv`. A server on 127.0.0.1, 8 concurrent '
             'clients, a skewed stream of 1,000,000 distinct keys, 1 KiB values; client and server share '
             'the machine.\n\n')
    md.write('| driver | limit | requests/s | hit ratio | entries held | resident at the end (MiB) | peak resident (MiB) |\n')
    md.write('| --- | --- | --- | --- | --- | --- | --- |\n')
    for driver, label, limit in [('bounded', '`BoundedPersistDriver` (LRU)', '10,000 entries'),
                                 ('memory', "Hummingbird's `MemoryPersistDriver`", 'none')]:
        held = [r['entries'] for r in rows if r['driver'] == driver and r['entries']]
        md.write(f"| {label} | {limit} | {median(driver, 'requests_per_second'):,.0f} | "
                 f"{median(driver, 'hit_ratio'):.4f} | {held[0] if held else 'not reported'} | "
                 f"{median(driver, 'rss_loaded_mib'):.0f} | {median(driver, 'peak_rss_mib'):.0f} |\n")
    md.write('\nThe unbounded driver keeps every key it was given, so its memory grows with the run; '
             'the bounded one holds its limit whatever the run\'s length, and its hit ratio is the '
             'one a replay of the key stream at that size gives (the example\'s test checks that '
             'equality on a live server).\n')
PY
echo "wrote $csv and $out/load.md" >&2
