#!/usr/bin/env bash
# Fuzzes the trace readers with libFuzzer for SECONDS (default 60): every
# format, plain and compressed, strict and with --skip-bad-lines. A crash, a
# sanitizer report or a hang fails the run; libFuzzer leaves the input that
# did it as crash-*/timeout-* in the working folder (.build-fuzz/run).
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scripts/ensure-deps.sh
(cd Fuzz && swift build -c release --scratch-path ../.build-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
fuzzer=$PWD/.build-fuzz/release/TraceFuzz

# Seeds: one small, valid sample per format, in TraceFormat's case order
# (the first byte selects the format; +128 also skips bad lines), each also
# gzip-, xz- and zstd-compressed.
run=.build-fuzz/run
rm -rf "$run" && mkdir -p "$run/corpus"
seed() {  # seed FORMAT-INDEX NAME; the sample on standard input
  local file="$run/corpus/$2"
  { printf "\\x$(printf %02x "$1")"; cat; } > "$file"
  { printf "\\x$(printf %02x $(( $1 + 128 )))"; tail -c +2 "$file"; } > "$file-skip"
  local body="$run/body"
  tail -c +2 "$file" > "$body"
  for codec in gzip xz zstd; do
    { printf "\\x$(printf %02x "$1")"; $codec -c -q < "$body"; } > "$file.$codec"
  done
}
printf '1\n2\nkey-a\n1\n' | seed 0 txt
printf 'time,id,size\n1,5,10\n2,6,20\n' | seed 1 csv
{ zstd -d -c -q traces/loop-3000.oracleGeneral.zst || true; } | head -c 240 > "$run/records"
seed 2 oracleGeneral < "$run/records"
printf '\x00\x00\x00\x00\x00\x10\x00\x00\x01\x00\x00\x00\x2a\x00\x00\x01\x07\x00\x00\x00\x00\x00\x00\x00\x40\x42\x0f\x00\x00\x00\x00\x00' | seed 3 vscsi
printf '100 8 0 1\n200 1 0 2\n' | seed 4 arc
printf '5\n*\n6\n5\n' | seed 5 lirs
printf '\x00\x00\x00\x07\x00\x00\x00\x08' | seed 6 cache2k
printf '\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x08' | seed 7 corda
printf '\x00\x00\x00\x00\x00\x00\x00\x07' | seed 8 scarab
printf '\x07\x00\x00\x00\x08\x00\x00\x00' | seed 9 cloud-physics
printf 'l 0x1fffff50 1\ns 0x1fffff58 3\n' | seed 10 address
printf '1 7 100\n2 8 200\n' | seed 11 adapt-size
printf '0,keyA,10,90,1,get,0\n1,keyA,10,90,1,set,0\n' | seed 12 twitter
printf '128166372003061629,wdev,0,Read,8192,8192,100\n128166372013061629,wdev,0,Write,0,4096,100\n' | seed 13 msr
magic='\xf0\xde\xbc\x9a\x78\x56\x34\x12'
{ printf "$magic"'\x03\x00\x00\x00\x00\x00\x00\x00'; head -c 8168 /dev/zero; printf "$magic"
  for id in 7 8; do  # version 3: time, id, size, op+tenant, ttl, next access
    printf '\x01\x00\x00\x00\x0'$id'\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00'
    printf '\x03\x00\x00\x00\x3c\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff'
  done; } | seed 14 lcs
printf 'op_time,key,op,size,op_count,key_size,ttl\n1000,k1,GET,100,2,10,60\n2000,k1,SET,100,1,10,5\n' | seed 15 cachelib
rm -f "$run/body" "$run/records"

echo "fuzzing the trace readers for $seconds s ($(ls "$run/corpus" | wc -l) seeds)"
cd "$run"
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus 2>fuzz.log || {
  tail -40 fuzz.log >&2
  echo "error: the trace-reader fuzzer found a failure; the input is in $PWD (crash-*, timeout-* or oom-*)" >&2
  exit 1
}
grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" fuzz.log || true
echo "fuzzing: no failure"
