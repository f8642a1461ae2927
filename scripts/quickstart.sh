#!/usr/bin/env bash
# The main job: build evlab (release) and replay the bundled sample traces in
# traces/ with the seven core policies at several sizes; prints the comparison
# and writes results/default/replay.csv and replay.json.
# Extra arguments go to `evlab replay` (e.g. --size-mode bytes --size 1m,4m).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
swift build -c release --product evlab
exec .build/release/evlab replay "$@"
