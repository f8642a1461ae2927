#!/usr/bin/env bash
# Instructions per GetPut operation on one thread, counted by callgrind
# (valgrind): counts do not drift with machine noise, so a change to the
# cache's hot paths is judged by them. Each figure is the difference of two
# runs (2 M and 1 M operations) over 1 M, so the fill and the start-up
# cancel out. Writes results/concurrency/instructions.md and .csv.
#
#   scripts/getput-instructions.sh [BEFORE]
#
# BEFORE: an evlab binary built from an earlier commit; its counts are
# listed beside this tree's, with the change in percent.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:-}
command -v valgrind > /dev/null || { echo "error: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before" ] || { echo "error: $before is not an executable evlab" >&2; exit 1; }
swift build -c release -Xswiftc -enable-testing --product evlab > /dev/null
evlab=.build/release/evlab
# Valgrind 3.19 cannot read the DWARF 5 that clang writes for the C targets:
# each binary is counted from a copy without debug information.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
stripped() {  # stripped BINARY NAME: a copy of BINARY without debug information
  strip --strip-debug -o "$scratch/$2" "$1"
  echo "$scratch/$2"
}
instructions() {  # instructions BINARY LOCK MIX POLICY OPERATIONS: instructions callgrind counted
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" bench concurrent --lock "$2" --mix "$3" \
    --policy "$4" --threads 1 --runs 1 --no-baselines --operations "$5" 2>&1 > /dev/null |
    awk '/Collected :/ { print $NF }'
}
# Swift seeds its hashes per process, which would move keys between shards
# and sketch counters from run to run; fixed seeds make the counts repeat.
export SWIFT_DETERMINISTIC_HASHING=1
counted=$(stripped "$evlab" now)
[ -z "$before" ] || counted_before=$(stripped "$before" before)
per_operation() {  # per_operation BINARY LOCK MIX POLICY
  local one two
  one=$(instructions "$@" 1000000)
  two=$(instructions "$@" 2000000)
  awk -v a="$one" -v b="$two" 'BEGIN { printf "%.1f\n", (b - a) / 1000000 }'
}
mkdir -p results/concurrency
csv=results/concurrency/instructions.csv
md=results/concurrency/instructions.md
echo "lock,policy,operation,instructions_per_operation,before" > "$csv"
{
  echo "# Instructions per GetPut operation, one thread (callgrind)"
  echo
  echo "Made by \`scripts/getput-instructions.sh${before:+ BEFORE}\` with $($evlab --version)$([ -z "$before" ] || echo ", BEFORE $("$before" --version)"), $(date -u +%Y-%m-%dT%H:%M:%SZ)."
  echo "A get is the 100/0 mix (every read hits), a set the 0/100 mix (every write replaces a cached key);"
  echo "each figure is (instructions of 2 M operations − those of 1 M) / 1 M, so the fill and the start-up cancel."
  echo
  if [ -n "$before" ]; then
    echo "| lock | policy | operation | before | now | change |"
    echo "| --- | --- | --- | ---: | ---: | ---: |"
  else
    echo "| lock | policy | operation | instructions |"
    echo "| --- | --- | --- | ---: |"
  fi
} > "$md"
for lock in mutex striped:8 buffered; do
  for policy in lru wtinylfu; do
    for operation in get set; do
      mix=100/0
      [ "$operation" = get ] || mix=0/100
      now=$(per_operation "$counted" "$lock" "$mix" "$policy")
      if [ -n "$before" ]; then
        was=$(per_operation "$counted_before" "$lock" "$mix" "$policy")
        change=$(awk -v a="$was" -v b="$now" 'BEGIN { printf "%+.1f%%", (b - a) / a * 100 }')
        echo "| $lock | $policy | $operation | $was | $now | $change |" >> "$md"
        echo "$lock,$policy,$operation,$now,$was" >> "$csv"
      else
        echo "| $lock | $policy | $operation | $now |" >> "$md"
        echo "$lock,$policy,$operation,$now," >> "$csv"
      fi
      echo "$lock $policy $operation: $now" >&2
    done
  done
done
cat "$md"
