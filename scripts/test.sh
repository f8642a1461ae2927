#!/usr/bin/env bash
# The whole test suite, in release mode with testing enabled: the reference
# tests replay the shared traces (../shared/traces), which debug builds run
# 10-50x slower. Extra arguments go to `swift test` (e.g. --filter Reference).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
exec swift test -c release -Xswiftc -enable-testing "$@"
