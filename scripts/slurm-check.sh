#!/usr/bin/env bash
# The Slurm example, run on a real cluster: brings up a single-node Slurm
# cluster on this machine from Debian's packages (a generated munge key, a
# slurm.conf for this host's real CPUs and memory, slurmctld and slurmd, no
# cgroup plugin), submits examples/slurm/small.toml with
# examples/slurm/submit.sh as 2 shards, and fails unless the merged
# results.csv is byte-identical to one `evlab compare` run of the same
# configuration. Then a sweep whose tasks fail must end with the merge
# cancelled and an error. The cluster is torn down however the script ends.
# Needs root or sudo (the daemons run as root here) and .build/release/evlab.
# EVLAB names the binary the jobs run (default .build/release/evlab); the
# single run always uses .build/release/evlab.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
if [ "$(id -u)" -ne 0 ]; then
  # The daemons run as root: use sudo where there is one.
  command -v sudo >/dev/null || { echo "error: the test cluster's daemons run as root; run this as root or with sudo" >&2; exit 1; }
  exec sudo -E "$0" "$@"
fi
[ -x .build/release/evlab ] || { echo "error: no .build/release/evlab; build it first (swift build -c release)" >&2; exit 1; }
scripts/ensure-deps.sh munge slurmctld slurmd slurm-client

cluster=$(mktemp -d /tmp/evlab-slurm.XXXXXX)
chmod 700 "$cluster"
pids=()
teardown() {
  local status=$?
  # Jobs first (their steps outlive slurmd), then the daemons.
  if [ -n "$(squeue -h 2>/dev/null)" ]; then
    scancel --quiet --user="$(id -un)" || true
    for _ in $(seq 20); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.25; done
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ $status -ne 0 ]; then
    for log in "$cluster"/*.log "$cluster"/logs/*; do
      [ -f "$log" ] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }
    done
  fi
  rm -rf "$cluster"
  exit $status
}
trap teardown EXIT
trap 'exit 130' INT TERM

# munge: a fresh key and a socket of our own, so a host's munge is left alone.
mungekey --create --keyfile="$cluster/munge.key"
munged --force --socket="$cluster/munge.socket" --key-file="$cluster/munge.key" \
  --pid-file="$cluster/munged.pid" --log-file="$cluster/munged.log" --seed-file="$cluster/munged.seed"
pids+=("$(cat "$cluster/munged.pid")")

# slurm.conf: this host as the only node, with what slurmd detects on it.
node=$(slurmd -C | awk 'NR == 1')
host=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$node")
ports=${SLURM_CHECK_PORTS:-16817-16818}
export SLURM_CONF="$cluster/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=evlabcheck
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports%-*}
SlurmdPort=${ports#*-}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$cluster/munge.socket
CredType=cred/munge
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
mkdir -p "$cluster/state" "$cluster/spool"
slurmctld -D -f "$SLURM_CONF" > "$cluster/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$cluster/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qx idle && break
  sleep 0.5
done
sinfo -h -o %T 2>/dev/null | grep -qx idle || { echo "error: the test cluster's node did not come up" >&2; exit 1; }
echo "slurm-check: cluster up in $(( $(date +%s) - start )) s: $node"

config=examples/slurm/small.toml
export LOGS="$cluster/logs" PARTS_DIR="$cluster/parts" WAIT=1 WAIT_LIMIT=120 SHARDS=2

# A request no node can satisfy is refused before submission, saying what to change.
cpus=$(sinfo -h -N -o %c | sort -n | tail -1)
if SWEEP=$config CPUS_PER_TASK=$((cpus + 1)) examples/slurm/submit.sh 2> "$cluster/toolarge.err"; then
  echo "error: submit.sh submitted tasks asking for more CPUs than any node has" >&2
  exit 1
fi
grep -q "pend forever; set CPUS_PER_TASK=$cpus" "$cluster/toolarge.err" \
  || { cat "$cluster/toolarge.err" >&2; echo "error: no advice for a request no node satisfies" >&2; exit 1; }
[ -z "$(squeue -h)" ] || { echo "error: a refused sweep left jobs in the queue" >&2; exit 1; }
echo "slurm-check: a request for $((cpus + 1)) CPUs is refused before submission"

# The sweep as the README submits it, and the same configuration in one run.
OUT="$cluster/merged" SWEEP=$config examples/slurm/submit.sh
.build/release/evlab compare --config "$config" --output "$cluster/single" 2>/dev/null
if ! cmp "$cluster/single/results.csv" "$cluster/merged/results.csv"; then
  diff "$cluster/single/results.csv" "$cluster/merged/results.csv" | head -20 >&2 || true
  echo "error: the Slurm sweep's merged results.csv differs from a single run's (above)" >&2
  exit 1
fi
echo "slurm-check: merged results.csv of 2 shards = a single run's ($(wc -l < "$cluster/single/results.csv") lines)"

# A sweep whose tasks fail: the merge must never run, and submit.sh must say so.
if OUT="$cluster/never" SWEEP=$config EVLAB=/bin/false examples/slurm/submit.sh 2> "$cluster/failed.err"; then
  echo "error: a sweep whose tasks failed was reported as complete" >&2
  exit 1
fi
grep -q "did not complete" "$cluster/failed.err" || { cat "$cluster/failed.err" >&2; echo "error: no message for a failed sweep" >&2; exit 1; }
grep -q "merge job will not run" "$cluster"/logs/evlab-sweep-*_1.out 2>/dev/null \
  || { echo "error: a failed task's log does not say the merge will not run" >&2; exit 1; }
[ ! -e "$cluster/never" ] || { echo "error: the merge ran after a task failed" >&2; exit 1; }
echo "slurm-check: a failed task cancels the merge and says so"
echo "slurm-check: passed in $(( $(date +%s) - start )) s"
