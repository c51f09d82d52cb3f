"""The rules text the players are told, built from the ruleset (maw.engine.describe)."""

from __future__ import annotations

import pytest

from maw.engine import ruleset
from maw.engine.describe import rules_text
from maw.engine.rulesets import RULESET_NAMES, changed_options


def text(name="maw", players=6, **options):
    return rules_text(ruleset(name, **options), players)


def test_maw_tells_the_document_s_rules_and_not_aiwolf_s():
    t = text()
    assert "2 Werewolves, 4 Villagers" in t
    assert "majority of the living" in t and "time runs out" in t
    assert "every living werewolf votes for the same player" in t  # night unanimity
    assert "no villager lives" in t and "at least as many" not in t  # no parity in MAW
    assert "votes open once" not in t
    assert "After 17 days the game is a draw." in t


def test_aiwolf_tells_parity_the_vote_after_the_talk_and_the_powers():
    t = text("aiwolf-5", 5)
    assert "1 Werewolf, 1 Possessed, 1 Seer, 2 Villagers" in t
    assert "at least as many as the living humans" in t
    assert "at most 4 messages each" in t and "Over" in t
    assert "each night the Seer learns" in t and "The Possessed is a human" in t
    assert "time runs out" not in t


@pytest.mark.parametrize("options, says", [
    ({"votes_open": "talk"}, "votes open once every living player has spoken or passed"),
    ({"tie": "random"}, "on a tie one of the tied is executed at random"),
    ({"tie": "revote"}, "everyone votes once more between the tied"),
    ({"win": "parity"}, "at least as many as the living humans"),
    ({"max_days": "4"}, "After 4 days the game is a draw."),
])
def test_every_option_changes_the_text(options, says):
    assert says not in text()
    assert says in text(**options)


def test_the_contests_length_limit_is_told():
    says = "A message is cut after 125 characters, spaces not counted; what follows"
    assert says not in text("aiwolf-5", 5)
    assert says in text("aiwolf-5", 5, base_length="125", mention_length="50")


def test_no_day_limit_is_not_mentioned():
    assert "is a draw" not in text(max_days="0")


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_the_options_a_view_carries_rebuild_the_ruleset(name):
    rules = ruleset(name, tie="revote", max_days="9")
    assert ruleset(name, **dict(changed_options(rules))) == rules
    assert changed_options(ruleset(name)) == ()
    if name.startswith("aiwolf"):
        other = ruleset(name, variant="2021", talks_per_day="3")
        assert ruleset(name, **dict(changed_options(other))) == other
    if name == "werewolf-12":
        other = ruleset(name, role_set="B", same_guard_same_save_kills="false",
                        self_knife="false", win="elimination")
        assert ruleset(name, **dict(changed_options(other))) == other
