"""The transitions: ``new_game``, ``legal_actions``, ``apply``, ``outcome``.

Everything here is a pure function of its arguments. Chance (roles dealt, a pick among
the tied) is explicit: ``new_game`` takes a seeded ``random.Random``; a tie that the
rules settle at random leaves the state waiting for a :class:`Resolve` action, which
:func:`chance_action` draws deterministically from the game's seed (or a log supplies).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from types import MappingProxyType

from maw.engine.actions import (
    Action,
    Attack,
    Chat,
    Divine,
    EndPhase,
    Guard,
    Over,
    Resolve,
    Room,
    Unvote,
    Vote,
)
from maw.engine.events import (
    AttackBlocked,
    Chatted,
    Divined,
    Event,
    Executed,
    GameOver,
    GameStarted,
    Guarded,
    MediumResult,
    Murdered,
    NoExecution,
    NoMurder,
    Overed,
    PhaseStarted,
    Revote,
    RoleAssigned,
    RoleRevealed,
    VoteCast,
    VotesRevealed,
)
from maw.engine.roles import Ability, Role, Species, Team
from maw.engine.rulesets import Flow, Ruleset, TiePolicy, WinCondition
from maw.engine.state import (
    Death,
    GameState,
    Outcome,
    Phase,
    Result,
    Termination,
    VoteRecord,
)
from maw.errors import ConfigError, IllegalActionError

NOBODY = -1
_NEXT = {
    Flow.MAW: {Phase.DAY: Phase.NIGHT, Phase.NIGHT: Phase.DAY},
    Flow.AIWOLF: {Phase.DAY: Phase.VOTE, Phase.VOTE: Phase.WHISPER,
                  Phase.WHISPER: Phase.NIGHT, Phase.NIGHT: Phase.DAY},
}


# ---------------------------------------------------------------- setting up


def new_game(rules: Ruleset, names: Iterable[str], rng: random.Random,
             roles: Iterable[Role] | None = None) -> GameState:
    """Deal roles to ``names`` with ``rng`` and open the first phase.

    ``roles`` fixes the deal instead (seat order; it must be the ruleset's roles for that
    many players, in any order): for replaying a recorded game and for tests.

    Raises:
        ConfigError: wrong number of players for the ruleset, bad/duplicate names, or a
            fixed deal that is not the ruleset's.
    """
    names = tuple(names)
    for name in names:
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise ConfigError(f"bad player name {name!r}: names are non-empty, unpadded text")
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise ConfigError(f"player names must be unique; repeated: {', '.join(dupes)}")
    deck = list(rules.roles_for(len(names)))
    if roles is None:
        rng.shuffle(deck)
    else:
        fixed = list(roles)
        key = lambda r: r.name  # noqa: E731
        if sorted(fixed, key=key) != sorted(deck, key=key):
            raise ConfigError(
                f"roles {sorted(r.name for r in fixed)} are not those of ruleset "
                f"{rules.name!r} for {len(names)} players: {sorted(r.name for r in deck)}")
        deck = fixed
    n = len(names)
    state = GameState(
        rules=rules, names=names, seat=MappingProxyType({x: i for i, x in enumerate(names)}),
        roles=tuple(deck), pack=frozenset(x for x, r in zip(names, deck, strict=True) if r.pack),
        alive=(True,) * n, day=rules.first_day, phase=Phase.DAY,
        vote_round=0, votes=(NOBODY,) * n, spoken=(0,) * n, done=(False,) * n,
        candidates=(), pending="", deaths=(), vote_log=(), results=(),
        executed_today=NOBODY, termination=None, winner=None, seed=rng.getrandbits(64),
    )
    events: list[Event] = []
    return _enter(state, rules.first_day, Phase.DAY, events)


def opening_events(state: GameState) -> tuple[Event, ...]:
    """The events that start a game from ``new_game``'s state: roles and the first phase."""
    pack = tuple(n for n, r in zip(state.names, state.roles, strict=True) if r.pack)
    events: list[Event] = [GameStarted(state.rules.name, state.names)]
    for name, role in zip(state.names, state.roles, strict=True):
        events.append(RoleAssigned(name, role.name, pack if role.pack else (),
                                   audience=frozenset((name,))))
    events.append(PhaseStarted(state.day, state.phase.value, state.vote_round, state.living()))
    return tuple(events)


