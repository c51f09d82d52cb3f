#!/usr/bin/env bash
# The README's test command: set up, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
set +e
# (the slowest 25 tests named at the end: the suite must stay well under CI's 30 minutes)
.venv/bin/python -m pytest --durations=25 "$@"
status=$?
set -e
# pytest exits 5 when it collected no test: that is a broken suite, not a pass
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
