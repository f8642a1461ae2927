#!/usr/bin/env bash
# The instruction gate: instructions and allocations per request, counted by
# callgrind, for one cell of each policy family, the memory cache's get and
# set, trace reading and the disk store, checked against the thresholds in
# results/gates/instructions.csv. Wall-clock speed on a shared 2-core machine
# moves ±25 % between runs of the same code; callgrind's counts repeat to a
# few parts per million (deterministic hashing, one thread doing the work),
# so a 1 % tolerance catches a 2 % slowdown and never noise. Each figure is
# the difference of two runs (one pass and two, or N and 2N operations)
# divided by the units the second run adds: start-up, trace paths and the
# cache's fill cancel.
#
#   scripts/instruction-gate.sh                       check (CI): exit 1 naming each cell over its threshold
#   scripts/instruction-gate.sh update                measure, rewrite the thresholds; review and commit them
#   scripts/instruction-gate.sh compare MEASURED THRESHOLDS
#                                                     judge a measured CSV (the self-test, scripts/gate-selftest.sh)
#
# Uses .build/release/evlab (scripts/test.sh builds it). The measured figures
# of the last check are kept in .build/instruction-gate/measured.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
thresholds=results/gates/instructions.csv
# A cell fails above threshold × (1 + tolerance) instructions, or above
# threshold + slack allocations per unit (one allocation per request is 1).
tolerance=0.01
slack=0.01

# Judges MEASURED against THRESHOLDS; prints one labelled line per cell.
compare() {
  awk -F, -v tolerance="$tolerance" -v slack="$slack" '
    /^#/ || /^cell,/ { next }
    FNR == NR { ins[$1] = $3; alloc[$1] = $4; gates[$1] = $5; next }
    {
      seen[$1] = 1
      if (!($1 in ins)) { printf "  %-26s no threshold (new cell? run scripts/instruction-gate.sh update)\n", $1; bad++; next }
      change = ($3 - ins[$1]) / ins[$1] * 100
      verdict = "ok"
      if (gates[$1] == "allocations") verdict = "ok (instructions vary here: not gated)"
      else if ($3 > ins[$1] * (1 + tolerance)) { verdict = "SLOWER"; bad++ }
      else if ($3 < ins[$1] * (1 - tolerance)) { verdict = "faster (update the thresholds to keep the gain)" }
      if ($4 > alloc[$1] + slack) { verdict = (verdict == "ok" ? "" : verdict ", ") "MORE ALLOCATIONS"; bad++ }
      printf "  %-26s instructions per %s %10.1f (threshold %10.1f, %+6.2f%%)  allocations per %s %7.3f (threshold %7.3f)  %s\n",
        $1, $2, $3, ins[$1], change, $2, $4, alloc[$1], verdict
    }
    END {
      for (cell in ins) if (!(cell in seen)) { printf "  %-26s not measured (a cell the thresholds hold)\n", cell; bad++ }
      exit bad > 0
    }' "$2" "$1"
}

if [ "${1:-check}" = compare ]; then
  [ $# -eq 3 ] || { echo "usage: scripts/instruction-gate.sh compare MEASURED THRESHOLDS" >&2; exit 2; }
  compare "$2" "$3"
  exit
fi
mode=${1:-check}
case "$mode" in check | update) ;; *) echo "usage: scripts/instruction-gate.sh [check|update|compare MEASURED THRESHOLDS]" >&2; exit 2 ;; esac