# ---------------------------------------------------------------- what may be done


def _night_active(state: GameState, s: int) -> bool:
    """Does seat ``s`` act tonight (AIWolf: no attack and no guard on the first night)?"""
    ability = state.roles[s].ability
    if ability is None or not state.alive[s]:
        return False
    if state.vote_round and ability is not Ability.ATTACK:
        return False  # an attack revote involves the wolves only
    if ability is Ability.DIVINE:
        return True
    return state.rules.flow is Flow.MAW or state.day > state.rules.first_day


def _talk_budget(state: GameState, s: int, room: Room) -> bool:
    limit = state.rules.talks_per_day if room is Room.VILLAGE else state.rules.whispers_per_day
    return not state.done[s] and (limit is None or state.spoken[s] < limit)


def _room(state: GameState) -> Room | None:
    """The room open now, if any."""
    phase, flow = state.phase, state.rules.flow
    if phase is Phase.DAY:
        return Room.VILLAGE
    if phase is Phase.WHISPER or (phase is Phase.NIGHT and flow is Flow.MAW):
        return Room.HIDEOUT
    return None


def _may_target(state: GameState, s: int, t: int, kind: type) -> bool:
    """May seat ``s`` target seat ``t`` with an action of type ``kind`` now?"""
    rules = state.rules
    if kind is Guard and rules.guard_dead:
        return t != s
    if not state.alive[t]:
        return False
    if kind is Vote:
        return t != s or rules.self_vote
    if kind is Attack:
        return rules.attack_wolves or not state.roles[t].pack
    return t != s


def _targets(state: GameState, s: int, kind: type) -> list[int]:
    return [t for t in range(len(state.alive)) if _may_target(state, s, t, kind)]


def _why_illegal(state: GameState, action: Action) -> str | None:
    """Why ``action`` may not be applied now, or ``None`` if it may."""
    actor = getattr(action, "actor", None)
    s = state.seat.get(actor) if isinstance(actor, str) else None
    if s is None:
        return f"{actor!r} is not a player in this game"
    if not state.alive[s]:
        return f"{actor} is dead"
    role, phase, flow = state.roles[s], state.phase, state.rules.flow
    kind = type(action)
    if kind is Chat or kind is Over:
        room = action.room  # type: ignore[union-attr]
        if _room(state) is not room:
            return f"the {room} is closed"
        if room is Room.HIDEOUT and not role.pack:
            return f"{actor} may not enter the Hideout"
        if kind is Over and flow is Flow.MAW:
            return "MAW has no Over: a player who has nothing to say just listens"
        if not _talk_budget(state, s, room):
            return f"{actor} has no messages left in the {room} this phase"
        if kind is Chat:
            text = action.text  # type: ignore[union-attr]
            if not isinstance(text, str) or not text.strip():
                return "a chat message needs text"
            if len(text) > state.rules.max_chat_length:
                return (f"a chat message is at most {state.rules.max_chat_length} "
                        f"characters, got {len(text)}")
        return None
    if kind is Unvote:
        if not (phase is Phase.DAY and flow is Flow.MAW):
            return "votes can be withdrawn only during a MAW day"
        if state.votes[s] == NOBODY:
            return f"{actor} has no vote to withdraw"
        return None
    if kind is Vote:
        if phase is Phase.DAY and flow is Flow.MAW:
            pass
        elif phase is Phase.VOTE:
            if state.votes[s] != NOBODY:
                return f"{actor} has already voted"
        else:
            return f"no execution vote during the {phase}"
    elif kind in (Attack, Divine, Guard):
        if phase is not Phase.NIGHT:
            return f"no {kind.__name__.lower()} during the {phase}"
        needed = {Attack: Ability.ATTACK, Divine: Ability.DIVINE, Guard: Ability.GUARD}[kind]
        if role.ability is not needed:
            return f"{actor} cannot {kind.__name__.lower()}"
        if not _night_active(state, s):
            return f"{actor} cannot {kind.__name__.lower()} tonight"
        if flow is Flow.AIWOLF and state.votes[s] != NOBODY:
            return f"{actor} has already chosen tonight"
    else:
        return f"{kind.__name__} is not a player action"
    target = action.target  # type: ignore[union-attr]
    t = state.seat.get(target) if isinstance(target, str) else None
    if t is None:
        return f"{target!r} is not a player in this game"
    if not _may_target(state, s, t, kind):
        if t == s:
            return f"{actor} may not target itself"
        if not state.alive[t]:
            return f"{target} is dead"
        return f"{target} is not a legal target"
    if flow is Flow.MAW and state.votes[s] == t:
        return f"{actor} already votes for {target}"
    return None


