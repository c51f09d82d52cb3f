"""A role is data: a new role with a night action of its own is defined here, in the test
module, in the three places CONTRIBUTING names (the role, its action with its resolution,
its prompt), and plays 200 engine games and a game over XMPP, which ``maw audit`` passes.

It runs in a child process, so that the role it adds stays out of the other tests' game.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import in_a_fresh_process

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# its prompt (prompts/roles/Assassin.md, for a model that plays it)
PROMPT = ("You are $name, the Assassin, on the village's side. Once in the game, at night, "
          "you may stab one player: they die at dawn. Stab one you believe is a "
          "werewolf, and keep your role to yourself.")


def register_assassin():
    """The Assassin: one role, one night action and how it resolves. Nothing else."""
    from maw.engine import (
        ActionSpec,
        Night,
        Role,
        Species,
        Team,
        night_action,
        register_action,
        register_role,
    )
    from maw.engine.abilities import GUARD_ORDER

    assassin = register_role(Role(
        "Assassin", Team.VILLAGE, Species.HUMAN, frozenset({"stab"}), uses=(("stab", 1),),
        code="assassin", power="once a game the Assassin stabs one player at night"))

    def stab(dawn, _assassin: int, target: int) -> None:  # no guard stops it
        dawn.kill(target)

    register_action(ActionSpec(
        "stab", night_action("stab"), "stab", True, False, frozenset({"night"}),
        "Acted", "/stab NAME", "stab NAME tonight (assassin, once a game)",
        Night(GUARD_ORDER + 5, stab)))
    return assassin


def play_with_the_assassin(folder: str) -> dict:
    """In the child process: 200 engine games and one XMPP game with an Assassin."""
    import asyncio

    from maw.engine import ruleset
    from maw.engine.events import Acted, Murdered
    from maw.simulate import play_game

    register_assassin()
    rules = ruleset("maw", roles="assassin:1")
    out = {"games": 0, "invalid": 0, "stabs": 0, "stabbed_died": 0, "uses_ok": True}
    names = [f"P{i}" for i in range(7)]
    for i in range(200):
        events: list = []
        record = play_game(rules, names, "rule", seed=i, events=events)
        out["games"] += 1
        out["invalid"] += record.invalid_actions
        chosen = [e for e in events if type(e) is Acted and e.action == "stab"]
        # (a MAW night's choice may change: the last of a night is the one that acts)
        stabs = list({e.day: e for e in chosen}.values())
        out["stabs"] += len(stabs)
        out["uses_ok"] &= len(stabs) <= 1  # once a game
        for p in stabs:
            died = next((e for e in events if type(e) is Murdered and e.day == p.day and
                         e.player == p.target), None)
            out["stabbed_died"] += died is not None
    # the game over XMPP: its timing is not seeded, and a day-1 execution can take the
    # Assassin before any night; then the next seed plays (at most five games), on the
    # same embedded server and event loop (pyjabber binds itself to the first loop of a
    # process: a second server in a new loop failed with "bound to a different event loop")
    asyncio.run(_xmpp_games(rules, folder, out))
    return out


async def xmpp_games(play) -> None:
    """``await play(address)`` with an embedded XMPP server at ``address`` (one server
    and one event loop for all the games it plays: pyjabber binds itself to the first)."""
    from maw.hosting.xmpp import Address, EmbeddedServer, free_port

    server = EmbeddedServer(free_port())
    await server.start()
    try:
        await play(Address("localhost", server.port, False))
    finally:
        await server.stop()


async def _xmpp_games(rules, folder: str, out: dict) -> None:
    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game
    from maw.records.audit import audit_log

    await xmpp_games(lambda address: _until_a_night(
        rules, folder, out, address, GameConfig, default_seats, run_game, audit_log))


async def _until_a_night(rules, folder, out, address, GameConfig, default_seats, run_game,
                         audit_log) -> None:
    for seed in range(3, 8):
        config = GameConfig(players=7, rules=rules, seed=seed, day_seconds=5,
                            night_seconds=3, early_end=True, log_dir=Path(folder) / str(seed))
        result = await run_game(config, default_seats(7), address, timeout=120)
        records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
        roles = next(r for r in records if r["kind"] == "round")["roles"]
        assassin = next((n for n, r in roles.items() if r == "Assassin"), None)
        nights = [r["data"] for r in records if r["kind"] == "event" and
                  r["event"] == "PhaseStarted" and r["data"]["phase"] == "night" and
                  assassin in r["data"]["living"]]
        audit = audit_log(result.log_path)
        out["xmpp_games"] = seed - 2
        out["xmpp_winner"] = (result.outcomes[0].winner.value if result.outcomes[0].winner
                              else None)
        # (over XMPP too a night's choice may change: the last one acts)
        stabs = {r["data"]["day"]: r["data"] for r in records if r["kind"] == "event" and
                 r["event"] == "Acted" and r["data"]["action"] == "stab"}
        out["xmpp_stab"] = list(stabs.values())
        out["xmpp_stabbed_died"] = [any(
            r["kind"] == "event" and r["event"] == "Murdered" and r["data"]["day"] == day
            and r["data"]["player"] == s["target"] for r in records)
            for day, s in stabs.items()]
        out["xmpp_assassin"] = assassin
        out["xmpp_assassin_nights"] = len(nights)
        out["audit_ok"] = audit.ok
        out["audit"] = [str(v) for v in audit.violations[:3]]
        if nights or not out["audit_ok"]:
            break


@pytest.mark.xmpp
def test_a_role_defined_here_plays_200_engine_games_and_one_over_xmpp(tmp_path):
    got = in_a_fresh_process("test_roles", "play_with_the_assassin", str(tmp_path))
    assert got["games"] == 200 and got["invalid"] == 0
    # the rule players use an action they were never taught (its entry says whom it is
    # for), once a game at most, and its victims die
    assert got["stabs"] > 100 and got["uses_ok"]
    assert got["stabbed_died"] == got["stabs"]
    # over XMPP, an Assassin alive at night stabs, once
    assert got["xmpp_assassin"] and got["xmpp_winner"], got
    assert got["xmpp_assassin_nights"] > 0, got
    assert len(got["xmpp_stab"]) == 1, got
    assert got["xmpp_stab"][0]["actor"] == got["xmpp_assassin"], got
    assert got["xmpp_stabbed_died"] == [True], got
    assert got["audit_ok"], got["audit"]


def night_orders_around_a_registration() -> dict:
    """In the child process: the night's order of a maw game before and after the
    Assassin's stab is registered (the order is sorted once per size of the table)."""
    import random

    from maw.engine import new_game, ruleset
    from maw.engine.resolution import night_order

    state = new_game(ruleset("maw"), [f"P{i}" for i in range(6)], random.Random(1))
    before = [s.name for s in night_order(state)]
    again = night_order(state) is night_order(state)
    register_assassin()
    after = [s.name for s in night_order(state)]
    return {"before": before, "after": after, "again": again}


