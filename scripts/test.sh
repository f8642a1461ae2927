#!/usr/bin/env bash
# The whole test suite, in release mode with testing enabled: the reference
# tests replay the shared traces (../shared/traces), which debug builds run
# 10-50x slower. Extra arguments go to `swift test` (e.g. --filter Reference).
# It builds with `swift build --build-tests`, then runs `swift test
# --skip-build`: `swift test` building on its own compiles every module
# again whenever `swift build` built them last (quickstart.sh, CI's build
# step), and the other way round; one build command keeps one build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
swift build -c release -Xswiftc -enable-testing --build-tests
exec swift test -c release -Xswiftc -enable-testing --skip-build "$@"
