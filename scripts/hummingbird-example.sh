#!/usr/bin/env bash
# Builds and tests examples/hummingbird-persist: Hummingbird 2's persist
# driver over MemoryCache, bounded under three policies, and a live server on
# 127.0.0.1 whose hits equal the simulator's replay of the same key stream.
set -euo pipefail
cd "$(dirname "$0")/../examples/hummingbird-persist"
swift build --build-tests
swift test --skip-build
