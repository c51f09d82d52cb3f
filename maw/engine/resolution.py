"""The core every day shape shares: entering phases, talk, votes and night choices, ties,
executions, the night's resolution, the end of the game.

What differs between the shapes of a day (MAW's, AIWolf's) is asked of the game's
:class:`maw.engine.dayflow.DayFlow`. What each night action does is its entry in the table
of actions (``maw.engine.abilities``): the night is resolved by going through the actions
chosen, in the night's order, each by its own entry (:class:`Dawn`). Everything here is a
pure function of its arguments; ``events`` lists collect what happened.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from maw.engine.actions import (
    ACTIONS,
    SPEC_OF,
    ActionSpec,
    AnyAction,
    Chat,
    Over,
    Resolve,
    Room,
    night_spec,
)
from maw.engine.dayflow import flow_of
from maw.engine.events import (
    Acted,
    Chatted,
    Event,
    Executed,
    GameOver,
    MediumResult,
    Murdered,
    NoExecution,
    NoMurder,
    Overed,
    Passed,
    PhaseStarted,
    Revote,
    Spared,
    VoteCast,
    VotesOpened,
    VotesRevealed,
)
from maw.engine.names import (
    DAY,
    HUNT,
    NIGHT,
    OVER,
    PARITY_WIN,
    SIDE_WIN,
    VILLAGE_ROOM,
    VILLAGE_TEAM,
    VOTE,
    WEREWOLF_SPECIES,
    WITCH,
)
from maw.engine.roles import Team
from maw.engine.rulesets import TiePolicy
from maw.engine.scoring import points
from maw.engine.state import (
    Death,
    GameState,
    Phase,
    Result,
    Termination,
    VoteRecord,
    living_names,
)
from maw.errors import IllegalActionError

NOBODY = -1


def public_phase(state: GameState) -> str:
    """The phase as everyone knows it: a Witch's or a Hunter's step is known to it alone
    (werewolf-12), so to the others it is the night (or the vote) it follows."""
    if state.phase is WITCH or (state.phase is HUNT and state.resume is DAY):
        return NIGHT.value
    if state.phase is HUNT:
        return VOTE.value
    return state.phase.value


def where(state: GameState) -> str:
    # (not at night: an attack revote is the pack's, and a refusal reaches anyone)
    extra = ", revote" if state.vote_round and state.phase is not NIGHT else ""
    return f"day {state.day}, {public_phase(state)}{extra}"


# each field's place in a GameState
_FIELD: Final = {name: i for i, name in enumerate(GameState._fields)}


def changed(state: GameState, **changes: Any) -> GameState:
    """``state._replace(**changes)``, where a build compiles it: every move of every game
    makes one or more new states, and this is no Python call.

    Raises:
        ValueError: a field ``GameState`` does not have (as ``_replace`` says it).
    """
    values = list(state)
    for name, value in changes.items():
        i = _FIELD.get(name)
        if i is None:
            raise ValueError(f"GameState has no field {name!r}")
        values[i] = value
    return tuple.__new__(GameState, values)


def replaced(values: tuple, i: int, value: object) -> tuple:
    """``values`` with item ``i`` set to ``value`` (one copy, not three slices)."""
    out = list(values)
    out[i] = value
    return tuple(out)


# ---------------------------------------------------------------- who may do what


def bad_text(state: GameState, text: object, what: str = "a chat message") -> str | None:
    """Why ``text`` may not be said (a chat, a whisper), if it may not: empty, too long."""
    if not isinstance(text, str) or not text.strip():
        return f"{what} needs text"
    if len(text) > state.rules.max_chat_length:
        return f"{what} is at most {state.rules.max_chat_length} characters, got {len(text)}"
    return None


def talk_budget(state: GameState, s: int, room: Room) -> bool:
    limit = state.rules.talks_per_day if room is VILLAGE_ROOM else state.rules.whispers_per_day
    # ``done``: said Over (AIWolf); in MAW it is a pass, and a player who passed may talk
    return (not state.done[s] or not flow_of(state).over) and \
        (limit is None or state.spoken[s] < limit)


def night_abilities(state: GameState, s: int) -> frozenset[str]:
    """The abilities seat ``s`` may use tonight (one of them, once)."""
    role = state.roles[s]
    if not role.abilities or not state.alive[s]:
        return frozenset()
    abilities = _in_phase(role.abilities, state.phase, bool(state.vote_round))
    if not abilities:
        return abilities
    abilities = flow_of(state).usable_tonight(state, abilities)
    for ability, limit in role.uses:
        if ability in abilities and state.uses.get((s, ability), 0) >= limit:
            abilities = abilities - {ability}
    return abilities


@lru_cache(maxsize=256)
def _in_phase(abilities: frozenset[str], phase: Phase, revote: bool) -> frozenset[str]:
    """The ``abilities`` used in ``phase`` (a night of steps: each ability has its own);
    in an attack revote, only the collective one (it involves the wolves only)."""
    return frozenset(a for a in abilities if phase.value in night_spec(a).phases and (
        not revote or night_spec(a).night.collective))  # type: ignore[union-attr]


# ---------------------------------------------------------------- entering phases


def advance(state: GameState, events: list[Event]) -> GameState:
    nxt = flow_of(state).next_phase[state.phase]
    return enter(state, state.day + (nxt is DAY), nxt, events)


def enter(state: GameState, day: int, phase: Phase, events: list[Event]) -> GameState:
    """Open ``phase`` of ``day``, skipping phases in which nobody can do anything."""
    rules, flow = state.rules, flow_of(state)
    while True:
        if phase is DAY and 0 < day_limit(state) <= day - rules.first_day:
            return finish(changed(state, day=day - 1), Termination.DAY_LIMIT, events)
        if not flow.skips(state, day, phase):
            break
        phase = flow.next_phase[phase]
        day += phase is DAY
    n = len(state.names)
    state = changed(state,
        day=day, phase=phase, vote_round=0, votes=(NOBODY,) * n, chosen=(None,) * n,
        spoken=(0,) * n, done=(False,) * n, whispered=(0,) * n, turn=0, runoff=(),
        executed_today=NOBODY if phase is DAY else state.executed_today,
        ballot=not flow.talk_first(state, phase),
    )
    events.append(PhaseStarted(day, phase.value, 0, living_names(state.names, state.alive)))
    if phase is NIGHT:
        return flow.at_night(state, events)
    return state


def day_limit(state: GameState) -> int:
    limit = state.rules.max_days
    return 2 * len(state.names) + 5 if limit is None else limit


# ---------------------------------------------------------------- talk and choices


def cut(text: str, others: tuple[str, ...], base: int, mention: int) -> str:
    """``text`` cut as aiwolf-nlp-server cuts a line: ``base`` characters (spaces not
    counted), and what follows the first ``@Name`` of one of ``others`` ``mention`` more
    characters of its own."""
    at = min((i for i in (text.find(f"@{o}") for o in others) if i >= 0), default=-1) \
        if "@" in text else -1
    if at < 0 and len(text) <= base:  # (short: nothing to count)
        return text.rstrip()
    head, tail = (text, "") if at < 0 or not mention else (text[:at], text[at:])

    def first(part: str, n: int) -> str:
        count = 0
        for i, ch in enumerate(part):
            if not ch.isspace():
                count += 1
                if count > n:
                    return part[:i]
        return part

    head = first(head, base)
    return (head + (first(tail, mention) if len(head) == at else "")).rstrip()


def talk(state: GameState, s: int, action: Chat | Over, events: list[Event]) -> GameState:
    room = action.room
    audience = None if room is VILLAGE_ROOM else state.pack
    if type(action) is Chat:
        state = changed(state, spoken=replaced(state.spoken, s, state.spoken[s] + 1))
        text = action.text
        if state.rules.base_length:
            others = tuple(n for n in state.names if n != state.names[s])
            text = cut(text, others, state.rules.base_length, state.rules.mention_length) \
                or text[:1]
        events.append(Chatted(state.day, room, state.names[s], text, audience))
    else:
        state = changed(state, done=replaced(state.done, s, True))
        events.append(Overed(state.day, room, state.names[s], audience))
    return flow_of(state).after_talk(state, s, room, events)


def pass_turn(state: GameState, s: int, events: list[Event]) -> GameState:
    """Seat ``s`` lets its turn to speak go (``votes_open=talk``)."""
    state = changed(state, done=replaced(state.done, s, True))
    events.append(Passed(state.day, state.names[s], frozenset((state.names[s],))))
    return flow_of(state).after_talk(state, s, VILLAGE_ROOM, events)


def open_votes(state: GameState, by: str, events: list[Event]) -> GameState:
    events.append(VotesOpened(state.day, by))
    return changed(state, ballot=True)


def choose(state: GameState, s: int, t: int, action: AnyAction, events: list[Event]) -> GameState:
    """Record a vote or a night choice, then let the flow end the phase if it is decided."""
    names, flow = state.names, flow_of(state)
    spec = SPEC_OF[type(action)]
    votes = replaced(state.votes, s, t)
    if not spec.ability:  # a vote
        state = changed(state, votes=votes)
        events.append(VoteCast(state.day, "execute", names[s], names[t],
                               flow.vote_audience(names[s]) if state.rules.announce_votes
                               else frozenset((names[s],))))
        return flow.after_vote(state, t, events)
    state = changed(state, votes=votes, chosen=replaced(state.chosen, s, spec.ability))
    night = spec.night
    assert night is not None  # (a night action says how it works: register_action)
    if night.chosen is not None:
        events.append(night.chosen(state, s, t))
    else:
        events.append(Acted(state.day, names[s], spec.name, names[t], frozenset((names[s],))))
    return flow.after_night_choice(state, t, events)


# ---------------------------------------------------------------- votes and ties


def tally(state: GameState, voters: Iterable[int], valid,
          sheriff: bool = False) -> dict[int, int | float]:
    """Votes per target; with ``sheriff``, the sheriff's counts 1.5 (werewolf-12)."""
    counts: dict[int, int | float] = {}
    for i in voters:
        t = state.votes[i]
        if t != NOBODY and valid(t):
            counts[t] = counts.get(t, 0) + (1.5 if sheriff and i == state.sheriff else 1)
    return counts


