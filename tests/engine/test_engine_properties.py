"""Invariants over many random games, for every ruleset (hypothesis)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maw.engine import (
    Attack,
    Chat,
    Divine,
    EndPhase,
    Guard,
    Phase,
    Room,
    Vote,
    actors,
    legal_actions,
    new_game,
    opening_events,
    play,
    ruleset,
    view,
)
from maw.engine.actions import ACTIONS
from maw.engine.events import (
    Chatted,
    Divined,
    MediumResult,
    NightResult,
    PhaseStarted,
    RoleAssigned,
    RoleRevealed,
)
from maw.engine.rules import _why_illegal
from maw.simulate import play_game

RULESETS = [
    ("maw", 6, {}), ("maw", 7, {"tie": "revote"}), ("maw", 9, {"tie": "random"}),
    ("maw", 4, {"win": "parity"}), ("aiwolf-5", 5, {}), ("aiwolf-9", 9, {}),
    ("aiwolf-9", 9, {"variant": "2021"}), ("aiwolf-13", 13, {}),
    ("aiwolf-15", 15, {"variant": "2021"}), ("werewolf-12", 12, {}),
    ("werewolf-12", 12, {"role_set": "B"}),
    ("werewolf-12", 12, {"same_guard_same_save_kills": "false", "guard_self_guard": "true",
                         "witch_self_heal_n1": "false", "win": "elimination"}),
]
IDS = [f"{r}-{n}-{'-'.join(o.values()) or 'default'}" for r, n, o in RULESETS]
SAVE, POISON, SHOOT = (ACTIONS[a].cls for a in ("save", "poison", "shoot"))


def allowed_roles(state, player):
    """What the rules let ``player`` know, computed independently of ``view``."""
    if state.phase is Phase.OVER:
        return set(state.names)
    s = state.seat[player]
    allowed = {player} | {state.names[i] for i in state.revealed}  # (seen by all)
    if state.roles[s].pack:
        allowed |= {n for n, r in zip(state.names, state.roles, strict=False) if r.pack}
        if state.rules.flow.value == "maw":
            allowed |= {state.names[d.seat] for d in state.deaths if d.cause == "executed"}
    return allowed


def check_invariants(state, events):
    pack = {n for n, r in zip(state.names, state.roles, strict=False) if r.pack}
    for e in events:
        if isinstance(e, Chatted) and e.room is Room.HIDEOUT:
            assert e.audience == pack
        if isinstance(e, RoleRevealed):
            assert e.audience == pack
        if isinstance(e, RoleAssigned):
            assert e.audience == {e.player}
        if isinstance(e, (Divined, MediumResult, NightResult)):
            assert len(e.audience) == 1
        if isinstance(e, PhaseStarted) and e.phase in ("witch", "hunt"):
            # a Witch's or a Hunter's step is known to it alone
            assert len(e.audience) == 1
            who = next(iter(e.audience))
            assert state.role_of(who).name in ("Witch", "Hunter")
    assert actors(state) == tuple(n for n in state.names if legal_actions(state, n))
    for name in state.names:
        v = view(state, name)
        assert set(v.known_roles) <= allowed_roles(state, name), (name, v.known_roles)
        for other, role in v.known_roles.items():
            assert role == state.role_of(other).name
        # the deaths and past votes it may know of, as the rules say (a view shares them
        # with the views before it while the logs are the same: never another reader's)
        me = state.role_of(name)
        assert v.deaths == tuple(
            (d.day, state.names[d.seat], "murdered" if d.cause == "poisoned" and
             me.name != "Witch" else d.cause) for d in state.deaths)
        assert v.vote_history == tuple(
            (r.day, r.kind, r.vote_round, tuple((state.names[i], state.names[t])
                                                for i, t in enumerate(r.votes) if t >= 0))
            for r in state.vote_log if r.kind == "execute" or me.pack)
        legal = legal_actions(state, name)
        s = state.seat[name]
        if state.phase is Phase.HUNT and s == state.shooter:  # the dead Hunter, alone
            assert legal and all(isinstance(a, SHOOT) for a in legal)
            continue
        if not state.alive[s] and state.phase in (Phase.BADGE, Phase.LAST_WORDS):
            # a dead sheriff passes its badge; the dead owed last words speak, once
            assert not legal or s in (state.sheriff, *state.speakers)
            continue
        if state.is_over or not state.alive[s]:
            assert legal == ()
            continue
        if state.phase is Phase.DAY and state.rules.flow.value == "maw":
            assert legal, "a living player by a MAW day can always speak or vote"
        if state.phase is Phase.VOTE and state.votes[s] == -1 and s not in state.exposed:
            assert any(isinstance(a, Vote) for a in legal)
        for a in legal:
            if not isinstance(a, Chat):
                assert _why_illegal(state, a) is None, a


def all_targeted(state, name):
    return [k(name, t) for k in (Vote, Attack, Divine, Guard, SAVE, POISON, SHOOT)
            for t in state.names]


@pytest.mark.parametrize("name,n,options", RULESETS, ids=IDS)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_random_play_keeps_every_invariant(name, n, options, data, seed):
    rules = ruleset(name, **options)
    state = new_game(rules, [f"p{i}" for i in range(n)], random.Random(seed))
    check_invariants(state, opening_events(state))
    limit = 2 * n + 5  # the default day limit
    for _ in range(3000):
        if state.is_over:
            break
        movers = [(p, legal_actions(state, p)) for p in state.names]
        movers = [(p, acts) for p, acts in movers if acts]
        if not movers or data.draw(st.integers(0, 9), label="timer") == 0:
            action = EndPhase()
        else:
            player, acts = movers[data.draw(st.integers(0, len(movers) - 1), label="who")]
            action = acts[data.draw(st.integers(0, len(acts) - 1), label="what")]
            if isinstance(action, Chat):
                action = Chat(action.actor, action.room, "hello")
            # everything not listed is refused, everything listed is accepted
            listed = set(acts)
            for other in all_targeted(state, player):
                assert (_why_illegal(state, other) is None) == (other in listed), other
        state, events = play(state, action)
        check_invariants(state, events)
    assert state.is_over, "the game did not end within 3000 actions"
    assert state.day - rules.first_day <= limit


@pytest.mark.parametrize("name,n,options", RULESETS, ids=IDS)
@pytest.mark.parametrize("policy", ["random", "rule"])
def test_simulated_games_end_with_no_invalid_action_and_replay_identically(
        name, n, options, policy):
    rules = ruleset(name, **options)
    names = [f"p{i}" for i in range(n)]
    for seed in range(15):
        a = play_game(rules, names, policy, seed)
        assert a.invalid_actions == 0
        assert a.winner in ("village", "werewolves", None)
        assert a.days <= 12 * n
        assert a == play_game(rules, names, policy, seed)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 40), seed=st.integers(0, 2**32))
def test_maw_deals_one_third_wolves_for_any_size(n, seed):
    state = new_game(ruleset("maw"), [f"p{i}" for i in range(n)], random.Random(seed))
    assert sum(r.pack for r in state.roles) == max(1, n // 3)
    assert state.phase is Phase.DAY


def test_a_states_replace_is_namedtuples_replace():
    # (the engine's own, faster: the same new state, the same refusal of a field that
    # is not there)
    from collections import namedtuple

    from maw.engine.state import GameState

    state = new_game(ruleset("aiwolf-5"), ["A", "B", "C", "D", "E"], random.Random(1))
    plain = namedtuple("Plain", GameState._fields)(*state)
    changed = state._replace(day=3, turn=2, alive=(False,) * 5)
    assert type(changed) is GameState and state.day == 0
    assert tuple(changed) == tuple(plain._replace(day=3, turn=2, alive=(False,) * 5))
    with pytest.raises(ValueError, match="no field 'nope'"):
        state._replace(nope=1)
