#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install MAW with its test tools. Idempotent and quick
# when nothing changed (pip reuses its cache of built wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet -e ".[dev]"
