#!/usr/bin/env bash
# Installs the system packages EvictionLab builds and tests against, if any is
# missing: SQLite, GSL, XGBoost (the learned policies) and LEMON (the flow
# bounds' min-cost flow) headers, the
# zlib/liblzma/libzstd headers behind transparent decompression, and the
# gzip/xz/zstd tools the tests use to make compressed fixtures, and
# rsvg-convert with a font for the reports' PDF and PNG figures. Only the Swift toolchain is assumed. Packages named
# as arguments are installed too (scripts/slurm-check.sh adds Slurm's).
set -euo pipefail

packages=(libsqlite3-dev libgsl-dev libxgboost-dev liblemon-dev zlib1g-dev liblzma-dev libzstd-dev gzip xz-utils zstd librsvg2-bin fonts-dejavu-core "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing system packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
