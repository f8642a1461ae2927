#!/usr/bin/env bash
# The shard/merge path on one machine: N evlab processes at once, each
# running one shard of CONFIG, then one merge. What the Slurm and Kubernetes
# examples do across machines. Usage: examples/local-shards.sh CONFIG N OUT
set -euo pipefail
config=${1:?usage: examples/local-shards.sh CONFIG N OUT}
shards=${2:?usage: examples/local-shards.sh CONFIG N OUT}
out=${3:?usage: examples/local-shards.sh CONFIG N OUT}
evlab=${EVLAB:-.build/release/evlab}
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
pids=()
for i in $(seq 1 "$shards"); do
  "$evlab" compare --config "$config" --shard "$i/$shards" --output "$parts/$i" --jobs 1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
"$evlab" merge "$parts"/* -o "$out"
