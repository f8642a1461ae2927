#!/usr/bin/env bash
# Trains S4-FIFO's tuner model on the shared traces and writes it as Swift
# source, Sources/EvictionCore/Policies/Segmented/S4FIFOTunerModel.swift,
# with its leave-one-trace-out evaluation, results/s4fifo/tuner.csv (each
# trace's workloads judged by a model trained without that trace): the miss
# ratio after the tuner's window with S3-FIFO's knobs kept, with the
# candidate the model picks, and with the best of the 20 candidates.
#
#   scripts/s4fifo-tuner.sh [--refit]
#
# The measured workloads (each one's features and its misses under every
# candidate) are kept in results/s4fifo/workloads.csv; --refit fits the model
# and its evaluation again from that file, without replaying.
# Deterministic (XGBoost on one thread, seed 0): a rerun on the same traces
# writes the same model. SHARED (default ../shared) holds traces/. Takes
# about ten minutes on two cores (--refit: seconds). docs/policies.md says how the tuner works.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
scripts/ensure-deps.sh > /dev/null
swift build -c release --product s4fifo-trainer > /dev/null
mkdir -p results/s4fifo
.build/release/s4fifo-trainer "$shared" Sources/EvictionCore/Policies/Segmented/S4FIFOTunerModel.swift \
  results/s4fifo/tuner.csv results/s4fifo/workloads.csv "$@"
swift format format -i Sources/EvictionCore/Policies/Segmented/S4FIFOTunerModel.swift
swift build -c release --product evlab > /dev/null
scripts/s4fifo-report.sh