def reveal_votes(state: GameState, kind: str) -> VotesRevealed:
    names, alive, roles = state.names, state.alive, state.roles
    pairs = tuple((names[i], names[t]) for i, t in enumerate(state.votes)
                  if t != NOBODY and alive[i] and (kind == "execute" or roles[i].pack))
    audience = None if kind == "execute" else state.pack
    h = state.sheriff  # (whose vote counts 1.5: the tally says so)
    sheriff = names[h] if kind == "execute" and h != NOBODY and alive[h] else ""
    return VotesRevealed(state.day, kind, state.vote_round, pairs, audience, sheriff)


def log_votes(state: GameState, kind: str) -> GameState:
    votes = state.votes
    if kind == "attack":
        votes = tuple(t if state.roles[i].pack else NOBODY for i, t in enumerate(votes))
    return changed(state, vote_log=state.vote_log + (
        VoteRecord(state.day, kind, state.vote_round, votes),))


def close_attack_vote(state: GameState, events: list[Event]) -> GameState:
    events.append(reveal_votes(state, "attack"))
    return log_votes(state, "attack")


def tie(state: GameState, kind: str, tied: list[int], policy: TiePolicy,
        events: list[Event]) -> GameState:
    """A tie: no-one, a revote (free, or a runoff between the tied alone), or a pick by
    chance. A runoff that ties again executes no-one."""
    names = tuple(state.names[t] for t in tied)
    if policy is TiePolicy.NONE or (policy is TiePolicy.RUNOFF and state.vote_round):
        if kind == "attack":
            return flow_of(state).night_decided(state, NOBODY, events)
        events.append(NoExecution(state.day, "tie", names))
        return advance(state, events)
    if policy in (TiePolicy.REVOTE, TiePolicy.RUNOFF) and state.vote_round == 0:
        audience = None if kind == "execute" else state.pack
        votes = state.votes
        if kind == "attack":  # only the wolves vote again; divine and guard stand
            votes = tuple(NOBODY if state.roles[i].pack else v for i, v in enumerate(votes))
        else:
            votes = (NOBODY,) * len(state.names)
        runoff = policy is TiePolicy.RUNOFF
        events.append(Revote(state.day, kind, names, audience, runoff=runoff))
        state = changed(state, vote_round=1, votes=votes, runoff=tuple(tied) if runoff else ())
        events.append(PhaseStarted(state.day, state.phase.value, 1, state.living(), names,
                                   audience))
        return state
    return changed(state, pending=kind, candidates=tuple(tied))


