#!/usr/bin/env bash
# The main job: build evlab (release) and run the bundled comparison,
# configs/default.toml: the sample traces in traces/ and a generated one,
# fourteen policies, seven sizes, five seeds, the memory cache under threads
# and the disk store per storage mode. Writes results/default/ (results.csv/
# json, report.md, report.html).
# Extra arguments go to `evlab compare` (e.g. --config my.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
# The flags of scripts/test.sh, so the two share one build: other flags
# recompile every module (about 4 minutes here). -enable-testing costs 0.2%
# more instructions in replay (callgrind, lru and arc on the zipf trace).
swift build -c release -Xswiftc -enable-testing --product evlab
exec .build/release/evlab compare "$@"
