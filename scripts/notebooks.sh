#!/usr/bin/env bash
# Executes every notebook in notebooks/ headless against the results the
# Quick start job produced (results/default/ unless EVLAB_RESULTS names a
# results.csv), in a virtual environment with notebooks/requirements.txt.
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
out=.build-notebooks
mkdir -p "$out"
export EVLAB_FIGURES=$PWD/$out/figures MPLBACKEND=Agg
for notebook in notebooks/*.ipynb; do
  echo "executing $notebook against $EVLAB_RESULTS"
  "$venv/bin/jupyter" nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
    --output-dir "$out" "$notebook"
done
