#!/usr/bin/env bash
# The API documentation: DocC archives of the libraries an app or a policy
# author uses (EvictionCore, EvictionCache, EvictionDisk), built with
# swift-docc-plugin into .build/docs/<Target>.doccarchive. CI runs it, so the
# catalogs build and every symbol link in them resolves (warnings are
# errors); then scripts/doc-coverage.sh, so the app-facing modules
# (EvictionCache, EvictionDisk, EvictionMetrics) have no undocumented
# public symbol.
#
#   scripts/docs.sh                 # build the archives
#   scripts/docs.sh --preview       # serve EvictionCache's pages locally (swift-docc-plugin's preview)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --preview ]; then
  exec swift package --disable-sandbox preview-documentation --target EvictionCache
fi
mkdir -p .build/docs
for target in EvictionCore EvictionCache EvictionDisk; do
  swift package --allow-writing-to-directory .build/docs generate-documentation --target "$target" \
    --warnings-as-errors --output-path ".build/docs/$target.doccarchive" > ".build/docs/$target.log" 2>&1 || {
    tail -40 ".build/docs/$target.log" >&2
    echo "error: the $target documentation did not build (above; full log .build/docs/$target.log)" >&2
    exit 1
  }
  echo "documentation: .build/docs/$target.doccarchive"
done
scripts/doc-coverage.sh EvictionCache EvictionDisk EvictionMetrics
