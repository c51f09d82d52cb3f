"""The Hall's multi-user chat room (XEP-0045), where the XMPP server has one: ejabberd's
``mod_muc`` (the project's ejabberd.yml), at ``hall@conference.DOMAIN``; pyjabber, the
embedded server, has none, and the Hall goes on without it.

The Hall says there every change of its list (what its clients are sent), and answers
``/games`` said there with the list, so any XMPP client (Gajim, Conversations, a script)
sees the games come and go without MAW. The room is a window onto the Hall: creating,
joining and playing games stay with the Hall's own messages (``maw play``, the page).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from slixmpp import JID
from slixmpp.exceptions import IqError, IqTimeout, PresenceError

ROOM = "hall"
JOIN_SECONDS = 5.0  # a server with rooms answers at once; one without, never


def room_jid(domain: str) -> str:
    return f"{ROOM}@conference.{domain}"


async def join_room(agent, domain: str, nick: str,
                    heard: Callable[[str, str], None] | None = None) -> str | None:
    """``agent`` (a running SPADE agent) joins the Hall's room as ``nick``; ``heard`` is
    given what anyone else says there from then on (their nick, the text). The room's
    address, or ``None`` where the server has no rooms (or refused)."""
    client = agent.client
    for plugin in ("xep_0004", "xep_0045"):
        if plugin not in client.plugin:
            client.register_plugin(plugin)
    muc = client.plugin["xep_0045"]
    room = JID(room_jid(domain))
    try:
        presence, *_ = await muc.join_muc_wait(room, nick, maxstanzas=0,
                                               timeout=JOIN_SECONDS)
    except (asyncio.TimeoutError, PresenceError):
        return None
    if 201 in presence["muc"]["status_codes"]:  # (it made the room: open it at once)
        form = client.plugin["xep_0004"].make_form(ftype="submit")
        try:
            await muc.set_room_config(room, form, timeout=JOIN_SECONDS)
        except (IqError, IqTimeout):
            with contextlib.suppress(Exception):
                muc.leave_muc(room, nick)
            return None
    if heard is not None:
        def said(msg) -> None:
            who = msg["from"].resource
            if msg["from"].bare == room.bare and who != nick and msg["body"] and \
                    not msg["delay"]["stamp"]:
                heard(who, msg["body"])
        client.add_event_handler(f"muc::{room.bare}::message", said)
    return str(room.bare)


def say(agent, room: str, text: str) -> None:
    """Say ``text`` in ``room`` (joined with ``join_room``)."""
    agent.client.send_message(mto=JID(room), mbody=text, mtype="groupchat")
