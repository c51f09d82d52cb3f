"""The rules text the players are told: each ruleset's day flow writes its own
(maw.engine.describe asks it); tests/engine/test_rules_claims.py checks each sentence against
engine games."""

from __future__ import annotations

import pytest

from maw.engine import ruleset
from maw.engine.dayflow import FLOWS
from maw.engine.describe import rules_text
from maw.engine.flows import AiwolfFlow
from maw.engine.rulesets import RULESET_NAMES, Flow, changed_options
from maw.errors import ConfigError


def text(name="maw", players=6, **options):
    return rules_text(ruleset(name, **options), players)


def test_maw_tells_the_document_s_rules_and_not_aiwolf_s():
    t = text()
    assert "2 Werewolves, 4 Villagers" in t
    assert "majority of the living" in t and "time runs out" in t
    assert "every living werewolf votes for the same player" in t  # night unanimity
    assert "nobody on the village's side lives" in t and "at least as many" not in t
    assert "votes open once" not in t and "Over" not in t and "sheriff" not in t
    assert "If no side has won by the dawn of day 18, the game is a draw." in t


def test_aiwolf_tells_parity_the_vote_after_the_talk_and_the_powers():
    t = text("aiwolf-5", 5)
    assert "1 Werewolf, 1 Possessed, 1 Seer, 2 Villagers" in t
    assert "at least as many as the living humans" in t
    assert "at most 4 messages each" in t and "Over" in t
    assert "each night the Seer learns" in t and "The Possessed is a human" in t
    assert "There is no attack on the first night." in t
    assert "time runs out" not in t and "sheriff" not in t


def test_werewolf12_tells_its_own_rules_not_aiwolf_s():
    t = text("werewolf-12", 12)
    assert "no attack on the first night" not in t and "Over" not in t
    assert "Each night, the first one included, the werewolves" in t
    assert "The sheriff's vote counts 1.5" in t and "passes the badge" in t
    assert "the sheriff chooses which of its two neighbours speaks first" in t
    assert "say last words" in t and "a werewolf may instead explode" in t
    assert "for one of the tied alone, and if they tie again nobody is executed" in t
    assert "4 Werewolves, 1 Guard, 1 Hunter, 1 Seer, 1 Witch, 4 Villagers" in t
    b = text("werewolf-12", 12, role_set="B")
    assert "1 Idiot" in b and "Guard" not in b and "votes no more" in b


@pytest.mark.parametrize("options, says", [
    ({"votes_open": "talk"}, "votes open once every living player has spoken or passed"),
    ({"tie": "random"}, "on a tie one of the tied is executed at random"),
    ({"tie": "revote"}, "everyone votes once more, for any living player"),
    ({"tie": "runoff"}, "everyone votes once more, for one of the tied alone"),
    ({"win": "parity"}, "at least as many as the living humans"),
    ({"max_days": "4"}, "If no side has won by the dawn of day 5, the game is a draw."),
    ({"whisper": "on"}, "may also whisper a line to one other living player"),
    ({"self_vote": "true"}, "it may vote for itself"),
    ({"roles": "bg:1", "guard_repeat": "false"},
     "may protect neither itself nor the same player two nights running"),
])
def test_every_maw_option_changes_the_text(options, says):
    assert says not in text(players=9)
    assert says in text(players=9, **options)


@pytest.mark.parametrize("options, says", [
    ({"witch_self_heal_n1": "false"}, "she may never save herself"),
    ({"guard_self_guard": "true"}, "the Guard protects one player from the attack, itself too"),
    ({"guard_repeat": "true"}, "the Guard protects one player from the attack, never itself."),
    ({"same_guard_same_save_kills": "false"}, "the Witch saved them, and the poisoned"),
    ({"self_knife": "false"}, "votes once for a victim, who is not a werewolf"),
    ({"self_explode": "false"}, "only a Hunter's shot shows a role to everyone"),
    ({"sheriff": "false"}, "Each day the living speak once each (one message, or a pass), in "
                           "turn round the table: the turns start from the seat after"),
    ({"speaking_order": "false"}, "Each day everyone talks in the Village (at most 3 "
                                  "messages each), saying Over when done. During the day"),
    ({"tie": "none"}, "on a tie nobody is executed"),
    ({"attack_tie": "none"}, "on a tie nobody is attacked"),
    ({"win": "elimination"}, "the werewolves win as soon as nobody on the village's side"),
])
def test_every_werewolf12_option_changes_the_text(options, says):
    assert says not in text("werewolf-12", 12)
    assert says in text("werewolf-12", 12, **options)


def test_the_contests_length_limit_is_told():
    says = "A message is cut after 125 characters, spaces not counted; what follows"
    assert says not in text("aiwolf-5", 5)
    assert says in text("aiwolf-5", 5, base_length="125", mention_length="50")


def test_no_day_limit_is_not_mentioned():
    assert "is a draw" not in text(max_days="0")


def test_a_flow_without_a_text_of_its_own_is_an_error_never_another_game_s(monkeypatch):
    class Borrowed(AiwolfFlow):  # a new shape of day that forgot its rules text
        pass

    monkeypatch.setitem(FLOWS, Flow.AIWOLF, Borrowed())
    with pytest.raises(ConfigError, match="its day flow Borrowed writes no rules text of "
                                          "its own"):
        text("aiwolf-5", 5)
    monkeypatch.delitem(FLOWS, Flow.AIWOLF)
    with pytest.raises(ConfigError, match="no day flow is registered"):
        text("aiwolf-5", 5)


def test_a_role_the_day_cannot_play_is_not_dealt():
    """A Witch or a Hunter in ``maw`` would be a Villager told it had a power."""
    import random

    from maw.engine import new_game

    names = [f"P{i}" for i in range(9)]
    for code, what in (("witch:1", "the Witch: no step of its day offers its poison or save"),
                       ("hunter:1", "the Hunter: no step of its day offers its shot")):
        with pytest.raises(ConfigError, match=what):
            new_game(ruleset("maw", roles=code), names, random.Random(1))
    new_game(ruleset("maw", roles="guard:1,idiot:1"), names, random.Random(1))  # these play


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
                        self_knife="false", win="elimination", guard_repeat="true")
        assert ruleset(name, **dict(changed_options(other))) == other
