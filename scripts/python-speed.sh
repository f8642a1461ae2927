#!/usr/bin/env bash
# Replay from Python against the command line on the same cells, with the
# wheel installed as scripts/python-test.sh installs it (built here if
# missing); writes results/python/speed.md. About a minute; run it on a
# quiet machine.
#
#   scripts/python-speed.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
[ -x .build/python-venv/bin/python ] && .build/python-venv/bin/python -c 'import evictionlab' 2>/dev/null || scripts/python-test.sh
cd "$(mktemp -d)"
env -u LD_LIBRARY_PATH EVICTIONLAB_REPO="$repo" EVLAB="$repo/.build/release/evlab" \
  "$repo/.build/python-venv/bin/python" "$repo/scripts/python_speed.py" "${1:-5}"
