"""Between engine actions and views and their wire forms (names from the engine's table of
actions, ``maw.engine.actions.ACTIONS``)."""

from __future__ import annotations

from typing import Any

from maw import engine
from maw.engine import events as ev
from maw.engine.actions import ACTIONS, SPEC_OF
from maw.errors import ProtocolError
from maw.protocol import messages as m


def options(legal: tuple[engine.Action, ...]) -> list[m.Option]:
    out = []
    for a in legal:
        room = getattr(a, "room", None)
        out.append(m.Option(action=SPEC_OF[type(a)].name, target=getattr(a, "target", None),
                            room=room.value if room is not None else None))
    return out


def compact_options(options: list[m.Option]) -> dict[str, list[str]]:
    """``options`` as a log keeps them: each action with its targets (or its room), in
    order; an action with neither, with none (``{"vote": ["Ann", "Bob"], "chat":
    ["Village"], "unvote": []}``): a tenth of the size of the options themselves."""
    out: dict[str, list[str]] = {}
    for o in options:
        where = out.setdefault(o.action, [])
        if o.target is not None or o.room is not None:
            where.append(o.target if o.target is not None else o.room)  # type: ignore[arg-type]
    return out


def to_engine(body: m.PlayerAction, player: str, room: str | None = None) -> engine.Action:
    """The engine action for a player's message (the engine then judges it)."""
    spec = ACTIONS.get(body.type)
    if spec is None:
        raise ProtocolError(f"{body.type} is not an engine action")
    if spec.target and spec.text:  # a whisper: its target and its words
        return spec.cls(player, body.target, body.message)
    if spec.target:
        return spec.cls(player, body.target)
    if spec.room:  # where it came through, or where it says, or the Village
        where = engine.Room(room or body.room or "Village")
        return spec.cls(player, where, body.message) if spec.text else spec.cls(player, where)
    return spec.cls(player)


def option_to_engine(option: m.Option, player: str, text: str = "") -> engine.Action:
    spec = ACTIONS[option.action]
    if spec.target:
        return spec.cls(player, option.target, text) if spec.text else spec.cls(
            player, option.target)
    if spec.room:
        where = engine.Room(option.room)
        return spec.cls(player, where, text) if spec.text else spec.cls(player, where)
    return spec.cls(player)


def event_messages(event: engine.Event, day: int, round_: int,
                   carry: dict[str, Any]) -> list[tuple[str | None, m.Body]]:
    """What the GameMaster sends to tell ``event``: (a player's name, or ``None`` for the
    event's own audience, body), in the order to send them. ``carry`` keeps what one event
    leaves for the next (the public votes, for the result that follows them)."""
    match event:
        case ev.Whispered():  # to its target alone (its speaker was told yes)
            return [(event.target, m.PrivateLine(day=event.day, speaker=event.speaker,
                                                 text=event.text))]
        case ev.VoteCast():
            return [(None, m.VoteCast.model_validate(event, from_attributes=True))]
        case ev.VotesRevealed() if event.audience is None:
            carry["votes"] = [tuple(v) for v in event.votes]
            return []
        case ev.Executed():
            # (the verdict everyone hears first, then the dead's own news: "Alice was
            # executed" read after "You were executed" looked like a second death)
            return [(None, m.VoteResult(day=event.day, target=event.player, status="executed",
                                        votes=carry.get("votes", []), tied=list(event.drawn),
                                        reason="chance" if event.drawn else "")),
                    (event.player, m.Kill(day=event.day, cause="executed"))]
        case ev.Murdered():
            return [(None, m.VoteResult(day=event.day, target=event.player, status="murdered")),
                    (event.player, m.Kill(day=event.day, cause="murdered"))]
        case ev.NoExecution():
            return [(None, m.VoteResult(day=event.day, target=None, status="no_execution",
                                        votes=carry.get("votes", []), reason=event.reason,
                                        tied=list(event.tied)))]
        case ev.Spared():  # the Village Idiot: executed, revealed, alive
            return [(None, m.VoteResult(day=event.day, target=event.player, status="spared",
                                        votes=carry.get("votes", []), reason=event.role))]
        case ev.Shot():
            return [(None, m.VoteResult(day=event.day, target=event.target, status="shot",
                                        by=event.hunter)),
                    (event.target, m.Kill(day=event.day, cause="shot"))]
        case ev.Ran():
            return [(None, m.VoteResult(day=event.day, target=event.player,
                                        status="withdrew" if event.withdrawn else "ran"))]
        case ev.SheriffElected():
            return [(None, m.VoteResult(day=event.day, target=event.sheriff or None,
                                        status="elected", votes=list(event.votes)))]
        case ev.BadgePassed():
            return [(None, m.VoteResult(day=event.day, target=event.target or None,
                                        status="badge", by=event.sheriff))]
        case ev.SpeakingOrder():
            return [(None, m.VoteResult(day=event.day, target=None, status="order",
                                        order=list(event.order)))]
        case ev.Exploded():
            return [(None, m.VoteResult(day=event.day, target=event.player,
                                        status="exploded")),
                    (event.player, m.Kill(day=event.day, cause="exploded"))]
        case ev.NoMurder():
            return [(None, m.VoteResult(day=event.day, target=None, status="no_murder"))]
        case ev.Revote():
            votes = carry.get("votes", []) if event.kind == "execute" else []
            return [(None, m.VoteResult(day=event.day, target=None, status="revote",
                                        tied=list(event.tied), votes=votes,
                                        reason="runoff" if event.runoff else ""))]
        case ev.RoleRevealed():
            return [(None, m.Reveal(day=day, kind="role", target=event.player,
                                    value=event.role))]
        case ev.Divined():
            return [(None, m.Reveal(day=event.day, kind="divine", target=event.target,
                                    value=event.species))]
        case ev.MediumResult():
            return [(None, m.Reveal(day=event.day, kind="medium", target=event.target,
                                    value=event.species))]
        case ev.NightResult():
            return [(None, m.Reveal(day=event.day, kind=event.action, target=event.target,
                                    value=event.value))]
        case ev.AttackBlocked():
            return [(None, m.Reveal(day=event.day, kind="blocked", target=event.target,
                                    value="guarded"))]
        case ev.GameOver():
            return [(None, m.EndGame(round=round_, winning_team=event.winner,
                                     reason=event.reason, roles=dict(event.roles),
                                     points=dict(event.points)))]
    return []