def test_the_night_order_takes_in_an_action_registered_after_it_was_asked():
    got = in_a_fresh_process("test_roles", "night_orders_around_a_registration")
    assert got["again"]  # (one sorted order per ruleset and table, not one per night)
    assert "stab" not in got["before"] and "stab" in got["after"]
    assert [n for n in got["after"] if n != "stab"] == got["before"]


def test_the_assassin_prompt_renders(tmp_path):
    from maw.llm.prompts import PACKAGE_PROMPTS, Prompts

    folder = tmp_path / "prompts"
    shutil.copytree(PACKAGE_PROMPTS, folder)  # (a copy of the shipped prompts, and hers)
    (folder / "roles" / "Assassin.md").write_text(PROMPT)
    text = Prompts(folder).render("roles/Assassin.md", name="Ann", pack="")
    assert text.startswith("You are Ann, the Assassin")


def test_an_unknown_night_action_is_an_error_when_it_is_registered():
    """Not a silent no-op at night (once, a stab was logged as a guard)."""
    from maw.engine import ActionSpec, night_action, register_action
    from maw.errors import ConfigError

    with pytest.raises(ConfigError, match="says nothing of how it resolves"):
        register_action(ActionSpec("hex", night_action("hex"), "hex", True, False,
                                   frozenset({"night"}), "Acted", "/hex NAME", "hex"))


def test_contributing_names_the_places_of_a_role():
    """CONTRIBUTING's "Add a role" names the files this test's Assassin needed, and the
    wire's documentation, which tests/protocol/test_protocol.py holds a new action to;
    no more."""
    text = (REPO / "CONTRIBUTING.md").read_text()
    section = text.split("## Add a role", 1)[1].split("\n## ", 1)[0]
    places = re.findall(r"^\d\. .*?(?=^\d\. |^$)", section, re.M | re.S)
    assert len(places) == 4
    files = set(re.findall(r"`((?:maw|prompts|docs)/[\w/<>.]+)`", "".join(places)))
    assert files == {"maw/engine/roles.py", "maw/engine/abilities.py",
                     "prompts/roles/<Name>.md", "docs/protocol.md"}, files


def deal_a_role_with_an_ability_nothing_takes():
    """A role whose ability no action takes, dealt: the error (its text, and its kind)."""
    import random

    from maw.engine import Role, Species, Team, new_game, register_role, ruleset
    from maw.engine.state import default_names
    from maw.errors import MawError

    register_role(Role("Zapper", Team.VILLAGE, Species.HUMAN, abilities=frozenset({"zap"}),
                       code="zap"))
    try:
        new_game(ruleset("maw", roles="zap:1"), default_names(6), random.Random(0))
    except MawError as exc:
        return {"error": str(exc), "kind": type(exc).__name__}
    return {"error": None}


def test_a_role_given_an_ability_no_action_takes_is_a_one_line_error():
    got = in_a_fresh_process("test_roles", "deal_a_role_with_an_ability_nothing_takes")
    assert got["kind"] == "ConfigError"
    assert got["error"].startswith("no night action takes the ability 'zap'")
    assert "stab" not in got["error"] and "divine" in got["error"]


def rules_text_with_a_doctor() -> dict:
    """A Doctor whose night action protects (``Night(protects=True)``): the maw rules
    text with and without it dealt."""
    from maw import engine as e
    from maw.engine.abilities import GUARD_ORDER
    from maw.engine.describe import rules_text

    e.register_role(e.Role("Doctor", e.Team.VILLAGE, e.Species.HUMAN, frozenset({"heal"}),
                           code="doc", power="each night the Doctor heals one player"))

    def heal(dawn, _doctor: int, target: int) -> None:
        dawn.protected.add(target)

    e.register_action(e.ActionSpec(
        "heal", e.night_action("heal"), "heal", True, False, frozenset({"night"}), "Acted",
        "/heal NAME", "heal NAME tonight (doctor)",
        e.Night(GUARD_ORDER, heal, protects=True)))
    return {"with": rules_text(e.ruleset("maw", roles="doc:1"), 7),
            "without": rules_text(e.ruleset("maw"), 7)}


def test_a_registered_protection_is_told_in_the_rules_text():
    got = in_a_fresh_process("test_roles", "rules_text_with_a_doctor")
    assert "Each night the Doctor heals one player." in got["with"]
    assert ", and is not protected" in got["with"]  # (the victim may live)
    assert ", and is not protected" not in got["without"]
