#!/usr/bin/env bash
# What can be checked of the Kubernetes example without a cluster: every
# manifest in examples/kubernetes/ validates (strict: no unknown field)
# against the Kubernetes API's schemas with kubernetes-validate from PyPI
# (pinned in scripts/kubernetes-requirements.txt, installed in .venv-k8s/),
# and the sweep Job's completions, parallelism and SHARDS agree, as the
# shard arithmetic needs. No pod is run: that needs a cluster this machine
# does not have.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "Installing python3 and python3-venv" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3 python3-venv >/dev/null
fi
venv=.venv-k8s
requirements=scripts/kubernetes-requirements.txt
if [ ! -x "$venv/bin/kubernetes-validate" ] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
"$venv/bin/kubernetes-validate" --strict --quiet examples/kubernetes/*.yaml
"$venv/bin/python" - examples/kubernetes/sweep-job.yaml <<'PY'
import sys, yaml
path = sys.argv[1]
job = next(d for d in yaml.safe_load_all(open(path)) if d and d.get("kind") == "Job")
spec = job["spec"]
env = {e["name"]: e.get("value") for c in spec["template"]["spec"]["containers"] for e in c.get("env", [])}
counts = {"completions": spec.get("completions"), "parallelism": spec.get("parallelism"), "SHARDS": int(env.get("SHARDS", 0))}
if spec.get("completionMode") != "Indexed" or len(set(counts.values())) != 1:
    sys.exit(f"error: {path}: an Indexed Job needs completions = parallelism = SHARDS; found {counts}")
print(f"kubernetes-check: manifests valid; {path}: {counts['SHARDS']} shards, indexed")
PY
