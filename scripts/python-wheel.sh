#!/usr/bin/env bash
# Builds the Python package as a wheel a machine without Swift installs:
# the engine (the EvictionLabNative library, release) with every library it
# needs bundled (scripts/python_wheel.py). Writes dist/evictionlab-*.whl.
#
#   scripts/python-wheel.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
# The flags of scripts/test.sh's build, so a tested checkout rebuilds nothing.
swift build -c release -Xswiftc -enable-testing --product EvictionLabNative >&2
version=$(sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/EvictionLab/Version.swift)
rm -f dist/evictionlab-*.whl
python3 scripts/python_wheel.py .build/release/libEvictionLabNative.so "$version" dist
