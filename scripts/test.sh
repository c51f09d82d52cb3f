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
# the neural learned players' training (maw train --algo ppo) is tested too: the rl extra
# (PyTorch's CPU build and sb3-contrib), which an install that only plays does without
if ! .venv/bin/python -c "import sb3_contrib" 2>/dev/null; then
  .venv/bin/python -m pip install --quiet -e ".[rl]" > .venv/pip-rl.log 2>&1 || {
    cat .venv/pip-rl.log >&2; echo "test: pip could not install the rl extra (above)" >&2
    exit 1; }
fi
# (the test folders mirror the package's: tests/engine/ tests maw/engine/...)
FAST=(tests/engine tests/protocol tests/policies tests/records tests/aiwolf/test_golden_replay.py
      tests/llm/test_llm_turns.py tests/llm/test_memory.py tests/agents/test_knowledge.py
      tests/cli/test_cli_errors.py tests/cli/test_cli_help.py tests/test_plugins.py
      tests/llm/test_llm.py::test_every_role_prompt_renders)
args=()
if [ "${1:-}" = "--fast" ]; then
  shift
  args=("${FAST[@]}" -m "not slow and not xmpp and not ejabberd")
fi
set +e
# (three workers on two cores: most tests wait on timers and servers, not the CPU, but
# more workers load the machine until games that time themselves fail: four ran the
# suite in 12.6 minutes and lost two server-restart tests to the load, five drove the
# load to 11; the embedded model runs on one thread (tests/conftest.py: its threads
# waited for each other on the busy cores) and the tests that run it share one worker;
# the slowest 25 named at the end, to keep an eye on what the suite costs)
.venv/bin/python -m pytest -n 3 --dist loadgroup --durations=25 "${args[@]}" "$@"
status=$?
set -e
# pytest exits 5 when it collected no test: that is a broken suite, not a pass
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
