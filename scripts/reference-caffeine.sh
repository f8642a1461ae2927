#!/usr/bin/env bash
# Regenerates results/reference/caffeine_262.tsv: the real Caffeine 2.6.2
# (Debian's libcaffeine-java) replaying shared traces, one thread, its
# ThreadLocalRandom seed pinned (scripts/caffeine/Replay.java). The `caffeine`
# model must agree with every row to the request: the same misses, the same
# bytes missed, and the same requests missed (a fingerprint of their
# positions); Tests/EvictionSimTests/CaffeineReferenceTests.swift checks it.
#
#   scripts/reference-caffeine.sh > results/reference/caffeine_262.tsv
#
# Each trace is first written as uncompressed oracleGeneral by `evlab convert`
# (ids kept as evlab reads them), which the harness reads. Needs a JDK and
# libcaffeine-java: installed from Debian if missing (root or sudo); nothing is
# downloaded from elsewhere. SHARED (default ../shared) holds traces/.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
jar=/usr/share/java/caffeine-2.6.2.jar
if [ ! -f "$jar" ] || ! command -v javac > /dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing libcaffeine-java and a JDK (Debian packages)..." >&2
  $sudo apt-get install -y -qq --no-install-recommends libcaffeine-java default-jdk-headless > /dev/null ||
    { echo "error: cannot install libcaffeine-java and a JDK: install them and run again" >&2; exit 1; }
fi
[ -f "$jar" ] || { echo "error: $jar is missing: this script is for Caffeine 2.6.2 (Debian 12's libcaffeine-java)" >&2; exit 1; }
java_version=$(java -version 2>&1 | head -1)
swift build -c release --product evlab > /dev/null
evlab=.build/release/evlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -nowarn -cp "$jar" -d "$work/classes" scripts/caffeine/Replay.java

# trace (under traces/)|format|size mode|seed|sizes
runs=(
  "caffeine/lirs/loop.trace.gz|lirs|count|0|256 512 768"
  "caffeine/lirs/sprite.trace.gz|lirs|count|0|100 500 1000"
  "caffeine/lirs/multi3.trace.gz|lirs|count|0|100 500 1000"
  "arc/OLTP.lis.zst|arc|count|0|1000 5000 20000"
  "arc/P3.lis.zst|arc|count|0|10000 50000 200000"
  "caffeine/cache2k/web07.trace.xz|cache2k|count|0|500 2000 8000"
  "caffeine/corda/trace_vaultservice.gz|corda|count|0|512 4096 32768"
  "caffeine/address/gcc.trace.gz|address|count|0|1000 4000 16000"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|oracleGeneral|count|0|1000 5000 10000"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|oracleGeneral|count|7|1000 5000 10000"
  "libcachesim/cloudPhysicsIO.oracleGeneral.bin|oracleGeneral|bytes|0|67108864 268435456 1073741824"
  "libcachesim/twitter_cluster52.oracleGeneral.zst|oracleGeneral|bytes|0|1048576 4194304 16777216"
)
echo "# Caffeine $(basename "$jar" .jar | sed 's/caffeine-//') (libcaffeine-java), $java_version; scripts/reference-caffeine.sh"
printf 'trace\tformat\tsize_mode\tseed\tcache_size\tn_req\tn_miss\tn_miss_byte\tmissed_fingerprint\tsketch_seed\n'
for run in "${runs[@]}"; do
  IFS='|' read -r trace format mode seed sizes <<<"$run"
  converted="$work/$(basename "$trace").oracleGeneral"
  [ -f "$converted" ] || "$evlab" convert "$shared/traces/$trace" --format "$format" --to oracleGeneral -o "$converted" > /dev/null
  echo "Replay $trace $mode seed $seed: $sizes" >&2
  # shellcheck disable=SC2086 # sizes are separate arguments
  java --add-opens java.base/java.lang=ALL-UNNAMED -cp "$jar:$work/classes" Replay "$converted" "$mode" "$seed" $sizes |
    awk -v trace="$trace" -v format="$format" -v mode="$mode" -v seed="$seed" 'BEGIN { OFS = "\t" }
      { print trace, format, mode, seed, $1, $2, $3, $4, $5, $6 }'
done
