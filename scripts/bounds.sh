#!/usr/bin/env bash
# The optimum's band beside online policies, with sizes: FOO-L, FOO-U, PFOO-L
# and PFOO-U (`evlab bounds`) against LRU, GDSF, LHD, S3-FIFO, W-TinyLFU and the
# Belady heuristics, in byte mode, three sizes a trace, with the time each
# bound took. Writes results/bounds/bounds.md and bounds.csv.
#
#   scripts/bounds.sh
#
# SHARED (default ../shared) holds traces/. Misses are exact counts (the
# machine does not matter); the seconds are this machine's, one bound at a
# time. The run takes about five minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
out=results/bounds
swift build -c release --product evlab > /dev/null
evlab=.build/release/evlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
policies=lru,gdsf,lhd,s3fifo,wtinylfu,belady,belady-size
# trace (under traces/)|format|requests (0: all)|sizes
runs=(
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|oracleGeneral|0|1%,5%,20%"
  "caffeine/adapt_size/request.trace.xz|adapt-size|0|0.3%,1%,5%"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|oracleGeneral|250000|1%,5%,20%"
)
for i in "${!runs[@]}"; do
  IFS='|' read -r trace format requests sizes <<<"${runs[$i]}"
  source="$shared/traces/$trace"
  if [ "$requests" != 0 ]; then
    # The bounds and the policies see the same requests: a prefix written as a file of its own.
    "$evlab" convert "$source" --format "$format" --to csv -o "$work/all-$i.csv" > /dev/null
    head -n $((requests + 1)) "$work/all-$i.csv" > "$work/prefix-$i.csv"
    source="$work/prefix-$i.csv"
    format=csv
  fi
  echo "bounds of $trace at $sizes" >&2
  "$evlab" bounds "$source" --format "$format" --size-mode bytes --sizes "$sizes" --methods foo,pfoo-l,pfoo-u \
    --csv "$work/bounds-$i.csv" > /dev/null 2>&1
  "$evlab" replay "$source" --format "$format" --size-mode bytes --sizes "$sizes" --policy "$policies" \
    --csv "$work/replay-$i.csv" > /dev/null
  echo "$trace|$requests" > "$work/name-$i"
done
mkdir -p "$out"
python3 - "$work" "$out" "$("$evlab" --version)" "${#runs[@]}" <<'PY'
import csv, os, sys
work, out, version, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = [
    "# The optimum's band with sizes, beside online policies",
    "",
    f"Made by `scripts/bounds.sh` with {version}; byte mode; object miss ratios in percent. `foo-l` and `pfoo-l`",
    "are lower bounds (no cache misses less), `foo-u` and `pfoo-u` upper bounds (schedules that exist); see",
    "docs/bounds.md. `belady` and `belady-size` are heuristics here. Gap: the best online policy's miss ratio",
    "minus `foo-l`, in points. Seconds are this machine's, one bound at a time (`foo-l` and `foo-u` are one flow).",
    "",
]
rows = []
for i in range(count):
    trace, requests = open(os.path.join(work, f"name-{i}")).read().strip().split("|")
    bounds = list(csv.DictReader(open(os.path.join(work, f"bounds-{i}.csv"))))
    replays = list(csv.DictReader(open(os.path.join(work, f"replay-{i}.csv"))))
    shown = trace + ("" if requests == "0" else f", first {int(requests):,} requests")
    lines += [f"## {shown}", "",
              "| size (bytes) | `pfoo-l` | `foo-l` | `foo-u` | `pfoo-u` | `belady-size` | `belady` | best online | gap | FOO s | PFOO-U s |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"]
    for size in sorted({int(b["cache_size"]) for b in bounds}):
        b = {r["bound"]: r for r in bounds if int(r["cache_size"]) == size}
        p = {r["policy"]: float(r["miss_ratio"]) for r in replays if int(r["cache_size"]) == size}
        online = {k: v for k, v in p.items() if not k.startswith("belady")}
        best = min(online, key=online.get)
        ratio = lambda name: 100 * float(b[name]["miss_ratio"])
        lines.append(
            f"| {size:,} | {ratio('pfoo-l'):.2f} | {ratio('foo-l'):.2f} | {ratio('foo-u'):.2f} | {ratio('pfoo-u'):.2f} | "
            f"{100 * p['belady-size']:.2f} | {100 * p['belady']:.2f} | `{best}` {100 * online[best]:.2f} | "
            f"{100 * online[best] - ratio('foo-l'):+.2f} | {float(b['foo-l']['seconds']):.1f} | "
            f"{float(b['pfoo-u']['seconds']):.1f} |")
        rows.append([shown, size] + [f"{float(b[n]['miss_ratio']):.6f}" for n in ("pfoo-l", "foo-l", "foo-u", "pfoo-u")]
                    + [f"{p[k]:.6f}" for k in sorted(p)] + [b["foo-l"]["seconds"], b["pfoo-u"]["seconds"]])
        names = sorted(p)
    lines.append("")
with open(os.path.join(out, "bounds.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["trace", "cache_size", "pfoo_l", "foo_l", "foo_u", "pfoo_u"] + names + ["foo_seconds", "pfoo_u_seconds"])
    w.writerows(rows)
open(os.path.join(out, "bounds.md"), "w").write("\n".join(lines))
print("\n".join(lines))
PY
