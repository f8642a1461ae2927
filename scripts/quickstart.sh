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
swift build -c release --product evlab
exec .build/release/evlab compare "$@"
