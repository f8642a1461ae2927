#!/usr/bin/env bash
# Fails when a module an app links has a public symbol without a
# documentation comment. Extracts each module's symbol graph from the
# release build (scripts/test.sh's, built here if missing) and lists the
# symbols declared in Sources/ that carry no comment; what the compiler
# synthesises (Equatable's ==, Codable's init(from:)) has no place in
# Sources/ and is not counted.
#
#   scripts/doc-coverage.sh EvictionDisk [EvictionCache ...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/doc-coverage.sh MODULE..." >&2; exit 2; }
modules=.build/release/Modules
for module in "$@"; do
  [ -e "$modules/$module.swiftmodule" ] || swift build -c release -Xswiftc -enable-testing --target "$module" >/dev/null
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
includes=()
# System-library targets keep their module map at the top, C targets under include/.
for dir in Sources/C*/ Sources/C*/include/; do [ -d "$dir" ] && includes+=(-I "$dir"); done
triple=$(swift -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | awk 'NR == 1')
for module in "$@"; do
  swift symbolgraph-extract -module-name "$module" -I "$modules" "${includes[@]}" -target "$triple" \
    -minimum-access-level public -output-dir "$out" >/dev/null
done
swift scripts/doc-coverage.swift "$PWD/Sources/" "$out"/*.symbols.json