scripts/ensure-deps.sh valgrind binutils
evlab=$PWD/.build/release/evlab
[ -x "$evlab" ] || { echo "error: $evlab is missing; build it first (scripts/test.sh or swift build -c release)" >&2; exit 1; }
# Each pipeline reads its input to the end: a reader that stops early (head)
# can end the writer with SIGPIPE, which pipefail turns into a failure.
swift_version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | awk 'NR == 1')
valgrind_version=$(valgrind --version)
# glibc and zstd pick routines by CPU feature, so counts are comparable only
# between machines offering valgrind the same ones.
features=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'sse4_2|avx|avx2|bmi2|erms|fsrm' | sort | tr '\n' ' ' | sed 's/ $//')
glibc=$(ldd --version 2>/dev/null | awk 'NR == 1 { version = $NF } END { print "glibc " version }')
taken_with="swift $swift_version; $valgrind_version; $glibc; cpu $features"
if [ "$mode" = check ]; then
  [ -f "$thresholds" ] || { echo "error: no $thresholds; run scripts/instruction-gate.sh update on a trusted build and commit it" >&2; exit 1; }
  recorded=$(sed -n 's/^# taken with //p' "$thresholds")
  recorded_swift=${recorded%%;*}
  if [ "$recorded_swift" != "swift $swift_version" ]; then
    echo "error: $thresholds was taken with $recorded_swift, this is swift $swift_version: another compiler emits other" >&2
    echo "       code. Run scripts/instruction-gate.sh update on a build you trust (e.g. main) and commit the thresholds." >&2
    exit 1
  fi
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Valgrind 3.19 cannot read the DWARF 5 that clang writes for the C targets:
# the binary is counted from a copy without debug information.
strip --strip-debug -o "$scratch/evlab" "$evlab"
evlab=$scratch/evlab
# 200,000 requests, 18,516 objects of 4 KiB; the replays read it
# uncompressed, so that their counts are mostly the policy's.
trace=$PWD/traces/zipf-0.9.oracleGeneral.zst
zstd -dq -o "$scratch/zipf-0.9.oracleGeneral" "$trace"
export SWIFT_DETERMINISTIC_HASHING=1

# counts CMD...: "instructions allocations" of one run under callgrind
# (allocations: calls to malloc, calloc, realloc, posix_memalign and aligned_alloc,
# but not from one of them: evlab's allocation guard (Sources/CAllocGuard) wraps
# glibc's, and a wrapped call is one allocation, not two).
counts() {
  local out=$scratch/callgrind.out
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" > /dev/null 2> "$scratch/valgrind.log" || {
    tail -20 "$scratch/valgrind.log" >&2
    echo "error: the measured run failed: $*" >&2
    return 1
  }
  awk '
    /^(c?fn)=\(/ {
      match($0, /\([0-9]+\)/); id = substr($0, RSTART + 1, RLENGTH - 2)
      name = substr($0, RSTART + RLENGTH + 1)
      if (name != "") names[id] = name
      if ($0 ~ /^cfn=/) callee = id; else caller = id
      next
    }
    /^calls=/ {
      split(substr($0, 7), c, " ")
      if (names[callee] ~ /^(malloc|calloc|realloc|posix_memalign|aligned_alloc)$/ &&
          names[caller] !~ /^(malloc|calloc|realloc|posix_memalign|aligned_alloc|memalign)$/) allocations += c[1]
      next
    }
    /^summary:/ { instructions = $2 }
    END { printf "%d %d\n", instructions, allocations }' "$out"
}

# cell NAME UNIT UNITS CMD...: the command's {N} is 1, then 2; the second run
# adds UNITS units (requests, operations, records).
# gates=allocations before it: the cell's instruction count is not
# repeatable (the disk store's SQLite and files), so only its allocations gate.
echo "cell,unit,instructions_per_unit,allocations_per_unit,gates" > "$scratch/measured.csv"
cell() {
  local name=$1 unit=$2 units=$3 gated=${gates:-instructions+allocations}
  shift 3
  local one two
  one=$(counts "${@//'{N}'/1}")
  two=$(counts "${@//'{N}'/2}")
  awk -v name="$name" -v unit="$unit" -v units="$units" -v one="$one" -v two="$two" -v gated="$gated" 'BEGIN {
    split(one, a, " "); split(two, b, " ")
    printf "%s,%s,%.1f,%.3f,%s\n", name, unit, (b[1] - a[1]) / units, (b[2] - a[2]) / units, gated
  }' >> "$scratch/measured.csv"
  echo "  measured $name" >&2
}

echo "instruction gate: $taken_with; evlab $("$evlab" --version)" >&2
# Replay, one policy per family, count mode at 1,000 objects (5.4 % of the
# footprint): a second pass through the trace adds 200,000 requests.
for policy in lru fifo clock sieve s3fifo arc car lfu lfuda slru 2q lirs wtinylfu lhd lecar belady; do
  cell "replay-$policy" request 200000 "$evlab" replay "$scratch/zipf-0.9.oracleGeneral" --policy "$policy" --size 1000 --repeat '{N}' --csv /dev/null
