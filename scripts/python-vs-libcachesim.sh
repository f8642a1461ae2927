#!/usr/bin/env bash
# evictionlab's Python package beside libCacheSim 0.3.5's (pip's
# libcachesim==0.3.5, in a virtual environment of its own), on the same trace:
# - results/python/hooks-vs-libcachesim.md: a policy written as Python hooks
#   (evictionlab.Policy, libCacheSim's PluginCache), interleaved rounds,
#   medians, both giving libCacheSim's own LRU and FIFO miss ratios; and
#   evictionlab's bulk Cache feeding from a NumPy array;
# - results/python/side-by-side.md: three tasks written in both packages,
#   their lines and times, each pair checked to give the same numbers.
# A few minutes; run it on a quiet machine.
#
#   scripts/python-vs-libcachesim.sh [ROUNDS]          # default 5
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
rounds=${1:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "error: ROUNDS '$rounds' must be a positive whole number" >&2; exit 2; }
trace=${SHARED:-../shared}/traces/libcachesim/twitter_cluster52.oracleGeneral.zst
[ -f "$trace" ] || { echo "error: $trace is missing (the shared traces sit beside the repository)" >&2; exit 1; }
scripts/python-wheel.sh
venv=.build/python-bench-venv
if ! "$venv/bin/python" -c 'import libcachesim, pandas' 2> /dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  # libcachesim pins its own pytest, so not the tests' requirements: numpy and pandas as they pin them.
  "$venv/bin/pip" install -q --disable-pip-version-check numpy==2.1.3 pandas==2.2.3 libcachesim==0.3.5
fi
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall dist/evictionlab-*.whl
version=$("$venv/bin/python" -c 'import evictionlab; print(evictionlab.version())')
table=$(cd "$(mktemp -d)" && env -u LD_LIBRARY_PATH "$repo/$venv/bin/python" "$repo/scripts/python_hooks_speed.py" \
  "$(realpath "$repo/$trace")" "$rounds")
mkdir -p results/python
{
  echo "# A policy in Python hooks: evictionlab against libCacheSim's PluginCache"
  echo
  echo "Made by \`scripts/python-vs-libcachesim.sh $rounds\` with evictionlab $version and libcachesim 0.3.5 (PyPI),"
  echo "Python $("$venv/bin/python" -c 'import platform; print(platform.python_version())'), $(nproc) cores."
  echo
  echo "The same LRU (and FIFO: no work on a hit), an \`OrderedDict\` behind the hooks, in each package: \`evictionlab.Policy\`"
  echo "(\`on_hit\`, \`on_admit\`, \`victim\`, \`on_remove\`) replayed by \`evictionlab.replay\`, and \`libcachesim.PluginCache\`"
  echo "(hit, miss, eviction and remove hooks) replayed by \`process_trace\`; twitter_cluster52 (1,000,000 requests),"
  echo "count mode, each call timed whole, $rounds interleaved rounds, medians. Both give libCacheSim's own LRU and FIFO"
  echo "miss ratios (the script stops otherwise)."
  echo
  echo "$table"
} > results/python/hooks-vs-libcachesim.md
cat results/python/hooks-vs-libcachesim.md
side=$(cd "$(mktemp -d)" && env -u LD_LIBRARY_PATH "$repo/$venv/bin/python" "$repo/scripts/python_side_by_side.py" \
  "$(realpath "$repo/$trace")" "$rounds")
{
  echo "# Three tasks in evictionlab and in libCacheSim's Python package"
  echo
  echo "Made by \`scripts/python-vs-libcachesim.sh $rounds\` with evictionlab $version and libcachesim 0.3.5 (PyPI),"
  echo "Python $("$venv/bin/python" -c 'import platform; print(platform.python_version())'), $(nproc) cores; twitter_cluster52"
  echo "(1,000,000 requests), count mode. Lines: non-blank lines of each snippet as listed below; seconds: each"
  echo "snippet timed whole, median of $rounds interleaved runs. Each pair gives the same numbers (the script stops"
  echo "otherwise)."
  echo
  echo "$side"
} > results/python/side-by-side.md
cat results/python/side-by-side.md