def legal_actions(state: GameState, player: str) -> tuple[Action, ...]:
    """Every action ``player`` may take now (chat listed once, with empty text)."""
    s = state.seat.get(player)
    if s is None or state.phase is Phase.OVER or state.pending or not state.alive[s]:
        return ()
    names, phase, flow, role = state.names, state.phase, state.rules.flow, state.roles[s]
    acts: list[Action] = []
    room = _room(state)
    if room is not None and (room is Room.VILLAGE or role.pack) and _talk_budget(state, s, room):
        acts.append(Chat(player, room))
        if flow is Flow.AIWOLF:
            acts.append(Over(player, room))
    mine = state.votes[s]
    if phase is Phase.DAY and flow is Flow.MAW:
        acts.extend(Vote(player, names[t]) for t in _targets(state, s, Vote) if t != mine)
        if mine != NOBODY:
            acts.append(Unvote(player))
    elif phase is Phase.VOTE and mine == NOBODY:
        acts.extend(Vote(player, names[t]) for t in _targets(state, s, Vote))
    elif phase is Phase.NIGHT and _night_active(state, s):
        if flow is Flow.MAW or mine == NOBODY:
            kind = {Ability.ATTACK: Attack, Ability.DIVINE: Divine, Ability.GUARD: Guard}[
                role.ability]  # type: ignore[index]
            acts.extend(kind(player, names[t]) for t in _targets(state, s, kind) if t != mine)
    return tuple(acts)


def actors(state: GameState) -> tuple[str, ...]:
    """The players who have at least one legal action now, in seat order."""
    if state.phase is Phase.OVER or state.pending:
        return ()
    names, alive, roles, phase, flow = (state.names, state.alive, state.roles, state.phase,
                                        state.rules.flow)
    seats = range(len(names))
    if phase is Phase.DAY:
        if flow is Flow.MAW:
            return state.living()
        return tuple(names[i] for i in seats if alive[i] and _talk_budget(state, i, Room.VILLAGE))
    if phase is Phase.VOTE:
        return tuple(names[i] for i in seats if alive[i] and state.votes[i] == NOBODY)
    if phase is Phase.WHISPER:
        return tuple(names[i] for i in seats
                     if alive[i] and roles[i].pack and _talk_budget(state, i, Room.HIDEOUT))
    if flow is Flow.MAW:
        return tuple(names[i] for i in seats if alive[i] and roles[i].pack)
    return tuple(names[i] for i in seats if state.votes[i] == NOBODY and _night_active(state, i))


# ---------------------------------------------------------------- transitions


