"""Between engine actions and views and their wire forms."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from maw import engine
from maw.protocol import messages as m

_TO_OPTION = {engine.Chat: "chat", engine.Over: "over", engine.Vote: "vote",
              engine.Unvote: "unvote", engine.Attack: "attack", engine.Divine: "divine",
              engine.Guard: "guard"}
_TARGETED = {"vote": engine.Vote, "attack": engine.Attack, "divine": engine.Divine,
             "guard": engine.Guard}


def options(legal: tuple[engine.Action, ...]) -> list[m.Option]:
    out = []
    for a in legal:
        kind = _TO_OPTION[type(a)]
        room = getattr(a, "room", None)
        out.append(m.Option(action=kind, target=getattr(a, "target", None),
                            room=room.value if room is not None else None))
    return out


def to_engine(body: m.PlayerAction, player: str, room: str | None = None) -> engine.Action:
    """The engine action for a player's message (the engine then judges it)."""
    kind = body.type
    if kind in _TARGETED:
        return _TARGETED[kind](player, body.target)  # type: ignore[union-attr]
    if kind == "unvote":
        return engine.Unvote(player)
    if kind == "chat":
        return engine.Chat(player, engine.Room(room or body.room or "Village"),
                           body.message)  # type: ignore[union-attr]
    if kind == "over":
        return engine.Over(player, engine.Room(room or "Village"))
    raise ValueError(f"{kind} is not an engine action")


def view_dict(v: engine.PlayerView) -> dict[str, Any]:
    d = {f.name: getattr(v, f.name) for f in fields(v)}
    d["known_roles"] = dict(v.known_roles)
    d["votes"] = dict(v.votes)
    return d


def option_to_engine(option: m.Option, player: str, text: str = "") -> engine.Action:
    if option.action == "chat":
        return engine.Chat(player, engine.Room(option.room), text)
    if option.action == "over":
        return engine.Over(player, engine.Room(option.room))
    if option.action == "unvote":
        return engine.Unvote(player)
    return _TARGETED[option.action](player, option.target)
