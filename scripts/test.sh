#!/usr/bin/env bash
# The README's test command: set up, then run the whole test suite (what CI runs), on
# several workers (pytest-xdist: each its own ports and servers). Arguments go to pytest.
#
#   bash scripts/test.sh            the whole suite
#   bash scripts/test.sh --fast     the edit-test loop: the engine, the protocol, the
#                                   policies, the records and the CLI's errors, no XMPP
#                                   server and no model (about a minute and a half)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
FAST=(tests/test_engine_maw.py tests/test_engine_aiwolf.py tests/test_engine_properties.py
      tests/test_werewolf12.py tests/test_werewolf12_day.py tests/test_describe.py
      tests/test_rules_claims.py tests/test_roles.py tests/test_game_shape.py
      tests/test_golden_replay.py
      tests/test_protocol.py tests/test_render.py tests/test_policies.py
      tests/test_beliefs.py tests/test_gate.py tests/test_hybrid.py tests/test_deciders.py
      tests/test_llm_turns.py tests/test_memory.py tests/test_knowledge.py
      tests/test_records.py tests/test_accounting.py
      tests/test_audit.py tests/test_cli_errors.py tests/test_cli_help.py)
args=()
if [ "${1:-}" = "--fast" ]; then
  shift
  args=("${FAST[@]}" -m "not slow and not xmpp and not ejabberd")
fi
set +e
# (three workers on two cores: most tests wait on timers and servers, not the CPU, but
# four, beside the model tests, starved the games that time themselves; the
# tests that run the embedded model share one worker, tests/conftest.py; the slowest 25
# named at the end, to keep an eye on what the suite costs)
.venv/bin/python -m pytest -n 3 --dist loadgroup --durations=25 "${args[@]}" "$@"
status=$?
set -e
# pytest exits 5 when it collected no test: that is a broken suite, not a pass
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
