"""``--rule roles=auto``: MAW games of any size dealt from the balance table that
benchmarks/compose.py measured (maw/engine/compose.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from maw.engine import new_game, ruleset
from maw.engine.compose import COMPOSITIONS, compose
from maw.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def deal(n: int) -> list[str]:
    return [r.name for r in ruleset("maw", roles="auto").roles_for(n)]


@pytest.mark.parametrize("n", sorted(COMPOSITIONS))
def test_auto_deals_the_tables_werewolves_and_seers(n):
    wolves, seers = COMPOSITIONS[n]
    names = deal(n)
    assert (len(names), names.count("Werewolf"), names.count("Seer")) == (n, wolves, seers)


def test_every_size_starts_with_a_village_majority():
    for n in range(3, 201):
        wolves, seers = compose(n)
        assert wolves >= 1 and seers >= 0
        assert n - wolves > wolves, (n, wolves, seers)  # no game begins already lost
        assert n - wolves - seers >= 1, (n, wolves, seers)  # a plain villager remains


def test_a_size_between_two_of_the_tables_takes_the_nearer_ones_shares():
    assert compose(65) == (round(7 * 65 / 75), round(6 * 65 / 75))  # nearer to 75 than 45
    assert compose(11) == COMPOSITIONS[10] or compose(11) == COMPOSITIONS[12]


def test_the_table_is_the_benchmarks():
    measured = json.loads((REPO / "benchmarks" / "results" / "compose.json").read_text())
    maw = [r for r in measured["rows"] if r.get("ruleset", "maw") == "maw"]  # (werewolf-N's too)
    assert {r["players"]: (r["wolves"], r["seers"]) for r in maw} == COMPOSITIONS


def test_auto_deals_a_game_and_mixes_with_nothing():
    rules = ruleset("maw", roles="auto")
    state = new_game(rules, [f"P{i:02d}" for i in range(12)], random.Random(3))
    assert [r.name for r in state.roles].count("Werewolf") == COMPOSITIONS[12][0]
    with pytest.raises(ConfigError):
        ruleset("maw", roles="auto,seer:1")
