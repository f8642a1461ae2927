#!/usr/bin/env bash
# What a new key or value type costs an app's release build: a one-file app
# over DiskCache, TieredCache and a memory cache's snapshot, built with one
# key type and again with five (each used the same way), the app module
# alone rebuilt (its dependencies built once, before timing), RUNS times
# each, interleaved; medians. Writes results/build-times/disk-key-types.md.
# About 6 minutes on 2 cores (most of it the dependencies' first build); run
# it on a quiet machine.
#
#   scripts/disk-key-build-time.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
repo=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/evlab-key-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
commit=$(git rev-parse --short HEAD)
dirty=""
[ -n "$(git status --porcelain --untracked-files=no -- Sources Package.swift)" ] && dirty=" (with uncommitted changes)"

mkdir -p "$work/app/Sources/app"
cat >"$work/app/Package.swift" <<SWIFT
// swift-tools-version: 6.2
import PackageDescription
let package = Package(
  name: "app",
  dependencies: [.package(name: "EvictionLab", path: "$repo")],
  targets: [
    .executableTarget(
      name: "app",
      dependencies: [
        .product(name: "EvictionDisk", package: "EvictionLab"),
        .product(name: "EvictionCache", package: "EvictionLab"),
      ])
  ]
)
SWIFT

# main.swift with key types 0..<N: each a Codable key and value, a
# DiskCache, a TieredCache with get-or-load, and a memory cache's snapshot.
write_app() {
  local n=$1 file="$work/app/Sources/app/main.swift"
  {
    echo "import EvictionCache"
    echo "import EvictionDisk"
    echo "import Foundation"
    echo "let root = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : NSTemporaryDirectory()"
    for ((i = 0; i < n; i++)); do
      cat <<SWIFT
struct Key$i: Codable, Hashable, Sendable { var id: Int; var name: String }
struct Value$i: Codable, Sendable { var bytes: [UInt8]; var score: Double }
func use$i() async throws {
  let disk = try DiskCache<Key$i, Value$i>(directory: root + "/d$i", policy: .s3fifo(), costLimit: 1 << 20)
  try disk.setValue(Value$i(bytes: [1, 2], score: 1), forKey: Key$i(id: 1, name: "a"))
  _ = try disk.value(forKey: Key$i(id: 1, name: "a"))
  _ = try await disk.value(forKey: Key$i(id: 2, name: "b"))
  let tiered = try TieredCache<Key$i, Value$i>(
    memory: MemoryCache(policy: .lru, costLimit: 1 << 16), disk: disk)
  _ = try await tiered.value(forKey: Key$i(id: 3, name: "c")) { _ in Value$i(bytes: [3], score: 3) }
  let memory = try MemoryCache<Key$i, Value$i>(policy: .wtinylfu(), countLimit: 100)
  memory.setValue(Value$i(bytes: [4], score: 4), forKey: Key$i(id: 4, name: "d"))
  try memory.writeSnapshot(to: root + "/s$i.snapshot")
  _ = try MemoryCache<Key$i, Value$i>(policy: .wtinylfu(), countLimit: 100).restoreSnapshot(from: root + "/s$i.snapshot")
}
try await use$i()
SWIFT
    done
  } >"$file"
}

build() { (cd "$work/app" && swift build -c release --product app >"$work/build.log" 2>&1) || {
  tail -30 "$work/build.log" >&2
  exit 1
}; }

write_app 1
build # the dependencies, once, not timed
one=()
five=()
for ((r = 0; r < runs; r++)); do
  for n in 1 5; do
    write_app "$n"
    start=$(date +%s.%N)
    build
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    if [ "$n" = 1 ]; then one+=("$seconds"); else five+=("$seconds"); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
m1=$(median "${one[@]}")
m5=$(median "${five[@]}")
per=$(echo "scale=1; ($m5 - $m1) / 4" | bc)

out=results/build-times/disk-key-types.md
{
  echo "# What a key type costs an app's build"
  echo
  echo "Made by \`scripts/disk-key-build-time.sh $runs\` on commit $commit$dirty, $(date -u +%Y-%m-%d),"
  echo "$(nproc) cores, $(swift --version 2>&1 | head -1)."
  echo
  echo "A one-file app: for each key type, a \`Codable\` key and value, a \`DiskCache\`"
  echo "(set, get, async get), a \`TieredCache\` with get-or-load, and a W-TinyLFU"
  echo "\`MemoryCache\` written to a snapshot and restored. The release build of the"
  echo "app's module alone (its dependencies built before timing), $runs runs each,"
  echo "interleaved; medians."
  echo
  echo "| key types | seconds (median) | runs |"
  echo "| --- | --- | --- |"
  echo "| 1 | $m1 | ${one[*]} |"
  echo "| 5 | $m5 | ${five[*]} |"
  echo
  echo "Each key type past the first: **$per s**."
} >"$out"
cat "$out"
