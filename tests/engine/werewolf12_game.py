"""werewolf-12 games for the tests (tests/test_werewolf12*.py): a fixed deal, and the steps
that play its nights, days and votes by the engine."""

from __future__ import annotations

import random

from maw.engine import (
    Attack,
    Divine,
    EndPhase,
    Guard,
    Over,
    Phase,
    Room,
    Vote,
    new_game,
    play,
    ruleset,
    view,
)
from maw.engine.actions import ACTIONS, Run
from maw.engine.roles import GUARD, HUNTER, IDIOT, SEER, VILLAGER, WEREWOLF, WITCH

Save, Poison, Shoot = (ACTIONS[a].cls for a in ("save", "poison", "shoot"))
NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]
WOLVES = NAMES[:4]
# Ann-Dan wolves, Eve-Hal villagers, Ivy the Seer, Jo the Witch, Kim the Hunter, Lu the
# Guard (role set A) or the Village Idiot (B)
DEAL = [WEREWOLF] * 4 + [VILLAGER] * 4 + [SEER, WITCH, HUNTER]


def game(role_set: str = "A", **options):
    """A game with the deal above (no sheriff and a free talk unless asked: they are
    tested alone)."""
    options.setdefault("sheriff", False)
    options.setdefault("speaking_order", False)
    rules = ruleset("werewolf-12", role_set=role_set, **options)
    return new_game(rules, NAMES, random.Random(1),
                    roles=DEAL + [GUARD if role_set == "A" else IDIOT])


STEPS = (Phase.LAST_WORDS, Phase.BADGE, Phase.CANDIDACY, Phase.CAMPAIGN, Phase.ELECTION)


def go(state, action):
    """``play``, then let the timer end the public steps that follow (last words, ...)."""
    state, events = play(state, action)
    events = list(events)
    while state.phase in STEPS:
        state, more = play(state, EndPhase())
        events += more
    return state, events


def living(state, *but: str) -> list[str]:
    return [n for n in NAMES if state.alive[state.seat[n]] and n not in but]


def night(state, victim: str | None, divine: str | None = None, guard: str | None = None):
    """The night's first step: the pack attacks ``victim``, the Seer divines, the Guard
    guards; returns the state (the Witch's step, or the day) and the events."""
    assert state.phase is Phase.NIGHT
    events: list = []
    if victim is not None:
        for wolf in WOLVES:
            if state.alive[state.seat[wolf]]:
                state, ev = play(state, Attack(wolf, victim))
                events += ev
    if state.phase is Phase.NIGHT and state.alive[state.seat["Ivy"]]:
        state, ev = play(state, Divine("Ivy", divine or living(state, "Ivy")[0]))
        events += ev
    if guard is not None:
        state, ev = play(state, Guard("Lu", guard))
        events += ev
    if state.phase is Phase.NIGHT:  # the timer, for whoever did not choose
        state, ev = go(state, EndPhase())
        events += ev
    return state, events


def to_vote(state):
    assert state.phase is Phase.DAY
    state, _ = play(state, EndPhase())
    assert state.phase is Phase.VOTE
    return state


def execute(state, target: str):
    """Every living voter votes ``target`` (``target`` itself another)."""
    state = to_vote(state)
    events: list = []
    for i, name in enumerate(NAMES):
        if state.phase is Phase.VOTE and state.alive[i] and i not in state.exposed:
            other = target if name != target else living(state, target)[0]
            state, ev = go(state, Vote(name, other))
            events += ev
    return state, events


def vote_all(state, pick):
    """Every living voter votes ``pick(name)`` (``None``: does not vote)."""
    events: list = []
    for i, name in enumerate(NAMES):
        target = pick(name)
        if state.phase is Phase.VOTE and state.alive[i] and target is not None:
            state, ev = go(state, Vote(name, target))
            events += ev
    return state, events


def to_candidacy(**options):
    """A game with a sheriff: night 0 kills Eve, who says her last words; then day 1's
    candidacy."""
    state = game(sheriff=True, **options)
    for wolf in WOLVES:
        state, _ = play(state, Attack(wolf, "Eve"))
    state, _ = play(state, Divine("Ivy", "Ann"))
    state, _ = play(state, Guard("Lu", "Fay"))
    state, _ = play(state, EndPhase())  # the Witch lets it be
    assert state.phase is Phase.LAST_WORDS
    return state


def elect(state, sheriff: str):
    """Day 1's election with ``sheriff`` the only candidate (unopposed)."""
    state, _ = play(state, EndPhase())  # last words
    state, _ = play(state, Run(sheriff))
    state, _ = play(state, EndPhase())
    state, events = play(state, Over(sheriff, Room.VILLAGE))
    assert state.sheriff == state.seat[sheriff]
    assert state.phase is (Phase.ORDER if state.rules.speaking_order else Phase.DAY)
    return state


def rule_learns(state, name: str):
    """A rule decider for ``name`` that has seen ``state``'s view."""
    from maw.policies.rule import RuleDecider

    d = RuleDecider(name, random.Random(0))
    d.beliefs(view(state, name))
    return d