def apply(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    """Apply one action; return the new state and what happened.

    Raises:
        IllegalActionError: the rules forbid ``action`` now (the message says why).
    """
    events: list[Event] = []
    kind = type(action)
    if kind is Resolve:
        return _resolve(state, action, events), tuple(events)  # type: ignore[arg-type]
    if state.phase is Phase.OVER:
        raise IllegalActionError(f"the game is over ({_where(state)})")
    if state.pending:
        raise IllegalActionError(
            f"chance must first pick among {', '.join(state.names[t] for t in state.candidates)}"
            f" ({_where(state)})")
    if kind is EndPhase:
        return _end_phase(state, events), tuple(events)
    reason = _why_illegal(state, action)
    if reason is not None:
        raise IllegalActionError(f"{reason} ({_where(state)})")
    s = state.seat[action.actor]  # type: ignore[union-attr]
    if kind is Chat or kind is Over:
        state = _talk(state, s, action, events)  # type: ignore[arg-type]
    elif kind is Unvote:
        state = state._replace(votes=_set(state.votes, s, NOBODY))
        events.append(VoteCast(state.day, "execute", state.names[s], None))
    else:
        state = _choose(state, s, state.seat[action.target], kind, events)  # type: ignore
    return state, tuple(events)


def chance_action(state: GameState) -> Resolve:
    """Chance's pick among the tied, drawn from the game's seed: replays are identical."""
    if not state.pending:
        raise IllegalActionError(f"there is nothing for chance to pick ({_where(state)})")
    rng = random.Random(f"{state.seed}:{state.day}:{state.pending}:{state.vote_round}")
    return Resolve(state.names[rng.choice(state.candidates)])


def play(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    """:func:`apply`, then let chance settle any tie it left (what a referee does)."""
    state, events = apply(state, action)
    while state.pending:
        state, more = apply(state, chance_action(state))
        events += more
    return state, events


def outcome(state: GameState) -> Outcome | None:
    """How the game ended, or ``None`` while it goes on."""
    if state.termination is None:
        return None
    return Outcome(
        winner=state.winner, termination=state.termination, day=state.day,
        roles=MappingProxyType({n: r.name for n, r in zip(state.names, state.roles,
                                                          strict=True)}),
        points=MappingProxyType(dict(_points(state))),
    )


# ---------------------------------------------------------------- internals


def _where(state: GameState) -> str:
    extra = ", revote" if state.vote_round else ""
    return f"day {state.day}, {state.phase}{extra}"


def _set(values: tuple, i: int, value: object) -> tuple:
    return values[:i] + (value,) + values[i + 1:]


def _pack(state: GameState) -> frozenset[str]:
    return state.pack


def _talk(state: GameState, s: int, action: Chat | Over, events: list[Event]) -> GameState:
    room = action.room
    audience = None if room is Room.VILLAGE else _pack(state)
    if type(action) is Chat:
        state = state._replace(spoken=_set(state.spoken, s, state.spoken[s] + 1))
        events.append(Chatted(state.day, room, state.names[s], action.text, audience))
    else:
        state = state._replace(done=_set(state.done, s, True))
        events.append(Overed(state.day, room, state.names[s], audience))
    # the talk ends by itself once nobody may speak; only this speaker's turn changed
    if state.rules.flow is Flow.AIWOLF and not _talk_budget(state, s, room):
        roles, alive = state.roles, state.alive
        if not any(_talk_budget(state, i, room) for i in range(len(alive))
                   if alive[i] and (room is Room.VILLAGE or roles[i].pack)):
            return _advance(state, events)
    return state


def _choose(state: GameState, s: int, t: int, kind: type, events: list[Event]) -> GameState:
    """Record a vote or a night choice, then end the phase if it is decided."""
    state = state._replace(votes=_set(state.votes, s, t))
    names, flow, alive = state.names, state.rules.flow, state.alive
    if kind is Vote:
        maw = flow is Flow.MAW
        events.append(VoteCast(state.day, "execute", names[s], names[t],
                               None if maw else frozenset((names[s],))))
        living = sum(alive)
        if maw:
            count = sum(1 for i, v in enumerate(state.votes) if v == t and alive[i])
            if 2 * count > living:
                events.append(_reveal_votes(state, "execute"))
                return _execute(state, t, count, events)
            return state
        if all(v != NOBODY for v, a in zip(state.votes, alive, strict=True) if a):
            return _resolve_execution(state, events)
        return state
    pack = _pack(state)
    if kind is Attack:
        events.append(VoteCast(state.day, "attack", names[s], names[t], pack))
    elif kind is Divine:
        events.append(VoteCast(state.day, "divine", names[s], names[t], frozenset((names[s],))))
    else:
        events.append(Guarded(state.day, names[s], names[t], frozenset((names[s],))))
    if flow is Flow.MAW:
        wolves = [i for i, a in enumerate(alive) if a and state.roles[i].pack]
        if all(state.votes[w] == t for w in wolves):
            return _finish_night(_close_attack_vote(state, events), t, events)
        return state
    if all(state.votes[i] != NOBODY for i in range(len(alive)) if _night_active(state, i)):
        return _resolve_night(state, events)
    return state


def _end_phase(state: GameState, events: list[Event]) -> GameState:
    phase, flow = state.phase, state.rules.flow
    if phase is Phase.VOTE or (phase is Phase.DAY and flow is Flow.MAW):
        return _resolve_execution(state, events)
    if phase is Phase.NIGHT:
        if flow is Flow.MAW:
            return _finish_night(_close_attack_vote(state, events), NOBODY, events)
        return _resolve_night(state, events)
    return _advance(state, events)


def _advance(state: GameState, events: list[Event]) -> GameState:
    nxt = _NEXT[state.rules.flow][state.phase]
    return _enter(state, state.day + (nxt is Phase.DAY), nxt, events)


def _enter(state: GameState, day: int, phase: Phase, events: list[Event]) -> GameState:
    """Open ``phase`` of ``day``, skipping phases in which nobody can do anything."""
    rules = state.rules
    while True:
        if phase is Phase.DAY and 0 < _day_limit(state) <= day - rules.first_day:
            return _finish(state._replace(day=day - 1), Termination.DAY_LIMIT, events)
        if rules.flow is not Flow.AIWOLF:
            break
        first = day == rules.first_day
        wolves = sum(1 for a, r in zip(state.alive, state.roles, strict=True) if a and r.pack)
        if (phase is Phase.DAY and first and not rules.day0_talk) or \
                (phase is Phase.VOTE and first) or (phase is Phase.WHISPER and wolves < 2):
            phase = _NEXT[rules.flow][phase]
            day += phase is Phase.DAY
            continue
        break
    n = len(state.names)
    state = state._replace(
        day=day, phase=phase, vote_round=0, votes=(NOBODY,) * n, spoken=(0,) * n,
        done=(False,) * n, executed_today=NOBODY if phase is Phase.DAY else state.executed_today,
    )
    events.append(PhaseStarted(day, phase.value, 0, state.living()))
    if phase is Phase.NIGHT:
        if rules.flow is Flow.MAW and state.executed_today != NOBODY:
            x = state.executed_today
            events.append(RoleRevealed(state.names[x], state.roles[x].name, _pack(state)))
        if rules.flow is Flow.AIWOLF and not any(_night_active(state, i) for i in range(n)):
            return _resolve_night(state, events)
    return state


def _day_limit(state: GameState) -> int:
    limit = state.rules.max_days
    return 2 * len(state.names) + 5 if limit is None else limit


def _tally(state: GameState, voters: Iterable[int], valid) -> dict[int, int]:
    tally: dict[int, int] = {}
    for i in voters:
        t = state.votes[i]
        if t != NOBODY and valid(t):
            tally[t] = tally.get(t, 0) + 1
    return tally


def _reveal_votes(state: GameState, kind: str) -> VotesRevealed:
    names, alive, roles = state.names, state.alive, state.roles
    pairs = tuple((names[i], names[t]) for i, t in enumerate(state.votes)
                  if t != NOBODY and alive[i] and (kind == "execute" or roles[i].pack))
    audience = None if kind == "execute" else _pack(state)
    return VotesRevealed(state.day, kind, state.vote_round, pairs, audience)


def _log_votes(state: GameState, kind: str) -> GameState:
    votes = state.votes
    if kind == "attack":
        votes = tuple(t if state.roles[i].pack else NOBODY for i, t in enumerate(votes))
    return state._replace(vote_log=state.vote_log + (
        VoteRecord(state.day, kind, state.vote_round, votes),))


def _close_attack_vote(state: GameState, events: list[Event]) -> GameState:
    events.append(_reveal_votes(state, "attack"))
    return _log_votes(state, "attack")


def _tie(state: GameState, kind: str, tied: list[int], policy: TiePolicy,
         events: list[Event]) -> GameState:
    """A tie: no-one, a revote, or a pick by chance."""
    if policy is TiePolicy.NONE:
        if kind == "attack":
            return _finish_night(state, NOBODY, events)
        events.append(NoExecution(state.day, "tie"))
        return _advance(state, events)
    names = tuple(state.names[t] for t in tied)
    if policy is TiePolicy.REVOTE and state.vote_round == 0:
        audience = None if kind == "execute" else _pack(state)
        n = len(state.names)
        votes = state.votes
        if kind == "attack":  # only the wolves vote again; divine and guard stand
            votes = tuple(NOBODY if state.roles[i].pack else v for i, v in enumerate(votes))
        else:
            votes = (NOBODY,) * n
        events.append(Revote(state.day, kind, names, audience))
        state = state._replace(vote_round=1, votes=votes)
        events.append(PhaseStarted(state.day, state.phase.value, 1, state.living(), names,
                                   audience))
        return state
    return state._replace(pending=kind, candidates=tuple(tied))


def _resolve_execution(state: GameState, events: list[Event]) -> GameState:
    alive = state.alive
    events.append(_reveal_votes(state, "execute"))
    state = _log_votes(state, "execute")
    tally = _tally(state, (i for i, a in enumerate(alive) if a), lambda t: alive[t])
    if not tally:
        events.append(NoExecution(state.day, "no votes"))
        return _advance(state, events)
    top = max(tally.values())
    tied = [t for t, c in tally.items() if c == top]
    if len(tied) == 1:
        return _execute(state, tied[0], top, events)
    return _tie(state, "execute", sorted(tied), state.rules.tie, events)


def _execute(state: GameState, t: int, count: int, events: list[Event]) -> GameState:
    names = state.names
    state = state._replace(
        alive=_set(state.alive, t, False), executed_today=t,
        deaths=state.deaths + (Death(state.day, t, "executed"),))
    events.append(Executed(state.day, names[t], count))
    species = state.roles[t].species.value
    for m, role in enumerate(state.roles):
        if role.medium and state.alive[m]:
            state = state._replace(results=state.results + (
                Result(state.day, "medium", m, t, species),))
            events.append(MediumResult(state.day, names[m], names[t], species,
                                       frozenset((names[m],))))
    return _check_end(state, events) or _advance(state, events)


def _resolve_night(state: GameState, events: list[Event]) -> GameState:
    roles, alive = state.roles, state.alive
    wolves = [i for i, a in enumerate(alive) if a and roles[i].pack]
    tally = _tally(state, wolves, lambda t: alive[t] and not roles[t].pack)
    state = _close_attack_vote(state, events)
    if not tally:
        return _finish_night(state, NOBODY, events)
    top = max(tally.values())
    tied = [t for t, c in tally.items() if c == top]
    if len(tied) == 1:
        return _finish_night(state, tied[0], events)
    return _tie(state, "attack", sorted(tied), state.rules.attack_tie, events)


def _finish_night(state: GameState, target: int, events: list[Event]) -> GameState:
    """Divinations, guards, then the attack; then dawn."""
    names, roles, day = state.names, state.roles, state.day
    guarded: set[int] = set()
    results = state.results
    for i, t in enumerate(state.votes):
        if t == NOBODY or not state.alive[i]:
            continue
        ability = roles[i].ability
        if ability is Ability.DIVINE:
            species = roles[t].species.value
            results += (Result(day, "divine", i, t, species),)
            events.append(Divined(day, names[i], names[t], species, frozenset((names[i],))))
        elif ability is Ability.GUARD:
            guarded.add(t)
            results += (Result(day, "guard", i, t, ""),)
    state = state._replace(results=results)
    if target == NOBODY:
        events.append(NoMurder(day))
    elif target in guarded:
        events.append(AttackBlocked(day, names[target], _pack(state)))
        events.append(NoMurder(day))
    else:
        state = state._replace(alive=_set(state.alive, target, False),
                               deaths=state.deaths + (Death(day, target, "murdered"),))
        events.append(Murdered(day, names[target]))
    return _check_end(state, events) or _advance(state, events)


def _resolve(state: GameState, action: Resolve, events: list[Event]) -> GameState:
    if not state.pending:
        raise IllegalActionError(f"there is no tie for chance to settle ({_where(state)})")
    t = state.seat.get(action.pick, NOBODY)
    if t not in state.candidates:
        tied = ", ".join(state.names[c] for c in state.candidates)
        raise IllegalActionError(
            f"{action.pick!r} is not among the tied ({tied}) ({_where(state)})")
    kind = state.pending
    state = state._replace(pending="", candidates=())
    if kind == "execute":
        count = sum(1 for i, v in enumerate(state.votes) if v == t and state.alive[i])
        return _execute(state, t, count, events)
    return _finish_night(state, t, events)


def _termination(state: GameState) -> Termination | None:
    wolves = humans = village = 0
    for a, role in zip(state.alive, state.roles, strict=True):
        if a:
            if role.species is Species.WEREWOLF:
                wolves += 1
            else:
                humans += 1
            if role.team is Team.VILLAGE:
                village += 1
    if wolves == 0:
        return Termination.WOLVES_ELIMINATED
    if state.rules.win is WinCondition.PARITY and humans <= wolves:
        return Termination.PARITY
    if village == 0:
        return Termination.VILLAGE_ELIMINATED
    return None


def _check_end(state: GameState, events: list[Event]) -> GameState | None:
    why = _termination(state)
    return None if why is None else _finish(state, why, events)


def _points(state: GameState) -> list[tuple[str, int]]:
    """Design document §1.2.4: winning wolves score the initial number of Villagers,
    winning Villagers the number of Villagers still alive; losers score nothing."""
    winner = state.winner
    village = [r.team is Team.VILLAGE for r in state.roles]
    if winner is Team.WEREWOLVES:
        score = sum(village)
    elif winner is Team.VILLAGE:
        score = sum(1 for v, a in zip(village, state.alive, strict=True) if v and a)
    else:
        score = 0
    return [(n, score if r.team is winner else 0)
            for n, r in zip(state.names, state.roles, strict=True)]


def _finish(state: GameState, why: Termination, events: list[Event]) -> GameState:
    winner = (None if why is Termination.DAY_LIMIT else
              Team.VILLAGE if why is Termination.WOLVES_ELIMINATED else Team.WEREWOLVES)
    state = state._replace(phase=Phase.OVER, termination=why, winner=winner,
                           pending="", candidates=())
    events.append(GameOver(
        state.day, winner.value if winner else None, why.value,
        tuple((n, r.name) for n, r in zip(state.names, state.roles, strict=True)),
        tuple(_points(state))))
    return state
