"""Between engine actions and views and their wire forms (names from the engine's table of
actions, ``maw.engine.actions.ACTIONS``)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from maw import engine
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


def to_engine(body: m.PlayerAction, player: str, room: str | None = None) -> engine.Action:
    """The engine action for a player's message (the engine then judges it)."""
    spec = ACTIONS.get(body.type)
    if spec is None:
        raise ProtocolError(f"{body.type} is not an engine action")
    if spec.target:
        return spec.cls(player, body.target)
    if spec.name == "chat":
        return engine.Chat(player, engine.Room(room or body.room or "Village"), body.message)
    if spec.room:
        return spec.cls(player, engine.Room(room or "Village"))
    return spec.cls(player)


def view_dict(v: engine.PlayerView) -> dict[str, Any]:
    d = {f.name: getattr(v, f.name) for f in fields(v)}
    d["known_roles"] = dict(v.known_roles)
    d["votes"] = dict(v.votes)
    return d


def option_to_engine(option: m.Option, player: str, text: str = "") -> engine.Action:
    spec = ACTIONS[option.action]
    if spec.name == "chat":
        return engine.Chat(player, engine.Room(option.room), text)
    if spec.room:
        return spec.cls(player, engine.Room(option.room))
    if spec.target:
        return spec.cls(player, option.target)
    return spec.cls(player)
