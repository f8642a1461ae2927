#!/usr/bin/env bash
# What a new key or value type costs an app's release build: a one-file app
# built with one key type and again with five (each used the same way), the
# app module alone rebuilt (its dependencies built once, before timing), RUNS
# times each, interleaved; medians. Two apps: one over DiskCache alone, one
# over DiskCache, TieredCache and a memory cache's snapshot. Builds a clone
# of HEAD, so the working tree may change meanwhile. Writes
# results/build-times/disk-key-types.md. About 15 minutes on 2 cores; run it
# on a quiet machine.
#
#   scripts/disk-key-build-time.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
repo=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/evlab-key-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
commit=$(git -C "$work/clone" rev-parse --short HEAD)

mkdir -p "$work/app/Sources/app"
cat >"$work/app/Package.swift" <<SWIFT
// swift-tools-version: 6.2
import PackageDescription
let package = Package(
  name: "app",
  dependencies: [.package(name: "EvictionLab", path: "$work/clone")],
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
  local kind=$1 n=$2 file="$work/app/Sources/app/main.swift"
  {
    echo "import EvictionCache"
    echo "import EvictionDisk"
    echo "import Foundation"
    echo "let root = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : NSTemporaryDirectory()"
    for ((i = 0; i < n; i++)); do
      cat <<SWIFT
struct Key$i: Codable, Hashable, Sendable { var id: Int; var name: String }
struct Value$i: Codable, Sendable { var bytes: [UInt8]; var score: Double }
func open$i() throws -> DiskCache<Key$i, Value$i> {
  let disk = try DiskCache<Key$i, Value$i>(directory: root + "/d$i", policy: .s3fifo(), costLimit: 1 << 20)
  try disk.setValue(Value$i(bytes: [1, 2], score: 1), forKey: Key$i(id: 1, name: "a"))
  _ = try disk.value(forKey: Key$i(id: 1, name: "a"))
  return disk
}
func use$i() async throws {
  let disk = try open$i()
  _ = try await disk.value(forKey: Key$i(id: 2, name: "b"))
SWIFT
      [ "$kind" = disk ] || cat <<SWIFT
  let tiered = try TieredCache<Key$i, Value$i>(
    memory: MemoryCache(policy: .lru, costLimit: 1 << 16), disk: disk)
  _ = try await tiered.value(forKey: Key$i(id: 3, name: "c")) { _ in Value$i(bytes: [3], score: 3) }
  let memory = try MemoryCache<Key$i, Value$i>(policy: .wtinylfu(), countLimit: 100)
  memory.setValue(Value$i(bytes: [4], score: 4), forKey: Key$i(id: 4, name: "d"))
  try memory.writeSnapshot(to: root + "/s$i.snapshot")
  _ = try MemoryCache<Key$i, Value$i>(policy: .wtinylfu(), countLimit: 100).restoreSnapshot(from: root + "/s$i.snapshot")
SWIFT
      cat <<SWIFT
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

write_app all 1
build # the dependencies, once, not timed
declare -A times
for ((r = 0; r < runs; r++)); do
  for kind in disk all; do
    for n in 1 5; do
      write_app "$kind" "$n"
      start=$(date +%s.%N)
      build
      times[$kind$n]+="$(echo "$(date +%s.%N) - $start" | bc | xargs printf '%.1f') "
    done
  done
done
median() { printf '%s\n' $1 | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
row() { # kind, what
  local m1 m5
  m1=$(median "${times[${1}1]}")
  m5=$(median "${times[${1}5]}")
  echo "| $2 | $m1 (${times[${1}1]% }) | $m5 (${times[${1}5]% }) | $(echo "scale=3; ($m5 - $m1) / 4" | bc | xargs printf "%.2f") |"
}

out=results/build-times/disk-key-types.md
{
  echo "# What a key type costs an app's build"
  echo
  echo "Made by \`scripts/disk-key-build-time.sh $runs\` on commit $commit, $(date -u +%Y-%m-%d),"
  echo "$(nproc) cores, $(swift --version 2>&1 | head -1)."
  echo
  echo "A one-file app, built with one key type and with five, each a \`Codable\` key"
  echo "and value used the same way. The release build of the app's module alone (its"
  echo "dependencies built before timing), $runs runs each, interleaved; medians (runs)."
  echo
  echo "| each key type uses | 1 key type, s | 5 key types, s | each type past the first, s |"
  echo "| --- | --- | --- | --- |"
  row disk "a \`DiskCache\` (set, get, async get)"
  row all "that, a \`TieredCache\` with get-or-load, and a W-TinyLFU \`MemoryCache\` saved and restored"
  echo
  echo "A \`DiskCache\`'s policy runs in EvictionDisk, compiled once; a \`MemoryCache\`"
  echo "(a \`TieredCache\`'s memory tier) compiles its policy for its key type in the app,"
  echo "which is what makes it fast: [docs/memory-cache.md](../../docs/memory-cache.md#what-a-key-type-costs-a-build)."
} >"$out"
cat "$out"
