"""``maw audit``: a game log checked against the rules.

The engine replays the game from the log alone: the deal from the game's seed (the
``started`` record) and each round's ruleset and options (``round``), then every action
the GameMaster accepted (``action`` records), in order. The audit finds:

* an accepted action the engine calls illegal;
* an event the engine does not produce, or produces otherwise (the log's ``event``
  records must be exactly the replay's, in order), and a logged outcome it does not reach;
* a game cut short (a round without its outcome) or never played (no round dealt);
* a message whose mere arrival or metadata tells a player what it may not know: a
  ``phase_change`` of a revote the player is not in (the pack's attack revote), or one
  whose phase, revote or options are not the rules' for it at that moment, and a public
  ``timer`` record during such a revote;
* a message to a player that its player may not see: a ``vote_cast``, ``vote_result``,
  ``kill``, ``reveal`` or ``end_game`` that no event of the moment sends to that player
  (each event's messages go to its audience only, ``maw.protocol.convert``); an
  ``assign_role`` that is not the player's own role and pack; a Hideout message to a
  player outside the pack. (The views in ``phase_change`` are left out of logs, which are
  shared; the GameMaster computes them with the engine's ``view``.)
* a narrating moderator (a roster's ``[moderator]``) told an event that is not public, or
  one not yet logged (each ``narration`` record names the round's events it tells, by
  their numbers); a ``narration`` sent to a player that is not a logged narrator's line.

Only a host's log can be audited (a player's own log has no deal).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from maw import engine
from maw.errors import IllegalActionError, MawError
from maw.records.schema import recipients

# the messages that carry an engine event's news to a player (maw.protocol.convert)
NEWS = ("vote_cast", "vote_result", "kill", "reveal", "end_game", "private_line")


def action_classes() -> dict[str, type]:
    """The players' actions (the engine's table, now) and the host's, by the name the log
    gives them."""
    return {cls.__name__: cls for cls in (
        *(spec.cls for spec in engine.ACTIONS.values()), engine.Pass, engine.OpenVotes,
        engine.EndPhase, engine.Abort)}



@dataclass(frozen=True)
class Violation:
    line: int  # 1-based line of the log
    what: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}"


@dataclass
class Audit:
    rounds: int = 0
    actions: int = 0
    events: int = 0
    messages: int = 0  # messages to players checked
    narrations: int = 0  # a narrating moderator's lines checked
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def _plain(value: Any) -> Any:
    """A value as the log holds it (JSON): enums by value, sets sorted, tuples as lists."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, frozenset):
        return sorted(_plain(v) for v in value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _fields(obj: object, logged: dict | None = None) -> dict:
    """The fields of an event as the log holds them; a field the ``logged`` record lacks
    and the event holds at its default is left out (a field added since that log was
    written: ``Revote.runoff``, ``VotesRevealed.sheriff``)."""
    from dataclasses import MISSING, fields

    return {f.name: _plain(getattr(obj, f.name)) for f in fields(obj)  # type: ignore[arg-type]
            if logged is None or f.name in logged or f.default is MISSING
            or getattr(obj, f.name) != f.default}


def _action(name: str, data: dict) -> engine.Action:
    cls = action_classes().get(name)
    if cls is None:
        raise ValueError(f"no action {name!r} in the engine")
    values = dict(data)
    if "room" in values:
        values["room"] = engine.Room(values["room"])
    return cls(**values)


def audit_records(records: list[dict]) -> Audit:
    """Check one game's log records (see the module docstring)."""
    from maw.protocol import convert
    from maw.protocol.codec import decode_body

    out = Audit()

    def bad(line: int, what: str) -> None:
        out.violations.append(Violation(line, what))

    started = next((r for r in records if r.get("kind") == "started"), None)
    if started is None:
        raise MawError("not a host's game log: it has no 'started' record (a player's own "
                       "log cannot be audited)")
    seat_of: dict[str, str] = {}  # player JID -> name
    state: engine.GameState | None = None
    round_ = 0
    expected: list[engine.Event] = []  # the replay's events not yet seen in the log
    deliveries: set[tuple[str, str]] = set()  # (player, body JSON) the events send now
    carry: dict = {}
    ended = False  # the last round dealt has its outcome
    # a step only some may know of (the pack's attack revote, a Witch's or a Hunter's
    # step): (its audience, its phase, its vote round); None while everyone may know
    hidden: tuple[frozenset[str], str, int] | None = None
    told: list[engine.Event] = []  # the round's events logged so far, in order
    narrated: set[str] = set()  # the narrator's lines logged so far
    for line, r in enumerate(records, 1):
        kind = r.get("kind")
        ended = ended or kind == "outcome"
        if kind == "join":
            seat_of[r["jid"]] = r["player"]
        elif kind == "round":
            round_ = r["round"]
            out.rounds += 1
            ended = False
            try:
                rules = engine.ruleset(r["ruleset"], **dict(r.get("options") or {}))
                names = sorted(r["roles"])
                state = engine.new_game(rules, names, random.Random(
                    f"{started['seed']}:{round_}"))
            except MawError as exc:
                bad(line, f"round {round_} cannot be dealt again: {exc}")
                state = None
                continue
            dealt = {n: role.name for n, role in zip(state.names, state.roles, strict=True)}
            if dealt != r["roles"]:
                bad(line, f"round {round_}: the seed deals {dealt}, the log says {r['roles']}")
            expected = list(engine.opening_events(state))
            deliveries, carry, told = set(), {}, []
        elif state is None:
            continue
        elif kind == "action":
            try:
                action = _action(r["action"], r["data"])
                state, events = engine.play(state, action)
            except (IllegalActionError, ValueError, TypeError) as exc:
                bad(line, f"the GameMaster accepted {r['action']} {r['data']}, which the "
                          f"rules refuse: {exc}")
                state = None
                continue
            out.actions += 1
            if expected:
                bad(line, f"{len(expected)} event(s) of the engine were not logged before "
                          f"this action: {[type(e).__name__ for e in expected]}")
            expected = list(events)
            deliveries = set()
            for e in events:
                if isinstance(e, engine.events.PhaseStarted):
                    hidden = None if e.audience is None else (e.audience, e.phase,
                                                              e.vote_round)
            for e in events:
                for name, body in convert.event_messages(e, state.day, round_, carry):
                    to = [name] if name is not None else (
                        list(state.names) if e.audience is None else sorted(e.audience))
                    for player in to:
                        deliveries.add((player, json.dumps(body.model_dump(),
                                                           sort_keys=True)))
        elif kind == "event":
            out.events += 1
            if not expected:
                bad(line, f"the engine did not produce {r['event']} {r['data']}")
                continue
            e = expected.pop(0)
            told.append(e)
            mine = {"event": type(e).__name__, "data": _fields(e, r["data"])}
            theirs = {"event": r["event"], "data": r["data"]}
            if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
                bad(line, f"the log's event {theirs} is not the engine's {mine}")
        elif kind == "outcome":
            got = engine.outcome(state)
            if got is None:
                bad(line, "the log ends the round, the rules do not")
                continue
            winner = got.winner.value if got.winner else None
            if (winner, got.termination.value, got.day) != (r["winner"], r["reason"], r["day"]):
                bad(line, f"the log's outcome ({r['winner']}, {r['reason']}, day {r['day']}) "
                          f"is not the engine's ({winner}, {got.termination.value}, day "
                          f"{got.day})")
        elif kind == "narration":
            out.narrations += 1
            narrated.add(r["text"])
            for n in r["events"]:
                if not 0 <= n < len(told):
                    bad(line, f"the narrator tells event {n} of round {round_}, which was not "
                              "logged before it")
                elif told[n].audience is not None:
                    bad(line, f"the narrator was told {type(told[n]).__name__} (event {n}), "
                              f"which only {', '.join(sorted(told[n].audience))} may know of")
        elif kind == "timer" and hidden is not None:
            # (a timer record is public: a new one in a private step tells it exists)
            bad(line, f"a timer was logged in a step only {', '.join(sorted(hidden[0]))} "
                      "may know of")
        elif kind == "msg" and any(to in seat_of for to in recipients(r)):
            body_, kind_ = r.get("body") or {}, r["type"]
            news = None  # (a piece of news as the deliveries hold it; "": undecodable)
            if kind_ in NEWS:
                try:
                    news = json.dumps(decode_body(json.dumps(body_)).model_dump(),
                                      sort_keys=True)
                except Exception:  # (not a message of this protocol: say so)
                    news = ""
            if kind_ == "narration" and body_.get("text") not in narrated:
                bad(line, "a narration was sent that no narrator's record holds")
            for player in [seat_of[to] for to in recipients(r) if to in seat_of]:
                out.messages += 1
                wrong = _told(player, kind_, body_, news, state, hidden, deliveries)
                if wrong is not None:
                    bad(line, wrong)
    if state is not None and expected:
        bad(len(records), f"{len(expected)} event(s) of the engine were never logged")
    if round_ == 0:
        bad(len(records), "no round was dealt: the lobby never filled (an abandoned game)")
    elif not ended:
        bad(len(records), f"round {round_} has no outcome: the game was cut short")
    return out


def _told(player: str, kind: str, body: dict, news: str | None, state: engine.GameState,
          hidden: tuple[frozenset[str], str, int] | None,
          deliveries: set[tuple[str, str]]) -> str | None:
    """What is wrong with ``player`` being sent a ``kind`` message of ``body`` now, if
    anything (``news``: the body of a piece of news as the deliveries hold it, "" if it
    does not decode)."""
    from maw.protocol import convert

    if news == "":
        return f"{player} was sent a {kind} that does not decode"
    if news is not None:
        if (player, news) not in deliveries:
            return f"{player} was sent {kind} {body}, which no event of the moment sends to it"
    elif kind == "assign_role":
        seat = state.seat.get(player)
        role = state.roles[seat] if seat is not None else None
        pack = sorted(state.pack) if role is not None and role.pack else []
        if role is None or body.get("role") != role.name or \
                sorted(body.get("pack") or []) != pack:
            return (f"{player} was told role {body.get('role')} and pack {body.get('pack')}; "
                    f"it is a {role.name if role else '?'}")
    elif kind == "phase_change":
        # its arrival and its metadata say what the phase is: a revote only to those who
        # may know of it, the options the rules give this player now
        private = hidden is not None and player not in hidden[0]
        told = body.get("vote_round", 0)
        if private and hidden is not None and (body.get("new_phase"), told) == (
                hidden[1], hidden[2]):
            return (f"{player} was sent a phase_change of a step it may not know of "
                    f"(vote_round {told}, {body.get('new_phase')})")
        if not private and (told, body.get("new_phase"), body.get("day")) != (
                state.vote_round, state.phase.value, state.day):
            return (f"{player} was sent a phase_change for day {body.get('day')}, "
                    f"{body.get('new_phase')}, round {told}: the game is at {state.day}, "
                    f"{state.phase.value}, round {state.vote_round}")
        offered = convert.options(engine.legal_actions(state, player))
        legal: Any = convert.compact_options(offered)
        if isinstance(body.get("options"), list):  # (an older log: the options as sent)
            legal = [o.model_dump() for o in offered]
        if not private and body.get("options") != legal:
            return f"{player} was sent options {body.get('options')}; the rules give it {legal}"
    elif kind in ("new_messages", "announce_open") and body.get("room_name") == "Hideout" \
            and player not in state.pack:
        return f"{player} is not in the pack and was sent the Hideout's {kind}"
    return None


def audit_log(path: Path) -> Audit:
    """Audit the game log at ``path``; ``ReplayError`` if it is not one."""
    from maw.records.log import read_log

    return audit_records([r.model_dump(mode="json") for r in read_log(path)])
