#!/usr/bin/env bash
# GetPut (Caffeine's JMH benchmark) for MemoryCache and for Caffeine 2.6.2
# itself, in the same minutes: the same key ring and write positions
# (evlab writes them, scripts/caffeine/GetPut.java reads them), the same
# 65,536 entries, the same thread offsets. Each round runs every contender
# once, in an order that alternates between rounds; the tables give each
# cell's median round. Writes results/concurrency/versus-caffeine.md and .csv.
#
#   scripts/versus-caffeine.sh [ROUNDS] [SECONDS]        # defaults: 5 rounds of 0.5 s a cell
#
# Environment: POLICIES (default "lru wtinylfu"), LOCKS (default buffered),
# MIXES (default 100/0,75/25), THREADS (default 1,2). Caffeine is a
# reference, never a dependency: Debian's libcaffeine-java and a JDK are
# installed if missing (root or sudo), and the harness is compiled at run
# time; nothing is downloaded. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
seconds=${2:-0.5}
policies=${POLICIES:-lru wtinylfu}
locks=${LOCKS:-buffered}
mixes=${MIXES:-100/0,75/25}
threads=${THREADS:-1,2}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "error: ROUNDS '$rounds' must be a positive whole number" >&2; exit 2; }
command -v python3 > /dev/null || { echo "error: python3 is needed to summarise the rounds" >&2; exit 1; }
jar=/usr/share/java/caffeine.jar
if [ ! -f "$jar" ] || ! command -v javac > /dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing libcaffeine-java and a JDK (Debian packages)..." >&2
  $sudo apt-get install -y -qq --no-install-recommends libcaffeine-java default-jdk-headless > /dev/null ||
    { echo "error: cannot install libcaffeine-java and a JDK: install them and run again" >&2; exit 1; }
fi
caffeine_version=$(dpkg-query -W -f '${Version}' libcaffeine-java 2> /dev/null || basename "$(readlink -f "$jar")")
java_version=$(java -version 2>&1 | head -1)
swift build -c release -Xswiftc -enable-testing --product evlab > /dev/null
evlab=.build/release/evlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$evlab bench concurrent --mix "$mixes" --write-workload "$work/workload" > /dev/null
javac -nowarn -cp "$jar" -d "$work/classes" scripts/caffeine/GetPut.java 2> "$work/javac.log" ||
  { cat "$work/javac.log" >&2; echo "error: the Caffeine harness did not compile" >&2; exit 1; }