done
# Allocations of every catalog policy but the learned ones (XGBoost's
# training allocates as it learns), one after another on the loop trace
# (60,000 requests, uncompressed): a policy added to the catalog is gated
# here with no edit. Their summed instructions say little of any one, so
# only allocations gate.
zstd -dq -o "$scratch/loop-3000.oracleGeneral" "$PWD/traces/loop-3000.oracleGeneral.zst"
catalog=$("$evlab" policies | awk '{ print $1 }' | grep -v ':' | grep -vxE 'glcache|lrb|3lcache' | paste -sd, -)
policies=$(echo "$catalog" | tr ',' '\n' | wc -l)
[ "$policies" -ge 40 ] || { echo "error: evlab policies listed $policies policies ($catalog); expected the catalog" >&2; exit 1; }
gates=allocations cell replay-catalog request $((60000 * policies)) "$evlab" replay "$scratch/loop-3000.oracleGeneral" \
  --policy "$catalog" --size 1000 --jobs 1 --repeat '{N}' --csv /dev/null
# The memory cache on one thread (100,000 operations more): every get hits,
# every set replaces.
for lock in mutex striped:8 buffered; do
  for mix in 100/0 0/100; do
    operation=get
    [ "$mix" = 100/0 ] || operation=set
    cell "cache-${lock/:/}-lru-$operation" operation 100000 "$evlab" bench concurrent --lock "$lock" --mix "$mix" \
      --policy lru --threads 1 --runs 1 --no-baselines --operations '{N}00000'
  done
done
cell cache-mutex-wtinylfu-get operation 100000 "$evlab" bench concurrent --lock mutex --mix 100/0 --policy wtinylfu \
  --threads 1 --runs 1 --no-baselines --operations '{N}00000'
# Reading and decoding the zstd-compressed trace: one more read.
cell read-oracleGeneral-zst record 200000 "$evlab" bench read "$trace" --runs '{N}'
# The disk store, 100 keys more: per key, a write, a read hit, a read miss
# and a delete.
for size in 100 100k; do
  gates=allocations cell "disk-mixed-$size" key 100 "$evlab" disk-bench --dir "$scratch" --mode mixed --value-size "$size" \
    --ops '{N}00' --rounds 1
done

mkdir -p .build/instruction-gate
cp "$scratch/measured.csv" .build/instruction-gate/measured.csv
if [ "$mode" = update ]; then
  mkdir -p "$(dirname "$thresholds")"
  {
    echo "# Instructions and allocations per unit under callgrind; made by scripts/instruction-gate.sh update"
    echo "# with evlab $("$evlab" --version), $(date -u +%Y-%m-%dT%H:%M:%SZ)."
    echo "# taken with $taken_with"
    cat "$scratch/measured.csv"
  } > "$thresholds"
  echo "wrote $thresholds; review the diff and commit it"
  exit 0
fi
status=0
compare "$scratch/measured.csv" "$thresholds" || status=$?
if [ $status -ne 0 ]; then
  if [ "$recorded" != "$taken_with" ]; then
    # Another C library or CPU runs other routines (memcpy, zstd's decoder):
    # counts are not comparable, so a difference here does not fail.
    echo "warning: cells differ from the thresholds (above), but the thresholds were taken with '$recorded'" >&2
    echo "         and this machine is '$taken_with': the counts are not comparable, so the gate does not fail." >&2
    echo "         Take thresholds on the machine that gates: scripts/instruction-gate.sh update, then commit them." >&2
    exit 0
  fi
  echo "error: the instruction gate failed (above): find the slowdown or allocation (scripts/getput-instructions.sh and" >&2
  echo "       callgrind_annotate help), or, if it is intended, run scripts/instruction-gate.sh update and commit the thresholds" >&2
  exit 1
fi
echo "instruction gate: every cell within $(awk -v t=$tolerance 'BEGIN { print t * 100 }') % of its instructions and $slack allocations of its threshold"
