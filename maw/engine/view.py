"""What one player may know: the only window onto a game a player (or a prompt) gets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from maw.engine.actions import Chat, Room
from maw.engine.resolution import NOBODY, flow_of
from maw.engine.roles import Ability
from maw.engine.rules import messages_left, open_room
from maw.engine.rulesets import changed_options
from maw.engine.state import GameState, Phase


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerView:
    """One player's knowledge of the game at one moment.

    Attributes:
        player: whose view this is.
        role: the player's own role.
        team: the player's own team.
        alive: whether the player lives.
        ruleset: the ruleset's name.
        day: the current day.
        phase: the current phase ("day", "vote", "whisper", "night", "witch", "hunt",
            "over").
        vote_round: 1 during a revote, else 0.
        players: everyone, in seat order.
        living: the living, in seat order.
        deaths: (day, player, "executed" | "murdered" | "shot") for every death so far
            (a poisoning shows as a murder, but to the Witch).
        known_roles: the roles this player may know: its own; a werewolf also the pack's
            (and in MAW the roles of the executed); the roles everyone saw (a spared
            Village Idiot, a Hunter who shot, a werewolf who exploded); everyone's once
            the game is over.
        pack: the pack (werewolves) if this player belongs to it, else empty.
        room: the room this player may speak in now, if any.
        messages_left: messages this player may still send there (``None``: no limit).
        votes: the current votes this player may see, voter -> target.
        vote_history: finished votes it may see: (day, kind, round, ((voter, target), ...)).
        results: its own divinations and medium readings: (day, kind, target, species).
        winner: the winning team once the game is over ("" for a draw), else ``None``.
        votes_open: the day's execution votes are open (they open only after the talk
            under ``votes_open=talk``).
        rule_options: the ruleset's options that differ from ``ruleset``'s defaults:
            ``maw.engine.ruleset(ruleset, **dict(rule_options))`` is the game's ruleset.
        sheriff: werewolf-12: the sheriff everyone knows of ("" for none).
    """

    player: str
    role: str
    team: str
    alive: bool
    ruleset: str
    day: int
    phase: str
    vote_round: int = 0
    players: tuple[str, ...]
    living: tuple[str, ...]
    deaths: tuple[tuple[int, str, str], ...] = ()
    known_roles: Mapping[str, str] = field(default_factory=dict)
    pack: tuple[str, ...] = ()
    room: str | None = None
    messages_left: int | None = None
    votes: Mapping[str, str] = field(default_factory=dict)
    vote_history: tuple[tuple[int, str, int, tuple[tuple[str, str], ...]], ...] = ()
    results: tuple[tuple[int, str, str, str], ...] = ()
    winner: str | None = None
    votes_open: bool = True
    rule_options: tuple[tuple[str, str], ...] = ()
    sheriff: str = ""


def view(state: GameState, player: str) -> PlayerView:
    """What ``player`` may know now. Raises ``KeyError`` for a name not in the game."""
    s = state.seat[player]
    names, roles, alive = state.names, state.roles, state.alive
    me = roles[s]
    over = state.phase is Phase.OVER
    pack = tuple(n for n, r in zip(names, roles, strict=True) if r.pack) if me.pack else ()
    known = {player: me.name}
    # a spared Idiot, a Hunter who shot, a werewolf who exploded: everyone saw it
    known.update((names[i], roles[i].name) for i in state.revealed)
    if over:
        known = {n: r.name for n, r in zip(names, roles, strict=True)}
    elif me.pack:
        known.update((n, "Werewolf") for n in pack)
        if flow_of(state).wolves_learn_executed:
            known.update((names[d.seat], roles[d.seat].name) for d in state.deaths
                         if d.cause == "executed")
    votes: dict[str, str] = {}
    phase, flow = state.phase, flow_of(state)
    public = flow.public_votes(phase) and state.rules.announce_votes
    for i, t in enumerate(state.votes):
        if t == NOBODY or not alive[i]:
            continue
        if public:
            visible = True
        elif phase is Phase.NIGHT:
            visible = i == s or (me.pack and roles[i].pack)
        else:
            visible = i == s
        if visible:
            votes[names[i]] = names[t]
    history = _history(names, state.vote_log, me.pack)
    results = tuple((r.day, r.kind, names[r.target], r.species)
                    for r in state.results if r.seat == s)
    room = open_room(state)
    if phase in flow.steps:  # (a step's one speech: last words, a candidate's)
        may_speak = any(type(a) is Chat for a in flow.legal(state, s))
    else:
        may_speak = room is not None and alive[s] and (room is Room.VILLAGE or me.pack) \
            and not state.pending
    limit = state.rules.talks_per_day if room is Room.VILLAGE else state.rules.whispers_per_day
    left = messages_left(state, player) if may_speak and limit is not None else None
    return PlayerView(
        player=player, role=me.name, team=me.team.value, alive=alive[s],
        ruleset=state.rules.name, day=state.day, phase=phase.value,
        # (an attack revote is the pack's: nobody else may know that it exists)
        vote_round=state.vote_round if phase is not Phase.NIGHT or me.pack else 0,
        players=names, living=state.living(),
        # (a poisoning is a death in the night to all but the Witch who poured it)
        deaths=_deaths(names, state.deaths, Ability.POISON in me.abilities),
        known_roles=MappingProxyType(known), pack=pack,
        room=room.value if may_speak else None,  # type: ignore[union-attr]
        messages_left=left, votes=MappingProxyType(votes), vote_history=history,
        results=results,
        winner=(state.winner.value if state.winner else "") if over else None,
        votes_open=state.ballot, rule_options=changed_options(state.rules),
        sheriff=names[state.sheriff] if state.sheriff != NOBODY else "",
    )


# the last record built from a state's log for each kind of reader, (what, whose) ->
# (the log, the names, the record): every view of one state, and of the states until the
# log grows, shares it (a log grows by a new tuple, so the same object is the same log)
_LAST: dict[tuple[str, bool], tuple[tuple, tuple[str, ...], tuple]] = {}


def _history(names: tuple[str, ...], log: tuple, pack: bool
             ) -> tuple[tuple[int, str, int, tuple[tuple[str, str], ...]], ...]:
    """The past votes a player may know of, by name: the executions', and the pack's own
    attack votes for a wolf."""
    last = _LAST.get(("votes", pack))
    if last is not None and last[0] is log and last[1] is names:
        return last[2]
    history = tuple((rec.day, rec.kind, rec.vote_round, _named(names, rec.votes))
                    for rec in log if rec.kind == "execute" or pack)
    _LAST["votes", pack] = (log, names, history)
    return history


def _deaths(names: tuple[str, ...], log: tuple, poisoner: bool
            ) -> tuple[tuple[int, str, str], ...]:
    """The deaths as a player sees them, by name: a poisoning is a death in the night to
    all but the Witch who poured it."""
    last = _LAST.get(("deaths", poisoner))
    if last is not None and last[0] is log and last[1] is names:
        return last[2]
    deaths = tuple((d.day, names[d.seat], d.cause if d.cause != "poisoned" or poisoner
                    else "murdered") for d in log)
    _LAST["deaths", poisoner] = (log, names, deaths)
    return deaths


@lru_cache(maxsize=4096)
def _named(names: tuple[str, ...], votes: tuple[int, ...]) -> tuple[tuple[str, str], ...]:
    """A vote's (voter, target) names (every player's view of every past vote: once)."""
    return tuple((names[i], names[t]) for i, t in enumerate(votes) if t != NOBODY)