# ---------------------------------------------------------------- the day's end


def resolve_execution(state: GameState, events: list[Event]) -> GameState:
    alive = state.alive
    events.append(reveal_votes(state, "execute"))
    state = log_votes(state, "execute")
    counts = tally(state, (i for i, a in enumerate(alive) if a), lambda t: alive[t],
                   sheriff=True)
    if not counts:
        events.append(NoExecution(state.day, "no votes"))
        return advance(state, events)
    top = max(counts.values())
    tied = [t for t, c in counts.items() if c == top]
    if len(tied) == 1:
        return execute(state, tied[0], top, events)
    return tie(state, "execute", sorted(tied), state.rules.tie, events)


def execute(state: GameState, t: int, count: int | float, events: list[Event],
            drawn: tuple[str, ...] = ()) -> GameState:
    """Execute seat ``t`` (``drawn``: the tied among whom chance picked it)."""
    names = state.names
    if state.roles[t].survives_execution and t not in state.exposed:
        # the Village Idiot: revealed, alive, and without a vote from now on
        events.append(Spared(state.day, names[t], state.roles[t].name, count))
        return advance(changed(state, exposed=state.exposed | {t},
                                      revealed=state.revealed | {t}), events)
    state = changed(state,
        alive=replaced(state.alive, t, False), executed_today=t,
        deaths=state.deaths + (Death(state.day, t, "executed"),))
    events.append(Executed(state.day, names[t], count, None, drawn))
    species = state.roles[t].species.value
    for m, role in enumerate(state.roles):
        if role.medium and state.alive[m]:
            state = changed(state, results=state.results + (
                Result(state.day, "medium", m, t, species),))
            events.append(MediumResult(state.day, names[m], names[t], species,
                                       frozenset((names[m],))))
    return check_end(state, events) or flow_of(state).after_deaths(state, [t], events)


