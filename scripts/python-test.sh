#!/usr/bin/env bash
# Builds the wheel (scripts/python-wheel.sh), installs it into a fresh
# virtual environment, and runs python/tests there with pytest, from a
# folder outside the repository and with LD_LIBRARY_PATH unset, so the
# package and its engine come from the wheel alone; the tests compare it
# with .build/release/evlab.
#
#   scripts/python-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
scripts/python-wheel.sh
[ -x .build/release/evlab ] || swift build -c release -Xswiftc -enable-testing --product evlab >&2
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "Installing python3 and python3-venv" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3 python3-venv >/dev/null
fi
venv=.build/python-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r python/requirements-test.txt
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps dist/evictionlab-*.whl
cd "$(mktemp -d)"
env -u LD_LIBRARY_PATH PYTHONDONTWRITEBYTECODE=1 EVICTIONLAB_EXPECT_BUNDLED=1 EVICTIONLAB_REPO="$repo" EVLAB="$repo/.build/release/evlab" \
  "$repo/$venv/bin/python" -m pytest -q -p no:cacheprovider "$repo/python/tests"
