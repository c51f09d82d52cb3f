"""A game shape is one module: a new ruleset with a day flow of its own is defined here, in
the test module (its flow, its rules text and its ruleset, registered as the shipped
shapes register theirs), and plays 200 engine games, ``maw simulate`` from the command
line, and a game over XMPP that ``maw audit`` passes.

The shape: ``open-roles``, MAW's game in which every dead player's role is told to
everyone (the pack no longer learns the executed's role alone), with a phase of its own:
after a day's execution comes the ``dusk``, in which the Village talks once more, without
votes, before the night. It runs in a child process, so that the ruleset and the phase it
adds stay out of the other tests' games.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import in_a_fresh_process

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TOLD = "Every player who dies has its role told to everyone."
DUSK_TEXT = ("After a day's execution comes the dusk: the Village talks once more, without "
             "votes, before the night.")
PACK_ONLY = ("The executed player's role is told to the werewolves alone; nobody else "
             "learns the role of anyone who dies.")


def register_open_roles() -> None:
    """The shape, whole: a phase, a flow, its rules text, its ruleset. Nothing else."""
    from types import MappingProxyType

    from maw.engine import MawFlow, Phase, Room, Ruleset, register_flow
    from maw.engine import resolution as r
    from maw.engine.events import RoleRevealed
    from maw.engine.rulesets import register_ruleset

    dusk = Phase.register("dusk")

    @register_flow
    class OpenRolesFlow(MawFlow):
        flow = "open-roles"
        next_phase = MappingProxyType({Phase.DAY: dusk, dusk: Phase.NIGHT,
                                       Phase.NIGHT: Phase.DAY})
        rooms = MappingProxyType({Phase.DAY: Room.VILLAGE, dusk: Room.VILLAGE,
                                  Phase.NIGHT: Room.HIDEOUT})

        def rules_text(self, rules, players):
            text = MawFlow.rules_text(self, rules, players)
            assert PACK_ONLY in text  # (what it replaces is still said, word for word)
            return text.replace(PACK_ONLY, f"{TOLD} {DUSK_TEXT}")

        def skips(self, state, day, phase):
            return phase is dusk and state.executed_today == r.NOBODY

        def actors(self, state):
            return state.living() if state.phase is dusk else super().actors(state)

        def end_phase(self, state, events):
            if state.phase is dusk:
                return r.advance(state, events)
            return super().end_phase(state, events)

        def at_night(self, state, events):
            return state  # (no role told to the pack alone: everyone has been told)

        def after_deaths(self, state, seats, events):
            for s in seats:
                events.append(RoleRevealed(state.names[s], state.roles[s].name, None))
            return super().after_deaths(state, seats, events)

    register_ruleset(Ruleset(name="open-roles", flow="open-roles", roles=None,
                             min_players=4, max_players=30))


def play_open_roles(folder: str) -> dict:
    """In the child process: the rules text, 200 engine games, ``maw simulate`` and one
    XMPP game that ``maw audit`` passes."""
    import asyncio
    import contextlib
    import io

    from maw.cli import main
    from maw.engine import RULESET_NAMES, ruleset
    from maw.engine.describe import rules_text
    from maw.engine.events import (
        Chatted,
        Executed,
        Murdered,
        PhaseStarted,
        RoleRevealed,
        VoteCast,
    )
    from maw.simulate import play_game

    register_open_roles()
    rules = ruleset("open-roles")
    out: dict = {"names": list(RULESET_NAMES), "text": rules_text(rules, 7), "games": 0,
                 "invalid": 0, "deaths": 0, "told": 0, "private": 0, "dusks": 0,
                 "executions": 0, "dusk_chats": 0, "dusk_votes": 0}
    names = [f"P{i}" for i in range(7)]
    for i in range(200):
        events: list = []
        record = play_game(rules, names, "rule", seed=i, events=events)
        out["games"] += 1
        out["invalid"] += record.invalid_actions
        dead = [e.player for e in events if type(e) in (Executed, Murdered)]
        told = {e.player: e.role for e in events if type(e) is RoleRevealed}
        # (the death that ends a game is told by the game's end, which tells every role)
        out["deaths"] += len(dead) - 1
        out["told"] += sum(1 for p in dead[:-1] if p in told)
        out["private"] += sum(1 for e in events if type(e) is RoleRevealed and e.audience)
        phase = ""
        for e in events:
            if type(e) is PhaseStarted:
                phase = e.phase
                out["dusks"] += phase == "dusk"
            out["executions"] += type(e) is Executed
            out["dusk_chats"] += phase == "dusk" and type(e) is Chatted
            out["dusk_votes"] += phase == "dusk" and type(e) is VoteCast
    screen = io.StringIO()
    with contextlib.redirect_stdout(screen):
        out["simulate_exit"] = main(["simulate", "--ruleset", "open-roles", "--players", "6",
                                     "--games", "20", "--json"])
    out["simulate"] = json.loads(screen.getvalue())
    asyncio.run(_xmpp_game(rules, folder, out))
    return out


async def _xmpp_game(rules, folder: str, out: dict) -> None:
    """Games over XMPP, seed after seed, until one has had a dusk (a game whose days all
    end without an execution has none: the players decide that, and the load, not the
    test); each checked as every course must be."""
    from test_roles import xmpp_games

    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game
    from maw.records.audit import audit_log

    results = []

    async def play(address) -> None:
        for seed in range(2, 7):
            config = GameConfig(players=6, rules=rules, seed=seed, day_seconds=5,
                                night_seconds=3, early_end=True,
                                log_dir=Path(folder) / f"seed{seed}")
            result = await run_game(config, default_seats(6), address, timeout=120)
            results.append(result)
            if any(r["kind"] == "event" and r["event"] == "PhaseStarted" and
                   r["data"]["phase"] == "dusk" for r in map(
                       json.loads, result.log_path.read_text().splitlines())):
                break  # (the log's JSON is compact: a search for '"phase": "dusk"', with
                # its space, never matched, and the last seed's game decided the test)

    await xmpp_games(play)
    out["xmpp_games"] = len(results)
    out["xmpp_dusk_after_execution"] = True
    for result in results:  # every game: a dusk comes only after a day's execution
        records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
        executed, previous = False, ""
        for r in records:
            if r["kind"] == "event" and r["event"] == "Executed":
                executed = True
            if r["kind"] == "event" and r["event"] == "PhaseStarted":
                phase = r["data"]["phase"]
                if phase == "dusk" and not (executed and previous == "day"):
                    out["xmpp_dusk_after_execution"] = False
                executed, previous = False, phase
    result = results[-1]  # (the one with a dusk, if any had)
    out["xmpp_folder"] = str(result.log_path.parent)
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    events = [r for r in records if r["kind"] == "event"]
    out["xmpp_ruleset"] = next(r for r in records if r["kind"] == "round")["ruleset"]
    out["xmpp_dead"] = [r["data"]["player"] for r in events
                        if r["event"] in ("Executed", "Murdered")]
    out["xmpp_told"] = [r["data"]["player"] for r in events if r["event"] == "RoleRevealed"]
    out["xmpp_phases"] = [r["data"]["phase"] for r in events if r["event"] == "PhaseStarted"]
    out["xmpp_dusk_sent"] = sum(1 for r in records if r["kind"] == "msg" and
                                r.get("type") == "phase_change" and
                                r["body"].get("new_phase") == "dusk")
    out["xmpp_winner"] = result.outcomes[0].winner.value if result.outcomes[0].winner else None
    out["audit_ok"] = all(audit_log(r.log_path).ok for r in results)
    out["audit"] = [str(v) for r in results for v in audit_log(r.log_path).violations[:3]]


@pytest.mark.xmpp
def test_a_game_shape_defined_here_plays_in_the_engine_simulate_over_xmpp_and_on_the_page(
        tmp_path, browser):
    got = in_a_fresh_process("test_game_shape", "play_open_roles", str(tmp_path))
    # the registry knows it by name, after the shipped ones, and tells its own rules
    assert got["names"][-1] == "open-roles" and "maw" in got["names"]
    assert TOLD in got["text"] and PACK_ONLY not in got["text"]
    # the engine plays it: every death's role is told, to everyone, never to the pack alone
    assert got["games"] == 200 and got["invalid"] == 0
    assert got["deaths"] > 300 and got["told"] == got["deaths"] and got["private"] == 0
    # the command line plays it
    assert got["simulate_exit"] == 0 and got["simulate"]["games"] == 20
    assert got["simulate"]["invalid_actions"] == 0
    # over XMPP: the log names the shape, every death is told, and the audit (which
    # replays the log through the same engine and checks what each player was sent) passes
    assert got["xmpp_ruleset"] == "open-roles" and got["xmpp_winner"], got
    assert got["xmpp_dead"] and set(got["xmpp_dead"][:-1]) <= set(got["xmpp_told"]), got
    assert got["audit_ok"], got["audit"]
    # its own phase: after each execution (and only then) a dusk, in which the Village
    # talks and nobody votes; over XMPP the GameMaster runs it and tells the players
    assert DUSK_TEXT in got["text"]
    assert got["dusks"] > 0 and got["dusks"] <= got["executions"], got
    assert got["dusk_chats"] > 0 and got["dusk_votes"] == 0, got
    assert got["xmpp_dusk_after_execution"], got
    assert "dusk" in got["xmpp_phases"] and got["xmpp_dusk_sent"] > 0, got
    # the web replay of that game, served by a process that never heard of the shape,
    # has a step for each of its dusks, and goes there
    dusks = replayed_dusks(Path(got["xmpp_folder"]), browser)
    assert dusks and len(dusks) == got["xmpp_phases"].count("dusk"), (dusks, got)


def replayed_dusks(folder: Path, browser) -> list[str]:
    """``maw web FOLDER``'s replay of the one game there: where each dusk step took it."""
    import subprocess
    import sys
    import time
    import urllib.request

    from selenium.webdriver.common.by import By

    from maw.hosting.xmpp import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "maw", "web", str(folder), "--web",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"

    def until(condition, what: str, timeout: float = 30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = condition()
            except Exception:  # (not served, or not drawn, yet)
                value = None
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"{what}: not in {timeout} s")

    try:
        until(lambda: urllib.request.urlopen(url + "api/info", timeout=1).read(), "the server")
        browser.get(url)
        until(lambda: browser.find_element(By.CSS_SELECTOR, "a.replay-link"),
              "the game in the archive").click()
        steps = until(lambda: browser.find_elements(By.CSS_SELECTOR, "#phases button"),
                      "the timeline")
        where = []
        for k in range(len(steps)):
            button = browser.find_elements(By.CSS_SELECTOR, "#phases button")[k]
            if button.text == "dusk":
                title = button.get_attribute("title")
                button.click()
                where.append(until(lambda t=title: browser.find_element(
                    By.ID, "position").text.startswith(t) and t, f"the step {title}"))
        return where
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_shipped_ruleset_is_found_through_the_registry_and_an_unknown_one_says_which():
    from maw.engine import RULESET_NAMES, ruleset
    from maw.engine.rulesets import RULESETS
    from maw.errors import ConfigError

    assert list(RULESET_NAMES) == list(RULESETS) == [
        "maw", "aiwolf-5", "aiwolf-9", "aiwolf-13", "aiwolf-15", "rlerewolf", "werewolf-12",
        *(f"werewolf-{n}" for n in range(6, 17) if n != 12)]
    for name in RULESET_NAMES:
        assert ruleset(name).name == name
    with pytest.raises(ConfigError, match="unknown ruleset 'chess'; known: maw, aiwolf-5"):
        ruleset("chess")
    # an option that is another ruleset's own is refused, naming whose it is
    with pytest.raises(ConfigError, match="'maw' takes no sheriff: .* the werewolf-12 rule"):
        ruleset("maw", sheriff="true")
    with pytest.raises(ConfigError, match="'aiwolf-9' takes no whisper: .* the maw ruleset"):
        ruleset("aiwolf-9", whisper="true")
    with pytest.raises(ConfigError, match="'maw' takes no talk_mode: .* the aiwolf-\\* rule"):
        ruleset("maw", talk_mode="freeform")
    with pytest.raises(ConfigError, match="unknown variant 'x' of ruleset 'aiwolf-5'"):
        ruleset("aiwolf-5", variant="x")
    assert ruleset("werewolf-12", role_set="b").roles[-1].name == "Idiot"


def test_contributing_names_the_one_module_of_a_game_shape():
    """CONTRIBUTING's "Add a game shape" names what this test's shape needed: one module
    with a flow (``register_flow``) and a ruleset (``register_ruleset``)."""
    import inspect
    import re

    text = (REPO / "CONTRIBUTING.md").read_text()
    section = text.split("## Add a game shape", 1)[1].split("\n## ", 1)[0]
    places = re.findall(r"^\d\. .*?(?=^\d\. |^$)", section, re.M | re.S)
    assert len(places) == 1
    said = set(re.findall(r"`@?(register_\w+)`", places[0]))
    used = set(re.findall(r"\b(register_\w+)\b", inspect.getsource(register_open_roles))) - {
        register_open_roles.__name__}
    assert said == used == {"register_flow", "register_ruleset"}, (said, used)
