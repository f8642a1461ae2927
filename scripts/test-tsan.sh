#!/usr/bin/env bash
# The MemoryCache tests under ThreadSanitizer (a debug build in .build-tsan).
# Tests run one at a time and lock strategies built on Synchronization.Mutex
# are left out (EVICTIONLAB_TSAN=1): on Linux that Mutex locks with raw futex
# calls, which ThreadSanitizer does not model, so it would report every
# access made under it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
EVICTIONLAB_TSAN=1 exec swift test --sanitize=thread --scratch-path .build-tsan --no-parallel \
  --filter MemoryCacheTests "$@"
