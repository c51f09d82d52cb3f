"""A seat taken as away for idling (``GameConfig.idle_phases``): which phases count, that a
move starts the count again, and that a night never counts (who is awaited at night is a
role's secret, and the observer's page shows who is away)."""

from __future__ import annotations

import json
import random
import time

import pytest

from maw import engine
from maw.agents.base import GameLog
from maw.agents.moderator import Moderator
from maw.agents.seats import GameConfig, Occupant

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
pytestmark = pytest.mark.asyncio


def moderator(tmp_path, idle_phases: int = 2, substitute: str | None = "rule") -> Moderator:
    gm = Moderator("gm@localhost", "x", GameConfig(players=6, substitute=substitute,
                                                   idle_phases=idle_phases),
                   "village@localhost", "hideout@localhost", GameLog(tmp_path / "g.jsonl"))
    gm.round = 1
    gm.state = engine.new_game(engine.ruleset("maw"), NAMES, random.Random("1:1"))
    assert [r.name for r in gm.state.roles][:3] == ["Werewolf", "Villager", "Werewolf"]
    gm.seats = {n: Occupant(n, f"{n.lower()}@localhost", "t") for n in NAMES}
    return gm


def run_out(gm: Moderator, moved=()) -> list[str]:
    """The phase now on begins, the players ``moved`` send a move, and it runs out on its
    timer: who is away from then on."""
    gm.phase_began()
    time.sleep(0.001)
    for name in moved:
        gm.seats[name].seen = time.monotonic()
    away = gm.idled()
    gm.state, _ = engine.play(gm.state, engine.EndPhase())
    return away


def phase(gm: Moderator) -> str:
    return gm.state.phase.value


async def test_two_days_run_out_without_a_move_and_the_stand_in_plays(tmp_path):
    gm = moderator(tmp_path)
    others = [n for n in NAMES if n != "Ann"]
    assert phase(gm) == "day" and run_out(gm, others) == []
    assert gm.seats["Ann"].missed == 1
    # night 1: the pack's attack awaits Ann, but only the pack knows it: no count
    assert phase(gm) == "night" and run_out(gm, ["Cid"]) == []
    assert gm.seats["Ann"].missed == 1 and not gm.seats["Ann"].gone
    assert phase(gm) == "day" and run_out(gm, others) == ["Ann"]
    assert gm.seats["Ann"].gone and "Ann" in gm.stand_ins
    log = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [(r["kind"], r["player"]) for r in log] == [("gone", "Ann"), ("substituted", "Ann")]
    assert log[0]["why"] == "idle" and log[1]["decider"] == "rule"
    # its move takes the seat back, and the count starts again
    assert gm.returned("Ann") and not gm.seats["Ann"].gone and gm.seats["Ann"].missed == 0
    assert "Ann" not in gm.stand_ins


async def test_a_move_starts_the_count_again(tmp_path):
    gm = moderator(tmp_path)
    everyone = list(NAMES)
    run_out(gm, [n for n in NAMES if n != "Dee"])  # day 1: Dee idles
    run_out(gm, ["Ann", "Cid"])  # night 1
    run_out(gm, everyone)  # day 2: Dee moves
    assert gm.seats["Dee"].missed == 0
    run_out(gm, ["Ann", "Cid"])
    assert run_out(gm, [n for n in NAMES if n != "Dee"]) == []  # day 3: one in a row
    assert gm.seats["Dee"].missed == 1


async def test_nights_never_count_however_many_a_wolf_lets_run_out(tmp_path):
    """Ann moves by day and never at night: never away (away after a night's end, or a
    day sooner than a villager, would tell everyone she is a wolf)."""
    gm = moderator(tmp_path, idle_phases=1)
    for _ in range(3):
        assert phase(gm) == "day" and run_out(gm, NAMES) == []
        assert phase(gm) == "night" and run_out(gm, ["Cid"]) == []
    assert not gm.seats["Ann"].gone and gm.seats["Ann"].missed == 0


@pytest.mark.parametrize("idle_phases, substitute", [(0, "rule"), (2, None)])
async def test_no_seat_is_away_without_a_count_or_a_stand_in(tmp_path, idle_phases,
                                                             substitute):
    gm = moderator(tmp_path, idle_phases, substitute)
    for _ in range(4):
        assert run_out(gm) == []
    assert not any(seat.gone for seat in gm.seats.values())
