"""The AIWolf rulesets: the nlp-server variant (default) and the 2021 regulation."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import start

from maw.engine import (
    Attack,
    Chat,
    Divine,
    EndPhase,
    Guard,
    Over,
    Phase,
    Room,
    Team,
    Vote,
    apply,
    chance_action,
    legal_actions,
    outcome,
    ruleset,
)
from maw.engine.events import (
    AttackBlocked,
    Divined,
    Executed,
    MediumResult,
    Murdered,
    NoMurder,
    Revote,
)
from maw.errors import IllegalActionError

# aiwolf-5 seats: A seer, B werewolf, C possessed, D, E villagers
FIVE = "SWPVV"
# aiwolf-9: A seer, B medium, C bodyguard, D possessed, E F wolves, G H I villagers
NINE = "SMBPWWVVV"


def run(state, *actions):
    events = []
    for a in actions:
        state, ev = apply(state, a)
        events.extend(ev)
    return state, events


@pytest.mark.parametrize("n,counts", [
    (5, {"Werewolf": 1, "Possessed": 1, "Seer": 1, "Villager": 2}),
    (9, {"Werewolf": 2, "Possessed": 1, "Seer": 1, "Medium": 1, "Bodyguard": 1, "Villager": 3}),
    (13, {"Werewolf": 3, "Possessed": 1, "Seer": 1, "Medium": 1, "Bodyguard": 1, "Villager": 6}),
    (15, {"Werewolf": 3, "Possessed": 1, "Seer": 1, "Medium": 1, "Bodyguard": 1, "Villager": 8}),
])
@pytest.mark.parametrize("variant", ["nlp", "2021"])
def test_role_sets(n, counts, variant):
    rules = ruleset(f"aiwolf-{n}", variant=variant)
    assert Counter(r.name for r in rules.roles_for(n)) == counts


def test_nlp_day_zero_talks_divines_but_neither_votes_nor_attacks():
    state = start("aiwolf-5", FIVE)
    assert (state.day, state.phase) == (0, Phase.DAY)
    state, _ = run(state, EndPhase())
    assert state.phase is Phase.NIGHT  # no vote on day 0, no whisper with one wolf
    assert legal_actions(state, "B") == ()  # no attack on the first night
    state, ev = run(state, Divine("A", "B"))
    assert [e.species for e in ev if isinstance(e, Divined)] == ["werewolf"]
    assert (state.day, state.phase) == (1, Phase.DAY)


def test_2021_skips_the_day_zero_talk():
    state = start("aiwolf-9", NINE, variant="2021")
    assert (state.day, state.phase) == (0, Phase.WHISPER)  # two wolves whisper on day 0
    state, _ = run(state, EndPhase())
    assert state.phase is Phase.NIGHT
    assert {type(a) for a in legal_actions(state, "E")} == set()
    assert legal_actions(state, "C") == ()  # no guard on the first night


def to_day1(state):
    while state.day < 1 or state.phase is not Phase.DAY:
        state, _ = apply(state, EndPhase())
    return state


def test_the_seer_reads_the_possessed_as_human():
    state, _ = run(start("aiwolf-5", FIVE), EndPhase())
    state, ev = run(state, Divine("A", "C"))
    assert [(e.target, e.species, e.audience) for e in ev if isinstance(e, Divined)] == \
        [("C", "human", frozenset({"A"}))]


def test_talk_is_limited_per_day_and_over_ends_it():
    state = start("aiwolf-5", FIVE)
    for i in range(4):
        state, _ = run(state, Chat("A", Room.VILLAGE, f"talk {i}"))
    with pytest.raises(IllegalActionError, match="no messages left"):
        apply(state, Chat("A", Room.VILLAGE, "one more"))
    state, _ = run(state, *(Over(p, Room.VILLAGE) for p in "BCD"))
    assert state.phase is Phase.DAY
    state, _ = run(state, Over("E", Room.VILLAGE))
    assert state.phase is Phase.NIGHT  # everyone done: the talk ends by itself


def test_2021_allows_ten_talks():
    state = to_day1(start("aiwolf-5", FIVE, variant="2021"))
    for i in range(10):
        state, _ = run(state, Chat("A", Room.VILLAGE, f"talk {i}"))
    assert Chat("A", Room.VILLAGE) not in legal_actions(state, "A")


def test_vote_after_talk_self_vote_allowed_in_nlp_not_in_2021():
    state = to_day1(start("aiwolf-5", FIVE))
    state, _ = run(state, EndPhase())
    assert state.phase is Phase.VOTE and Vote("A", "A") in legal_actions(state, "A")
    state = to_day1(start("aiwolf-5", FIVE, variant="2021"))
    state, _ = run(state, EndPhase())
    assert Vote("A", "A") not in legal_actions(state, "A")


def test_votes_are_secret_until_all_are_in_then_the_most_voted_is_executed():
    state, _ = run(to_day1(start("aiwolf-5", FIVE)), EndPhase())
    state, ev = run(state, Vote("A", "B"))
    assert ev[0].audience == {"A"}
    with pytest.raises(IllegalActionError, match="already voted"):
        apply(state, Vote("A", "C"))
    state, ev = run(state, Vote("B", "A"), Vote("C", "A"), Vote("D", "B"), Vote("E", "B"))
    assert [e.player for e in ev if isinstance(e, Executed)] == ["B"]
    assert outcome(state).winner is Team.VILLAGE


def test_nlp_tie_is_random_among_the_tied_without_revote():
    state, _ = run(to_day1(start("aiwolf-5", FIVE)), EndPhase())
    state, ev = run(state, Vote("A", "B"), Vote("B", "A"), Vote("C", "A"), Vote("D", "B"),
                    Vote("E", "C"))
    assert not any(isinstance(e, Revote) for e in ev)
    assert state.pending == "execute" and {state.names[t] for t in state.candidates} == {"A", "B"}
    with pytest.raises(IllegalActionError, match="not among the tied"):
        apply(state, chance_action(state).__class__("E"))
    pick = chance_action(state)
    assert pick == chance_action(state)  # deterministic from the seed
    state, ev = run(state, pick)
    # the execution says chance picked it, and among whom (the transcript tells it)
    assert [(e.player, e.drawn) for e in ev if isinstance(e, Executed)] == [
        (pick.pick, ("A", "B"))]


def test_an_execution_the_votes_decided_was_drawn_from_nobody():
    state, _ = run(to_day1(start("aiwolf-5", FIVE)), EndPhase())
    state, ev = run(state, Vote("A", "B"), Vote("B", "A"), Vote("C", "A"), Vote("D", "B"),
                    Vote("E", "B"))
    assert [(e.player, e.drawn) for e in ev if isinstance(e, Executed)] == [("B", ())]


def test_2021_tie_revotes_once_then_random():
    state, _ = run(to_day1(start("aiwolf-5", FIVE, variant="2021")), EndPhase())
    ties = (Vote("A", "B"), Vote("B", "A"), Vote("C", "A"), Vote("D", "B"), Vote("E", "C"))
    state, ev = run(state, *ties)
    assert [e.tied for e in ev if isinstance(e, Revote)] == [("A", "B")]
    assert state.phase is Phase.VOTE and state.vote_round == 1
    state, ev = run(state, *ties)
    assert state.pending == "execute"


def night1(state):
    """Day 1 passes with no execution (timers), stopping at the night."""
    state = to_day1(state)
    while state.phase is not Phase.NIGHT:
        state, _ = apply(state, EndPhase())
    return state


def test_the_medium_learns_the_executed_species():
    state, _ = run(to_day1(start("aiwolf-9", NINE)), EndPhase())
    state, ev = run(state, *(Vote(p, "E") for p in "ABCDEFGHI"))
    assert [(e.medium, e.target, e.species) for e in ev if isinstance(e, MediumResult)] == \
        [("B", "E", "werewolf")]
    assert ev[-1].__class__.__name__ == "PhaseStarted"


def test_the_bodyguard_blocks_the_attack_and_cannot_guard_itself():
    state = night1(start("aiwolf-9", NINE))
    with pytest.raises(IllegalActionError, match="C may not guard C: not oneself"):
        apply(state, Guard("C", "C"))
    state, ev = run(state, Guard("C", "G"), Divine("A", "E"), Attack("E", "G"), Attack("F", "G"))
    assert [e.target for e in ev if isinstance(e, AttackBlocked)] == ["G"]
    assert any(isinstance(e, NoMurder) for e in ev) and all(state.alive)
    assert (state.day, state.phase) == (2, Phase.DAY)


def test_an_unguarded_target_is_murdered():
    state = night1(start("aiwolf-9", NINE))
    state, ev = run(state, Guard("C", "H"), Divine("A", "E"), Attack("E", "G"), Attack("F", "G"))
    assert [e.player for e in ev if isinstance(e, Murdered)] == ["G"]


def test_nlp_attack_votes_on_wolves_are_discarded():
    state = night1(start("aiwolf-9", NINE))
    assert Attack("E", "F") in legal_actions(state, "E")
    state, ev = run(state, Guard("C", "H"), Divine("A", "E"), Attack("E", "F"), Attack("F", "G"))
    assert [e.player for e in ev if isinstance(e, Murdered)] == ["G"]
    state = night1(start("aiwolf-9", NINE))
    state, ev = run(state, Guard("C", "H"), Divine("A", "E"), Attack("E", "F"), Attack("F", "E"))
    assert not any(isinstance(e, Murdered) for e in ev)


def test_2021_wolves_cannot_target_wolves_and_a_tied_attack_is_revoted():
    state = night1(start("aiwolf-9", NINE, variant="2021"))
    assert Attack("E", "F") not in legal_actions(state, "E")
    state, ev = run(state, Guard("C", "H"), Divine("A", "E"), Attack("E", "G"), Attack("F", "I"))
    assert [e.tied for e in ev if isinstance(e, Revote)] == [("G", "I")]
    assert legal_actions(state, "A") == () and legal_actions(state, "C") == ()
    state, ev = run(state, Attack("E", "I"), Attack("F", "I"))
    assert [e.player for e in ev if isinstance(e, Murdered)] == ["I"]
    assert [e.target for e in ev if isinstance(e, Divined)] == ["E"]  # the first choice stands


def test_whisper_only_while_two_wolves_live():
    state = to_day1(start("aiwolf-9", NINE))
    state, _ = run(state, EndPhase())
    state, _ = run(state, *(Vote(p, "E") for p in "ABCDEFGHI"))  # one wolf left
    assert state.phase is Phase.NIGHT  # the whisper is skipped


def test_hideout_whisper_in_nlp_reaches_wolves_only():
    state, _ = run(start("aiwolf-9", NINE), EndPhase())
    assert state.phase is Phase.WHISPER
    with pytest.raises(IllegalActionError, match="may not enter the Hideout"):
        apply(state, Chat("D", Room.HIDEOUT, "I am with you"))  # the Possessed cannot
    state, ev = run(state, Chat("E", Room.HIDEOUT, "claim seer tomorrow"))
    assert ev[0].audience == {"E", "F"}


def test_werewolves_win_at_parity_and_the_possessed_wins_with_them():
    state = night1(start("aiwolf-5", FIVE))
    state, ev = run(state, Divine("A", "D"), Attack("B", "A"))  # 4 left: B, C, D, E
    state, _ = run(state, EndPhase())  # to the vote
    state, ev = run(state, *(Vote(p, "D") for p in "BCDE"))  # 3 left: wolf + 2 humans
    assert not state.is_over
    state, ev = run(state, Attack("B", "E"))  # 2 left: 1 wolf, 1 human: parity
    out = outcome(state)
    assert out.winner is Team.WEREWOLVES and out.termination.value == "werewolves reached parity"
    assert out.points["B"] == out.points["C"] == 3 and out.points["A"] == 0
