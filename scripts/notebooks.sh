#!/usr/bin/env bash
# Executes every notebook in notebooks/ headless against the results the
# Quick start job produced (results/default/ unless EVLAB_RESULTS names a
# results.csv), in a virtual environment with notebooks/requirements.txt.
# Then both again on a comparison without FIFO (made with .build/release/evlab).
# The executed copies go to .build-notebooks/ (the committed notebooks stay
# without outputs); a failing cell fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
export EVLAB_RESULTS=${EVLAB_RESULTS:-$PWD/results/default/results.csv}
[ -f "$EVLAB_RESULTS" ] || { echo "error: $EVLAB_RESULTS does not exist; run scripts/quickstart.sh first" >&2; exit 1; }

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "Installing python3 and python3-venv" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3 python3-venv >/dev/null
fi
venv=.venv
if [ ! -x "$venv/bin/jupyter" ] || ! cmp -s notebooks/requirements.txt "$venv/requirements.txt"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r notebooks/requirements.txt
  cp notebooks/requirements.txt "$venv/requirements.txt"
fi
# from_python.ipynb uses the package itself: the wheel scripts/python-wheel.sh
# builds (incrementally), installed into the same environment.
scripts/python-wheel.sh >&2
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall dist/evictionlab-*.whl
out=.build-notebooks
mkdir -p "$out"
export EVLAB_FIGURES=$PWD/$out/figures MPLBACKEND=Agg
for notebook in notebooks/*.ipynb; do
  echo "executing $notebook against $EVLAB_RESULTS"
  "$venv/bin/jupyter" nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
    --output-dir "$out" "$notebook"
done
# Both notebooks again on a comparison of two traces without FIFO (whose
# across-trace view has no baseline): each says so instead of failing.
evlab=.build/release/evlab
if [ -x "$evlab" ]; then
  nofifo=$out/without-fifo
  rm -rf "$nofifo"
  "$evlab" compare --trace traces/zipf-scan.oracleGeneral.zst --trace traces/loop-3000.oracleGeneral.zst \
    --policy lru,arc,s3fifo --size 1%,10% --output "$nofifo/sweep" > /dev/null 2>&1
  for notebook in notebooks/compare_policies.ipynb notebooks/across_traces.ipynb; do
    echo "executing $notebook against a comparison without FIFO"
    EVLAB_RESULTS=$PWD/$nofifo/sweep/results.csv "$venv/bin/jupyter" nbconvert --to notebook --execute \
      --ExecutePreprocessor.timeout=300 --output-dir "$nofifo" "$notebook"
  done
else
  echo "note: $evlab is not built: the notebooks were not run on a comparison without FIFO" >&2
fi