run_evlab() {  # run_evlab POLICY LOCK ROUND
  $evlab bench concurrent --policy "$1" --lock "$2" --no-baselines --mix "$mixes" --threads "$threads" \
    --runs 1 --seconds "$seconds" --json - 2> /dev/null |
    python3 -c 'import json, sys
for row in json.load(sys.stdin)["results"]:
    print(json.dumps({"contender": row["lock"] + " " + row["policy"], "mix": row["mix"], "threads": row["threads"],
                      "ops_per_second": row["ops_per_second"], "round": int(sys.argv[1])}))' "$3"
}
run_caffeine() {  # run_caffeine ROUND
  java -cp "$work/classes:$jar" GetPut "$work/workload" "$mixes" "$threads" "$seconds" |
    python3 -c 'import json, sys
for line in sys.stdin:
    row = json.loads(line); row["round"] = int(sys.argv[1]); print(json.dumps(row))' "$1"
}
: > "$work/rows.jsonl"
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  if [ $((round % 2)) -eq 1 ]; then run_caffeine "$round" >> "$work/rows.jsonl"; fi
  for policy in $policies; do
    for lock in ${locks//,/ }; do run_evlab "$policy" "$lock" "$round" >> "$work/rows.jsonl"; done
  done
  if [ $((round % 2)) -eq 0 ]; then run_caffeine "$round" >> "$work/rows.jsonl"; fi
done

mkdir -p results/concurrency
command="scripts/versus-caffeine.sh $rounds $seconds"
[ "$policies $locks $mixes $threads" = "lru wtinylfu buffered 100/0,75/25 1,2" ] ||
  command="POLICIES='$policies' LOCKS='$locks' MIXES='$mixes' THREADS='$threads' $command"
python3 - "$work/rows.jsonl" results/concurrency/versus-caffeine "$command" "$($evlab --version)" \
  "$(git diff --quiet HEAD -- Sources scripts/caffeine || echo 'with uncommitted changes')" \
  "$caffeine_version" "$java_version" "$(nproc)" "$(uname -srm)" "$rounds" "$seconds" << 'PYTHON'
import json, statistics, sys, datetime
rows_file, out, command, version, dirty, caffeine, java, cores, system, rounds, seconds = sys.argv[1:]
rows = [json.loads(line) for line in open(rows_file)]
contenders = ["caffeine"] + sorted({r["contender"] for r in rows} - {"caffeine"})
cells = []
for r in rows:
    if (r["mix"], r["threads"]) not in cells: cells.append((r["mix"], r["threads"]))
def samples(contender, mix, threads):
    return [r["ops_per_second"] for r in rows if r["contender"] == contender and r["mix"] == mix and r["threads"] == threads]
median = {}
for c in contenders:
    for mix, threads in cells:
        values = samples(c, mix, threads)
        if values: median[c, mix, threads] = (statistics.median(values), min(values), max(values))
with open(out + ".csv", "w") as f:
    f.write("contender,mix,threads,ops_per_second,ops_per_second_min,ops_per_second_max,versus_caffeine,speedup_over_one_thread,rounds\n")
    for c in contenders:
        for mix, threads in cells:
            if (c, mix, threads) not in median: continue
            m, lo, hi = median[c, mix, threads]
            ref = median.get(("caffeine", mix, threads), (0,))[0]
            one = median.get((c, mix, 1), (0,))[0]
            f.write(f"{c},{mix},{threads},{m:.0f},{lo:.0f},{hi:.0f},{m / ref if ref else float('nan'):.3f},"
                    f"{m / one if one else float('nan'):.3f},{rounds}\n")
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
lines = [
    "# GetPut: MemoryCache against Caffeine 2.6.2, same run",
    "",
    "Made by `" + command + "` (evlab " + version + (", " + dirty if dirty else "") + ", " + now + ").",
    "",
    f"- Machine: {cores} cores, {system}. Caffeine {caffeine} (Debian's libcaffeine-java) on {java}.",
    f"- Each round runs every contender once over the same key ring and write positions (`evlab bench concurrent --write-workload`), {seconds} s a cell; the order alternates between rounds. Caffeine first runs every cell once unmeasured, at least 1 s each, for its JIT. Figures are the median of {rounds} rounds, M operations per second, with the slowest and fastest round.",
    "- A cache of 65,536 entries filled with the keys 0..<65,536; Zipf 0.99 over a third of a 32,768-key ring, scrambled; every read hits, every write replaces (Caffeine's `GetPutBenchmark`). Caffeine's policy is W-TinyLFU, so `wtinylfu` is the like-for-like row.",
    "",
    "| mix | threads | " + " | ".join(contenders) + " |",
    "| --- | ---: | " + " | ".join("---:" for _ in contenders) + " |",
]
for mix, threads in cells:
    ref = median.get(("caffeine", mix, threads), (0,))[0]
    cols = []
    for c in contenders:
        if (c, mix, threads) not in median: cols.append("–"); continue
        m, lo, hi = median[c, mix, threads]
        text = f"{m / 1e6:.1f} ({lo / 1e6:.1f}–{hi / 1e6:.1f})"
        if c != "caffeine" and ref: text += f", {m / ref:.2f}× Caffeine"
        cols.append(text)
    lines.append(f"| {mix} | {threads} | " + " | ".join(cols) + " |")
if any(t == 1 for _, t in cells):
    lines += ["", "Speed-up over one thread (median over median):", "",
              "| mix | threads | " + " | ".join(contenders) + " |",
              "| --- | ---: | " + " | ".join("---:" for _ in contenders) + " |"]
    for mix, threads in cells:
        if threads == 1: continue
        cols = []
        for c in contenders:
            one = median.get((c, mix, 1), (0,))[0]
            cols.append(f"{median[c, mix, threads][0] / one:.2f}×" if (c, mix, threads) in median and one else "–")
        lines.append(f"| {mix} | {threads} | " + " | ".join(cols) + " |")
open(out + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PYTHON
