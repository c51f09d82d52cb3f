from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import pytest_asyncio

# the engine as written, unless the run asks for the compiled one (MAW_ENGINE=compiled
# bash scripts/test.sh --fast, after maw engine build): maw.engine.compiled; set before
# the engine's first import, which makes the choice (the processes tests start inherit it)
os.environ.setdefault("MAW_ENGINE", "python")

from maw.engine import (  # noqa: E402
    BODYGUARD,
    MEDIUM,
    POSSESSED,
    SEER,
    VILLAGER,
    WEREWOLF,
    GameState,
    new_game,
    ruleset,
)

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"  # what the tests need, in the repository itself
LETTERS = {"W": WEREWOLF, "V": VILLAGER, "S": SEER, "M": MEDIUM, "B": BODYGUARD,
           "P": POSSESSED}
NAMES = [chr(ord("A") + i) for i in range(26)]


# the embedded model on one thread: three test workers share two cores, and a model's
# threads wait for each other (maw.llm.model_process.default_threads,
# benchmarks/model_threads.py); a test that wants more says so
os.environ.setdefault("MAW_LLM_THREADS", "1")

# the tests that run the embedded model (by the fixtures they use, or marked ``model``)
MODEL_FIXTURES = {"llama_server", "embedded", "model_path"}


def pytest_itemcollected(item):
    """Tests that run the embedded model share one worker (scripts/test.sh runs pytest
    with ``--dist loadgroup``): models side by side on two cores made each call several
    times slower, and a game whose days are fitted to its model's measured calls then
    outlasted its test's timeout (a CI run: over 600 s for a game of 100 s alone); in two
    groups, two models at once slowed the other workers' games until two tests that
    time a flood and a replay failed. (Marked as each test is collected: xdist reads the
    groups when collection ends.)"""
    if MODEL_FIXTURES & set(getattr(item, "fixturenames", ())) or \
            item.get_closest_marker("model"):
        item.add_marker(pytest.mark.xdist_group("model"))
    elif item.get_closest_marker("docker"):
        # (the tests that build images and run containers: one after the other, so that
        # two sets of containers do not load the cores the timed games share)
        item.add_marker(pytest.mark.xdist_group("docker"))


def in_the_model_group(item) -> bool:
    marker = item.get_closest_marker("xdist_group")
    return marker is not None and marker.args[:1] == ("model",)


def pytest_collection_modifyitems(items):
    """The model group first: it is the suite's longest unit of work (one worker runs its
    tests in turn, some ten minutes), and ``--dist loadgroup`` hands the units out in
    the order collected, so from tests/llm it started minutes into a run and ended last.
    (A stable sort: every other test keeps its order; each worker sorts alike.)"""
    items.sort(key=lambda item: not in_the_model_group(item))


def in_a_fresh_process(module: str, function: str, *args: str, timeout: float = 300) -> dict:
    """``module.function(*args)`` (a module of tests/) run in a new Python process, and the
    JSON it returns: what a test registers there (a role, a game shape) stays there."""
    import json
    import subprocess
    import sys

    folder = next((REPO / "tests").rglob(f"{module}.py")).parent
    path = [str(folder), str(REPO / "tests")]
    code = (f"import json, sys; sys.path[:0] = {path!r}; "
            f"import {module}; print(json.dumps({module}.{function}(*{list(args)!r})))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def start(name: str, deal: str, seed: int = 0, **options) -> GameState:
    """A game of ruleset ``name`` with roles dealt in seat order: player A gets deal[0]..."""
    roles = [LETTERS[c] for c in deal]
    return new_game(ruleset(name, **options), NAMES[: len(roles)], random.Random(seed),
                    roles=roles)


def wolf_view() -> GameState:
    """MAW 6: B and E are the wolves; day 2 after F was executed and A murdered."""
    from maw import engine

    s = start("maw", "VWVVWV")
    for voter in "ABCD":  # (a majority executes at once)
        s, _ = engine.play(s, engine.Vote(voter, "F"))
    s, _ = engine.play(s, engine.Attack("B", "A"))
    s, _ = engine.play(s, engine.Attack("E", "A"))
    assert s.day == 2 and s.phase.value == "day"
    return s


# ---------------------------------------------------------------- pyjabber


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def server():
    """The embedded pyjabber server, one per test session: pyjabber keeps process-wide
    singletons bound to the event loop of the first server, so a second one in the same
    process fails. Tests that use it run on the session loop
    (``@pytest.mark.asyncio(loop_scope="session")``)."""
    from maw.hosting.xmpp import Address, EmbeddedServer, free_port

    srv = EmbeddedServer(free_port())
    await srv.start()
    yield Address("localhost", srv.port, False)
    await srv.stop()


# ---------------------------------------------------------------- ejabberd


@pytest.fixture(scope="session")
def ejabberd():
    """A real ejabberd for this test session, started from the project's ejabberd.yml by
    scripts/ejabberd.sh on a free port (its own node and state directory), stopped at the
    end. Where ejabberd is not installed the tests skip, except in CI, where .ci/run
    installs it and a missing server is a failure."""
    import shutil
    import subprocess
    import tempfile

    from maw.hosting.xmpp import Address, free_port

    if shutil.which("ejabberdctl") is None:
        if os.environ.get("CI"):
            pytest.fail("ejabberd is not installed (.ci/run installs it with apt-get)")
        pytest.skip("ejabberd is not installed (apt-get install -y ejabberd)")
    port = free_port()
    state = tempfile.mkdtemp(prefix="maw-ejabberd-")
    env = dict(os.environ, MAW_EJABBERD_DIR=state, MAW_EJABBERD_PORT=str(port),
               MAW_EJABBERD_NODE=f"maw-test-{port}@localhost")
    script = str(REPO / "scripts" / "ejabberd.sh")
    started = subprocess.run(["bash", script, "start"], env=env, capture_output=True,
                             text=True, timeout=120)
    if started.returncode != 0:
        pytest.fail(f"ejabberd did not start:\n{started.stdout}\n{started.stderr}")
    try:
        yield Address("127.0.0.1", port, False)
    finally:
        subprocess.run(["bash", script, "stop"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(state, ignore_errors=True)


# ---------------------------------------------------------------- a real browser


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium through chromium-driver (Selenium). Where it is missing
    the tests skip, except in CI, where .ci/run installs it."""
    import shutil

    driver_path = shutil.which("chromedriver")
    if driver_path is None:
        message = "no chromedriver: apt-get install chromium chromium-driver"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()
