"""werewolf-6 to werewolf-16 (``maw.engine.werewolf_sizes``) and the night's steps in a
configured order (``night_steps``, ``maw.engine.werewolf_night``)."""

from __future__ import annotations

from collections import Counter

import pytest
from werewolf12_game import game, go, night

from maw.engine import (
    RULESET_NAMES,
    EndPhase,
    legal_actions,
    ruleset,
    view,
)
from maw.engine.actions import ACTIONS
from maw.engine.describe import rules_text
from maw.engine.events import Divined, NightResult
from maw.engine.werewolf import ROLE_SETS
from maw.engine.werewolf_sizes import SIZES, composition
from maw.errors import ConfigError

Save, Poison = (ACTIONS[a].cls for a in ("save", "poison"))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("role_set", ["A", "B"])
def test_each_size_deals_the_seeds_proportions(n, role_set):
    rules = ruleset(f"werewolf-{n}", role_set=role_set)
    roles = Counter(r.name for r in rules.roles_for(n))
    assert sum(roles.values()) == n
    assert roles["Werewolf"] == round(n / 3)
    powers = [p for p in ("Seer", "Witch", "Hunter", "Guard" if role_set == "A" else "Idiot")
              if roles[p]]
    assert all(roles[p] == 1 for p in powers) and set(roles) - {"Werewolf", "Villager"} \
        == set(powers)
    # the powers in the seed's order while the plain villagers are no fewer
    assert powers == ["Seer", "Witch", "Hunter", "Guard" if role_set == "A" else "Idiot"][
        :len(powers)]
    assert roles["Villager"] >= len(powers) >= 2
    assert len(powers) == 4 or roles["Villager"] < len(powers) + 2  # (one more won't fit)
    text = rules_text(rules, n)
    assert text.startswith(f"{n} players: {roles['Werewolf']} Werewolves")
    for p in powers:
        assert f"1 {p}" in text


def test_at_twelve_the_rule_is_the_seeds_table_and_werewolf12_is_unchanged():
    for role_set, roles in ROLE_SETS.items():
        assert composition(12, role_set) == roles
        assert ruleset("werewolf-12", role_set=role_set).roles == roles
    assert set(RULESET_NAMES) >= {f"werewolf-{n}" for n in SIZES}  # (found by name)
    with pytest.raises(ConfigError, match="needs 9 players, got 12"):
        ruleset("werewolf-9").roles_for(12)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("policy", ["rule", "random"])
def test_games_of_each_size_play_to_their_end(n, policy):
    """``maw simulate``'s games: every action the players take is legal, and each game
    ends with a winner (a draw only at the day limit, which these never reach)."""
    from maw.simulate import simulate

    result = simulate(ruleset(f"werewolf-{n}", role_set="AB"[n % 2]), n, policy, 4,
                      seed=n).as_dict()
    assert result["invalid_actions"] == 0
    assert result["village_wins"] + result["werewolf_wins"] == 4 and result["draws"] == 0


# ---------------------------------------------------------------- night_steps


def test_night_steps_takes_each_step_once_the_wolves_before_the_witch():
    assert ruleset("werewolf-12").night_steps == ("seer", "wolves", "witch", "guard")
    assert ruleset("werewolf-9", night_steps="Guard,Wolves,Witch,Seer").night_steps == (
        "guard", "wolves", "witch", "seer")
    for bad in ("seer,wolves,witch", "seer,wolves,witch,guard,guard", "seer,witch,wolves,guard",
                "seer,wolves,witch,hunter"):
        with pytest.raises(ConfigError) as caught:
            ruleset("werewolf-12", night_steps=bad)
        message = str(caught.value)
        assert "\n" not in message and "'night_steps'" in message
        assert "seer, wolves, witch and guard" in message
    with pytest.raises(ConfigError, match="night_steps"):
        ruleset("maw", night_steps="seer,wolves,witch,guard")


@pytest.mark.parametrize("guard_first", [False, True])
def test_the_witch_hears_of_a_guarded_victim_only_if_the_guard_comes_after_her(guard_first):
    order = "guard,seer,wolves,witch" if guard_first else "seer,wolves,witch,guard"
    state, events = night(game(night_steps=order), "Eve", guard="Eve")
    told = [e.target for e in events if isinstance(e, NightResult)]
    if guard_first:  # nothing to save: her step comes for her poison alone
        assert told == [] and state.victim == -1 and state.attack == state.seat["Eve"]
        assert not any(isinstance(a, Save) for a in legal_actions(state, "Jo"))
        assert not any(k == "attacked" for _d, k, _t, _v in view(state, "Jo").results)
    else:
        assert told == ["Eve"] and state.victim == state.seat["Eve"]
        assert Save("Jo", "Eve") in legal_actions(state, "Jo")
    state, _ = go(state, EndPhase())
    assert state.alive[state.seat["Eve"]]  # guarded, either way
    # an unguarded victim is told whatever the order
    state, events = night(game(night_steps=order), "Eve", guard="Fay")
    assert [e.target for e in events if isinstance(e, NightResult)] == ["Eve"]


@pytest.mark.parametrize("seer_after", [False, True])
def test_a_seer_killed_before_her_step_learns_nothing(seer_after):
    order = "wolves,witch,seer,guard" if seer_after else "seer,wolves,witch,guard"
    state, _ = night(game(night_steps=order), "Ivy", divine="Ann", guard="Fay")
    state, events = go(state, EndPhase())  # the Witch lets it be
    assert not state.alive[state.seat["Ivy"]]
    learnt = [e for e in events if isinstance(e, Divined)]
    assert (learnt == []) is seer_after
    assert any(k == "divine" for _d, k, _t, _v in view(state, "Ivy").results) is not seer_after
    # saved, she learns in either order
    state, _ = night(game(night_steps=order), "Ivy", divine="Ann", guard="Fay")
    state, events = go(state, Save("Jo", "Ivy"))
    assert state.alive[state.seat["Ivy"]] and any(isinstance(e, Divined) for e in events)


def test_a_seer_after_the_witch_learns_nothing_when_poisoned():
    for order, learns in (("seer,wolves,witch,guard", True), ("wolves,witch,seer,guard", False)):
        state, _ = night(game(night_steps=order), "Eve", divine="Ann", guard="Fay")
        state, events = go(state, Poison("Jo", "Ivy"))
        assert not state.alive[state.seat["Ivy"]]
        assert any(isinstance(e, Divined) for e in events) is learns, order


def test_the_seeds_order_plays_as_werewolf12_did():
    """The default and the seed's order given by name are the same games."""
    from maw.simulate import simulate

    default = simulate(ruleset("werewolf-12"), 12, "rule", 8, seed=5).as_dict()
    named = simulate(ruleset("werewolf-12", night_steps="seer,wolves,witch,guard"), 12, "rule",
                     8, seed=5).as_dict()
    assert default["digest"] == named["digest"] and default["invalid_actions"] == 0
    moved = simulate(ruleset("werewolf-12", night_steps="guard,wolves,witch,seer"), 12, "rule",
                     8, seed=5).as_dict()
    assert moved["invalid_actions"] == 0
