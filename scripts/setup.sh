#!/usr/bin/env bash
# Installs everything fsmc needs on a fresh Debian machine: system packages (Chromium, SPIN, gcc, Graphviz),
# the Python package with its dev tools, and the site template's npm packages (once, shared by all sites).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v spin >/dev/null || missing+=(spin)
command -v gcc >/dev/null || missing+=(gcc)
command -v dot >/dev/null || missing+=(graphviz)
command -v node >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} with apt-get" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PIP="python3 -m pip install -q --root-user-action=ignore --disable-pip-version-check"
# TRL (a dev extra, for the dataset tests) needs torch: take the CPU build that lies on this machine's disk
# rather than letting the resolver fetch a multi-GB CUDA build.
python3 -c 'import torch' 2>/dev/null || $PIP torch==2.13.0
$PIP -e '.[dev,agents]'
# The agents' ecosystem without the pins that would downgrade fsmc's dependencies (browsergym-core: playwright==1.44;
# agentlab: openai<2); their real imports come with the `agents` extra above. Checked with Playwright 1.65.
$PIP --no-deps browsergym-core==0.14.3 browsergym-experiments==0.14.3 agentlab==0.4.2 openenv==0.10.0

if [ -f fsmc/templates/package-lock.json ] && [ ! -d fsmc/templates/node_modules ]; then
  echo "setup: installing the site template's npm packages" >&2
  (cd fsmc/templates && npm ci --no-audit --no-fund --loglevel=error)
fi

# Trac, the issue tracker specs/tracker.fsm is acted out on, in a virtual environment of its own (its sidecar names
# the interpreter): Trac 1.6 imports setuptools' pkg_resources, and nothing of it needs to be in fsmc's environment.
TRAC_VENV=specs/apps/tracker/.venv
if ! "$TRAC_VENV/bin/python" -c 'import trac' 2>/dev/null; then
  echo "setup: installing Trac into $TRAC_VENV" >&2
  python3 -m venv "$TRAC_VENV"
  "$TRAC_VENV/bin/python" -m pip install -q --root-user-action=ignore --disable-pip-version-check 'Trac==1.6' 'setuptools<81'
fi
