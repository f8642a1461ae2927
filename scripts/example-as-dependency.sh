#!/usr/bin/env bash
# Proves EvictionLab works as a versioned dependency: copies the repository
# (working tree, ignored files left out) to a temporary folder, commits and
# tags it with the version `evlab --version` reports, then builds
# examples/custom-policy against `.package(url: "file://…", from: <tag>)`,
# runs its tests, and replays the bundled trace through its LRU-2 with its
# own `lru2-evlab`, checking the misses against an independent count; then
# `lru2-thumbnails`, LRU-2 driving a TieredCache across a restart.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/EvictionLab/Version.swift)
[ -n "$version" ] || { echo "error: no version number in Sources/EvictionLab/Version.swift" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/evictionlab"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/evictionlab"
(
  cd "$tmp/evictionlab"
  git init -q
  git add -A
  git -c user.name=ci -c user.email=ci@localhost commit -qm "EvictionLab $version"
  git tag "$version"
)
echo "example: EvictionLab $version as a tagged dependency at file://$tmp/evictionlab"
cd examples/custom-policy
export EVICTIONLAB_URL="file://$tmp/evictionlab" EVICTIONLAB_VERSION="$version"
swift test --scratch-path "$tmp/build"
out=$(swift run --scratch-path "$tmp/build" lru2-evlab replay ../../traces/zipf-0.9.oracleGeneral.zst \
  --policy lru2 --size 1000 --csv -)
echo "$out"
# 88,100 misses: an independent LRU-2 (a Python heap with lazy deletion) on the same trace.
echo "$out" | awk -F, 'NR > 1 && $3 == "lru2" { found = 1; if ($8 != 88100) { print "error: lru2 missed " $8 ", expected 88100" > "/dev/stderr"; exit 1 } }
  END { if (!found) { print "error: no lru2 row" > "/dev/stderr"; exit 1 } }'
swift run --scratch-path "$tmp/build" lru2-evlab check-policy lru2
# The plug-in binary names evlab's commit (the tagged checkout) and its own package's.
tagged=$(git -C "$tmp/evictionlab" rev-parse --short=12 HEAD)
stamp=$(swift run --scratch-path "$tmp/build" lru2-evlab --version)
echo "lru2-evlab --version: $stamp"
case "$stamp" in
  *"commit $tagged"*"plug-in package custom-policy"*) ;;
  *) echo "error: lru2-evlab --version names not both evlab's commit $tagged and the plug-in package" >&2; exit 1 ;;
esac
# LRU-2 behind a TieredCache: the restart renders nothing, every thumbnail comes from disk.
tiers=$(swift run --scratch-path "$tmp/build" lru2-thumbnails "$tmp/thumbnails")
echo "$tiers"
echo "$tiers" | grep -q "^after a restart: [1-9][0-9]* disk hits, 0 rendered$" \
  || { echo "error: lru2-thumbnails rendered again after a restart (above)" >&2; exit 1; }
echo "example: built against tag $version, tests passed, lru2 misses 88100 as expected and passes check-policy, and serves a restarted tiered cache from disk"