# ---------------------------------------------------------------- the night's end


def resolve_night(state: GameState, events: list[Event]) -> GameState:
    roles, alive = state.roles, state.alive
    wolves = [i for i, a in enumerate(alive) if a and roles[i].pack]
    knife = state.rules.self_knife  # (else a vote for a packmate is discarded)
    counts = tally(state, wolves, lambda t: alive[t] and (knife or not roles[t].pack))
    state = close_attack_vote(state, events)
    if not counts:
        return flow_of(state).night_decided(state, NOBODY, events)
    top = max(counts.values())
    tied = [t for t, c in counts.items() if c == top]
    if len(tied) == 1:
        return flow_of(state).night_decided(state, tied[0], events)
    return tie(state, "attack", sorted(tied), state.rules.attack_tie, events)


@dataclass
class Dawn:
    """The night being resolved, for the table's entries: each night action chosen changes
    it in its turn (``Night.resolve``), then the dying die.

    Attributes:
        state: the game (replace it to change it: a result, a use counted).
        events: what happened, in order.
        target: the pack's victim (-1: none).
        protected: seats no attack may kill tonight (a guard's).
        dying: seats that die at dawn, in order (once each).
    """

    state: GameState
    events: list[Event]
    target: int
    protected: set[int] = field(default_factory=set)
    dying: list[int] = field(default_factory=list)
    doomed: set[int] = field(default_factory=set)  # no protection saves them
    causes: dict[int, str] = field(default_factory=dict)  # a death's cause, if not murder

    def learn(self, seat: int, kind: str, target: int, value: str) -> None:
        """A private result of ``seat``'s (it shows in its view's results)."""
        s = self.state
        self.state = changed(s, results=s.results + (Result(s.day, kind, seat, target, value),))

    def kill(self, seat: int, cause: str = "murdered") -> None:
        if seat not in self.dying and self.state.alive[seat]:
            self.dying.append(seat)
            self.causes[seat] = cause


def night_order(state: GameState) -> tuple[ActionSpec, ...]:
    """The night's actions in the order they resolve: the ruleset's order by name, else
    the table's (``Night.order``). Sorted once per ruleset's order and size of the table
    (which only grows: ``register_action`` refuses to change an action)."""
    wanted = state.rules.night_order
    key = (wanted, len(ACTIONS))
    order = _NIGHT_ORDERS.get(key)
    if order is None:
        specs = [s for s in ACTIONS.values() if s.night is not None]
        if wanted:
            rank = {name: i for i, name in enumerate(wanted)}
            specs.sort(key=lambda s: (rank.get(s.name, len(rank)), s.night.order))  # type: ignore[union-attr]
        else:
            specs.sort(key=lambda s: s.night.order)  # type: ignore[union-attr]
        order = _NIGHT_ORDERS[key] = tuple(specs)
    return order


# night_order's answers: (the ruleset's order, the number of actions) -> the order
_NIGHT_ORDERS: Final[dict[tuple[tuple[str, ...], int], tuple[ActionSpec, ...]]] = {}


