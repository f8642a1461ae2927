#!/usr/bin/env bash
# How long a newcomer waits: a fresh clone's release build of evlab (each
# module's share, from the compiler's own statistics), the Quick start's
# first command end to end, and the release build of a one-file app that
# depends only on EvictionCache (MemoryCache). Writes
# results/build-times/README.md. Takes about 8 minutes on 2 cores; run it
# on a quiet machine.
#
#   scripts/build-times.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
repo=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/evlab-build-times.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
[ -d "$repo/../shared" ] && ln -s "$repo/../shared" "$work/shared"
commit=$(git -C "$work/clone" rev-parse --short HEAD)
dirty=""
[ -n "$(git status --porcelain --untracked-files=no -- . ":!results/build-times")" ] && dirty=" (the working tree had uncommitted changes, which this does not measure)"

# 1. The Quick start's first command, on a fresh clone, timed end to end.
start=$(date +%s)
(cd "$work/clone" && scripts/quickstart.sh >"$work/quickstart.log" 2>&1)
quickstart=$(($(date +%s) - start))
build=$(sed -n 's/.*Build of product .evlab. complete! (\([0-9.]*\)s).*/\1/p' "$work/quickstart.log")
clean=$(cd "$work/clone" && git status --porcelain | wc -l)

# 2. Each module's share: the same build again from scratch, with the
# frontend's statistics (a few percent slower than without them).
rm -rf "$work/clone/.build"
mkdir "$work/stats"
(cd "$work/clone" && swift build -c release -Xswiftc -enable-testing --product evlab \
  -Xswiftc -stats-output-dir -Xswiftc "$work/stats" >"$work/stats.log" 2>&1)
modules=$(python3 - "$work/stats" <<'PY'
import glob, json, re, sys
rows = []
for path in glob.glob(sys.argv[1] + "/*frontend*.json"):
    stats = json.load(open(path))
    for key, value in stats.items():
        m = re.match(r"time\.swift-frontend\.(\w+)-all-.*\.wall$", key)
        if m:
            sil = stats.get("time.swift.SIL optimization.wall", 0)
            llvm = stats.get("time.swift.LLVM pipeline.wall", 0)
            sema = stats.get("time.swift.Type checking and Semantic analysis.wall", 0)
            rows.append((value, m.group(1), sil, llvm, sema))
for total, name, sil, llvm, sema in sorted(rows, reverse=True):
    if total >= 1:
        print(f"| {name} | {total:.0f} | {sil:.0f} | {llvm:.0f} | {sema:.1f} |")
PY
)

# 3. An app that uses only MemoryCache.
mkdir -p "$work/app/Sources/app"
cat >"$work/app/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
  name: "app",
  dependencies: [.package(name: "EvictionLab", path: "$work/clone")],
  targets: [.executableTarget(name: "app", dependencies: [.product(name: "EvictionCache", package: "EvictionLab")])]
)
SWIFT
cat >"$work/app/Sources/app/main.swift" <<'SWIFT'
import EvictionCache
let cache = try MemoryCache<String, [UInt8]>(policy: "s3fifo", countLimit: 1000)
for i in 0..<10_000 { cache.setValue([UInt8(i & 0xff)], forKey: "k\(i % 2000)", cost: 1) }
print(cache.count)
SWIFT
start=$(date +%s)
(cd "$work/app" && swift build -c release >"$work/app.log" 2>&1)
app=$(($(date +%s) - start))
sqlite=$(nm "$work/app/.build/release/app" | grep -ci sqlite || true)

out=results/build-times/README.md
{
  echo "# Build times"
  echo
  echo "Made by \`scripts/build-times.sh\` on commit $commit$dirty, $(date -u +%Y-%m-%d),"
  echo "$(nproc) cores, $(swift --version 2>&1 | head -1)."
  echo
  echo "| what | seconds |"
  echo "| --- | --- |"
  echo "| Quick start's first command on a fresh clone (\`scripts/quickstart.sh\`: build and compare) | $quickstart |"
  echo "| of which the release build of \`evlab\` | ${build%.*} |"
  echo "| release build of a one-file app that depends only on \`EvictionCache\` | $app |"
  echo
  echo "After the Quick start, \`git status\` listed $clean changed or new files. The app links"
  echo "$sqlite SQLite symbols."
  echo
  echo "Each module of the \`evlab\` build (frontend wall time, seconds; modules build"
  echo "side by side where their dependencies allow, so these do not add up to the total):"
  echo
  echo "| module | total | SIL optimisation | LLVM | type checking |"
  echo "| --- | --- | --- | --- | --- |"
  echo "$modules"
  echo
  echo "Where the time goes and why each kind of policy box is built in one module:"
  echo "[docs/architecture.md](../../docs/architecture.md#build-time)."
} >"$out"
cat "$out"
