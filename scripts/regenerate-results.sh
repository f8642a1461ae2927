#!/usr/bin/env bash
# Regenerates the committed example results under results/ that take
# minutes, not hours: the Quick start's example (results/quickstart/), the
# catalog tables (results/catalog/), column-wide figures (results/column/)
# and the capacity-honesty comparison on cloudPhysicsIO (results/capacity/). Each folder's command is also in
# results/README.md. The disk, stress and miss-ratio-curve folders are
# machine measurements; their commands are in results/README.md.
#
#   scripts/regenerate-results.sh                 # needs ../shared beside the repository
#   scripts/regenerate-results.sh --collection    # and results/collection/ (every shared trace)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
# The flags of scripts/test.sh, so the two share one build: other flags
# recompile every module (about 4 minutes here). -enable-testing costs 0.2%
# more instructions in replay (callgrind, lru and arc on the zipf trace).
swift build -c release -Xswiftc -enable-testing --product evlab
evlab=.build/release/evlab
shared=../shared/traces
[ -d "$shared" ] || { echo "error: ../shared/traces must sit beside the repository" >&2; exit 1; }

rm -rf results/quickstart && $evlab compare --config configs/default.toml --output results/quickstart
$evlab replay traces/*.oracleGeneral.zst --policy all --size 100,250,500,1000,2500,5000 \
  --csv results/catalog/bundled.csv --json results/catalog/bundled.json
$evlab replay "$shared"/caffeine/lirs/*.trace.gz --format txt --policy all --size 100,200,500,1000,2000 \
  --csv results/catalog/lirs.csv --json results/catalog/lirs.json
# Figures for a two-column paper: 3.3 in wide, 8 pt text, no titles, a label of the user's;
# the bundled traces, so the box plots come too, and miss causes.
rm -rf results/column && $evlab compare --trace traces/zipf-scan.oracleGeneral.zst \
  --trace traces/zipf-0.9.oracleGeneral.zst --trace traces/loop-3000.oracleGeneral.zst \
  --policy fifo,lru,arc,s3fifo,sieve,wtinylfu,lirs,2q,clock,slru,lfu,belady --size 0.5%,1%,5%,10% \
  --attribution --name column --figure-width column --no-titles --label s3fifo="S3-FIFO (ours)" \
  --output results/column
rm -rf results/capacity && $evlab compare --trace "$shared"/libcachesim/cloudPhysicsIO.oracleGeneral.bin \
  --policy all --size 0.1%,1%,10% --name capacity --output results/capacity
scripts/penalties.sh
# The across-trace run over every shared trace (about 45 minutes on 2 cores, most of it LRB): pass --collection.
if [ "${1:-}" = "--collection" ]; then
  rm -rf results/collection && $evlab compare --collection traces/catalog.toml --output results/collection
fi
