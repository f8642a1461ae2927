#!/usr/bin/env bash
# Submits a policy sweep to Slurm: a job array of SHARDS tasks
# (examples/slurm/sweep.sbatch, task I runs shard I/SHARDS) and a merge job
# that runs once every task has succeeded and writes results.csv/json,
# report.md and report.html to OUT, the files one `evlab compare` run writes.
# Run it from the repository's root (relative paths are read from there).
#
#   examples/slurm/submit.sh                         # configs/default.toml, 4 shards
#   SWEEP=my.toml SHARDS=64 CPUS_PER_TASK=4 MEM=8G examples/slurm/submit.sh
#   WAIT=1 examples/slurm/submit.sh                  # stay until the merge ends; exit 1 if it did not succeed
#
# Variables (defaults in brackets):
#   SWEEP          the sweep's configuration [configs/default.toml]
#   SHARDS         tasks in the array [4]
#   CPUS_PER_TASK  cores per task [4, or fewer if no node has 4]
#   MEM            memory per task, Slurm's syntax (2048, 8G) [8G, or less if no node has 8 GB]
#   TIME           time limit per task [02:00:00]
#   PARTITION      the partition [the cluster's default]
#   EVLAB          the evlab binary, as the nodes see it [.build/release/evlab]
#   LOGS           the folder for the jobs' logs, created if missing [logs]
#   PARTS_DIR      where the tasks write their parts; parts of job J go to PARTS_DIR/J [parts]
#   OUT            the merged outputs [results/<sweep name>-<array job id>]
#   WAIT           1: wait for the sweep, report how it ended [0]
#   WAIT_LIMIT     with WAIT=1: give up (and cancel the jobs) after this many seconds [86400]
set -euo pipefail

SWEEP=${SWEEP:-configs/default.toml}
SHARDS=${SHARDS:-4}
TIME=${TIME:-02:00:00}
EVLAB=${EVLAB:-.build/release/evlab}
LOGS=${LOGS:-logs}
PARTS_DIR=${PARTS_DIR:-parts}
WAIT=${WAIT:-0}
WAIT_LIMIT=${WAIT_LIMIT:-86400}
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "error: $*" >&2; exit 1; }
command -v sbatch >/dev/null || fail "sbatch is not on PATH; run this on a Slurm login node"
[ -f "$SWEEP" ] || fail "no sweep configuration at $SWEEP; set SWEEP=path/to/sweep.toml"
[ -x "$EVLAB" ] || fail "$EVLAB is not an executable; build it (swift build -c release) or set EVLAB"
[[ "$SHARDS" =~ ^[1-9][0-9]*$ ]] || fail "SHARDS=$SHARDS: give a positive whole number"

# Memory in MB from Slurm's syntax: a bare number is MB; K, M, G, T suffixes.
megabytes() {
  case "$1" in
    *[Kk]) echo $(( ${1%?} / 1024 )) ;;
    *[Mm]) echo "${1%?}" ;;
    *[Gg]) echo $(( ${1%?} * 1024 )) ;;
    *[Tt]) echo $(( ${1%?} * 1024 * 1024 )) ;;
    *) echo "$1" ;;
  esac
}

# The nodes a task can land on: CPUs and memory (MB) of each, from sinfo.
nodes=$(sinfo -h -N ${PARTITION:+--partition="$PARTITION"} -o "%c %m" | sort -u)
[ -n "$nodes" ] || fail "sinfo lists no nodes${PARTITION:+ in partition $PARTITION}; check PARTITION or the cluster"
largest=$(sort -n -k1,1 -k2,2 <<<"$nodes" | tail -1)
read -r node_cpus node_mem <<<"$largest"

# Defaults that the largest node can satisfy; explicit values are checked, not changed.
if [ -z "${CPUS_PER_TASK:-}" ]; then
  CPUS_PER_TASK=$(( node_cpus < 4 ? node_cpus : 4 ))
fi
if [ -z "${MEM:-}" ]; then
  MEM=$(( node_mem < 8192 ? node_mem : 8192 ))M
fi
[[ "$CPUS_PER_TASK" =~ ^[1-9][0-9]*$ ]] || fail "CPUS_PER_TASK=$CPUS_PER_TASK: give a positive whole number"
[[ "$MEM" =~ ^[1-9][0-9]*[KkMmGgTt]?$ ]] || fail "MEM=$MEM: give megabytes (2048) or a size such as 8G"
mem_mb=$(megabytes "$MEM")
if ! awk -v c="$CPUS_PER_TASK" -v m="$mem_mb" '$1 >= c && $2 >= m { ok = 1 } END { exit !ok }' <<<"$nodes"; then
  fail "no node${PARTITION:+ in partition $PARTITION} has $CPUS_PER_TASK CPUs and $mem_mb MB (the largest has $node_cpus CPUs and $node_mem MB), so the tasks would pend forever; set CPUS_PER_TASK=$node_cpus MEM=$node_mem or less"
fi

mkdir -p "$LOGS"
array=$(sbatch --parsable --array="1-$SHARDS" --cpus-per-task="$CPUS_PER_TASK" --mem="$MEM" --time="$TIME" \
  ${PARTITION:+--partition="$PARTITION"} --output="$LOGS/evlab-sweep-%A_%a.out" \
  --export=ALL,SWEEP="$SWEEP",SHARDS="$SHARDS",EVLAB="$EVLAB",PARTS_DIR="$PARTS_DIR" \
  "$here/sweep.sbatch")
array=${array%%;*}
parts="$PARTS_DIR/$array"
OUT=${OUT:-results/$(basename "$SWEEP" .toml)-$array}

# The merge waits for every task to succeed; if one fails, Slurm cancels it.
printf -v merge_command '%q merge %q/* -o %q' "$EVLAB" "$parts" "$OUT"
merge=$(sbatch --parsable --job-name=evlab-merge --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --cpus-per-task=1 --mem="$MEM" --time="$TIME" ${PARTITION:+--partition="$PARTITION"} \
  --output="$LOGS/evlab-merge-$array.out" --wrap="$merge_command")
merge=${merge%%;*}

echo "submitted sweep $SWEEP: array job $array ($SHARDS tasks, $CPUS_PER_TASK CPUs and $MEM memory each), merge job $merge"
echo "logs in $LOGS/, parts in $parts/, results to $OUT/ (watch with: squeue -j $array,$merge)"
[ "$WAIT" = 1 ] || exit 0

# WAIT=1: until both jobs have left the queue, then say how they ended.
state() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | cut -d= -f2 | paste -sd, -; }
deadline=$(( $(date +%s) + WAIT_LIMIT ))
while [ -n "$(squeue -h -j "$array,$merge" 2>/dev/null)" ]; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    scancel "$array" "$merge" || true
    fail "the sweep did not end within $WAIT_LIMIT s; jobs $array and $merge cancelled (logs in $LOGS/)"
  fi
  sleep 1
done
if [ "$(state "$merge")" != COMPLETED ] || [ ! -f "$OUT/results.csv" ]; then
  echo "error: the sweep did not complete: tasks ended $(state "$array"), merge $(state "$merge")" >&2
  for log in "$LOGS"/evlab-sweep-"${array}"_*.out "$LOGS/evlab-merge-$array.out"; do
    [ -s "$log" ] && grep -H "error" "$log" >&2 || true
  done
  exit 1
fi
echo "sweep complete: $OUT/results.csv"