def resolved(state: GameState, target: int, events: list[Event]
             ) -> tuple[Dawn, list[tuple[int, str | None, int]]]:
    """The night's choices, each resolved by its table entry in the night's order (the
    pack's attack once, on ``target``), and the choices: nobody has died yet (werewolf-12
    asks it ahead, to see whom the night kills)."""
    dawn = Dawn(state, events, target)
    chosen = list(state.tonight) + [  # (a night of steps: the earlier steps' choices too)
        (i, state.chosen[i], t) for i, t in enumerate(state.votes)
        if t != NOBODY and state.alive[i] and state.chosen[i] is not None]
    for spec in night_order(state):
        night = spec.night
        assert night is not None
        if night.collective:
            night.resolve(dawn, NOBODY, target)
            continue
        for i, ability, t in chosen:
            if ability == spec.ability:
                night.resolve(dawn, i, t)
    return dawn, chosen


def finish_night(state: GameState, target: int, events: list[Event]) -> GameState:
    """Each night action chosen resolves by its table entry, in the night's order (the
    pack's attack once, on ``target``); then the dying die, and dawn comes."""
    dawn, chosen = resolved(state, target, events)
    for i, ability, _t in chosen:
        if ability is not None and state.roles[i].uses:
            dawn.state = count_use(dawn.state, i, ability)
    state = changed(dawn.state, tonight=(), victim=NOBODY, attack=NOBODY)
    day = state.day
    for seat in dawn.dying:
        state = changed(state, alive=replaced(state.alive, seat, False), deaths=state.deaths
                               + (Death(day, seat, dawn.causes.get(seat, "murdered")),))
        events.append(Murdered(day, state.names[seat]))  # (how, nobody is told)
    if not dawn.dying:
        events.append(NoMurder(day))
    return check_end(state, events) or flow_of(state).after_deaths(state, dawn.dying, events)


def count_use(state: GameState, s: int, ability: str) -> GameState:
    """One more use of a limited ability (``Role.uses``)."""
    if all(a != ability for a, _ in state.roles[s].uses):
        return state
    uses = dict(state.uses)
    uses[(s, ability)] = uses.get((s, ability), 0) + 1
    return changed(state, uses=uses)


def resolve(state: GameState, action: Resolve, events: list[Event]) -> GameState:
    if not state.pending:
        raise IllegalActionError(f"there is no tie for chance to settle ({where(state)})")
    t = state.seat.get(action.pick, NOBODY)
    if t not in state.candidates:
        tied = ", ".join(state.names[c] for c in state.candidates)
        raise IllegalActionError(
            f"{action.pick!r} is not among the tied ({tied}) ({where(state)})")
    kind = state.pending
    drawn = tuple(state.names[c] for c in state.candidates)
    state = changed(state, pending="", candidates=())
    if kind == "execute":
        count = sum(1.5 if i == state.sheriff else 1 for i, v in enumerate(state.votes)
                    if v == t and state.alive[i])
        return execute(state, t, count, events, drawn)
    return flow_of(state).night_decided(state, t, events)


# ---------------------------------------------------------------- the game's end


def termination(state: GameState) -> Termination | None:
    wolves = humans = village = 0
    for a, role in zip(state.alive, state.roles, strict=True):
        if a:
            if role.species is WEREWOLF_SPECIES:
                wolves += 1
            else:
                humans += 1
            if role.team is VILLAGE_TEAM:
                village += 1
    if wolves == 0:
        return Termination.WOLVES_ELIMINATED
    win = state.rules.win
    if win is PARITY_WIN and humans <= wolves:
        return Termination.PARITY
    if win is SIDE_WIN:
        # the werewolves win once every plain villager, or every villager with a power,
        # is dead (werewolf-12)
        plain = special = 0
        for a, role in zip(state.alive, state.roles, strict=True):
            if a and role.team is VILLAGE_TEAM and not role.pack:
                if role.power:
                    special += 1
                else:
                    plain += 1
        if plain == 0 or special == 0:
            return Termination.SIDE_ELIMINATED
    if village == 0:
        return Termination.VILLAGE_ELIMINATED
    return None


def check_end(state: GameState, events: list[Event]) -> GameState | None:
    why = termination(state)
    return None if why is None else finish(state, why, events)


def finish(state: GameState, why: Termination, events: list[Event]) -> GameState:
    winner = (None if why in (Termination.DAY_LIMIT, Termination.ABORTED) else
              Team.VILLAGE if why is Termination.WOLVES_ELIMINATED else Team.WEREWOLVES)
    state = changed(state, phase=OVER, termination=why, winner=winner,
                           pending="", candidates=())
    events.append(GameOver(
        state.day, winner.value if winner else None, why.value,
        tuple((n, r.name) for n, r in zip(state.names, state.roles, strict=True)),
        tuple(points(state))))
    return state
