#!/usr/bin/env bash
# The compile-fail tests: each file in Tests/CompileFail/ says on its first
# line what the compiler must answer, `// expected-error: MESSAGE` (the file
# must not compile, for that reason) or `// expected: compiles` (a control).
# They are type-checked in Swift 6 mode against the modules of the release
# build (scripts/test.sh's; .ci/run runs this after it), so a closure the
# cache stores that lost `@Sendable` fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=.build/release/Modules
[ -f "$modules/EvictionCache.swiftmodule" ] || {
  echo "error: no release build of EvictionCache in $modules: run scripts/test.sh (or swift build -c release) first" >&2
  exit 1
}
# HdrHistogram's dependency swift-numerics has a C module the compiler must find.
shims=$(find .build/checkouts -type d -path '*/_NumericsShims/include' | awk 'NR == 1')
# EvictionCore imports a header-only C module (the index's chunk compare),
# EvictionCache a C target's (the buffered reads' thread-local slot).
chunks=Sources/CChunkMatch
slot=Sources/CThreadSlot/include
failures=0
for file in Tests/CompileFail/*.swift; do
  expected=$(head -1 "$file")
  output=$(swiftc -typecheck -swift-version 6 -I "$modules" -I "$chunks" -I "$slot" ${shims:+-I "$shims"} "$file" 2>&1) && compiled=1 || compiled=0
  case "$expected" in
    "// expected: compiles")
      if [ "$compiled" = 1 ]; then echo "ok    $file compiles"; else
        echo "FAIL  $file should compile:"; echo "$output" | grep -E "error" | head -5; failures=$((failures + 1)); fi ;;
    "// expected-error: "*)
      message=${expected#"// expected-error: "}
      if [ "$compiled" = 1 ]; then
        echo "FAIL  $file compiled; it must fail with: $message"; failures=$((failures + 1))
      elif grep -qF "error: $message" <<< "$output"; then
        echo "ok    $file fails: $message"
      else
        echo "FAIL  $file failed, but not with: $message"; echo "$output" | grep -E "error" | head -5
        failures=$((failures + 1))
      fi ;;
    *) echo "FAIL  $file: its first line must be '// expected: compiles' or '// expected-error: MESSAGE'"
      failures=$((failures + 1)) ;;
  esac
done
[ "$failures" = 0 ] || { echo "error: $failures compile-fail test(s) did not behave (above)" >&2; exit 1; }
